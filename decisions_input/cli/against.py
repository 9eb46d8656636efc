"""``decisions-input estimate --against``: estimates against the usage responses reported.

Request files and specs are paired with the responses they received by name
(:mod:`.pairing`) before anything is read. Each request is estimated as ``estimate`` does
it; each response is read by the library's response reader against the request's
questions, so a response that answers other questions has errors rather than being
compared; and the input tokens it reports are compared with the estimate, per modality
and in total (:mod:`decisions_input.reported_usage`).

A pair is not compared, and says why, when its response is an API error body, reports no
usage, or when a file of it has errors (printed on standard error, as ``estimate`` prints
a request it cannot estimate) or cannot be read.

Exit status: 0 when every pair was compared or said why not, 1 when a file has errors that
stop its comparison, or with ``--fail-outside`` when a reported figure is outside its
bounds, 2 for a usage error, pairing that is refused, a file that cannot be read or a
failure of the tool. A comparison is information: without ``--fail-outside`` a miss is
printed, not failed.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from dataclasses import dataclass, replace

from .. import __version__
from ..errors import InvalidInput, Problem
from .common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    PROG,
    Streams,
    UsageError,
    display,
    failure_line,
)
from .estimate import Estimated, estimated, expanded
from .files import read_file
from .formats import Finding, NotShown, Report, UsagePair, printable, render, render_usage
from .jobs import capped, problem_cap
from .pairing import pair_by_name
from .placing import json_findings

__all__ = ["run_against"]


@dataclass(frozen=True, slots=True)
class _Outcome:
    """One pair's result, the problems that stopped it, and whether a file went unread."""

    pair: UsagePair
    findings: tuple[Finding, ...] = ()
    not_shown: NotShown | None = None
    unread: bool = False


def _errors(what: str, problems: Iterable[Problem]) -> str:
    """Why a pair was not compared: how many errors a file has, and their codes."""
    errors = [p.code for p in problems if p.is_error]
    noun = "error" if len(errors) == 1 else "errors"
    codes = ", ".join(sorted(set(errors)))
    return f"the {what} has {len(errors):,} {noun} ({codes}); see standard error"


def _refused(pair: UsagePair, name: str, data: bytes, exc: InvalidInput) -> _Outcome:
    """The response's errors, placed in its text and capped as every command caps them."""
    pair = replace(pair, reason=_errors("response", exc.problems))
    kept = capped(exc.problems, problem_cap(None))
    text = data.decode("utf-8", "replace")
    left = NotShown(name, kept.errors_left_out, kept.warnings_left_out)
    return _Outcome(pair, tuple(json_findings(name, text, kept.problems)), left)


def _against(found: Estimated, pair: UsagePair, data: bytes) -> _Outcome:
    """Read the response against the request's questions and compare its usage."""
    from ..reported_usage import compare_usage
    from ..responses import APIError, parse_response

    target = found.estimate.target
    pair = replace(pair, target=target)
    asked = found.asked if "questions" in found.asked else None
    try:
        response = parse_response(data, request=asked, target=target)
        usage = response.usage
        if usage is None:
            return _Outcome(replace(pair, reason="the response reports no usage"))
        breakdown = getattr(usage, "input_tokens_by_modality", ())
        comparison = compare_usage(
            found.estimate,
            input_tokens=usage.input_tokens,
            by_modality=[(m.modality, m.tokens) for m in breakdown],
        )
    except APIError as exc:
        return _Outcome(replace(pair, reason=f"an error body: {exc}"))
    except InvalidInput as exc:
        return _refused(pair, pair.response, data, exc)
    if not comparison.rows:
        return _Outcome(replace(pair, reason="the response reports no input tokens"))
    return _Outcome(replace(pair, comparison=comparison))


def _compare(request: str, response: str, args: argparse.Namespace, streams: Streams) -> _Outcome:
    """Estimate the request, read its response and compare; a failure is this pair's own."""
    pair = UsagePair(display(request), display(response))
    try:
        found = estimated(request, args, streams)
        if isinstance(found, Report):
            why = _errors("request", (f.problem for f in found.findings))
            return _Outcome(replace(pair, reason=why), found.findings)
        data = read_file(response, kind="response", max_bytes=args.max_bytes, streams=streams)
        return _against(found, pair, data)
    except UsageError as exc:  # a file (or standard input) cannot be read
        streams.err.write(f"{PROG}: error: {printable(str(exc))}\n")
        return _Outcome(replace(pair, reason=str(exc)), unread=True)
    except Exception as exc:  # one pair's failure inside the library is its own
        streams.err.write(f"{PROG}: {failure_line(pair.request, exc)}\n")
        return _Outcome(replace(pair, reason="the tool failed on this pair"), unread=True)


def run_against(args: argparse.Namespace, streams: Streams) -> int:
    """Pair, estimate, read and compare; print the pairs and the summary."""
    from ..limits import RULES

    if args.strict:
        raise UsageError("--strict applies to the budget verdict, which --against does not give")
    requests, responses = expanded(args.files), expanded(args.against)
    pairs = sorted(pair_by_name(requests, responses), key=lambda p: (display(p[0]), p[1]))
    outcomes = [_compare(request, response, args, streams) for request, response in pairs]
    findings = [f for o in outcomes for f in o.findings]
    if findings:
        left = [o.not_shown for o in outcomes if o.not_shown is not None]
        files = len(requests) + len(responses)
        report = Report.of(findings, files=files, not_shown=left, cap=problem_cap(None))
        streams.err.write(render(report, "text", RULES, version=__version__))
    streams.out.write(render_usage([o.pair for o in outcomes], args.format))
    if any(o.unread for o in outcomes):
        return EXIT_USAGE
    outside = args.fail_outside and any(o.pair.verdict == "outside" for o in outcomes)
    return EXIT_PROBLEMS if findings or outside else EXIT_OK
