"""Properties of response, error and signals bodies, through the ``iter_*`` and ``parse_*``
pairs of the public API.

For each form of the body: only the library's own exceptions, the problem properties of
:mod:`fuzz.verdicts`, the forms agreeing, nothing the bundled schema refuses accepted;
``parse_*`` raises ``InvalidInput`` exactly when ``iter_*`` finds an error; and what it
parses can be used as the README shows (answer helpers, ``uncertain``) without a foreign
exception.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import decisions_input as di
from fuzz.bounds import json_cpu_seconds
from fuzz.forms import forms_of
from fuzz.probe import Failure, Probe
from fuzz.verdicts import check_problems, check_schema, compare_forms, error_codes

__all__ = ["KINDS", "check_response"]

KINDS = ("response", "error", "signals")

_Pair = tuple[Callable[..., Iterable[di.Problem]], Callable[..., object]]


def _pair(kind: str) -> _Pair:
    if kind == "response":
        return di.iter_response_problems, di.parse_response
    if kind == "error":
        return di.iter_error_problems, di.parse_error
    return _signals_problems, _signals_parse


def _signals_problems(body: Any, **_: Any) -> Iterable[di.Problem]:
    return di.iter_signals_problems(body)


def _signals_parse(body: Any, **_: Any) -> object:
    return di.parse_signals(body)


def _options(kind: str, api: str, request: bytes | None) -> dict[str, Any]:
    options: dict[str, Any] = {"target": api}
    if kind == "response" and request is not None:
        try:
            options["request"] = json.loads(request)
        except ValueError:
            options["request"] = request
    return options


def _listed(
    iterate: Callable[..., Iterable[di.Problem]], body: Any, options: dict[str, Any]
) -> list[di.Problem]:
    return list(iterate(body, **options))


def check_response(data: bytes, kind: str, api: str, request: bytes | None = None) -> list[Failure]:
    """Check one body of the given kind (``response``, ``error``, ``signals``) for ``api``."""
    probe = Probe()
    forms = forms_of(data)
    iterate, parse = _pair(kind)
    options = _options(kind, api, request)
    results: dict[str, Sequence[di.Problem]] = {}
    for form, body in forms.items():
        problems, _ = probe.call(
            f"iter_{kind}_problems({form})",
            functools.partial(_listed, iterate, body, options),
        )
        if problems is None:
            continue
        results[form] = problems
        check_problems(probe, form, problems, forms)
        _check_parse(probe, form, functools.partial(parse, body, **options), problems)
    compare_forms(probe, results, forms)
    check_schema(probe, results, forms, kind=kind, api=api)
    probe.check_time(json_cpu_seconds(len(data)), kind)
    return probe.failures


def _check_parse(
    probe: Probe, form: str, parse: Callable[[], object], problems: Sequence[di.Problem]
) -> None:
    """``parse_*`` raises ``InvalidInput`` exactly when there is an error, listing them."""
    parsed, raised = probe.call(f"parse({form})", parse)
    if parsed is not None:
        _use(probe, parsed)
    errors = error_codes(problems)
    if raised is None and errors:
        codes = ",".join(sorted(errors))
        probe.fail("parse-disagrees", f"{form}: parsed a body with errors {codes}", "parsed")
    elif raised is not None and not errors:
        probe.fail("parse-disagrees", f"{form}: refused a body without errors: {raised}", "refused")
    elif isinstance(raised, di.InvalidInput) and frozenset(raised.codes) != errors:
        ours, theirs = ",".join(sorted(raised.codes)), ",".join(sorted(errors))
        probe.fail("parse-disagrees", f"{form}: parse says {ours}, iter says {theirs}", "codes")


_THRESHOLD = 0.6


def _use(probe: Probe, parsed: object) -> None:
    """Use a parsed response as the README shows: each answer's helpers, ``uncertain``."""
    answers = getattr(parsed, "answers", None)
    if isinstance(answers, Mapping):
        for answer in answers.values():
            for name in ("winner", "certainty", "level", "blocked"):
                probe.call(f"answer.{name}", functools.partial(getattr, answer, name, None))
            helper = getattr(answer, "is_uncertain", None)
            if callable(helper):
                probe.call("answer.is_uncertain", functools.partial(helper, _THRESHOLD))
    uncertain = getattr(parsed, "uncertain", None)
    if callable(uncertain):
        probe.call("uncertain", functools.partial(uncertain, _THRESHOLD))
