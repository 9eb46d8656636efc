"""Running a check over many files: in worker processes when that pays, with progress.

Each file is one :class:`Job`, run by a command's ``work`` function into a :class:`Result`.
What is promised here:

* One file's failure is that file's: an exception escaping ``work`` becomes an
  ``internal.error`` problem of that file, the other files are still checked and reported,
  and the run exits with status 2 (a failure of the tool). A worker process that dies takes
  only the files it had not finished, each reported the same way.
* A file's problems are capped (:func:`capped`): at most ``max_problems`` are placed and
  reported, errors first, and the rest are counted by severity, so a hostile file's report
  takes memory and output in proportion to the cap, not to the file.
* Worker processes never outlive the command: each asks the kernel to end it when the
  command's process ends (``PR_SET_PDEATHSIG`` on Linux; elsewhere a thread watches the
  parent), also when that process is killed, and none of them blocks on a file.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from .. import __version__
from ..errors import Problem, Severity
from .common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, PROG, Streams, display, one_line
from .files import Unreadable, read_file
from .formats import Finding, NotChecked, NotShown, Report, printable, render
from .placing import json_findings

__all__ = [
    "problem_cap",
    "INTERNAL_ERROR",
    "placed_result",
    "Capped",
    "Job",
    "Result",
    "capped",
    "check_job",
    "failed",
    "finish",
    "run_jobs",
]

INTERNAL_ERROR = "internal.error"
_PROGRESS_INTERVAL_S = 0.1
_WATCH_INTERVAL_S = 1.0  # how often a worker without PR_SET_PDEATHSIG looks for its parent


@dataclass(frozen=True, slots=True)
class Job:
    """One file to check: its name as given (``-`` for standard input) and the options."""

    name: str
    kind: str
    max_bytes: int | None
    max_problems: int
    strict: bool
    target: str | None = None
    data: bytes | None = None  # standard input, read before the jobs run
    request: Any = None


@dataclass(frozen=True, slots=True)
class Result:
    """The findings of one file, the problems left out, or why it could not be read."""

    name: str
    findings: tuple[Finding, ...] = ()
    not_shown: NotShown | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Capped:
    """The problems kept under a cap (errors first) and the counts of those left out."""

    problems: tuple[Problem, ...]
    errors_left_out: int
    warnings_left_out: int


def capped(problems: Iterable[Problem], cap: int) -> Capped:
    """Keep at most ``cap`` problems (all for 0), errors before warnings; count the rest.

    Memory stays within ``2 * cap`` problems however many come: the first ``cap`` errors
    and the first ``cap`` warnings are held until the end decides how many warnings fit.
    """
    errors: list[Problem] = []
    warnings: list[Problem] = []
    n_errors = n_warnings = 0
    for problem in problems:
        if problem.severity is Severity.ERROR:
            n_errors += 1
            if not cap or len(errors) < cap:
                errors.append(problem)
        else:
            n_warnings += 1
            if not cap or len(warnings) < cap:
                warnings.append(problem)
    if cap:
        warnings = warnings[: max(0, cap - len(errors))]
    return Capped((*errors, *warnings), n_errors - len(errors), n_warnings - len(warnings))


def failed(name: str, exc: BaseException) -> Result:
    """The result of a file whose check failed inside the library: one ``internal.error``."""
    message = (
        f"the check of this file failed inside decisions-input: {type(exc).__name__}: "
        f"{one_line(str(exc))}"[:500]
        + "; this is a defect of the tool, not of the file"
    )
    problem = Problem((), INTERNAL_ERROR, message)
    return Result(display(name), (Finding(display(name), 1, 1, problem),))


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
            self._stream.write(f"\r\x1b[2K[{self._done}/{self._total}] {printable(name)}")
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
    from ..limits import GEMINI

    if requested > 0:
        return max(1, min(requested, len(jobs)))
    if len(jobs) < 2 or _total_bytes(jobs) < GEMINI.PARALLEL_MIN_BYTES:
        return 1
    return max(1, min(os.cpu_count() or 1, GEMINI.MAX_WORKERS, len(jobs)))


def _total_bytes(jobs: Sequence[Job]) -> int:
    total = 0
    for job in jobs:
        if job.data is not None:
            total += len(job.data)
        elif job.name != "-":
            with contextlib.suppress(OSError, ValueError):
                total += os.stat(job.name).st_size
    return total


def run_jobs(
    work: Callable[[Job], Result], jobs: Sequence[Job], streams: Streams, requested: int
) -> list[Result]:
    """Run ``work`` over the jobs, in worker processes when that is faster, with progress."""
    progress = _Progress(streams.err, len(jobs))
    results: list[Result] = []
    workers = _workers(requested, jobs)
    guarded = functools.partial(_guarded, work)
    try:
        if workers <= 1:
            for job in jobs:
                results.append(guarded(job))
                progress.step(job.name)
        else:
            for result in _run_pool(guarded, jobs, workers):
                results.append(result)
                progress.step(result.name)
    finally:
        progress.close()
    return results


def _guarded(work: Callable[[Job], Result], job: Job) -> Result:
    """Run one job; a failure of the library becomes that file's ``internal.error``.

    The library's own errors (a request that cannot be read to compare a response with,
    say) leave the file unchecked, with their message.
    """
    from ..errors import DecisionsInputError, InvalidInput

    try:
        return work(job)
    except InvalidInput as exc:
        first = exc.problems[0] if exc.problems else None
        why = f"{first.code}: {one_line(first.message)}" if first else one_line(str(exc))
        return Result(display(job.name), error=why)
    except DecisionsInputError as exc:
        return Result(display(job.name), error=one_line(str(exc)))
    except Exception as exc:  # the last line of defence for one file
        return failed(job.name, exc)


def _run_pool(work: Callable[[Job], Result], jobs: Sequence[Job], workers: int) -> Iterator[Result]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # fork starts workers fastest, but is only safe while this process has one thread.
    single = threading.active_count() == 1
    context = multiprocessing.get_context("fork") if sys.platform == "linux" and single else None
    chunk = max(1, min(32, len(jobs) // (workers * 4)))
    done = 0
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_worker_start,
        initargs=(os.getpid(),),
    ) as pool:
        try:
            for result in pool.map(work, jobs, chunksize=chunk):
                done += 1
                yield result
        except BrokenProcessPool as exc:
            for job in jobs[done:]:
                yield failed(job.name, exc)


def _worker_start(parent: int) -> None:
    """End this worker process when the command's process ends, however it ends."""
    if not _die_with_parent() and os.getppid() == parent:
        watcher = threading.Thread(target=_watch_parent, args=(parent,), daemon=True)
        watcher.start()
    if os.getppid() != parent:  # the parent ended before the request took effect
        os._exit(1)


