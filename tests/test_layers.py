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
}
HEAVY = ("magic", "PIL", "pypdf", "jsonschema", "openapi_spec_validator", "referencing", "yaml")


# Layers inside a package split by one axis: the shared helpers at the bottom (base, then
# the readers of parts several families share: boxes, frame headers, PDF objects), one
# module per family above them, the registry choosing among the families, the package's
# public names on top. A module imports only the layers below its own (HEIF, movies and
# FLAC sit below the families whose files hold them: ISO BMFF, and ID3-tagged audio).
SUBLAYERS = {
    "sniffing": {
        "base": 0,
        "names": 1,
        "boxes": 1,
        "frames": 1,
        "pdf_objects": 1,
        "movie": 2,
        "asf": 3,
        "ebml": 3,
        "flv": 3,
        "heif": 2,
        "images": 3,
        "isobmff": 3,
        "mpeg_audio": 3,
        "mpeg_streams": 3,
        "ogg": 2,
        "others": 3,
        "pdf": 3,
        "riff": 3,
        "registry": 4,
        "__init__": 5,
    },
}


def _module_files() -> dict[str, Path]:
    """Every module of the package by dotted name: ``cli``, ``sniffing``, ``sniffing.base``."""
    found = {p.stem: p for p in PACKAGE.glob("*.py")}
    for init in PACKAGE.glob("*/__init__.py"):
        package = init.parent.name
        found[package] = init
        for path in init.parent.glob("*.py"):
            if path.stem != "__init__":
                found[f"{package}.{path.stem}"] = path
    return found


FILES = _module_files()


def _imports(module: str) -> list[tuple[str, bool]]:
    """Return (module, at_top_level) for each package-internal and heavy import.

    Package-internal modules are given by dotted name (``sniffing.base``); heavy
    libraries by their top-level name.
    """
    path = FILES[module]
    package = "" if path.parent == PACKAGE else path.parent.name
    tree = ast.parse(path.read_text())
    found = []
    top = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package if node.level == 1 else ""
                name = node.module or ""
                names = [name] if name else [a.name for a in node.names]
                for n in names:
                    dotted = f"{base}.{n}" if base else n
                    found.append((_known(dotted), id(node) in top))
            elif node.module:
                found.append((node.module.split(".")[0], id(node) in top))
        elif isinstance(node, ast.Import):
            found += [(a.name.split(".")[0], id(node) in top) for a in node.names]
    return found


def _known(dotted: str) -> str:
    """The longest prefix of ``dotted`` that names a module of the package."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in FILES:
            return ".".join(parts[:end])
    return parts[0]


def _allowed(module: str, name: str) -> bool:
    """Whether ``module`` may import ``name``: down the layers, or a listed sideways pair."""
    top, sub = module.split(".")[0], name.split(".")[0]
    if top == sub and top in SUBLAYERS:
        inner = SUBLAYERS[top]
        here = inner[module.partition(".")[2] or "__init__"]
        there = inner[name.partition(".")[2] or "__init__"]
        return there < here
    if module == "__init__" or sub not in LAYERS:
        return True
    sideways = LAYERS[sub] == LAYERS[top] and (top, sub) in ALLOWED_SIDEWAYS
    return LAYERS[sub] < LAYERS[top] or sideways


MODULES = sorted(FILES)


@pytest.mark.parametrize("module", MODULES)
def test_imports_point_down(module: str) -> None:
    top = module.split(".")[0]
    assert top in LAYERS, f"{module} has no layer; add it to LAYERS"
    if top in SUBLAYERS:
        assert (module.partition(".")[2] or "__init__") in SUBLAYERS[top], f"{module}: SUBLAYERS"
    for name, _ in _imports(module):
        assert _allowed(module, name), f"{module} imports {name}"


@pytest.mark.parametrize("module", MODULES)
def test_heavy_libraries_are_imported_lazily(module: str) -> None:
    for name, at_top in _imports(module):
        assert not (name in HEAVY and at_top), f"{module} imports {name} at module level"


def test_nothing_imports_cli() -> None:
    for module in MODULES:
        if module in ("cli", "__main__"):
            continue
        assert "cli" not in [n.split(".")[0] for n, _ in _imports(module)]


def test_package_import_loads_no_heavy_library() -> None:
    code = f"import sys, decisions_input; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
