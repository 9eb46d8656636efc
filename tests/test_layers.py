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
    "_unicode": 0,
    "limits": 1,
    "schemas": 1,
    "jsontext": 2,
    "sources": 2,
    "sniffing": 2,
    "checks": 2,
    "json_checks": 2,
    "question_checks": 2,
    "media_checks": 2,
    "blocks": 3,
    "questions": 3,
    "validate": 3,
    "budget": 2,
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
    ("checks", "json_checks"),
    ("checks", "question_checks"),
    ("question_checks", "json_checks"),
    ("question_checks", "budget"),
    ("cli", "_output"),
    ("__main__", "cli"),
    ("checks", "budget"),
    ("budget", "media_checks"),
    ("budget", "sniffing"),
}
HEAVY = ("magic", "PIL", "pypdf", "jsonschema", "openapi_spec_validator", "referencing", "yaml")


def _imports(module: str) -> list[tuple[str, bool]]:
    """Return (module, at_top_level) for each package-internal and heavy import of ``module``.

    A module of a subpackage is named ``package.module``; an import of a sibling in the same
    subpackage is named the same way, an import of anything else by its top-level name.
    """
    parts = module.split(".")
    if PACKAGE.joinpath(*parts).is_dir():
        parts = [*parts, "__init__"]
    path = PACKAGE.joinpath(*parts[:-1], f"{parts[-1]}.py")
    tree = ast.parse(path.read_text())
    found = []
    top = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = parts[: len(parts) - node.level]
                name = node.module or ""
                names = [name] if name else [a.name for a in node.names]
                found += [(_internal([*base, *n.split(".")]), id(node) in top) for n in names]
            elif node.module:
                found.append((node.module.split(".")[0], id(node) in top))
        elif isinstance(node, ast.Import):
            found += [(a.name.split(".")[0], id(node) in top) for a in node.names]
    return found


def _internal(parts: list[str]) -> str:
    """Name an imported package module: ``package.module`` inside a subpackage, else the top."""
    if len(parts) > 1 and (PACKAGE / parts[0]).is_dir():
        return ".".join(parts[:2])
    return parts[0]


def _layer(module: str) -> int:
    return LAYERS[module.split(".")[0]]


def _modules() -> list[str]:
    found = [p.stem for p in PACKAGE.glob("*.py")]
    for init in PACKAGE.glob("*/__init__.py"):
        found.append(init.parent.name)
        found += [f"{init.parent.name}.{p.stem}" for p in init.parent.glob("*.py")]
    return sorted(m for m in found if not m.endswith(".__init__"))


MODULES = _modules()


@pytest.mark.parametrize("module", MODULES)
def test_imports_point_down(module: str) -> None:
    top = module.split(".")[0]
    assert top in LAYERS, f"{module} has no layer; add it to LAYERS"
    for name, _ in _imports(module):
        if name.split(".")[0] not in LAYERS or module == "__init__":
            continue
        if name.split(".")[0] == top and "." in name:
            continue  # a sibling in the same subpackage
        sideways = _layer(name) == _layer(module) and (top, name) in ALLOWED_SIDEWAYS
        assert _layer(name) < _layer(module) or sideways, f"{module} imports {name}"


@pytest.mark.parametrize("module", MODULES)
def test_heavy_libraries_are_imported_lazily(module: str) -> None:
    for name, at_top in _imports(module):
        assert not (name in HEAVY and at_top), f"{module} imports {name} at module level"


def test_nothing_imports_cli() -> None:
    for module in MODULES:
        if module in ("cli", "__main__"):
            continue
        assert "cli" not in [n for n, _ in _imports(module)]


def test_package_import_loads_no_heavy_library() -> None:
    code = f"import sys, decisions_input; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
