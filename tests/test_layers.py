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
    "budget": 2,
    "request": 4,
    "responses": 4,
    "cli": 5,
    "__main__": 5,
    "__init__": 6,
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
}
HEAVY = ("magic", "PIL", "pypdf", "jsonschema", "openapi_spec_validator", "referencing", "yaml")


def _module_parts(path: Path) -> tuple[list[str], list[str]]:
    """(module, package) name parts below ``decisions_input`` for a source file."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        return parts[:-1], parts[:-1]
    return parts, parts[:-1]


def _imports(path: Path) -> list[tuple[str, bool]]:
    """Return (top-level module, at_top_level) for each package-internal and heavy import.

    A module of a subpackage (``cli/formats.py``) is named by its subpackage (``cli``);
    relative imports are resolved against the package the file is in.
    """
    tree = ast.parse(path.read_text())
    _, package = _module_parts(path)
    found = []
    top = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level >= 1:
                base = package[: len(package) - (node.level - 1)]
                if node.module:
                    targets = [[*base, *node.module.split(".")]]
                else:
                    targets = [[*base, a.name] for a in node.names]
                found += [(t[0], id(node) in top) for t in targets]
            elif node.module:
                found.append((node.module.split(".")[0], id(node) in top))
        elif isinstance(node, ast.Import):
            found += [(a.name.split(".")[0], id(node) in top) for a in node.names]
    return found


FILES = sorted(PACKAGE.rglob("*.py"))
IDS = [str(p.relative_to(PACKAGE)) for p in FILES]


def _layer_name(path: Path) -> str:
    return _module_parts(path)[0][0]


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_imports_point_down(path: Path) -> None:
    module = _layer_name(path)
    assert module in LAYERS, f"{module} has no layer; add it to LAYERS"
    for name, _ in _imports(path):
        if name not in LAYERS or name == module:  # a subpackage's own modules
            continue
        if module == "__init__":
            continue
        sideways = LAYERS[name] == LAYERS[module] and (module, name) in ALLOWED_SIDEWAYS
        assert LAYERS[name] < LAYERS[module] or sideways, f"{module} imports {name}"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_heavy_libraries_are_imported_lazily(path: Path) -> None:
    for name, at_top in _imports(path):
        assert not (name in HEAVY and at_top), f"{path.name} imports {name} at module level"


def test_nothing_imports_cli() -> None:
    for path in FILES:
        if _layer_name(path) in ("cli", "__main__"):
            continue
        assert "cli" not in [n for n, _ in _imports(path)], path


def test_package_import_loads_no_heavy_library() -> None:
    code = f"import sys, decisions_input; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