def _die_with_parent() -> bool:
    """Ask Linux to kill this process when its parent ends (``PR_SET_PDEATHSIG``)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)) == 0  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError, ImportError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCH_INTERVAL_S)
    os._exit(1)


def problem_cap(max_problems: int | None) -> int:
    """The most problems shown per file: ``--max-problems``, else the table's (0: all)."""
    if max_problems is not None:
        return max_problems
    from ..limits import GEMINI

    return GEMINI.MAX_PROBLEMS_PER_FILE


def finish(results: Sequence[Result], fmt: str, streams: Streams, *, cap: int) -> int:
    """Print the report and the files that could not be read; return the exit status.

    The status is 2 when a file could not be read or a check failed inside the library,
    else 1 when there is an error, else 0.
    """
    from ..limits import RULES

    not_checked = [NotChecked(r.name, r.error) for r in results if r.error is not None]
    for item in sorted(not_checked, key=lambda n: (n.file, n.message)):
        streams.err.write(f"{PROG}: error: {item.message}\n")
    checked = [r for r in results if r.error is None]
    findings = [f for r in checked for f in r.findings]
    internal = [f for f in findings if f.problem.code == INTERNAL_ERROR]
    for finding in internal:
        streams.err.write(f"{PROG}: internal error: {finding.file}: {finding.problem.message}\n")
    report = Report.of(
        findings,
        files=len(checked),
        not_shown=[r.not_shown for r in checked if r.not_shown is not None],
        not_checked=not_checked,
        cap=cap,
    )
    streams.out.write(render(report, fmt, RULES, version=__version__))
    if not_checked or internal:
        return EXIT_USAGE
    return EXIT_PROBLEMS if report.errors else EXIT_OK


def placed_result(name: str, text: str | None, kept: Capped) -> Result:
    """The result of a JSON file from its capped problems, placed in its text."""
    not_shown = NotShown(name, kept.errors_left_out, kept.warnings_left_out)
    findings = tuple(json_findings(name, text, kept.problems)) if kept.problems else ()
    return Result(name, findings, not_shown if not_shown.problems else None)


def check_job(job: Job, check: Callable[[bytes], Iterable[Problem]]) -> Result:
    """Read one JSON file (or the bytes already read from stdin), check it, place problems.

    The text is decoded for placing only when there is a problem to place.
    """
    name = display(job.name)
    try:
        data = job.data if job.data is not None else _read(job)
    except Unreadable as exc:
        return Result(name, error=str(exc))
    kept = capped(check(data), job.max_problems)
    text = _text_of(data, job.target) if kept.problems else None
    return placed_result(name, text, kept)


def _text_of(data: bytes, target: str | None) -> str | None:
    """The text problems are placed in: UTF-8 as is, else what the strict reader decodes."""
    if not data.startswith(b"\xef\xbb\xbf") and b"\x00" not in data[:4]:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    from ..jsontext import parse
    from ..limits import limits_for

    return parse(data, limits=limits_for(target or "gemini")).text


def _read(job: Job) -> bytes:
    return read_file(job.name, kind=job.kind, max_bytes=job.max_bytes)
