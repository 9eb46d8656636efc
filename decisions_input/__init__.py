"""Prepare and validate requests for Decisions APIs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .blocks import Block, MediaBlock, TextBlock, audio, document, image, media, sniff, text, video
from .budget import BlockEstimate, Estimate, Tokens, estimate
from .errors import (
    DecisionsInputError,
    InvalidInput,
    NotPicklable,
    Problem,
    SchemaError,
    Severity,
    SourceError,
)
from .limits import GEMINI, LIMITS, PARALLEL, RULES, Endpoint, Limits, Rule, limits_for
from .questions import Question, choice, noul, score
from .request import Request, canonical_dumps
from .schema_export import json_schema
from .sending import AsyncContent, Content, HttpRequest
from .validate import best_problem, check, is_valid, iter_problems

__version__ = "0.1.0"

# Response models, sniffing results and the remote check load on first use, so that a
# pre-flight validator stays a cheap import.
_LAZY = {
    "Detected": "sniffing",
    "RemoteCheck": "sources",
    "RemoteError": "sources",
    "RemoteHead": "sources",
    "SourceTooLarge": "sources",
}
_LAZY |= {
    name: "responses"
    for name in (
        "APIError",
        "Answer",
        "ChoiceAnswer",
        "DataStoreConnectionSignals",
        "DecisionResponse",
        "ErrorBody",
        "NoulAnswer",
        "RefusalAnswer",
        "ScoreAnswer",
        "iter_error_problems",
        "iter_response_problems",
        "iter_signals_problems",
        "parse_error",
        "parse_response",
        "parse_signals",
    )
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'decisions_input' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from .responses import (
        Answer,
        APIError,
        ChoiceAnswer,
        DataStoreConnectionSignals,
        DecisionResponse,
        ErrorBody,
        NoulAnswer,
        RefusalAnswer,
        ScoreAnswer,
        iter_error_problems,
        iter_response_problems,
        iter_signals_problems,
        parse_error,
        parse_response,
        parse_signals,
    )
    from .sniffing import Detected
    from .sources import RemoteCheck, RemoteError, RemoteHead, SourceTooLarge

__all__ = [
    "GEMINI",
    "BlockEstimate",
    "Estimate",
    "Tokens",
    "estimate",
    "APIError",
    "Answer",
    "ChoiceAnswer",
    "DataStoreConnectionSignals",
    "DecisionResponse",
    "ErrorBody",
    "NoulAnswer",
    "RefusalAnswer",
    "ScoreAnswer",
    "iter_error_problems",
    "iter_response_problems",
    "iter_signals_problems",
    "parse_error",
    "parse_response",
    "parse_signals",
    "Question",
    "Request",
    "HttpRequest",
    "Content",
    "AsyncContent",
    "Endpoint",
    "TextBlock",
    "Block",
    "MediaBlock",
    "audio",
    "document",
    "image",
    "media",
    "sniff",
    "video",
    "best_problem",
    "canonical_dumps",
    "json_schema",
    "check",
    "choice",
    "is_valid",
    "iter_problems",
    "noul",
    "score",
    "text",
    "LIMITS",
    "PARALLEL",
    "RULES",
    "DecisionsInputError",
    "InvalidInput",
    "Limits",
    "NotPicklable",
    "Problem",
    "Rule",
    "SchemaError",
    "Severity",
    "SourceError",
    "SourceTooLarge",
    "Detected",
    "RemoteCheck",
    "RemoteError",
    "RemoteHead",
    "__version__",
    "limits_for",
]
