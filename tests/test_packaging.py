"""Packaging: metadata a user trusts, one version, the bundled schemas, short reprs."""

from __future__ import annotations

import importlib.metadata
import pydoc
import re
from pathlib import Path

import pytest

import decisions_input as di
from decisions_input import limits, sniffing, sources

ROOT = Path(__file__).parent.parent
SCHEMA_SOURCES = ROOT / "schemas"
BUNDLED = ROOT / "decisions_input" / "_schemas"


def test_version_is_defined_once() -> None:
    assert importlib.metadata.version("decisions-input") == di.__version__
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^version\s*=\s*"', pyproject, re.M) is None  # no literal version
    assert 'dynamic = ["version"]' in pyproject


def test_metadata_names_the_license_and_typing() -> None:
    meta = importlib.metadata.metadata("decisions-input")
    assert meta["License-Expression"] == "MIT"
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # SPDX says it
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_bundled_schemas_are_the_sources() -> None:
    sources_ = sorted(p.name for p in SCHEMA_SOURCES.glob("*.json"))
    bundled = sorted(p.name for p in BUNDLED.glob("*.json"))
    assert bundled == sources_
    for name in sources_:
        link = BUNDLED / name
        if link.is_symlink():  # a checkout; an sdist holds the files themselves
            assert link.resolve() == (SCHEMA_SOURCES / name).resolve()
        assert link.read_bytes() == (SCHEMA_SOURCES / name).read_bytes()


def test_py_typed_is_shipped() -> None:
    assert (ROOT / "decisions_input" / "py.typed").is_file()


# (id, table, expected repr)
REPRS = [
    ("gemini", di.GEMINI, "GEMINI"),
    ("parallel", di.PARALLEL, "PARALLEL"),
    ("derived-equal", di.GEMINI.derive(), "GEMINI"),
    (
        "derived",
        di.GEMINI.derive(MAX_OPTIONS=10, MODELS=frozenset({"m"})),
        "<Limits gemini, derived: MODELS, MAX_OPTIONS>",
    ),
]


@pytest.mark.parametrize(("table", "expected"), [r[1:] for r in REPRS], ids=[r[0] for r in REPRS])
def test_limits_repr_is_short(table: limits.Limits, expected: str) -> None:
    assert repr(table) == expected


def test_help_of_a_builder_fits_a_screen() -> None:
    text = pydoc.render_doc(di.image, renderer=pydoc.plaintext)
    assert "limits: 'Limits' = GEMINI" in text
    assert len(text.splitlines()) < 20


# (public name, where it is defined)
EXPORTS = [
    ("Detected", sniffing.Detected),
    ("RemoteCheck", sources.RemoteCheck),
    ("RemoteError", sources.RemoteError),
    ("RemoteHead", sources.RemoteHead),
    ("SourceTooLarge", sources.SourceTooLarge),
    ("Endpoint", limits.Endpoint),
]


@pytest.mark.parametrize(("name", "value"), EXPORTS, ids=[e[0] for e in EXPORTS])
def test_types_users_need_are_exported(name: str, value: object) -> None:
    assert getattr(di, name) is value
    assert name in di.__all__
