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
    "_pickling": 0,
    "_schemas": 0,  # data files only
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
# Layers inside a package split by one axis: a module imports only modules of lower layers
# of its package. A package not listed here (cli) lets its modules import each other.
# sniffing: the shared helpers at the bottom (base, then the readers of parts several
# families share: boxes, frame headers, PDF objects), one module per family above them, the
# registry choosing among the families, the package's public names on top (HEIF, movies and
# FLAC sit below the families whose files hold them: ISO BMFF, and ID3-tagged audio).
# responses: one line, each module above the ones before it.
_RESPONSES_ORDER = (
    "_common",
    "_frozen",
    "reading",
    "context",
    "models",
    "signals",
    "shapes",
    "building",
    "walk",
    "usage",
    "invariants",
    "error_bodies",
    "parsing",
    "__init__",
)
SUBLAYERS = {
    "sniffing": {
        "base": 0,
        "names": 1,
        "boxes": 1,
        "frames": 1,
        "pdf_syntax": 1,
        "movie": 2,
        "heif": 2,
        "ogg": 2,
        "pdf_objects": 2,
        "asf": 3,
        "ebml": 3,
        "flv": 3,
        "images": 3,
        "isobmff": 3,
        "mpeg_audio": 3,
        "mpeg_streams": 3,
        "others": 3,
        "pdf": 3,
        "riff": 3,
        "registry": 4,
        "__init__": 5,
    },
    "responses": {name: layer for layer, name in enumerate(_RESPONSES_ORDER)},
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
            if layer not in SUBLAYERS:  # a package whose modules share one layer freely
                continue
            inner_layers = SUBLAYERS[layer]
            here = module.split(".")[1]
            assert here in inner_layers, f"{module} has no layer; add it to SUBLAYERS"
            assert inner_layers[inner] < inner_layers[here], f"{module} imports {name}"
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
