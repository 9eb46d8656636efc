"""The README's Python examples run as written, and its JSON examples validate."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import decisions_input as di
from tests.localserver import recording_server
from tests.optional import HAVE_SDK, NEEDS_SDK

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()
# The "Sending" section's recipes post requests: they run in their own test, against a
# local server, so the other examples run on their own without any network.
_SENDING = re.search(r"\n## Sending\n.*?(?=\n## )", README, re.S)
assert _SENDING is not None
SENDING_BLOCKS = re.findall(r"```python\n(.*?)```", _SENDING.group(), re.S)
# The "Many requests" recipe is a module of its own, run in tests/test_many_requests.py.
_MANY = re.search(r"\n## Many requests\n.*?(?=\n## )", README, re.S)
assert _MANY is not None
PYTHON_BLOCKS = re.findall(
    r"```python\n(.*?)```",
    README.replace(_SENDING.group(), "").replace(_MANY.group(), ""),
    re.S,
)


def test_readme_has_examples() -> None:
    assert len(PYTHON_BLOCKS) >= 3


def _run_examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    (tmp_path / "testdata").symlink_to(ROOT / "testdata")
    monkeypatch.chdir(tmp_path)
    seed = json.loads((ROOT / "testdata" / "requests" / "gemini-multiple.json").read_text())
    namespace: dict[str, Any] = {"any_body": seed, "problems": []}
    for block in PYTHON_BLOCKS:
        if HAVE_SDK or "google.genai" not in block:
            exec(compile(block, "README.md", "exec"), namespace)
    return namespace


def test_python_examples_run_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    namespace = _run_examples(tmp_path, monkeypatch)
    req = namespace["req"]
    assert json.loads((tmp_path / "request.json").read_bytes()) == req.to_dict()
    resp = namespace["resp"]
    assert resp.choice("department").winner == "billing"
    assert resp.noul("is_billing").winner is True and not resp.noul("is_billing").is_true(0.9)
    assert resp.score("severity").winner == 1 and resp.uncertain(0.7) == ("severity",)
    assert resp.input_tokens == 412 and namespace["body"] == json.loads(namespace["text"])
    assert resp.warnings == ()  # the usage adds up, within the estimate of the request
    printed = capsys.readouterr().out.splitlines()
    said = "HTTP 404 model_not_found: Model 'gemini-decision-9' is not available"
    assert [line for line in printed if line.startswith(said)]
    assert "404 model_not_found 20261112194249376584000tUELY8LN" in printed
    assert namespace["error_body"].status == 404
    est = namespace["est"]
    assert est.blocks[1].basis == "32 px x 24 px at resolution low: 280 per image, or 1 tile x 258"
    rows = [(r.modality, r.low, r.high, r.reported, r.verdict) for r in namespace["against"].rows]
    assert rows == [
        ("image", 258, 280, 280, "inside"),
        ("text", 24, 296, 132, "inside"),
        ("total", 282, 576, 412, "inside"),
    ]


def test_spec_and_request_examples_validate() -> None:
    for path in sorted((ROOT / "testdata" / "requests").glob("*.json")):
        target = "parallel" if path.name.startswith("parallel") else "gemini"
        assert di.is_valid(path.read_bytes(), target=target), path.name


# --- sending ---------------------------------------------------------------------------------


@NEEDS_SDK
def test_sending_recipes_post_the_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    namespace = _run_examples(tmp_path, monkeypatch)
    req: di.Request = namespace["req"]
    monkeypatch.setenv("GEMINI_API_KEY", "readme-key")
    first, *recipes = SENDING_BLOCKS
    exec(compile(first, "README.md", "exec"), namespace)
    assert namespace["call"].url == "https://generativelanguage.googleapis.com/v1beta/decisions"
    with recording_server(tls=True) as server:
        for name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"):
            monkeypatch.setenv(name, server.ca_file)
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.base_url)
        monkeypatch.delenv("GOOGLE_GENAI_API_VERSION", raising=False)
        # The recipes send the value the first block made, pointed at the local server.
        namespace["call"] = req.http(api_key="readme-key", base_url=server.base_url)
        for block in recipes:
            exec(compile(block, "README.md", "exec"), namespace)
    raw, sdk = server.received[:-1], server.received[-1]
    assert len(raw) == 5  # httpx, httpx async, requests, urllib3, http.client
    for got in raw:
        assert (got.path, got.body) == ("/v1beta/decisions", req.dumps().encode())
        assert got.header("x-goog-api-key") == ["readme-key"]
        assert got.header("Transfer-Encoding") == []
    assert sdk.path == "/v1beta/decisions"
    assert sdk.header("x-goog-api-key") == ["readme-key"]
    assert json.loads(sdk.body) == req.to_dict()
    assert namespace["decision"].answers["department"].choice == "billing"
    assert namespace["resp"].answers["department"].winner == "billing"


def _endpoints_table() -> str:
    lines = ["| target | `endpoint=` | base URL | key header |", "| --- | --- | --- | --- |"]
    for table in (di.GEMINI, di.PARALLEL):
        for name, endpoint in table.ENDPOINTS.items():
            default = " (default)" if name == table.DEFAULT_ENDPOINT else ""
            urls = ", ".join(f"`{url}`" for url in endpoint.base_urls)
            scheme = f"{endpoint.auth_scheme} " if endpoint.auth_scheme else ""
            lines.append(
                f"| {table.TARGET} | `{name}`{default} | {urls} | "
                f"`{endpoint.auth_header}: {scheme}KEY` |"
            )
    return "\n".join(lines) + "\n"


def test_endpoints_table_matches_the_limits() -> None:
    found = re.search(r"<!-- endpoints:start -->\n(.*?)<!-- endpoints:end -->", README, re.S)
    assert found is not None
    assert found.group(1) == _endpoints_table()


def test_editor_settings_point_at_the_exported_schemas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _run_examples(tmp_path, monkeypatch)
    settings = json.loads(re.findall(r"```json\n(.*?)```", README, re.S)[0])
    for entry in settings["json.schemas"]:
        schema = json.loads((tmp_path / entry["url"]).read_text())
        target = entry["fileMatch"][0].split("/")[1].split("-")[0]
        assert schema == di.json_schema(target)
        for path in sorted((ROOT / "testdata" / "requests").glob(f"{target}-*.json")):
            assert Draft202012Validator(schema).is_valid(json.loads(path.read_text())), path
