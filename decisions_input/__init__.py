"""Prepare and validate requests for Decisions APIs."""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

# Every public name loads on first use, so that ``import decisions_input`` (and the command
# line's ``--help``) costs almost nothing, and a pre-flight validator pays only for the
# modules it uses: name -> module that defines it.
_LAZY = {
    **dict.fromkeys(
        ("Block", "MediaBlock", "TextBlock", "audio", "document", "image", "media", "sniff")
        + ("text", "video"),
        "blocks",
    ),
    **dict.fromkeys(("BlockEstimate", "Estimate", "Tokens", "estimate"), "budget"),
    **dict.fromkeys(("UsageComparison", "UsageRow", "compare_usage"), "reported_usage"),
    **dict.fromkeys(
        ("DecisionsInputError", "InvalidInput", "NotPicklable", "Problem", "SchemaError")
        + ("Severity", "SourceError"),
        "errors",
    ),
    **dict.fromkeys(
        ("GEMINI", "LIMITS", "PARALLEL", "RULES", "Endpoint", "Limits", "Rule", "limits_for"),
        "limits",
    ),
    **dict.fromkeys(("Question", "choice", "noul", "score"), "questions"),
    **dict.fromkeys(("Request", "canonical_dumps"), "request"),
    **dict.fromkeys(("best_problem", "check", "is_valid", "iter_problems"), "validate"),
    **dict.fromkeys(("AsyncContent", "Content", "HttpRequest"), "sending"),
    "json_schema": "schema_export",
    "Detected": "sniffing",
    **dict.fromkeys(("RemoteCheck", "RemoteError", "RemoteHead", "SourceTooLarge"), "sources"),
    **dict.fromkeys(
        (
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
        ),
        "responses",
    ),
}


def __getattr__(name: str) -> object:
    import importlib

    module = _LAZY.get(name)
    if module is None:
        if name.startswith("_"):
            raise AttributeError(f"module 'decisions_input' has no attribute {name!r}")
        try:  # a submodule, as ``decisions_input.blocks`` after an eager import would be
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module 'decisions_input' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:
    from .blocks import (
        Block,
        MediaBlock,
        TextBlock,
        audio,
        document,
        image,
        media,
        sniff,
        text,
        video,
    )
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
    from .reported_usage import UsageComparison, UsageRow, compare_usage
    from .request import Request, canonical_dumps
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
    from .schema_export import json_schema
    from .sending import AsyncContent, Content, HttpRequest
    from .sniffing import Detected
    from .sources import RemoteCheck, RemoteError, RemoteHead, SourceTooLarge
    from .validate import best_problem, check, is_valid, iter_problems

__all__ = [
    "GEMINI",
    "BlockEstimate",
    "Estimate",
    "Tokens",
    "estimate",
    "UsageComparison",
    "UsageRow",
    "compare_usage",
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
    "NotPicklable",
    "Limits",
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
