"""Compare a request's token estimate with the input tokens its response reported.

An estimate (:func:`~decisions_input.budget.estimate`) bounds what a request costs before
it is sent; the usage of its response says what it cost. :func:`compare_usage` puts the
two side by side, so a team can see whether the bounds serve its traffic:

* the total: the estimate's ``total`` against the reported input total (Gemini's
  ``total_input_tokens``, Parallel's ``input_tokens``);
* per modality, where the response breaks its input down (Gemini's
  ``input_tokens_by_modality``). Each row of the estimate counts toward the modalities its
  tokens may be reported under (``REPORTED_MODALITIES``: a video's frames may be reported
  as ``image`` and its sound as ``audio``, a PDF's pages as ``image``). Rows and reported
  modalities that may share tokens are compared together, as one group named by its
  modalities (``audio+image+video``). A modality the breakdown leaves out reported none.

Each figure is ``inside`` the bounds, ``below`` the low bound or ``above`` the high one.
A miss comes with the factor by which it missed: ``low / reported`` below,
``reported / high`` above, rounded up to hundredths; ``None`` when the quotient has no
finite value (nothing reported below a low bound, nothing estimated under a report).

Where the reported input counts what no request holds (``REPORTED_INPUT_BEYOND_REQUEST``:
Parallel counts the web evidence it retrieves) the estimate is a floor: the high bound is
``None`` and only ``below`` is a miss. A breakdown that names a modality the API does not
define (``MODALITIES``), or holds an entry without a count, is compared in total only,
and the comparison's ``notes`` say so.

.. versionadded:: 0.1
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from .budget import BlockEstimate, Estimate
from .errors import InvalidInput, Problem
from .limits import Limits, limits_for

__all__ = ["UsageComparison", "UsageRow", "Verdict", "compare_usage"]

Verdict = Literal["inside", "below", "above"]
TOTAL = "total"


@dataclass(frozen=True, slots=True)
class UsageRow:
    """One reported figure against the estimate's bounds for the same tokens.

    ``modality`` is a modality of the breakdown, several joined by ``+`` when they may
    share tokens, or ``total``. ``high`` is ``None`` when the estimate is a floor only.
    ``measured`` is False when a part of the estimate rests on the ``UNMEASURED_*``
    assumptions (a URL that was not fetched).

    .. versionadded:: 0.1
    """

    modality: str
    low: int
    high: int | None
    reported: int
    verdict: Verdict
    factor: float | None
    measured: bool = True


@dataclass(frozen=True, slots=True)
class UsageComparison:
    """How a request's estimate did against the usage its response reported.

    ``modalities`` holds one row per modality group of the breakdown, sorted by name;
    ``total`` is ``None`` when the response reported no input total. ``floor`` is True
    when the estimate bounds the reported input from below only.

    .. versionadded:: 0.1
    """

    target: str
    modalities: tuple[UsageRow, ...]
    total: UsageRow | None
    floor: bool
    notes: tuple[str, ...] = ()

    @property
    def rows(self) -> tuple[UsageRow, ...]:
        """Every row: the modality groups, then the total."""
        return self.modalities + ((self.total,) if self.total is not None else ())

    @property
    def outside(self) -> bool:
        """True when any reported figure is outside its bounds."""
        return any(row.verdict != "inside" for row in self.rows)


def _factor(numerator: int, denominator: int) -> float | None:
    """``numerator / denominator`` rounded up to hundredths, in integers; None for 0."""
    if denominator == 0:
        return None
    return -(-numerator * 100 // denominator) / 100


def _row(modality: str, low: int, high: int | None, reported: int, measured: bool) -> UsageRow:
    if reported < low:
        return UsageRow(modality, low, high, reported, "below", _factor(low, reported), measured)
    if high is not None and reported > high:
        return UsageRow(modality, low, high, reported, "above", _factor(reported, high), measured)
    return UsageRow(modality, low, high, reported, "inside", None, measured)


def _count(value: object, name: str) -> int:
    """A reported token count: a whole number of at least 0, else ``InvalidInput``."""
    if type(value) is not int:
        found = type(value).__name__
        raise InvalidInput(
            [Problem((), "response.type", f"expected {name} to be an integer, found {found}")]
        )
    if value < 0:
        raise InvalidInput(
            [Problem((), "usage.negative", f"expected {name} of 0 or more, found {value}")]
        )
    return value


def _breakdown(
    entries: Iterable[tuple[str | None, int | None]], limits: Limits
) -> tuple[dict[str, int] | None, str]:
    """The reported tokens per modality, or None and why the breakdown is not compared."""
    reported: dict[str, int] = {}
    for modality, tokens in entries:
        if tokens is None or modality is None:
            return None, "an entry of the input breakdown has no modality or no count"
        count = _count(tokens, f"the tokens of modality {modality!r}")
        if modality not in limits.MODALITIES:
            return None, (
                f"the input breakdown names modality {modality!r}, "
                f"which {limits.TARGET} does not define (MODALITIES)"
            )
        reported[modality] = reported.get(modality, 0) + count
    return reported, ""


def _groups(names: Iterable[tuple[str, ...]]) -> list[frozenset[str]]:
    """Join the sets of modalities that share a member, until no two do; sorted."""
    groups: list[frozenset[str]] = []
    for members in names:
        joined = frozenset(members)
        kept = []
        for group in groups:
            if group & joined:
                joined |= group
            else:
                kept.append(group)
        groups = [*kept, joined]
    return sorted(groups, key=sorted)


def _by_modality(
    rows: tuple[BlockEstimate, ...], reported: Mapping[str, int], limits: Limits, floor: bool
) -> tuple[UsageRow, ...]:
    """One row per group of modalities that rows and the breakdown may share tokens in."""
    table = limits.REPORTED_MODALITIES
    under = [(row, table.get(row.modality, (row.modality,))) for row in rows]
    out = []
    for group in _groups([*(names for _row, names in under), *((m,) for m in reported)]):
        mine = [row for row, names in under if group.intersection(names)]
        count = sum(reported.get(name, 0) for name in group)
        if not mine and not count:
            continue
        low, high = sum(r.low for r in mine), sum(r.high for r in mine)
        measured = all(r.measured for r in mine)
        out.append(_row("+".join(sorted(group)), low, None if floor else high, count, measured))
    return tuple(out)


def compare_usage(
    estimate: Estimate,
    *,
    input_tokens: int | None,
    by_modality: Iterable[tuple[str | None, int | None]] = (),
    limits: Limits | None = None,
) -> UsageComparison:
    """Compare an estimate with the input tokens a response reported, per modality and in all.

    Args:
        estimate: the estimate of the request the response answers.
        input_tokens: the reported input total, or None when the response gave none.
        by_modality: the reported breakdown as ``(modality, tokens)`` pairs, in the order
            given (Gemini's ``input_tokens_by_modality``); a modality given twice counts
            the sum of its entries.
        limits: a table to use instead of the estimate's target's.

    Raises:
        InvalidInput: a count is not a whole number of at least 0 (``response.type``,
            ``usage.negative``).

    .. versionadded:: 0.1
    """
    table = limits if limits is not None else limits_for(estimate.target)
    floor = table.REPORTED_INPUT_BEYOND_REQUEST
    notes: list[str] = []
    if floor:
        notes.append(
            f"{table.TARGET} counts input that no request holds "
            "(REPORTED_INPUT_BEYOND_REQUEST): the estimate is a floor"
        )
    total = None
    if input_tokens is not None:
        count = _count(input_tokens, "the input tokens")
        high = None if floor else estimate.total.high
        measured = all(r.measured for r in estimate.parts)
        total = _row(TOTAL, estimate.total.low, high, count, measured)
    entries = list(by_modality)
    modalities: tuple[UsageRow, ...] = ()
    if entries and not table.REPORTED_MODALITIES:
        notes.append(f"{table.TARGET} reports no input breakdown: compared in total only")
    elif entries:
        reported, why = _breakdown(entries, table)
        if reported is None:
            notes.append(f"{why}: compared in total only")
        else:
            modalities = _by_modality(estimate.parts, reported, table, floor)
    return UsageComparison(table.TARGET, modalities, total, floor, tuple(notes))
