"""The entry points: check a body, then build the typed result from the checked values."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import TypeVar

from ..errors import DecisionsInputError, InvalidInput, Problem
from ..limits import Limits, limits_for
from ._common import (
    _EMPTY,
    _dict,
    _freeze,
    _is_integer,
    _json_kind,
    _list,
    _num,
    _problem,
    _show,
    _str,
)
from .invariants import HOOKS, _numbers, _response
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
from .reading import _expectations, _load
from .signals import (
    AnswerPart,
    CitedSnippet,
    DataStoreConnectionSignals,
    GroundingSignals,
    ModelCallSignals,
    SafetySignals,
    SearchSnippet,
)
from .walk import _NO_MEMBERS, _Ctx, _object

__all__ = [
    "iter_error_problems",
    "iter_response_problems",
    "iter_signals_problems",
    "parse_error",
    "parse_response",
    "parse_signals",
]


def _resolve(target: object, limits: object) -> Limits:
    if limits is None:
        return limits_for(target)  # type: ignore[arg-type]
    if isinstance(limits, Limits):
        return limits
    raise InvalidInput(
        [_problem((), "target.unknown", f"expected a Limits table, found {type(limits).__name__}")]
    )


def _stream(
    body: object, ctx: _Ctx, check: Callable[[object, _Ctx], Iterator[Problem]]
) -> Iterator[Problem]:
    value, problems = _load(body, ctx.limits)
    yield from problems
    if not any(p.is_error for p in problems):
        yield from check(value, ctx)


def iter_response_problems(
    body: object,
    *,
    request: object = None,
    target: str = "gemini",
    limits: Limits | None = None,
) -> Iterator[Problem]:
    """Yield every problem of a response body, lazily and in document order.

    Args:
        body: the response as a mapping or as JSON text (``str`` or ``bytes``).
        request: the request body it answers (a mapping, JSON text, or an object with
            ``to_dict()``); without it the checks that compare with the questions are skipped.
        target: ``"gemini"`` or ``"parallel"``; ignored when ``limits`` is given.
        limits: a table to use instead of the target's.

    Raises:
        InvalidInput: at once, for an unknown target or an unreadable request
            (``target.unknown``, ``response.request``); problems of the body are yielded.

    .. versionadded:: 0.1
    """
    table = _resolve(target, limits)
    ctx = _Ctx(table, HOOKS, _expectations(request, table))
    return _stream(body, ctx, _response)


def parse_response(
    body: object,
    *,
    request: object = None,
    target: str = "gemini",
    limits: Limits | None = None,
) -> DecisionResponse:
    """Check a response body and return it as a :class:`DecisionResponse`.

    Raises:
        InvalidInput: when any problem is an error; ``problems`` lists the errors. Warnings
            do not raise; they are kept in ``DecisionResponse.warnings``.

    .. versionadded:: 0.1
    """
    table = _resolve(target, limits)
    ctx = _Ctx(table, HOOKS, _expectations(request, table))
    value, warnings = _checked(body, ctx, _response)
    return _build(_build_response, value, table, warnings)


_T = TypeVar("_T")


def _build(
    builder: Callable[[dict[str, object], Limits, tuple[Problem, ...]], _T],
    value: object,
    limits: Limits,
    warnings: tuple[Problem, ...],
) -> _T:
    """Build a model from a checked value; a table that drops required members fails here."""
    try:
        return builder(value, limits, warnings)  # type: ignore[arg-type]
    except DecisionsInputError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        message = f"expected the members the model needs, found none for {exc}"
        raise InvalidInput([_problem((), "response.required", message)]) from exc


def _checked(
    body: object, ctx: _Ctx, check: Callable[[object, _Ctx], Iterator[Problem]]
) -> tuple[object, tuple[Problem, ...]]:
    value, problems = _load(body, ctx.limits)
    if not any(p.is_error for p in problems):
        problems.extend(check(value, ctx))
    errors = [p for p in problems if p.is_error]
    if errors:
        raise InvalidInput(errors)
    return value, tuple(problems)


# --- Error bodies and signals ---


def _root_object(shape: str) -> Callable[[object, _Ctx], Iterator[Problem]]:
    def check(value: object, ctx: _Ctx) -> Iterator[Problem]:
        if not isinstance(value, dict):
            yield _problem((), "response.type", f"expected object, found {_json_kind(value)}")
            return
        yield from _object(value, (), shape, ctx)

    return check


_check_error = _root_object("error_response")
_check_signals = _root_object("signals")


def iter_error_problems(
    body: object, *, target: str, limits: Limits | None = None
) -> Iterator[Problem]:
    """Yield every problem of an error body (HTTP 4xx/5xx) in document order.

    .. versionadded:: 0.1
    """
    return _stream(body, _Ctx(_resolve(target, limits), HOOKS), _check_error)


def parse_error(body: object, *, target: str, limits: Limits | None = None) -> ErrorBody:
    """Check an error body and return it as an :class:`ErrorBody`.

    Raises:
        InvalidInput: when the body is not an error body of the target API.

    .. versionadded:: 0.1
    """
    table = _resolve(target, limits)
    value, warnings = _checked(body, _Ctx(table, HOOKS), _check_error)
    return _build(_build_error, value, table, warnings)


def iter_signals_problems(body: object, *, limits: Limits | None = None) -> Iterator[Problem]:
    """Yield every problem of a ``DataStoreConnectionSignals`` body in document order.

    .. versionadded:: 0.1
    """
    return _stream(body, _Ctx(_resolve("gemini", limits), HOOKS), _check_signals)


def parse_signals(body: object, *, limits: Limits | None = None) -> DataStoreConnectionSignals:
    """Check a ``DataStoreConnectionSignals`` body and return it as a model.

    Raises:
        InvalidInput: when any problem is an error.

    .. versionadded:: 0.1
    """
    table = _resolve("gemini", limits)
    value, warnings = _checked(body, _Ctx(table, HOOKS), _check_signals)
    return _build(_build_signals, value, table, warnings)


# --- Building models from checked values ---


def _extra(value: Mapping[str, object], shape: str, limits: Limits) -> Mapping[str, object]:
    known = limits.RESPONSE_SHAPES.get(shape, _NO_MEMBERS)
    unknown = {k: _freeze(v) for k, v in value.items() if k not in known}
    return MappingProxyType(unknown) if unknown else _EMPTY


def _int(value: Mapping[str, object], name: str) -> int | None:
    item = value.get(name)
    return int(item) if _is_integer(item) else None  # type: ignore[call-overload]


def _floats(value: Mapping[str, object], name: str) -> Mapping[str, float]:
    return MappingProxyType(_numbers(dict(value), name))


def _build_answer(value: dict[str, object], limits: Limits) -> Answer:
    kind = value.get("type")
    shape = f"{kind}_answer"
    extra = _extra(value, shape, limits)
    known = limits.RESPONSE_SHAPES.get(shape, _NO_MEMBERS)
    confidence = _num(value, "confidence") if "confidence" in known else None
    if kind == "noul":
        return NoulAnswer(float(value["noul"]), confidence, extra)  # type: ignore[arg-type]
    if kind == "choice":
        return ChoiceAnswer(
            str(value["choice"]), _floats(value, "probabilities"), confidence, extra
        )
    if kind == "score":
        legend = MappingProxyType({k: str(v) for k, v in (_dict(value, "legend") or {}).items()})
        probabilities = _floats(value, "probabilities")
        return ScoreAnswer(float(value["score"]), probabilities, legend, confidence, extra)  # type: ignore[arg-type]
    if kind == "refusal":
        return RefusalAnswer(extra)
    raise InvalidInput(
        [
            _problem(
                (),
                "answer.type_unknown",
                f"expected an answer type with a model, found {_show(kind)}",
            )
        ]
    )


def _tokens(value: Mapping[str, object], name: str, limits: Limits) -> tuple[ModalityTokens, ...]:
    items = [i for i in _list(value, name) or [] if isinstance(i, dict)]
    return tuple(
        ModalityTokens(_str(i, "modality"), _int(i, "tokens"), _extra(i, "modality_tokens", limits))
        for i in items
    )


def _build_gemini_usage(value: dict[str, object], limits: Limits) -> GeminiUsage:
    tools = [i for i in _list(value, "grounding_tool_count") or [] if isinstance(i, dict)]
    return GeminiUsage(
        total_input_tokens=_int(value, "total_input_tokens"),
        initial_input_tokens=_int(value, "initial_input_tokens"),
        input_tokens_by_modality=_tokens(value, "input_tokens_by_modality", limits),
        total_cached_tokens=_int(value, "total_cached_tokens"),
        cached_tokens_by_modality=_tokens(value, "cached_tokens_by_modality", limits),
        total_output_tokens=_int(value, "total_output_tokens"),
        output_tokens_by_modality=_tokens(value, "output_tokens_by_modality", limits),
        total_tool_use_tokens=_int(value, "total_tool_use_tokens"),
        tool_use_tokens_by_modality=_tokens(value, "tool_use_tokens_by_modality", limits),
        total_thought_tokens=_int(value, "total_thought_tokens"),
        total_tokens=_int(value, "total_tokens"),
        grounding_tool_count=tuple(
            GroundingToolCount(
                _str(t, "type"), _int(t, "count"), _extra(t, "grounding_tool_count", limits)
            )
            for t in tools
        ),
        extra=_extra(value, "usage", limits),
    )


def _build_usage(
    value: dict[str, object] | None, limits: Limits
) -> GeminiUsage | ParallelUsage | None:
    if value is None:
        return None
    if limits.TARGET == "parallel":
        return ParallelUsage(
            _int(value, "input_tokens") or 0,
            _int(value, "output_tokens") or 0,
            _extra(value, "usage", limits),
        )
    return _build_gemini_usage(value, limits)


def _build_response(
    value: dict[str, object], limits: Limits, warnings: tuple[Problem, ...]
) -> DecisionResponse:
    # Only members the target's shape knows are modelled; the others stay in ``extra``.
    known = {k: v for k, v in value.items() if k in limits.RESPONSE_SHAPES.get("response", {})}
    answers = _dict(known, "answers") or {}
    feedback = _dict(known, "prompt_feedback")
    return DecisionResponse(
        target=limits.TARGET,
        answers=MappingProxyType({k: _build_answer(a, limits) for k, a in answers.items()}),  # type: ignore[arg-type]
        usage=_build_usage(_dict(known, "usage"), limits),
        prompt_feedback=None
        if feedback is None
        else PromptFeedback(
            _str(feedback, "block_reason"),
            _str(feedback, "block_reason_message"),
            _extra(feedback, "prompt_feedback", limits),
        ),
        mode=_str(known, "mode"),
        citations=tuple(
            Citation(
                str(c["url"]),
                tuple(str(e) for e in _list(c, "excerpts") or []),
                _str(c, "title"),
                _extra(c, "citation", limits),
            )
            for c in _dicts(known, "citations")
        ),
        decision_id=_str(known, "decision_id"),
        extra=_extra(value, "response", limits),
        warnings=warnings,
    )


def _build_error(
    value: dict[str, object], limits: Limits, warnings: tuple[Problem, ...]
) -> ErrorBody:
    inner = _dict(value, "error") or {}
    error: GeminiError | ParallelError
    if limits.TARGET == "parallel":
        detail = _dict(inner, "detail")
        error = ParallelError(
            str(inner.get("ref_id", "")),
            str(inner.get("message", "")),
            None if detail is None else _freeze(detail),  # type: ignore[arg-type]
            _extra(inner, "error", limits),
        )
    else:
        retryable = inner.get("retryable")
        error = GeminiError(
            message=_str(inner, "message"),
            code=_str(inner, "code"),
            type=_str(inner, "type"),
            param=_str(inner, "param"),
            retryable=retryable if isinstance(retryable, bool) else None,
            allowed_endpoints=tuple(str(e) for e in _list(inner, "allowed_endpoints") or []),
            expected_endpoint=_str(inner, "expected_endpoint"),
            extra=_extra(inner, "error", limits),
        )
    return ErrorBody(
        limits.TARGET, error, _str(value, "type"), _extra(value, "error_response", limits), warnings
    )


def _model_call(value: dict[str, object] | None, limits: Limits) -> ModelCallSignals | None:
    if value is None:
        return None
    return ModelCallSignals(
        _str(value, "renderedPrompt"),
        _str(value, "modelOutput"),
        _str(value, "model"),
        _extra(value, "model_call_signals", limits),
    )


def _snippet(value: dict[str, object], limits: Limits) -> SearchSnippet:
    metadata = _dict(value, "metadata")
    return SearchSnippet(
        _str(value, "documentTitle"),
        _str(value, "documentUri"),
        _str(value, "text"),
        None if metadata is None else _freeze(metadata),  # type: ignore[arg-type]
        _extra(value, "search_snippet", limits),
    )


def _dicts(value: Mapping[str, object], name: str) -> list[dict[str, object]]:
    return [i for i in _list(value, name) or [] if isinstance(i, dict)]


def _build_signals(
    value: dict[str, object], limits: Limits, warnings: tuple[Problem, ...]
) -> DataStoreConnectionSignals:
    grounding = _dict(value, "groundingSignals")
    safety = _dict(value, "safetySignals")
    return DataStoreConnectionSignals(
        rewriter_model_call_signals=_model_call(_dict(value, "rewriterModelCallSignals"), limits),
        rewritten_query=_str(value, "rewrittenQuery"),
        search_snippets=tuple(_snippet(s, limits) for s in _dicts(value, "searchSnippets")),
        answer_generation_model_call_signals=_model_call(
            _dict(value, "answerGenerationModelCallSignals"), limits
        ),
        answer=_str(value, "answer"),
        answer_parts=tuple(
            AnswerPart(
                _str(p, "text") or "",
                tuple(int(i) for i in _list(p, "supportingIndices") or []),  # type: ignore[call-overload]
                _extra(p, "answer_part", limits),
            )
            for p in _dicts(value, "answerParts")
        ),
        cited_snippets=tuple(
            CitedSnippet(
                None
                if _dict(c, "searchSnippet") is None
                else _snippet(_dict(c, "searchSnippet") or {}, limits),
                _int(c, "snippetIndex") or 0,
                _extra(c, "cited_snippet", limits),
            )
            for c in _dicts(value, "citedSnippets")
        ),
        grounding_signals=None
        if grounding is None
        else GroundingSignals(
            _str(grounding, "decision"),
            _str(grounding, "score"),
            _extra(grounding, "grounding_signals", limits),
        ),
        safety_signals=None
        if safety is None
        else SafetySignals(
            _str(safety, "decision"),
            _str(safety, "bannedPhraseMatch"),
            _str(safety, "matchedBannedPhrase"),
            _extra(safety, "safety_signals", limits),
        ),
        extra=_extra(value, "signals", limits),
        warnings=warnings,
    )
