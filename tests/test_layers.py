"""Imports point down the layers; heavy libraries load on first use only."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "decisions_input"

LAYERS = {
    "errors": 0,
    "_streams": 0,
    "_types": 0,
    "_schemas": 0,  # data files only
    "limits": 1,
    "schemas": 1,
    "jsontext": 2,
    "sources": 2,
    "sniffing": 2,
    "checks": 2,
    "media_checks": 2,
    "blocks": 3,
    "questions": 3,
    "validate": 3,
    "schema_export": 3,
    "budget": 2,
    "reported_usage": 3,
    "sending": 2,
    "textmeasure": 2,
    "request": 4,
    "responses": 4,
    "cli": 5,
    "__main__": 5,
    "__init__": 6,
}
# Modules of a package split by one axis: each may import those before it.
PACKAGE_ORDER = {
    "responses": (
        "_common",
        "_frozen",
        "reading",
        "context",
        "models",
        "signals",
        "shapes",
        "building",
        "walk",
        "invariants",
        "error_bodies",
        "parsing",
        "__init__",
    ),
}
# Same-layer imports that the architecture allows.
ALLOWED_SIDEWAYS = {
    ("questions", "blocks"),
    ("media_checks", "sources"),
    ("media_checks", "sniffing"),
    ("checks", "media_checks"),
    ("__main__", "cli"),
    ("checks", "budget"),
    ("budget", "media_checks"),
    ("budget", "sniffing"),
    ("budget", "textmeasure"),
}
HEAVY = ("magic", "PIL", "pypdf", "jsonschema", "openapi_spec_validator", "referencing", "yaml")


def _module_name(path: Path) -> str:
    """``checks`` for checks.py, ``responses.walk`` for responses/walk.py."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts)


def _path(module: str) -> Path:
    return PACKAGE.joinpath(*module.split(".")).with_suffix(".py")


def _relative(module: str, node: ast.ImportFrom) -> list[str]:
    """Dotted names (within the package) that a relative import names."""
    base = module.split(".")[: -node.level]
    if node.module:
        return [".".join([*base, node.module])]
    return [".".join([*base, a.name]) for a in node.names]


def _imports(module: str) -> list[tuple[str, bool]]:
    """Return (module, at_top_level) for each package-internal and heavy import.

    A package-internal name is dotted within the package (``responses.walk``); others are
    the top-level name of what is imported.
    """
    tree = ast.parse(_path(module).read_text())
    found = []
    top = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                found += [(n, id(node) in top) for n in _relative(module, node)]
            elif node.module:
                found.append((node.module.split(".")[0], id(node) in top))
        elif isinstance(node, ast.Import):
            found += [(a.name.split(".")[0], id(node) in top) for a in node.names]
    return found


def _layer_of(module: str) -> str:
    """The layer name of a module: a package's modules share the package's layer."""
    return module.split(".")[0]


MODULES = sorted(_module_name(p) for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("module", MODULES)
def test_imports_point_down(module: str) -> None:
    layer = _layer_of(module)
    assert layer in LAYERS, f"{module} has no layer; add it to LAYERS"
    for name, _ in _imports(module):
        if module == "__init__":
            continue
        package, _, inner = name.partition(".")
        if package == layer and "." in module:
            if layer not in PACKAGE_ORDER:  # a package whose modules share one layer freely
                continue
            order = PACKAGE_ORDER[layer]
            here = module.split(".")[1]
            assert order.index(inner) < order.index(here), f"{module} imports {name}"
            continue
        if package not in LAYERS:
            continue
        sideways = LAYERS[package] == LAYERS[layer] and (layer, package) in ALLOWED_SIDEWAYS
        assert LAYERS[package] < LAYERS[layer] or sideways, f"{module} imports {name}"


@pytest.mark.parametrize("module", MODULES)
def test_heavy_libraries_are_imported_lazily(module: str) -> None:
    for name, at_top in _imports(module):
        assert not (name in HEAVY and at_top), f"{module} imports {name} at module level"


def test_nothing_imports_cli() -> None:
    for module in MODULES:
        if _layer_of(module) in ("cli", "__main__"):
            continue
        assert "cli" not in [n.split(".")[0] for n, _ in _imports(module)], module


# Loaded on first use of what needs them: pydantic by the response models.
NOT_AT_IMPORT = (*HEAVY, "pydantic")


def test_package_import_loads_no_heavy_library() -> None:
    code = (
        "import sys, decisions_input; "
        f"print(sorted(m for m in {NOT_AT_IMPORT!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
