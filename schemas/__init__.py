"""Bundled schema documents, read through importlib.resources by decisions_input.schemas."""
