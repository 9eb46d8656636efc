"""Reading files for the command line: one way for every command, bounded, never waiting.

Every command reads through ``decisions_input.cli.files``: regular files only, sized before
reading, a bound per kind of file from the limits table (``--max-bytes`` raises it), and
standard input held to the same bound. Folders and glob patterns that match nothing are
exit 2 with a message. The subprocess tests of the installed command are in
``test_cli_process.py``.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from decisions_input.cli import main
from decisions_input.cli.files import bounds_markdown
from decisions_input.cli.parser import size_in_bytes
from decisions_input.limits import GEMINI

ROOT = Path(__file__).resolve().parent.parent
REQUEST = ROOT / "testdata" / "requests" / "gemini-noul.json"
PARALLEL = ROOT / "testdata" / "requests" / "parallel-basic.json"
RESPONSE = ROOT / "tests" / "golden" / "inputs" / "response-good.json"
SPEC = ROOT / "testdata" / "specs" / "ticket.yaml"
JPEG = ROOT / "testdata" / "media" / "jpeg_baseline.jpg"


def run(*argv: str, stdin: object = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err, stdin=stdin)  # type: ignore[arg-type]
    return status, out.getvalue(), err.getvalue()


def _fifo(tmp: Path) -> str:
    path = tmp / "pipe.json"
    os.mkfifo(path)
    return str(path)


def _folder(tmp: Path) -> str:
    (tmp / "folder.json").mkdir()
    return str(tmp / "folder.json")


def _missing(tmp: Path) -> str:
    return str(tmp / "missing.json")


def _device(tmp: Path) -> str:
    return "/dev/zero"


# (id, makes the path, the reason in the message)
NOT_REGULAR: list[tuple[str, Callable[[Path], str], str]] = [
    ("fifo", _fifo, "it is a named pipe (FIFO), not a regular file"),
    ("folder", _folder, "it is a directory, not a regular file"),
    ("missing", _missing, "it does not exist"),
    ("dev-zero", _device, "it is a character device, not a regular file"),
]

# (id, argv with FILE where the unreadable file goes)
COMMANDS: list[tuple[str, list[str]]] = [
    ("validate", ["validate", "FILE"]),
    ("check-response", ["check-response", "FILE"]),
    ("check-response-request", ["check-response", str(RESPONSE), "--request", "FILE"]),
    ("build", ["build", "FILE"]),
    ("estimate", ["estimate", "FILE"]),
    ("estimate-spec", ["estimate", "--spec", "FILE"]),
    ("schemas-lint", ["schemas", "lint", "FILE"]),
    ("sniff", ["sniff", "FILE"]),
]


# A folder given to validate or estimate stands for its files (see below); everything else
# is refused.
_EXPANDING = ("validate", "estimate", "estimate-spec")
REFUSALS = [
    pytest.param(argv, make, why, id=f"{command}-{kind}")
    for command, argv in COMMANDS
    for kind, make, why in NOT_REGULAR
    if not (command in _EXPANDING and kind == "folder")
]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize(("argv", "make", "why"), REFUSALS)
def test_every_command_refuses_what_is_not_a_regular_file_at_once(
    tmp_path: Path, argv: list[str], make: Callable[[Path], str], why: str
) -> None:
    name = make(tmp_path)
    code, _, err = run(*[name if a == "FILE" else a for a in argv])
    assert code == 2
    assert f"decisions-input: error: cannot read {name}: {why}\n" in err
    assert "Traceback" not in err


# (id, argv, the file, its kind in the message, the bound's limit)
OVERSIZE: list[tuple[str, list[str], Path, str]] = [
    ("validate", ["validate"], REQUEST, "request"),
    ("check-response", ["check-response"], RESPONSE, "response"),
    ("build", ["build"], SPEC, "spec"),
    ("estimate", ["estimate"], REQUEST, "request"),
    ("schemas-lint", ["schemas", "lint"], REQUEST, "schema"),
]


@pytest.mark.parametrize(
    ("argv", "path", "kind"), [c[1:] for c in OVERSIZE], ids=[c[0] for c in OVERSIZE]
)
def test_a_file_over_the_bound_is_refused_unread(argv: list[str], path: Path, kind: str) -> None:
    size = path.stat().st_size
    code, _, err = run(*argv, str(path), "--max-bytes", str(size - 1))
    assert code == 2
    assert err == (
        f"decisions-input: error: cannot read {path}: {size:,} bytes, over the bound of "
        f"{size - 1:,} bytes for a {kind} file; --max-bytes raises it\n"
    )
    assert run(*argv, str(path), "--max-bytes", str(size))[0] in (0, 1)


@pytest.mark.parametrize(
    ("argv", "path", "kind"), [c[1:] for c in OVERSIZE], ids=[c[0] for c in OVERSIZE]
)
def test_standard_input_is_held_to_the_same_bound(argv: list[str], path: Path, kind: str) -> None:
    data = path.read_bytes()
    for stdin in (io.BytesIO(data), io.StringIO(data.decode())):
        code, _, err = run(*argv, "-", "--max-bytes", str(len(data) - 1), stdin=stdin)
        assert code == 2
        assert err.startswith("decisions-input: error: cannot read standard input: ")
        assert f"over the bound of {len(data) - 1:,} bytes for a {kind} file" in err


def test_media_on_standard_input_is_held_to_its_bound() -> None:
    data = JPEG.read_bytes()
    code, out, _ = run("sniff", "-", "--format", "json", stdin=io.BytesIO(data))
    assert (code, json.loads(out)[0]["mime"]) == (0, "image/jpeg")
    code, out, err = run("sniff", "-", "--max-bytes", "100", stdin=io.BytesIO(data))
    assert (code, out) == (2, "")
    assert "over the bound of 100 bytes for a media file" in err


def test_the_default_bounds_come_from_the_limits_table(monkeypatch: pytest.MonkeyPatch) -> None:
    import decisions_input.limits as limits

    monkeypatch.setattr(limits, "GEMINI", GEMINI.derive(MAX_REQUEST_FILE_BYTES=10))
    code, _, err = run("validate", str(REQUEST))
    assert code == 2
    assert "over the bound of 10 bytes for a request file" in err


# --- folders and patterns ----------------------------------------------------------------


def test_an_empty_folder_is_exit_2_with_a_message(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a request")
    code, out, err = run("validate", str(tmp_path))
    assert code == 2
    assert err == f"decisions-input: error: {tmp_path}: the folder holds no *.json files\n"
    assert out == "0 files, 0 errors, 0 warnings, 1 not checked\n"


def test_a_pattern_that_matches_nothing_is_exit_2(tmp_path: Path) -> None:
    pattern = str(tmp_path / "*.json")
    code, _, err = run("validate", pattern, str(REQUEST))
    assert code == 2
    assert err == f"decisions-input: error: {pattern}: the pattern matches no files\n"


def test_a_pattern_stands_for_the_files_it_matches(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    shutil.copy(REQUEST, tmp_path / "a" / "one.json")
    shutil.copy(PARALLEL, tmp_path / "a" / "b" / "two.json")
    (tmp_path / "a" / "b" / "three.txt").write_text("{")
    code, out, err = run("validate", str(tmp_path / "**" / "*.json"), "--format", "json")
    assert (code, err) == (0, "")
    assert json.loads(out)["files"] == 2


def test_the_projects_mixed_requests_folder_is_clean() -> None:
    code, out, err = run("validate", str(ROOT / "testdata" / "requests"))
    assert (code, err) == (0, "")
    count = len(list((ROOT / "testdata" / "requests").glob("*.json")))
    assert out == f"{count} files, 0 errors, 0 warnings\n"


def test_standard_input_named_twice_is_a_usage_error() -> None:
    assert run("schemas", "lint", "-", "-", stdin=io.StringIO("{}"))[0] == 2


# --- sizes and the README's table ---------------------------------------------------------

SIZES = [("plain", "1000", 1000), ("k", "5k", 5000), ("M", "10M", 10**7), ("G", "2G", 2 * 10**9)]
SIZES += [("underscores", "1_000", 1000), ("zero", "0", 0)]


@pytest.mark.parametrize(("text", "value"), [c[1:] for c in SIZES], ids=[c[0] for c in SIZES])
def test_sizes_parse(text: str, value: int) -> None:
    assert size_in_bytes(text) == value


@pytest.mark.parametrize("text", ["", "M", "-1", "1.5M", "10MB", "ten", "1e6"])
def test_bad_sizes_are_usage_errors(text: str) -> None:
    code, out, err = run("validate", str(REQUEST), "--max-bytes", text)
    assert (code, out) == (2, "")
    assert "expected a whole number of bytes" in err


def test_the_readme_table_of_bounds_is_the_limits_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- cli-bounds:start -->\n(.*?)<!-- cli-bounds:end -->", readme, re.S)
    assert match is not None
    assert match[1] == bounds_markdown()
