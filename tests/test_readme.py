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


def test_python_examples_run_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "testdata").symlink_to(ROOT / "testdata")
    monkeypatch.chdir(tmp_path)
    seed = json.loads((ROOT / "testdata" / "requests" / "gemini-multiple.json").read_text())
    namespace: dict[str, Any] = {"any_body": seed, "problems": []}
    for block in PYTHON_BLOCKS:
        exec(compile(block, "README.md", "exec"), namespace)
    req = namespace["req"]
    assert json.loads((tmp_path / "request.json").read_bytes()) == req.to_dict()
    resp = namespace["resp"]
    assert resp.choice("department").winner == "billing"
    assert resp.noul("is_billing").winner is True and not resp.noul("is_billing").is_true(0.9)
    assert resp.score("severity").winner == 1 and resp.uncertain(0.7) == ("severity",)
    assert resp.input_tokens == 412 and namespace["body"] == json.loads(namespace["text"])
    printed = capsys.readouterr().out.splitlines()
    said = "HTTP 404 model_not_found: Model 'gemini-decision-9' is not available"
    assert [line for line in printed if line.startswith(said)]
    assert "404 model_not_found 20261112194249376584000tUELY8LN" in printed
    assert namespace["error_body"].status == 404
    est = namespace["est"]
    assert est.blocks[1].basis == "32 px x 24 px at resolution low: 280 per image, or 1 tile x 258"


def test_spec_and_request_examples_validate() -> None:
    for path in sorted((ROOT / "testdata" / "requests").glob("*.json")):
        target = "parallel" if path.name.startswith("parallel") else "gemini"
        assert di.is_valid(path.read_bytes(), target=target), path.name
