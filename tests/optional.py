"""Test dependencies that are not on every Python the package supports."""

from __future__ import annotations

import importlib.util

import pytest

__all__ = ["HAVE_SDK", "NEEDS_SDK"]


def _have_sdk() -> bool:
    try:
        return importlib.util.find_spec("google.genai") is not None
    except ModuleNotFoundError:
        return False


# Google's SDK with Decisions needs Python 3.11; on 3.10 what uses it is left out.
HAVE_SDK = _have_sdk()
NEEDS_SDK = pytest.mark.skipif(not HAVE_SDK, reason="google-genai with Decisions needs Python 3.11")
