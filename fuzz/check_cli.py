"""Properties of the command line, run in process through ``decisions_input.cli.main``.

The input is written to a regular file and handed to one command in one output format.
Standard output and standard error are UTF-8 text streams over bytes, strict as a real
pipe is, so that a string the terminal cannot take fails here as it would there.

- ``main`` returns, never raises; the exit status is 0, 1 or 2;
- standard error holds no traceback and no "internal error";
- JSON and SARIF output is one JSON document;
- ``validate`` and ``check-response`` on a readable file exit 0 or 1, never 2, and exit 1
  exactly when the library finds an error in the same bytes.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import decisions_input as di
from decisions_input.cli import main
from fuzz.bounds import CLI_CPU_SECONDS
from fuzz.corpus import ROOT
from fuzz.probe import Failure, Probe, origin
from fuzz.verdicts import error_codes
from fuzz.watchdog import Hung

__all__ = ["COMMANDS", "FORMATS", "check_cli", "prepare"]

# Command name in a case's kind -> the argument list before the options shared below.
COMMANDS: dict[str, tuple[str, ...]] = {
    "validate": ("validate", "{file}", "--target", "{api}"),
    "stdin": ("validate", "-", "--target", "{api}"),
    "checkresponse": ("check-response", "{file}", "--target", "{api}"),
    "estimate": ("estimate", "{file}", "--target", "{api}"),
    "build": ("build", "{spec}", "-o", "{out}"),
    "sniff": ("sniff", "{file}", "--target", "{api}"),
}
FORMATS: dict[str, tuple[str, ...]] = {
    "validate": ("text", "json", "sarif", "github"),
    "stdin": ("text", "json", "sarif", "github"),
    "checkresponse": ("text", "json", "sarif", "github"),
    "estimate": ("text", "json"),
    "build": ("text", "json", "sarif", "github"),
    "sniff": ("table", "json"),
}
_DOCUMENT_FORMATS = frozenset({"json", "sarif"})
_READS_ONE_FILE = frozenset({"validate", "stdin", "checkresponse"})
_INTERNAL = re.compile(r"internal error: ?([A-Za-z_.]+)?")


def prepare(workdir: Path) -> None:
    """Lay out a work folder: ``specs/`` beside ``media/`` (the fixtures), as in testdata."""
    (workdir / "in").mkdir(parents=True, exist_ok=True)
    (workdir / "specs").mkdir(exist_ok=True)
    media = workdir / "media"
    if not media.exists():
        media.symlink_to(ROOT / "testdata" / "media", target_is_directory=True)


def _argv(command: str, fmt: str, api: str, files: dict[str, Path]) -> list[str]:
    names = {key: str(path) for key, path in files.items()} | {"api": api}
    argv = [part.format(**names) for part in COMMANDS[command]]
    if command == "checkresponse" and "request" in files:
        argv += ["--request", names["request"]]
    return [*argv, "--format", fmt]


def _files(workdir: Path, command: str, data: bytes, request: bytes | None) -> dict[str, Path]:
    files = {
        "file": workdir / "in" / "input.json",
        "spec": workdir / "specs" / "spec.yaml",
        "out": workdir / "in" / "out.json",
    }
    files["spec" if command == "build" else "file"].write_bytes(data)
    if request is not None:
        files["request"] = workdir / "in" / "request.json"
        files["request"].write_bytes(request)
    return files


def _stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="")


def _text(stream: io.TextIOWrapper) -> str:
    with contextlib.suppress(UnicodeError, ValueError):  # what could not be written is lost
        stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", "replace")


def check_cli(
    data: bytes, kind: str, api: str, workdir: Path, request: bytes | None = None
) -> list[Failure]:
    """Run one command (``kind`` is ``command.format``) on the input and check the run."""
    probe = Probe()
    command, fmt = kind.split(".", 1)
    files = _files(workdir, command, data, request)
    argv = _argv(command, fmt, api, files)
    out, err = _stream(), _stream()
    stdin = io.BytesIO(data)
    start = time.process_time()
    try:
        status: Any = main(argv, stdout=out, stderr=err, stdin=stdin)
    except Hung:
        raise  # the case's deadline, not the command's failure
    except BaseException as exc:  # main promises never to raise, SystemExit included
        probe.fail("cli-raised", f"{kind}: {type(exc).__name__}: {exc}", origin(exc))
        return probe.failures
    probe.slowest = (time.process_time() - start, command)
    stdout, stderr = _text(out), _text(err)
    _check_run(probe, kind, status, stdout, stderr)
    if status in (0, 1) and fmt in _DOCUMENT_FORMATS:
        _check_document(probe, kind, stdout)
    if command in _READS_ONE_FILE:
        _check_verdict(probe, kind, status, stderr, _library_errors(command, api, data, request))
    probe.check_time(CLI_CPU_SECONDS, kind)
    return probe.failures


def _check_run(probe: Probe, kind: str, status: object, stdout: str, stderr: str) -> None:
    if status not in (0, 1, 2):
        probe.fail("cli-exit", f"{kind}: exit status {status!r}", kind)
    if "Traceback (most recent call last)" in stderr:
        probe.fail("cli-traceback", f"{kind}: {stderr[-300:]}", kind)
    found = _INTERNAL.search(stderr)
    if found:
        line = stderr[found.start() :].splitlines()[0]
        # The exception names the failure; the command and format that met it vary.
        probe.fail("cli-internal", f"{kind}: {line}", str(found.group(1)))


def _check_document(probe: Probe, kind: str, stdout: str) -> None:
    try:
        json.loads(stdout)
    except ValueError as exc:
        probe.fail("cli-output", f"{kind}: the output is not one JSON document: {exc}", kind)


def _library_errors(
    command: str, api: str, data: bytes, request: bytes | None
) -> frozenset[str] | None:
    """The error codes the library finds in the bytes the command read, or None if it failed."""
    try:
        problems: Sequence[di.Problem]
        if command == "checkresponse":
            expected = json.loads(request) if request is not None else None
            problems = list(di.iter_response_problems(data, request=expected, target=api))
        else:
            problems = list(di.iter_problems(data, target=api))
    except Exception:  # the library's own properties are checked by the other targets
        return None
    return error_codes(problems)


def _check_verdict(
    probe: Probe, kind: str, status: object, stderr: str, errors: frozenset[str] | None
) -> None:
    if errors is None or _INTERNAL.search(stderr):
        return  # a failure of the library, or of the command told already
    if status == 2:
        line = (stderr.strip().splitlines() or [""])[0]
        probe.fail("cli-refused-file", f"{kind}: exit 2 on a regular file: {line}", kind)
        return
    if status in (0, 1) and (status == 1) != bool(errors):
        codes = ",".join(sorted(errors)) or "none"
        probe.fail("cli-verdict", f"{kind}: exit {status}, library errors {codes}", kind)
