"""``decisions-input check-response``: check a JSON response, against its request if given."""

from __future__ import annotations

import argparse

from ..errors import Problem
from ..limits import target_of
from .common import Streams, UsageError, apply_strict
from .files import read_bytes, read_stdin
from .jobs import Job, Result, check_job, finish

__all__ = ["run"]


def _response_job(job: Job) -> Result:
    from ..responses import iter_response_problems

    def check(data: bytes) -> list[Problem]:
        found = iter_response_problems(data, request=job.request, target=job.target)
        return apply_strict(found, job.strict)

    return check_job(job, check)


def _target_of_request(request: bytes | None) -> str:
    """Parallel for a request body with ``state`` and no ``model``; Gemini otherwise."""
    import json

    if request is None:
        return "gemini"
    try:
        body = json.loads(request)
    except ValueError:
        return "gemini"
    return target_of(body)


def run(args: argparse.Namespace, streams: Streams) -> int:
    if args.response == "-" and args.request == "-":
        raise UsageError("standard input ('-') can be named only once")
    request = read_bytes(args.request, streams) if args.request is not None else None
    data = read_stdin(streams) if args.response == "-" else None
    target = args.target or _target_of_request(request)
    job = Job(args.response, target, args.strict, data=data, request=request)
    return finish([_response_job(job)], args.format, streams)
