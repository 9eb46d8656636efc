"""``decisions-input validate``: check JSON request files."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from .common import Streams, UsageError
from .files import expand, read_stdin
from .jobs import Job, Result, check_job, finish, run_jobs

__all__ = ["run"]


def _validate_job(job: Job) -> Result:
    """Check one request file; a worker-process entry point, so it takes one picklable job."""
    from ..validate import iter_problems

    return check_job(job, lambda data: iter_problems(data, target=job.target, strict=job.strict))


def _stdin_jobs(names: Sequence[str], streams: Streams, target: str, strict: bool) -> list[Job]:
    if names.count("-") > 1:
        raise UsageError("standard input ('-') can be named only once")
    return [Job(n, target, strict, data=read_stdin(streams) if n == "-" else None) for n in names]


def run(args: argparse.Namespace, streams: Streams) -> int:
    jobs = _stdin_jobs(expand(args.files), streams, args.target, args.strict)
    results = run_jobs(_validate_job, jobs, streams, args.jobs)
    return finish(results, args.format, streams)
