"""Usage that adds up: token counts against each other and against the request's estimate.

The hooks of the usage shapes (:data:`HOOKS` of :mod:`.invariants` names them). Two checks
are errors: a count is never negative (``usage.negative``) and a count the API fixes at 0
is 0 (``response.output_tokens``, ``Limits.ZERO_USAGE_MEMBERS``). Every other check is a
warning, because a count that does not add up says the API reported something off, not
that the answers are wrong:

* a total below the sum of the counts it includes (``usage.total_below_parts``,
  ``Limits.USAGE_TOTALS``);
* a count larger than the count it is part of, such as cached tokens over the input
  (``usage.part_over_whole``, ``Limits.USAGE_PARTS``);
* a breakdown by modality that does not add up to its total (``usage.breakdown_sum``,
  ``Limits.USAGE_BREAKDOWNS``);
* output tokens for a decision, which generates none (``usage.output_tokens``,
  ``Limits.USAGE_NO_OUTPUT``);
* when the request is known, reported input tokens outside the offline estimate of it
  (:func:`decisions_input.budget.estimate`): the estimate is off for that request, and the
  problem says in which direction and by how much (``usage.outside_estimate``,
  ``Limits.USAGE_INPUT``, ``USAGE_FIRST_TURN_INPUT``, ``REPORTED_INPUT_BEYOND_REQUEST``,
  ``USAGE_AGAINST_ESTIMATE``), judged by :func:`~decisions_input.reported_usage.compare_usage`
  as ``decisions-input estimate --against`` judges it.

The limits table states which counts are parts of which, with the reading of the seeds
chosen where they are vague; every seed example response is consistent under it. A count
that is absent, mistyped or negative takes part in no comparison (the walk reports the
last two already), so one wrong number gives one problem where it is.

The estimate is made only when the usage reports input and a request of the same target
is known, once per response, with the rates of the table the response is checked with. It
holds the input to a bound only where that bound stands for the request: not the low bound
for a prompt the filter blocked, not the high bound when a block could not be measured or
the input holds later turns (then the first turn's count is held to it, when sent).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..budget import Estimate, estimate
from ..errors import DecisionsInputError, Path, Problem
from ..limits import target_of
from ..reported_usage import compare_usage
from ._common import _is_integer, _list, _problem
from .context import _Ctx, _Hook

__all__: list[str] = []

_SHOWN_ENTRIES = 5  # entries of a breakdown named in a message


def _counts(shape: str) -> _Hook:
    """Return the hook for the integer members of a usage shape: none is negative."""

    def hook(value: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
        members = ctx.shape(shape)
        for name, item in value.items():
            if members.get(name) != "integer" or not _is_integer(item):
                continue  # unknown or mistyped members are reported as such already
            count = int(item)  # type: ignore[call-overload]
            if count < 0:
                message = f"expected a count of 0 or more, found {count}"
                yield _problem((*path, name), "usage.negative", message)
            if name in ctx.limits.ZERO_USAGE_MEMBERS and count != 0:
                yield _problem(
                    (*path, name), "response.output_tokens", f"expected 0, found {count}"
                )

    return hook


def _count(mapping: Mapping[str, object], name: str | None) -> int | None:
    """A count that can take part in a comparison: present, an integer, not negative."""
    item = mapping.get(name) if name is not None else None
    if not _is_integer(item):
        return None
    count = int(item)  # type: ignore[call-overload]
    return count if count >= 0 else None


def _breakdown(usage: Mapping[str, object], name: str) -> list[tuple[str, int]] | None:
    """The entries of a breakdown by modality, or None when it states no sum."""
    entries = _list(usage, name)
    if not entries:
        return None
    found: list[tuple[str, int]] = []
    for entry in entries:
        if not isinstance(entry, dict) or (tokens := _count(entry, "tokens")) is None:
            return None
        modality = entry.get("modality")
        found.append((modality if isinstance(modality, str) else "?", tokens))
    return found


def _terms(pairs: list[tuple[str, int]]) -> str:
    shown = " + ".join(f"{name} {count:,}" for name, count in pairs[:_SHOWN_ENTRIES])
    return shown + (" + ..." if len(pairs) > _SHOWN_ENTRIES else "")


def _totals(usage: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    for name, included in ctx.limits.USAGE_TOTALS.items():
        total = _count(usage, name)
        parts = [(n, c) for n in included if (c := _count(usage, n)) is not None]
        least = sum(c for _, c in parts)
        if total is not None and total < least:
            message = f"expected {name} of at least {least:,} ({_terms(parts)}), found {total:,}"
            yield _problem((*path, name), "usage.total_below_parts", message)


def _parts(usage: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    for name, whole_name in ctx.limits.USAGE_PARTS.items():
        part, whole = _count(usage, name), _count(usage, whole_name)
        if part is not None and whole is not None and part > whole:
            message = f"expected {name} of at most {whole_name} = {whole:,}, found {part:,}"
            yield _problem((*path, name), "usage.part_over_whole", message)


def _breakdowns(usage: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    for name, total_name in ctx.limits.USAGE_BREAKDOWNS.items():
        total, entries = _count(usage, total_name), _breakdown(usage, name)
        if total is None or entries is None:
            continue
        found = sum(c for _, c in entries)
        if found != total:
            expected = f"expected the tokens by modality to add up to {total_name} = {total:,}"
            message = f"{expected}, found {found:,} ({_terms(entries)})"
            yield _problem((*path, name), "usage.breakdown_sum", message)


def _no_output(usage: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    breakdowns = {total: name for name, total in ctx.limits.USAGE_BREAKDOWNS.items()}
    for name in ctx.limits.USAGE_NO_OUTPUT:
        where, count = name, _count(usage, name)
        if name not in usage and name in breakdowns:
            where, entries = breakdowns[name], _breakdown(usage, breakdowns[name])
            count = None if entries is None else sum(c for _, c in entries)
        if count:
            found = f"found {count:,}"
            message = f"expected 0 output tokens for a decision, which generates none, {found}"
            yield _problem((*path, where), "usage.output_tokens", message)


def _request_target(source: object) -> object:
    if isinstance(source, Mapping):
        return target_of(source)
    return getattr(source, "target", None)


def _estimate(ctx: _Ctx) -> Estimate | None:
    """The offline estimate of the request, when it is known and shaped for this target."""
    source = None if ctx.expect is None else ctx.expect.source
    if source is None or _request_target(source) != ctx.limits.TARGET:
        return None
    try:
        return estimate(source, limits=ctx.limits)
    except DecisionsInputError:
        return None  # a request the estimate cannot read; its own checks say why


def _off(name: str, found: int, bound: int, est: Estimate, *, low: bool) -> str:
    side, most, more = ("low", "least", "fewer") if low else ("high", "most", "more")
    gap = abs(found - bound)
    share = f" ({gap / bound:.0%} {'under' if low else 'over'})" if bound else ""
    return (
        f"expected {name} of at {most} {bound:,}, the {side} bound of the offline estimate of "
        f"the request ({est.total}), found {found:,}: {gap:,} {more}{share}; the estimate is "
        "off for this request, worth reporting with it"
    )


def _against_estimate(usage: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    limits = ctx.limits
    reported = _count(usage, limits.USAGE_INPUT)
    if reported is None or ctx.expect is None or not limits.USAGE_AGAINST_ESTIMATE:
        return
    if ctx.blocked and limits.REPORTED_INPUT_BEYOND_REQUEST:
        return  # neither bound stands for the request
    est = _estimate(ctx)
    if est is None:
        return
    total = compare_usage(est, input_tokens=reported, limits=limits).total
    if total is not None and total.verdict == "below" and not ctx.blocked:
        message = _off(limits.USAGE_INPUT, reported, total.low, est, low=True)
        yield _problem((*path, limits.USAGE_INPUT), "usage.outside_estimate", message)
    name, count = limits.USAGE_INPUT, reported
    first = _count(usage, limits.USAGE_FIRST_TURN_INPUT)
    if limits.USAGE_FIRST_TURN_INPUT is not None and first is not None:
        name, count = limits.USAGE_FIRST_TURN_INPUT, first
    held = compare_usage(est, input_tokens=count, limits=limits).total
    if held is not None and held.verdict == "above" and held.measured and held.high is not None:
        message = _off(name, count, held.high, est, low=False)
        yield _problem((*path, name), "usage.outside_estimate", message)


_usage_counts = _counts("usage")


def _usage_hook(value: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    """The hook of a usage object: its counts, how they add up, and the estimate."""
    yield from _usage_counts(value, path, ctx)
    yield from _totals(value, path, ctx)
    yield from _parts(value, path, ctx)
    yield from _breakdowns(value, path, ctx)
    yield from _no_output(value, path, ctx)
    yield from _against_estimate(value, path, ctx)
