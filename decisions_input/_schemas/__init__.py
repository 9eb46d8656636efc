"""Bundled schema documents, read through importlib.resources by decisions_input.schemas.

Each file here is a symbolic link to the same file in the repository's top-level
``schemas/`` folder, which is the source; building the wheel or the sdist copies the files
themselves. A test keeps the links and the folder in step.
"""
