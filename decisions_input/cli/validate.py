"""``decisions-input validate``: check JSON request files.

Each file is checked against the API its body is shaped for (:func:`decisions_input.limits.
target_of`: Parallel for a body with ``state`` and no ``model``, Gemini otherwise), as the
other commands read it, so a folder may mix both; ``--target`` forces one API for every
file, and a problem that comes from forcing an API the body is not shaped for says so.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator
from dataclasses import replace

from ..errors import Problem
from .common import STDIN_NAME, Streams, UsageError
from .files import Unreadable, expand, read_file
from .jobs import Job, Result, check_job, finish, problem_cap, run_jobs

__all__ = ["run"]

# Problems about the body's top-level members that a wrong target brings about.
_SHAPE_CODES = frozenset({"schema.required", "schema.unknown_member"})


def _validate_job(job: Job) -> Result:
    """Check one request file; a worker-process entry point, so it takes one picklable job."""
    return check_job(job, lambda data: _spec_hint(_problems(data, job), job.name))


def _spec_hint(problems: Iterable[Problem], name: str) -> Iterator[Problem]:
    """Point a YAML file that is not JSON to ``build``, which reads specs."""
    spec = name.lower().endswith((".yaml", ".yml"))
    for problem in problems:
        if spec and problem.code == "json.syntax":
            hint = "; a YAML file is a spec: build it with 'decisions-input build'"
            problem = replace(problem, message=problem.message + hint)
        yield problem


def _problems(data: bytes, job: Job) -> Iterator[Problem]:
    """The problems of one body, against its own target or the one ``--target`` forces."""
    from ..limits import limits_for, target_of
    from ..validate import iter_problems, to_json_value

    value, text_problems = to_json_value(data, limits_for(job.target or "gemini"))
    shaped = target_of(value)
    target = job.target or shaped
    # A clean object is checked as the value already parsed; anything else as the text
    # again, so that its hazards are reported where they are (and a JSON string stays
    # a value, not text to parse).
    body = value if type(value) is dict and not text_problems else data
    del value
    found = iter_problems(body, target=target, strict=job.strict)
    if target == shaped:
        return found
    return _noting_target(found, target, shaped)


def _noting_target(problems: Iterable[Problem], forced: str, shaped: str) -> Iterator[Problem]:
    """Say, on the problems a wrong ``--target`` brings about, that it was forced."""
    shape = "state and no model" if shaped == "parallel" else "no state, or a model"
    note = f"; the body is shaped for {shaped} ({shape}): --target {forced} forced this"
    for problem in problems:
        if problem.code in _SHAPE_CODES and len(problem.path) <= 1:
            problem = replace(problem, message=problem.message + note)
        yield problem


def run(args: argparse.Namespace, streams: Streams) -> int:
    names, empty = expand(args.files)
    if names.count("-") > 1:
        raise UsageError("standard input ('-') can be named only once")
    cap = problem_cap(args.max_problems)
    jobs: list[Job] = []
    unread = [Result(name, error=message) for name, message in empty]
    for name in names:
        data = None
        if name == "-":  # read here: worker processes have no standard input
            try:
                data = read_file(name, kind="request", max_bytes=args.max_bytes, streams=streams)
            except Unreadable as exc:
                unread.append(Result(STDIN_NAME, error=str(exc)))
                continue
        jobs.append(Job(name, "request", args.max_bytes, cap, args.strict, args.target, data))
    results = run_jobs(_validate_job, jobs, streams, args.jobs)
    return finish([*results, *unread], args.format, streams, cap=cap)
