"""Properties of the public builders (``text``, ``noul``, ``choice``, ``score`` and the
media builders) called with hostile arguments.

- a builder raises only ``InvalidInput`` or ``SourceError``, whose problems carry known
  codes and never ``internal.error``;
- what a builder accepts, a request accepts too: the block or question goes into a
  ``Request`` of the same limits, which builds, and whose text is valid when checked again
  (the budget aside: it is a rule of the whole request, which one builder cannot know).
"""

from __future__ import annotations

from typing import Any

import decisions_input as di
from fuzz.bounds import json_cpu_seconds
from fuzz.calls import Call, untag
from fuzz.probe import Failure, Probe
from fuzz.verdicts import INTERNAL_CODE, check_emitted

__all__ = ["check_builder"]

_ALLOWED = (di.InvalidInput, di.SourceError)
_QUESTIONS = frozenset({"noul", "choice", "score"})


def check_builder(call: Call) -> list[Failure]:
    """Make one builder call and check what it gives."""
    probe = Probe()
    build = getattr(di, call.name)
    args = untag(list(call.args))
    kwargs = untag(call.kwargs)
    built, raised = probe.call(call.name, lambda: build(*args, **kwargs), _ALLOWED)
    if isinstance(raised, di.InvalidInput):
        for code in raised.codes:
            if code not in di.RULES or code == INTERNAL_CODE:
                probe.fail("unknown-code" if code not in di.RULES else "internal-error", code, code)
    if built is not None:
        _check_in_request(probe, call.name, built, kwargs.get("limits", di.GEMINI))
    probe.check_time(json_cpu_seconds(0), call.name)
    return probe.failures


def _request(name: str, built: Any, limits: di.Limits) -> di.Request:
    question = built if name in _QUESTIONS else di.noul("Is it?", limits=limits)
    if not limits.INPUT_BLOCK_TYPES:
        return di.Request(state={}, questions={"q": question}, limits=limits)
    # A block goes after some text, so that a blank one does not leave the input empty.
    blocks = [di.text("Context:", limits=limits)] + ([] if name in _QUESTIONS else [built])
    model = sorted(limits.MODELS)[0] if limits.MODELS else None
    return di.Request(model=model, input=blocks, questions={"q": question}, limits=limits)


def _check_in_request(probe: Probe, name: str, built: Any, limits: di.Limits) -> None:
    if name not in _QUESTIONS and not limits.INPUT_BLOCK_TYPES:
        return  # a target without content blocks has no place for a block
    check_emitted(probe, lambda: _request(name, built, limits), name, limits)
