"""The checks between values: answers against the request, numbers as printed, citations.

Each check is a hook of the structural walk, keyed by the shape it checks (:data:`HOOKS`);
the hooks of usage come from :mod:`.usage`, those of signals from :mod:`.signals`.
Numbers printed by an API are rounded, so the equalities are checked within a tolerance
that follows from the printed digits; the rule is spelled out in
:mod:`decisions_input.limits` next to ``PROBABILITY_SUM_TOLERANCE``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterator, Mapping
from decimal import Decimal
from types import MappingProxyType
from urllib.parse import urlsplit

from ..errors import Path, Problem
from ..limits import Limits
from ._common import (
    _INDEX_KEY,
    _dict,
    _in_order,
    _is_number,
    _json_kind,
    _list,
    _names,
    _num,
    _problem,
    _show,
    _str,
    _utf8,
)
from .context import _Ctx, _Hook
from .reading import _Question
from .shapes import value_members
from .signals import _signals_hook
from .usage import _counts, _usage_hook
from .walk import _enum, _object, _walk

__all__: list[str] = []

# --- Numbers as printed ---


def _place(number: float) -> float | None:
    """The place value of the last printed digit (0.01 for 0.76), None for whole numbers."""
    if isinstance(number, int) or number.is_integer():
        return None
    exponent = Decimal(repr(number)).as_tuple().exponent
    return 10.0**exponent if isinstance(exponent, int) else None


def _halves(numbers: list[float], limits: Limits) -> list[float]:
    """Largest rounding error of each printed number: half a unit in its last place.

    Places coarser than ``PROBABILITY_ROUNDING_DECIMALS`` are taken at that many decimals
    (0.5 may be 0.50 printed short); whole numbers (0, 1) carry no digits and take the
    coarsest place among the others.
    """
    coarsest = 10.0**-limits.PROBABILITY_ROUNDING_DECIMALS
    places = [_place(n) for n in numbers]
    known = [min(p, coarsest) for p in places if p is not None]
    fallback = max(known) if known else coarsest
    return [0.5 * (fallback if p is None else min(p, coarsest)) for p in places]


def _differs(found: float, expected: float, allowed: float, limits: Limits) -> bool:
    return abs(found - expected) > allowed + limits.FLOAT_SLACK


# --- Answers ---


def _answers_level(answers: dict[str, object], ctx: _Ctx) -> Iterator[Problem]:
    path: Path = ("answers",)
    if ctx.blocked:
        if answers:
            yield _problem(
                path,
                "answer.blocked_not_empty",
                f"expected no answers because the prompt was blocked, found {len(answers)}",
            )
        return
    if ctx.expect is not None:
        for key in ctx.expect.questions:
            if key not in answers:
                yield _problem(
                    path, "answer.missing", f"expected an answer to question {key!r}, found none"
                )


def _answer(value: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    key = str(path[-1])
    question = ctx.expect.questions.get(key) if ctx.expect is not None else None
    before: list[Problem] = []
    if ctx.expect is not None and not ctx.blocked and question is None:
        before.append(
            _problem(
                path,
                "answer.extra",
                f"expected no answer to {key!r}, the request has no such question",
            )
        )
    kind = value.get("type")
    if "type" not in value:
        before.append(_problem(path, "response.required", "expected member 'type', found none"))
    elif not isinstance(kind, str):
        before.append(
            _problem((*path, "type"), "response.type", f"expected string, found {_json_kind(kind)}")
        )
    elif kind not in ctx.limits.ANSWER_TYPES:
        allowed = ", ".join(map(repr, ctx.limits.ANSWER_TYPES))
        before.append(
            _problem(
                (*path, "type"),
                "answer.type_unknown",
                f"expected one of {allowed}, found {_show(kind)}",
            )
        )
    else:
        if (
            question is not None
            and isinstance(question.type, str)
            and kind not in (question.type, "refusal")
        ):
            message = f"expected {question.type!r} as asked, found {kind!r}"
            before.append(_problem((*path, "type"), "answer.type_mismatch", message))
        tolerated = _VALUE_MEMBERS if kind == "refusal" else frozenset()
        yield from _object(value, path, kind + "_answer", ctx, before, tolerated)
        return
    yield from _in_order(value, path, before)


def _asked(path: Path, ctx: _Ctx, kind: str) -> _Question | None:
    """The question behind an answer, when the request is known and asks the same type."""
    if ctx.expect is None:
        return None
    question = ctx.expect.questions.get(str(path[-1]))
    return question if question is not None and question.type == kind else None


def _confidence(
    answer: dict[str, object], path: Path, expected: float, basis: float, what: str, ctx: _Ctx
) -> Iterator[Problem]:
    found = _num(answer, "confidence")
    if found is None or "confidence" not in ctx.shape(f"{answer.get('type')}_answer"):
        return
    limits = ctx.limits
    allowed = max(
        limits.CONFIDENCE_TOLERANCE, _halves([found], limits)[0] + _halves([basis], limits)[0]
    )
    if _differs(found, expected, allowed, limits):
        message = f"expected {what} = {expected:.6g} (within {allowed:.3g}), found {found:.6g}"
        yield _problem((*path, "confidence"), "answer.confidence", message)


def _noul_hook(answer: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    noul = _num(answer, "noul")
    if noul is None:
        return
    low, high = ctx.limits.NOUL_RANGE
    if not low <= noul <= high:
        yield _problem(
            (*path, "noul"), "answer.noul_range", f"expected {low:g} to {high:g}, found {noul:.6g}"
        )
    yield from _confidence(answer, path, max(noul, 1 - noul), noul, "max(noul, 1 - noul)", ctx)


def _probabilities(
    answer: dict[str, object],
    path: Path,
    expected_keys: tuple[str, ...] | None,
    what: str,
    ctx: _Ctx,
) -> Iterator[Problem]:
    """Keys, range and sum of a ``probabilities`` object."""
    probabilities = _dict(answer, "probabilities")
    if probabilities is None:
        return
    where = (*path, "probabilities")
    if expected_keys is not None:
        absent = [k for k in expected_keys if k not in probabilities]
        if absent:
            shown = _names(absent)
            yield _problem(
                where,
                "answer.probability_keys",
                f"expected a probability for every {what}, missing {shown}",
            )
        known = set(expected_keys)
        for key in probabilities:
            if key not in known:
                yield _problem(
                    (*where, key),
                    "answer.probability_keys",
                    f"expected {'an' if what[:1] in 'aeiou' else 'a'} {what}, found {_show(key)}",
                )
    numbers: list[float] = []
    for key, value in probabilities.items():
        if not _is_number(value):
            continue
        number = float(value)  # type: ignore[arg-type]
        numbers.append(number)
        if not 0 <= number <= 1:
            yield _problem(
                (*where, key), "answer.probability_range", f"expected 0 to 1, found {number:.6g}"
            )
    if len(numbers) != len(probabilities):
        return
    limits = ctx.limits
    total = math.fsum(numbers)
    allowed = max(limits.PROBABILITY_SUM_TOLERANCE, math.fsum(_halves(numbers, limits)))
    if _differs(total, 1.0, allowed, limits):
        message = f"expected probabilities adding up to 1 (within {allowed:.3g}), found {total:.6g}"
        yield _problem(where, "answer.probability_sum", message)


def _numbers(answer: dict[str, object], name: str) -> dict[str, float]:
    probabilities = _dict(answer, name) or {}
    return {k: float(v) for k, v in probabilities.items() if _is_number(v)}  # type: ignore[arg-type]


def _choice_hook(answer: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    question = _asked(path, ctx, "choice")
    options = question.options if question is not None else None
    yield from _probabilities(answer, path, options, "option ID", ctx)
    choice = _str(answer, "choice")
    if choice is None:
        return
    probabilities = _numbers(answer, "probabilities")
    raw = _dict(answer, "probabilities")
    known = options if options is not None else None if raw is None else tuple(raw)
    if known is not None and choice not in known:
        yield _problem(
            (*path, "choice"),
            "answer.choice_unknown",
            f"expected one of the option IDs, found {_show(choice)}",
        )
        return
    if choice not in probabilities or raw is None or len(probabilities) != len(raw):
        return  # a probability that is no number is reported as such already
    top = max(probabilities.values())
    first = min((k for k, v in probabilities.items() if v == top), key=_utf8)
    if probabilities[choice] < top:
        found = f"{choice!r} ({probabilities[choice]:.6g})"
        message = f"expected the most probable option {first!r} ({top:.6g}), found {found}"
        yield _problem((*path, "choice"), "answer.choice_not_max", message)
    elif first != choice:
        tied = f"first in UTF-8 byte order among options tied at {top:.6g}"
        message = f"expected {first!r}, {tied}, found {choice!r}"
        yield _problem((*path, "choice"), "answer.choice_tie", message)
    chosen = probabilities[choice]
    yield from _confidence(answer, path, chosen, chosen, "the probability of choice", ctx)


def _level_keys(question: _Question | None, answer: dict[str, object]) -> tuple[str, ...] | None:
    if question is not None and question.levels is not None:
        count = len(question.levels)
    elif isinstance(answer.get("probabilities"), dict):
        count = len(answer["probabilities"])  # type: ignore[arg-type]
    else:
        return None
    return tuple(str(i) for i in range(count))


def _legend(
    answer: dict[str, object], path: Path, question: _Question | None, keys: tuple[str, ...] | None
) -> Iterator[Problem]:
    legend = _dict(answer, "legend")
    if legend is None:
        return
    where = (*path, "legend")
    if question is not None and question.levels is not None:
        wanted = {str(i): text for i, text in enumerate(question.levels) if text}
        absent = [k for k in wanted if k not in legend]
        if absent:
            yield _problem(
                where,
                "answer.legend",
                f"expected a description of every level, missing {_names(absent)}",
            )
        for key, text in legend.items():
            if key not in wanted:
                yield _problem(
                    (*where, key),
                    "answer.legend",
                    f"expected a level index of the question, found {_show(key)}",
                )
            elif text != wanted[key]:
                yield _problem(
                    (*where, key),
                    "answer.legend",
                    f"expected {_show(wanted[key])}, found {_show(text)}",
                )
    elif keys is not None:
        allowed = set(keys)
        for key in legend:
            if key not in allowed:
                yield _problem(
                    (*where, key),
                    "answer.legend",
                    f"expected a level index from 0 to {len(keys) - 1}, found {_show(key)}",
                )


def _mean_bounds(levels: Mapping[int, float], halves: list[float]) -> tuple[float, float]:
    """Smallest and largest sum of k * p_k that the printed probabilities allow.

    Each true probability lies within half a printed unit of its printed value and is not
    negative, and together they sum to 1: the extremes put as much of the free mass as
    possible on the lowest, or the highest, levels. When no such probabilities exist (the
    sum check reports that), the printed mean is both bounds.
    """
    order = sorted(zip(levels, levels.values(), halves, strict=True))
    floors = [max(0.0, p - h) for _, p, h in order]
    free = 1.0 - math.fsum(floors)
    room = [p + h - f for (_, p, h), f in zip(order, floors, strict=True)]
    if free < 0 or free > math.fsum(room):
        mean = math.fsum(k * p for k, p in levels.items())
        return mean, mean

    def extreme(indexes: range) -> float:
        values = floors[:]
        left = free
        for i in indexes:
            step = min(left, room[i])
            values[i] += step
            left -= step
        return math.fsum(k * v for (k, _, _), v in zip(order, values, strict=True))

    return extreme(range(len(order))), extreme(range(len(order) - 1, -1, -1))


def _score_hook(answer: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    question = _asked(path, ctx, "score")
    keys = _level_keys(question, answer)
    yield from _probabilities(answer, path, keys, "level index", ctx)
    yield from _legend(answer, path, question, keys)
    probabilities = _numbers(answer, "probabilities")
    raw = _dict(answer, "probabilities")
    if not probabilities or raw is None or len(probabilities) != len(raw):
        return
    levels = {int(k): v for k, v in probabilities.items() if _INDEX_KEY.fullmatch(k)}
    score = _num(answer, "score")
    limits = ctx.limits
    if score is not None and len(levels) == len(probabilities):
        mean = math.fsum(i * p for i, p in levels.items())
        halves = _halves(list(levels.values()), limits)
        low, high = _mean_bounds(levels, halves)
        slack = _halves([score], limits)[0] + limits.SCORE_MEAN_TOLERANCE + limits.FLOAT_SLACK
        if not low - slack <= score <= high + slack:
            message = (
                f"expected sum of k * p_k = {mean:.6g} (from {low:.6g} to {high:.6g} as the "
                f"printed probabilities allow), found {score:.6g}"
            )
            yield _problem((*path, "score"), "answer.score_mean", message)
    top = max(probabilities.values())
    yield from _confidence(answer, path, top, top, "the highest probability", ctx)


def _refusal_hook(answer: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    for name in answer:
        if name in _VALUE_MEMBERS:
            yield _problem(
                (*path, name), "answer.refusal_values", f"expected no {name!r} in a refusal"
            )


# Members that carry a value in some answer type; a refusal must have none of them.
_VALUE_MEMBERS = value_members()


# --- Citations (usage: .usage, signals: .signals) ---


def _is_web_url(text: str) -> bool:
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc) and not re.search(r"\s", text)


def _citation_hook(value: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    url = _str(value, "url")
    if url is not None and not _is_web_url(url):
        yield _problem(
            (*path, "url"),
            "citation.url",
            f"expected an absolute http or https URL, found {_show(url)}",
        )
    excerpts = _list(value, "excerpts")
    if excerpts and ctx.expect is not None and ctx.expect.include_excerpts is False:
        why = "because the request set include_excerpts to false"
        message = f"expected no excerpts {why}, found {len(excerpts)}"
        yield _problem((*path, "excerpts"), "citation.excerpts", message)


# --- Responses: the root streams, member by member ---


def _is_blocked(value: dict[str, object], ctx: _Ctx) -> bool:
    if "prompt_feedback" not in ctx.shape("response"):
        return False
    feedback = value.get("prompt_feedback")
    return isinstance(feedback, dict) and bool(_str(feedback, "block_reason"))


def _check_decision_id(value: object, ctx: _Ctx) -> Iterator[Problem]:
    pattern = ctx.limits.DECISION_ID_PATTERN
    if pattern is not None and isinstance(value, str) and not re.fullmatch(pattern, value):
        message = f"expected a decision ID matching {pattern}, found {_show(value)}"
        yield _problem(("decision_id",), "response.decision_id", message)


def _response(value: object, ctx: _Ctx) -> Iterator[Problem]:
    if not isinstance(value, dict):
        yield _problem((), "response.type", f"expected object, found {_json_kind(value)}")
        return
    ctx = dataclasses.replace(ctx, blocked=_is_blocked(value, ctx))
    members = ctx.shape("response")
    for name in ctx.required("response"):
        if name not in value and not (name == "answers" and ctx.blocked):
            yield _problem((), "response.required", f"expected member {name!r}, found none")
    for name, item in value.items():
        kind = members.get(name)
        if kind is None:
            yield _problem((name,), "response.unknown_member", f"expected no member {name!r}")
            continue
        if name == "answers" and isinstance(item, dict):
            yield from _answers_level(item, ctx)
        # Objects of a shape come out buffered and sorted; maps and arrays stream.
        yield from _walk(item, (name,), kind, ctx)
        if name == "decision_id":
            yield from _check_decision_id(item, ctx)
        yield from _enum("response", name, item, (name,), ctx)


HOOKS: Mapping[str, _Hook] = MappingProxyType(
    {
        "answer": _answer,
        "noul_answer": _noul_hook,
        "choice_answer": _choice_hook,
        "score_answer": _score_hook,
        "refusal_answer": _refusal_hook,
        "usage": _usage_hook,
        "modality_tokens": _counts("modality_tokens"),
        "grounding_tool_count": _counts("grounding_tool_count"),
        "citation": _citation_hook,
        "signals": _signals_hook,
    }
)
