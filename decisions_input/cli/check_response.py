"""``decisions-input check-response``: check a JSON response, against its request if given."""

from __future__ import annotations

import argparse
from dataclasses import replace

from ..errors import Problem
from ..limits import target_of
from .common import Streams, UsageError, apply_strict, display
from .files import Unreadable, read_file
from .jobs import Job, Result, check_job, finish, problem_cap, run_jobs

__all__ = ["run"]


def _response_job(job: Job) -> Result:
    from ..responses import iter_response_problems

    target = job.target  # None: the response's own shape names the API of an error body
    shaped = _target_of_request(job.request)

    def check(data: bytes) -> list[Problem]:
        found = apply_strict(
            iter_response_problems(data, request=job.request, target=target), job.strict
        )
        if job.request is None or target == shaped:
            return found
        note = f" (checked as {target}, as --target asks; the request is shaped for {shaped})"
        return [replace(p, message=p.message + note) for p in found]

    return check_job(job, check)


def _target_of_request(request: bytes | None) -> str:
    """The target the request's shape names (:func:`target_of`); Gemini without one."""
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
    cap = problem_cap(args.max_problems)
    try:
        request = None
        if args.request is not None:
            request = read_file(
                args.request, kind="request", max_bytes=args.max_bytes, streams=streams
            )
        data = None
        if args.response == "-":
            data = read_file("-", kind="response", max_bytes=args.max_bytes, streams=streams)
    except Unreadable as exc:
        return finish(
            [Result(display(args.response), error=str(exc))], args.format, streams, cap=cap
        )
    target = args.target or (None if request is None else _target_of_request(request))
    job = Job(args.response, "response", args.max_bytes, cap, args.strict, target, data, request)
    return finish(run_jobs(_response_job, [job], streams, 1), args.format, streams, cap=cap)
