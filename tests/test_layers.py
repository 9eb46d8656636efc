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
    "textmeasure": 2,
    "request": 4,
    "responses": 4,
    "_output": 5,
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
    ("cli", "_output"),
    ("__main__", "cli"),
    ("checks", "budget"),
    ("budget", "media_checks"),
    ("budget", "sniffing"),
    ("budget", "textmeasure"),
}
HEAVY = ("magic", "PIL", "pypdf", "jsonschema", "openapi_spec_validator", "referencing", "yaml")


def _imports(path: Path) -> list[tuple[str, bool]]:
    """Return (module, at_top_level) for each package-internal and heavy import."""
    tree = ast.parse(path.read_text())
    found = []
    top = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                name = node.module or ""
                names = [name] if name else [a.name for a in node.names]
                found += [(n.split(".")[0], id(node) in top) for n in names]
            elif node.module:
                found.append((node.module.split(".")[0], id(node) in top))
        elif isinstance(node, ast.Import):
            found += [(a.name.split(".")[0], id(node) in top) for a in node.names]
    return found


MODULES = sorted(p.stem for p in PACKAGE.glob("*.py"))


@pytest.mark.parametrize("module", MODULES)
def test_imports_point_down(module: str) -> None:
    assert module in LAYERS, f"{module} has no layer; add it to LAYERS"
    for name, _ in _imports(PACKAGE / f"{module}.py"):
        if name not in LAYERS:
            continue
        if module == "__init__":
            continue
        sideways = LAYERS[name] == LAYERS[module] and (module, name) in ALLOWED_SIDEWAYS
        assert LAYERS[name] < LAYERS[module] or sideways, f"{module} imports {name}"


@pytest.mark.parametrize("module", MODULES)
def test_heavy_libraries_are_imported_lazily(module: str) -> None:
    for name, at_top in _imports(PACKAGE / f"{module}.py"):
        assert not (name in HEAVY and at_top), f"{module} imports {name} at module level"


def test_nothing_imports_cli() -> None:
    for module in MODULES:
        if module in ("cli", "__main__"):
            continue
        assert "cli" not in [n for n, _ in _imports(PACKAGE / f"{module}.py")]


def test_package_import_loads_no_heavy_library() -> None:
    code = f"import sys, decisions_input; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
