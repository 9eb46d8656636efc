"""Parse and check the responses of the Decisions APIs.

A response body (a mapping, or JSON text as ``str`` or ``bytes``) is checked in three steps:

1. the text, when text is given: UTF-8, one value, no repeated member names, no NaN
   (:mod:`.reading`);
2. the structure, driven by ``Limits.RESPONSE_SHAPES``: every member has its JSON type,
   required members are there, members the table does not know are *warnings*
   (``response.unknown_member``), because APIs add fields (:mod:`.walk`);
3. the invariants between values: answers keyed by the request's questions, ranges,
   probabilities that add up, a ``choice`` that is the most probable option, a ``score``
   that is the probability-weighted mean, and so on, each with its own code
   (:mod:`.invariants`, :mod:`.signals`).

:func:`iter_response_problems` yields every finding lazily, in document order;
:func:`parse_response` raises :class:`~decisions_input.errors.InvalidInput` when one of them
is an error and otherwise returns a frozen :class:`DecisionResponse` carrying the warnings
(:mod:`.parsing`; the models are in :mod:`.models`). The same pairs exist for error bodies
(:func:`parse_error`) and for ``DataStoreConnectionSignals`` (:func:`parse_signals`).
"""

from __future__ import annotations

from .models import (
    Answer,
    ChoiceAnswer,
    Citation,
    DecisionResponse,
    ErrorBody,
    GeminiError,
    GeminiUsage,
    GroundingToolCount,
    ModalityTokens,
    NoulAnswer,
    ParallelError,
    ParallelUsage,
    PromptFeedback,
    RefusalAnswer,
    ScoreAnswer,
)
from .parsing import (
    iter_error_problems,
    iter_response_problems,
    iter_signals_problems,
    parse_error,
    parse_response,
    parse_signals,
)
from .signals import (
    AnswerPart,
    CitedSnippet,
    DataStoreConnectionSignals,
    GroundingSignals,
    ModelCallSignals,
    SafetySignals,
    SearchSnippet,
)

__all__ = [
    "Answer",
    "AnswerPart",
    "ChoiceAnswer",
    "Citation",
    "CitedSnippet",
    "DataStoreConnectionSignals",
    "DecisionResponse",
    "ErrorBody",
    "GeminiError",
    "GeminiUsage",
    "GroundingSignals",
    "GroundingToolCount",
    "ModalityTokens",
    "ModelCallSignals",
    "NoulAnswer",
    "ParallelError",
    "ParallelUsage",
    "PromptFeedback",
    "RefusalAnswer",
    "SafetySignals",
    "ScoreAnswer",
    "SearchSnippet",
    "iter_error_problems",
    "iter_response_problems",
    "iter_signals_problems",
    "parse_error",
    "parse_response",
    "parse_signals",
]
