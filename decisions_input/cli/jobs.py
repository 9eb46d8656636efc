"""Running a check over many files: in worker processes when that pays, with progress."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any, TextIO

from .. import __version__
from ..errors import Problem
from .common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, PROG, Streams, display, reason
from .formats import Finding, Report, render
from .placing import json_findings

__all__ = ["Job", "Result", "check_job", "finish", "run_jobs"]

# Below this many bytes of input, worker processes cost more than they save. Measured on
# 2 cores: 2,700 small request files take 0.58 s in one process and 0.75 s in two; two
# files of 20 MB break even (0.41-0.44 s against 0.36-0.52 s); three take 0.52 s against
# 0.43 s, eight 0.83 s against 0.59 s.
_PARALLEL_MIN_BYTES = 48 * 1024 * 1024
_PARALLEL_MAX_WORKERS = 8
_PROGRESS_INTERVAL_S = 0.1


@dataclass(frozen=True, slots=True)
class Job:
    name: str
    target: str
    strict: bool
    data: bytes | None = None
    request: Any = None


@dataclass(frozen=True, slots=True)
class Result:
    name: str
    findings: tuple[Finding, ...] = ()
    error: str | None = None


class _Progress:
    """``[n/N] file`` on one rewritten line of a terminal; silent in pipes and CI logs."""

    def __init__(self, stream: TextIO, total: int) -> None:
        self._stream = stream
        self._total = total
        self._done = 0
        self._shown = 0.0
        self._on = total > 1 and _is_terminal(stream)

    def step(self, name: str) -> None:
        self._done += 1
        if not self._on:
            return
        now = time.monotonic()
        if now - self._shown >= _PROGRESS_INTERVAL_S or self._done == self._total:
            self._shown = now
            self._stream.write(f"\r\x1b[2K[{self._done}/{self._total}] {name}")
            self._stream.flush()

    def close(self) -> None:
        if self._on and self._shown:
            self._stream.write("\r\x1b[2K")
            self._stream.flush()


def _is_terminal(stream: TextIO) -> bool:
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _workers(requested: int, jobs: Sequence[Job]) -> int:
    """Worker processes for the jobs: as asked, else several only for many bytes of input.

    Checking is fast (small request files take well under a millisecond each), so worker
    processes only pay for their start-up when the files hold a lot of inline data.
    """
    if requested > 0:
        return max(1, min(requested, len(jobs)))
    if len(jobs) < 2 or _total_bytes(jobs) < _PARALLEL_MIN_BYTES:
        return 1
    return max(1, min(os.cpu_count() or 1, _PARALLEL_MAX_WORKERS, len(jobs)))


def _total_bytes(jobs: Sequence[Job]) -> int:
    total = 0
    for job in jobs:
        if job.data is not None:
            total += len(job.data)
        else:
            with contextlib.suppress(OSError):
                total += os.stat(job.name).st_size
    return total


def run_jobs(
    work: Callable[[Job], Result], jobs: Sequence[Job], streams: Streams, requested: int
) -> list[Result]:
    """Run ``work`` over the jobs, in worker processes when that is faster, with progress."""
    progress = _Progress(streams.err, len(jobs))
    results: list[Result] = []
    workers = _workers(requested, jobs)
    try:
        if workers <= 1:
            for job in jobs:
                results.append(work(job))
                progress.step(job.name)
        else:
            for result in _run_pool(work, jobs, workers):
                results.append(result)
                progress.step(result.name)
    finally:
        progress.close()
    return results


def _run_pool(work: Callable[[Job], Result], jobs: Sequence[Job], workers: int) -> Iterator[Result]:
    import multiprocessing
    import threading
    from concurrent.futures import ProcessPoolExecutor

    # fork starts workers fastest, but is only safe while this process has one thread.
    single = threading.active_count() == 1
    context = multiprocessing.get_context("fork") if sys.platform == "linux" and single else None
    chunk = max(1, min(32, len(jobs) // (workers * 4)))
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        yield from pool.map(work, jobs, chunksize=chunk)


def finish(results: Sequence[Result], fmt: str, streams: Streams) -> int:
    """Print the report of checked files and the errors of unreadable ones; return the status."""
    from ..limits import RULES

    unreadable = sorted(r.error for r in results if r.error is not None)
    for message in unreadable:
        streams.err.write(f"{PROG}: error: {message}\n")
    checked = [r for r in results if r.error is None]
    findings = [f for r in checked for f in r.findings]
    report = Report.of(findings, files=len(checked))
    streams.out.write(render(report, fmt, RULES, version=__version__))
    if unreadable:
        return EXIT_USAGE
    return EXIT_PROBLEMS if report.errors else EXIT_OK


def _request_result(name: str, data: bytes, problems: list[Problem], target: str) -> Result:
    """Place the problems of a JSON file; the text is decoded only when there are any."""
    if not problems:
        return Result(name)
    from ..jsontext import parse
    from ..limits import limits_for

    text = parse(data, limits=limits_for(target)).text
    return Result(name, tuple(json_findings(name, text, problems)))


def check_job(job: Job, check: Callable[[bytes], Iterable[Problem]]) -> Result:
    """Read one JSON file (or the bytes already read from stdin), check it, place problems."""
    name = display(job.name)
    try:
        data = job.data if job.data is not None else FsPath(job.name).read_bytes()
    except OSError as exc:
        return Result(name, error=f"cannot read {job.name}: {reason(exc)}")
    return _request_result(name, data, list(check(data)), job.target)
