"""One entry point for every property: check a case of any target, under a CPU deadline."""

from __future__ import annotations

import tempfile
from pathlib import Path

from fuzz.bounds import HANG_CPU_SECONDS
from fuzz.calls import decode_call
from fuzz.cases import Case
from fuzz.check_builders import check_builder
from fuzz.check_cli import check_cli, prepare
from fuzz.check_media import check_media
from fuzz.check_requests import check_request
from fuzz.check_responses import check_response
from fuzz.probe import Failure, origin
from fuzz.watchdog import Hung, cpu_deadline

__all__ = ["check_case"]


def check_case(case: Case, workdir: Path | None = None) -> list[Failure]:
    """Check one case; the command line writes its files under ``workdir`` (or a temporary one).

    A case that uses more than :data:`~fuzz.bounds.HANG_CPU_SECONDS` of CPU is stopped and
    is one ``hang`` failure, placed at the innermost function of the library it was in.
    """
    try:
        with cpu_deadline(HANG_CPU_SECONDS):
            return _check(case, workdir)
    except Hung as exc:
        detail = f"{case.target}: no answer after {HANG_CPU_SECONDS:g} s of CPU"
        return [Failure("hang", detail, origin(exc))]


def _check(case: Case, workdir: Path | None) -> list[Failure]:
    if case.target == "requests":
        return check_request(case.data, case.api)
    if case.target == "builders":
        return check_builder(decode_call(case.data))
    if case.target == "media":
        return check_media(case.data)
    if case.target == "responses":
        return check_response(case.data, case.kind, case.api, case.request)
    if case.target == "cli":
        if workdir is not None:
            prepare(workdir)
            return check_cli(case.data, case.kind, case.api, workdir, case.request)
        with tempfile.TemporaryDirectory(prefix="fuzz-cli-") as folder:
            prepare(Path(folder))
            return check_cli(case.data, case.kind, case.api, Path(folder), case.request)
    raise ValueError(f"expected a target of fuzz.cases.TARGETS, found {case.target!r}")
