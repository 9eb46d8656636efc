"""Parse and check the responses of the Decisions APIs, in any form a client holds.

A response may be given as a mapping, JSON text (``str`` or ``bytes``), a pydantic model
(the official SDK's ``CreateDecisionResponse``, or any other), or an HTTP response object
with the body in ``.content`` and its status (``httpx.Response``, ``requests.Response``)
(:mod:`.reading`). It is checked in three steps:

1. the text, when text is given: UTF-8, one value, no repeated member names, no NaN;
2. the structure (:mod:`.walk`): every member has its JSON type, required members are
   there, members the library does not know are *warnings* (``response.unknown_member``),
   because APIs add fields;
3. the invariants between values (:mod:`.invariants`, :mod:`.usage`, :mod:`.signals`):
   answers keyed by the request's questions, ranges, probabilities that add up, a
   ``choice`` that is the most probable option, a ``score`` that is the
   probability-weighted mean, token counts that add up and, given the request, reported
   input within its offline estimate, and so on, each with its own code.

One source of truth for the shapes: the pydantic models (:mod:`.models`, :mod:`.signals`)
state the members of every object and their types; :mod:`.shapes` derives from them, per
target, the table the structural walk reads. ``Limits`` keeps only what is a limit: which
members each target requires, the enums and the tolerances.

:func:`iter_response_problems` yields every finding lazily, in document order;
:func:`parse_response` raises :class:`~decisions_input.errors.InvalidInput` when one of them
is an error and otherwise returns a frozen :class:`DecisionResponse` carrying the warnings
(:mod:`.parsing`; models are built by :mod:`.building`). An error body (by HTTP status,
or by shape without one) is read as the error it is (:mod:`.error_bodies`):
:func:`parse_response` raises :class:`APIError` carrying it, and
:func:`iter_response_problems` reports ``response.error_body`` and checks it as one. The
same pairs exist for error bodies (:func:`parse_error`) and for
``DataStoreConnectionSignals`` (:func:`parse_signals`).
"""

from __future__ import annotations

from .models import (
    Answer,
    APIError,
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
    ResponseModel,
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
    "APIError",
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
    "ResponseModel",
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
