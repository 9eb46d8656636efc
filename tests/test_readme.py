"""The README's Python examples run as written, and its JSON examples validate."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import decisions_input as di

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


def test_readme_has_examples() -> None:
    assert len(PYTHON_BLOCKS) >= 3


def test_python_examples_run_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "testdata").symlink_to(ROOT / "testdata")
    monkeypatch.chdir(tmp_path)
    seed = json.loads((ROOT / "testdata" / "requests" / "gemini-multiple.json").read_text())
    namespace: dict[str, Any] = {"any_body": seed, "problems": []}
    for block in PYTHON_BLOCKS:
        exec(compile(block, "README.md", "exec"), namespace)
    req = namespace["req"]
    assert json.loads((tmp_path / "request.json").read_bytes()) == req.to_dict()
    est = namespace["est"]
    assert est.blocks[1].basis == "32 px x 24 px at resolution low: 280 per image, or 1 tile x 258"


def test_spec_and_request_examples_validate() -> None:
    for path in sorted((ROOT / "testdata" / "requests").glob("*.json")):
        target = "parallel" if path.name.startswith("parallel") else "gemini"
        assert di.is_valid(path.read_bytes(), target=target), path.name
