"""Parse and check the responses of the Decisions APIs.

A response body (a mapping, or JSON text as ``str`` or ``bytes``) is checked in three steps:

1. the text, when text is given: UTF-8, one value, no repeated member names, no NaN;
2. the structure, driven by ``Limits.RESPONSE_SHAPES``: every member has its JSON type,
   required members are there, members the table does not know are *warnings*
   (``response.unknown_member``), because APIs add fields;
3. the invariants between values: answers keyed by the request's questions, ranges,
   probabilities that add up, a ``choice`` that is the most probable option, a ``score``
   that is the probability-weighted mean, and so on, each with its own code.

:func:`iter_response_problems` yields every finding lazily, in document order;
:func:`parse_response` raises :class:`~decisions_input.errors.InvalidInput` when one of them
is an error and otherwise returns a frozen :class:`DecisionResponse` carrying the warnings.
The same pairs exist for error bodies (:func:`parse_error`) and for
``DataStoreConnectionSignals`` (:func:`parse_signals`).

Numbers printed by an API are rounded, so the equalities are checked within a tolerance that
follows from the printed digits; the rule is spelled out in :mod:`decisions_input.limits`
next to ``PROBABILITY_SUM_TOLERANCE``.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import ClassVar, TypeVar
from urllib.parse import urlsplit

from .errors import DecisionsInputError, InvalidInput, Path, Problem, Severity
from .jsontext import parse as parse_json_text
from .limits import RULES, Limits, limits_for

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

_EMPTY: Mapping[str, object] = MappingProxyType({})
# A level index: no leading zero, and short (no rubric has a million levels), so that
# turning it into a number can never overflow.
_INDEX_KEY = re.compile(r"0|[1-9][0-9]{0,5}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_REQUEST_ID = re.compile(r"\(request id:\s*([^()\s]+)\s*\)\s*$")


# --------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------


def _no_extra() -> Mapping[str, object]:
    return _EMPTY


def _threshold(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InvalidInput(
            [
                _problem(
                    (), "response.threshold", f"expected a number from 0 to 1, found {_show(value)}"
                )
            ]
        )
    return float(value)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@dataclass(frozen=True, slots=True)
class NoulAnswer:
    """A yes/no answer: ``noul`` is the calibrated probability that the statement is true.

    ``confidence`` is ``None`` where the API does not report it (Parallel).

    .. versionadded:: 0.1
    """

    type: ClassVar[str] = "noul"

    noul: float
    confidence: float | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)

    @property
    def certainty(self) -> float:
        """The reported confidence, or ``max(noul, 1 - noul)`` when none is reported."""
        return self.confidence if self.confidence is not None else max(self.noul, 1 - self.noul)

    def is_true(self, threshold: float = 0.5) -> bool:
        """Return whether ``noul`` reaches ``threshold``."""
        return self.noul >= _threshold(threshold)

    def is_uncertain(self, threshold: float) -> bool:
        """Return whether the certainty is below ``threshold``."""
        return self.certainty < _threshold(threshold)


@dataclass(frozen=True, slots=True)
class ChoiceAnswer:
    """A single-select answer: the chosen option ID and the probability of every option.

    .. versionadded:: 0.1
    """

    type: ClassVar[str] = "choice"

    choice: str
    probabilities: Mapping[str, float]
    confidence: float | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)

    @property
    def winner(self) -> str:
        """The most probable option; ``choice`` when it is among the most probable.

        Otherwise exact ties go to the first option ID in UTF-8 byte order, as the API
        breaks them.
        """
        if not self.probabilities:
            return self.choice
        top = max(self.probabilities.values())
        if self.probabilities.get(self.choice) == top:
            return self.choice
        return min((k for k, v in self.probabilities.items() if v == top), key=_utf8)

    @property
    def certainty(self) -> float:
        """The reported confidence, or the probability of ``choice`` when none is reported."""
        if self.confidence is not None:
            return self.confidence
        return self.probabilities.get(self.choice, 0.0)

    def is_uncertain(self, threshold: float) -> bool:
        """Return whether the certainty is below ``threshold``."""
        return self.certainty < _threshold(threshold)


@dataclass(frozen=True, slots=True)
class ScoreAnswer:
    """A rubric answer: the expected level, the probability of every level and the legend.

    Keys of ``probabilities`` and ``legend`` are level indexes as strings (``"0"``, ``"1"``…).

    .. versionadded:: 0.1
    """

    type: ClassVar[str] = "score"

    score: float
    probabilities: Mapping[str, float]
    legend: Mapping[str, str]
    confidence: float | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)

    @property
    def level(self) -> int | None:
        """The most probable level index, ties to the lowest; ``None`` without probabilities."""
        best: tuple[int, float] | None = None
        for key, p in self.probabilities.items():
            if not _INDEX_KEY.fullmatch(key):
                continue
            index = int(key)
            if best is None or p > best[1] or (p == best[1] and index < best[0]):
                best = (index, p)
        return None if best is None else best[0]

    @property
    def certainty(self) -> float:
        """The reported confidence, or the highest probability when none is reported."""
        if self.confidence is not None:
            return self.confidence
        return max(self.probabilities.values(), default=0.0)

    def is_uncertain(self, threshold: float) -> bool:
        """Return whether the certainty is below ``threshold``."""
        return self.certainty < _threshold(threshold)


@dataclass(frozen=True, slots=True)
class RefusalAnswer:
    """Parallel's answer when the decision provider declined a question: no values at all.

    .. versionadded:: 0.1
    """

    type: ClassVar[str] = "refusal"

    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)

    @property
    def certainty(self) -> None:
        """Always ``None``: a refusal carries no confidence."""
        return None

    def is_uncertain(self, threshold: float) -> bool:
        """Return ``True``: a refusal is never a confident answer."""
        _threshold(threshold)
        return True


Answer = NoulAnswer | ChoiceAnswer | ScoreAnswer | RefusalAnswer


@dataclass(frozen=True, slots=True)
class ModalityTokens:
    """Tokens of one modality (``text``, ``image``…) in a Gemini usage breakdown."""

    modality: str | None = None
    tokens: int | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)


@dataclass(frozen=True, slots=True)
class GroundingToolCount:
    """How often a grounding tool (``google_search``, ``google_maps``) was used."""

    type: str | None = None
    count: int | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)


@dataclass(frozen=True, slots=True)
class GeminiUsage:
    """Gemini token usage; every member is optional (the proxy sends a subset).

    .. versionadded:: 0.1
    """

    total_input_tokens: int | None = None
    initial_input_tokens: int | None = None
    input_tokens_by_modality: tuple[ModalityTokens, ...] = ()
    total_cached_tokens: int | None = None
    cached_tokens_by_modality: tuple[ModalityTokens, ...] = ()
    total_output_tokens: int | None = None
    output_tokens_by_modality: tuple[ModalityTokens, ...] = ()
    total_tool_use_tokens: int | None = None
    tool_use_tokens_by_modality: tuple[ModalityTokens, ...] = ()
    total_thought_tokens: int | None = None
    total_tokens: int | None = None
    grounding_tool_count: tuple[GroundingToolCount, ...] = ()
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)


@dataclass(frozen=True, slots=True)
class ParallelUsage:
    """Parallel token usage; ``output_tokens`` is always 0.

    .. versionadded:: 0.1
    """

    input_tokens: int
    output_tokens: int = 0
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)


@dataclass(frozen=True, slots=True)
class PromptFeedback:
    """Gemini's input filter verdict; a set ``block_reason`` means nothing was answered.

    .. versionadded:: 0.1
    """

    block_reason: str | None = None
    block_reason_message: str | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)

    @property
    def blocked(self) -> bool:
        """True when the input was blocked."""
        return bool(self.block_reason)


@dataclass(frozen=True, slots=True)
class Citation:
    """A web source Parallel used for the whole request.

    .. versionadded:: 0.1
    """

    url: str
    excerpts: tuple[str, ...] = ()
    title: str | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)


@dataclass(frozen=True, slots=True)
class DecisionResponse:
    """A checked response of either API, answers keyed by question key.

    Gemini responses fill ``usage`` (a :class:`GeminiUsage`) and maybe ``prompt_feedback``;
    Parallel responses fill ``mode``, ``usage`` (a :class:`ParallelUsage`), ``citations``
    and ``decision_id``. ``warnings`` holds the warnings found while checking.

    .. versionadded:: 0.1
    """

    target: str
    answers: Mapping[str, Answer]
    usage: GeminiUsage | ParallelUsage | None = None
    prompt_feedback: PromptFeedback | None = None
    mode: str | None = None
    citations: tuple[Citation, ...] = ()
    decision_id: str | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)
    warnings: tuple[Problem, ...] = field(default=(), compare=False)

    @property
    def blocked(self) -> bool:
        """True when Gemini's input filter blocked the request."""
        return self.prompt_feedback is not None and self.prompt_feedback.blocked

    def uncertain(self, threshold: float) -> tuple[str, ...]:
        """Return the keys of answers whose certainty is below ``threshold``, in order."""
        limit = _threshold(threshold)
        return tuple(key for key, answer in self.answers.items() if answer.is_uncertain(limit))


@dataclass(frozen=True, slots=True)
class GeminiError:
    """The ``error`` object of a Gemini error body, in both shapes the proxy sends."""

    message: str | None = None
    code: str | None = None
    type: str | None = None
    param: str | None = None
    retryable: bool | None = None
    allowed_endpoints: tuple[str, ...] = ()
    expected_endpoint: str | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)

    @property
    def request_id(self) -> str | None:
        """The ``(request id: …)`` at the end of the message, for support tickets."""
        found = _REQUEST_ID.search(self.message or "")
        return found.group(1) if found else None


@dataclass(frozen=True, slots=True)
class ParallelError:
    """The ``error`` object of a Parallel error body."""

    ref_id: str
    message: str
    detail: Mapping[str, object] | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)

    @property
    def request_id(self) -> str:
        """The reference ID to quote to support."""
        return self.ref_id


@dataclass(frozen=True, slots=True)
class ErrorBody:
    """A checked error body of either API.

    .. versionadded:: 0.1
    """

    target: str
    error: GeminiError | ParallelError
    type: str | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)
    warnings: tuple[Problem, ...] = field(default=(), compare=False)

    @property
    def message(self) -> str | None:
        """The human-readable message."""
        return self.error.message

    @property
    def code(self) -> str | None:
        """The machine-readable code (Gemini only)."""
        return self.error.code if isinstance(self.error, GeminiError) else None


@dataclass(frozen=True, slots=True)
class ModelCallSignals:
    """Diagnostics of one model call (the rewriter's or the answer generator's)."""

    rendered_prompt: str | None = None
    model_output: str | None = None
    model: str | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)


@dataclass(frozen=True, slots=True)
class SearchSnippet:
    """A search snippet put into the answer generation prompt."""

    document_title: str | None = None
    document_uri: str | None = None
    text: str | None = None
    metadata: Mapping[str, object] | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)


@dataclass(frozen=True, slots=True)
class AnswerPart:
    """A piece of the answer with the indexes of the snippets supporting it."""

    text: str = ""
    supporting_indices: tuple[int, ...] = ()
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)


@dataclass(frozen=True, slots=True)
class CitedSnippet:
    """A snippet the answer generator cited; an absent index means 0, as in protobuf JSON."""

    search_snippet: SearchSnippet | None = None
    snippet_index: int = 0
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)


@dataclass(frozen=True, slots=True)
class GroundingSignals:
    """The grounding check's decision and score bucket (values of ``limits``)."""

    decision: str | None = None
    score: str | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)


@dataclass(frozen=True, slots=True)
class SafetySignals:
    """The safety check's decision and banned phrase match (values of ``limits``)."""

    decision: str | None = None
    banned_phrase_match: str | None = None
    matched_banned_phrase: str | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)


@dataclass(frozen=True, slots=True)
class DataStoreConnectionSignals:
    """Diagnostic signals of a grounded answer; any member may be missing.

    .. versionadded:: 0.1
    """

    rewriter_model_call_signals: ModelCallSignals | None = None
    rewritten_query: str | None = None
    search_snippets: tuple[SearchSnippet, ...] = ()
    answer_generation_model_call_signals: ModelCallSignals | None = None
    answer: str | None = None
    answer_parts: tuple[AnswerPart, ...] = ()
    cited_snippets: tuple[CitedSnippet, ...] = ()
    grounding_signals: GroundingSignals | None = None
    safety_signals: SafetySignals | None = None
    extra: Mapping[str, object] = field(default_factory=_no_extra, repr=False)
    warnings: tuple[Problem, ...] = field(default=(), compare=False)

    def snippets_for(self, part: AnswerPart) -> tuple[SearchSnippet, ...]:
        """Return the search snippets supporting an answer part."""
        return tuple(self.search_snippets[i] for i in part.supporting_indices)


# --------------------------------------------------------------------------------------
# Problems and small helpers
# --------------------------------------------------------------------------------------


def _problem(path: Path, code: str, message: str) -> Problem:
    rule = RULES.get(code)
    return Problem(path, code, message, rule.severity if rule else Severity.ERROR)


def _show(value: object, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _names(names: list[str]) -> str:
    return ", ".join(map(repr, names[:5])) + (" ..." if len(names) > 5 else "")


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integer(value: object) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    return isinstance(value, int) and not isinstance(value, bool)


def _num(mapping: Mapping[str, object], name: str) -> float | None:
    value = mapping.get(name)
    return float(value) if _is_number(value) else None  # type: ignore[arg-type]


def _str(mapping: Mapping[str, object], name: str) -> str | None:
    value = mapping.get(name)
    return value if isinstance(value, str) else None


def _dict(mapping: Mapping[str, object], name: str) -> dict[str, object] | None:
    value = mapping.get(name)
    return value if isinstance(value, dict) else None


def _list(mapping: Mapping[str, object], name: str) -> list[object] | None:
    value = mapping.get(name)
    return value if isinstance(value, list) else None


def _freeze(value: object) -> object:
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _index_of(mapping: dict[str, object], key: str) -> int:
    for i, name in enumerate(mapping):
        if name == key:
            return i
    return sys.maxsize


def _doc_key(root: object, path: Path) -> tuple[int, ...]:
    """Position of a path in document order: member and item indexes along the way."""
    key: list[int] = []
    node = root
    for step in path:
        if isinstance(node, dict) and isinstance(step, str) and step in node:
            key.append(_index_of(node, step))
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            key.append(step)
            node = node[step]
        else:
            key.append(sys.maxsize)
            break
    return tuple(key)


def _in_order(root: object, base: Path, problems: Iterable[Problem]) -> list[Problem]:
    depth = len(base)
    return sorted(problems, key=lambda p: _doc_key(root, p.path[depth:]))


# --------------------------------------------------------------------------------------
# Loading: mapping or JSON text -> plain JSON values
# --------------------------------------------------------------------------------------
# Response text is read by the same strict reader as request text (decisions_input.jsontext);
# what it finds there is reported and the body is not checked further.


def _plain(value: object, path: Path, depth: int, limits: Limits, out: list[Problem]) -> object:
    """Copy a value into plain JSON types, recording what is not JSON."""
    if depth > limits.MAX_JSON_DEPTH:
        out.append(
            _problem(
                path,
                "json.too_deep",
                f"expected at most {limits.MAX_JSON_DEPTH} levels, found more",
            )
        )
        return None
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        if _SURROGATE.search(value):
            out.append(
                _problem(path, "json.lone_surrogate", "expected text, found half a surrogate pair")
            )
        return str(value)
    if isinstance(value, int):
        if abs(value) > sys.float_info.max:
            out.append(_problem(path, "json.number_range", "expected a number within double range"))
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            out.append(
                _problem(path, "json.non_finite", f"expected a finite number, found {value}")
            )
        return float(value)
    if isinstance(value, Mapping):
        return _plain_object(value, path, depth, limits, out)
    if isinstance(value, (list, tuple)):
        return [_plain(item, (*path, i), depth + 1, limits, out) for i, item in enumerate(value)]
    out.append(
        _problem(path, "response.type", f"expected a JSON value, found {type(value).__name__}")
    )
    return None


def _plain_object(
    value: Mapping[object, object], path: Path, depth: int, limits: Limits, out: list[Problem]
) -> dict[str, object]:
    result: dict[str, object] = {}
    for name, item in list(value.items()):
        if not isinstance(name, str):
            out.append(
                _problem(
                    path, "response.type", f"expected string member names, found {_show(name)}"
                )
            )
            continue
        if _SURROGATE.search(name):
            out.append(
                _problem(path, "json.lone_surrogate", "expected text, found half a surrogate pair")
            )
        result[str(name)] = _plain(item, (*path, name), depth + 1, limits, out)
    return result


def _load(body: object, limits: Limits) -> tuple[object, list[Problem]]:
    """Turn a body into plain JSON values; problems about the text come back as a list."""
    problems: list[Problem] = []
    try:
        if isinstance(body, (bytearray, memoryview)):
            body = bytes(body)
        if isinstance(body, (str, bytes)):
            parsed = parse_json_text(body, limits=limits)
            if parsed.problems:
                return None, list(parsed.problems)
            body = parsed.value
        elif not (body is None or isinstance(body, (Mapping, list, tuple, int, float))):
            expected = "expected a JSON object or JSON text"
            return None, [_problem((), "response.type", f"{expected}, found {type(body).__name__}")]
        value = _plain(body, (), 0, limits, problems)
    except RecursionError:
        return None, [_problem((), "json.too_deep", "expected less deeply nested data")]
    except DecisionsInputError:
        raise
    except Exception as exc:  # a caller's mapping that cannot be read
        return None, [
            _problem((), "response.type", f"expected readable data, found {type(exc).__name__}")
        ]
    return value, problems


# --------------------------------------------------------------------------------------
# What the request asked
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Question:
    type: str | None
    options: tuple[str, ...] | None
    levels: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class _Expect:
    questions: Mapping[str, _Question]
    include_excerpts: bool | None


def _bad_request(path: Path, message: str) -> InvalidInput:
    return InvalidInput([_problem(path, "response.request", message)])


def _request_data(request: object, limits: Limits) -> object:
    if isinstance(request, (str, bytes, bytearray, memoryview)):
        return request
    try:
        data = request
        if not isinstance(data, Mapping):
            to_dict = getattr(request, "to_dict", None)
            if not callable(to_dict):
                found = type(request).__name__
                raise _bad_request((), f"expected a request mapping or to_dict(), found {found}")
            data = to_dict()
        if isinstance(data, Mapping):  # only what the checks read, not the media
            return {k: data[k] for k in ("questions", "include_excerpts") if k in data}
        return data
    except DecisionsInputError:
        raise
    except Exception as exc:
        found = type(exc).__name__
        raise _bad_request((), f"expected a readable request, reading it raised {found}") from exc


def _question(value: object) -> _Question:
    if not isinstance(value, dict):
        return _Question(None, None, None)
    kind = _str(value, "type")
    criteria = value.get("criteria")
    options = levels = None
    if kind == "choice" and isinstance(criteria, dict):
        options = tuple(criteria)
    if kind == "score" and isinstance(criteria, list) and all(isinstance(c, str) for c in criteria):
        levels = tuple(str(c) for c in criteria)
    return _Question(kind, options, levels)


# Problems that leave a request unreadable; odd numbers or strings inside it do not matter
# to the comparison, so they are left to the request checks.
_UNREADABLE = frozenset(
    {
        "json.syntax",
        "json.trailing_data",
        "json.invalid_utf8",
        "json.bom",
        "json.encoding",
        "json.too_deep",
        "response.type",
    }
)


def _expectations(request: object, limits: Limits) -> _Expect | None:
    if request is None:
        return None
    value, problems = _load(_request_data(request, limits), limits)
    errors = [p for p in problems if p.code in _UNREADABLE]
    if errors:
        raise InvalidInput([_problem(p.path, "response.request", p.message) for p in errors])
    if not isinstance(value, dict):
        raise _bad_request((), f"expected the request to be an object, found {_json_kind(value)}")
    questions = value.get("questions")
    if not isinstance(questions, dict):
        raise _bad_request(
            ("questions",), f"expected a questions object, found {_json_kind(questions)}"
        )
    include = value.get("include_excerpts", True)
    return _Expect(
        MappingProxyType({k: _question(q) for k, q in questions.items()}),
        include if isinstance(include, bool) else None,
    )


# --------------------------------------------------------------------------------------
# Structure, driven by Limits.RESPONSE_SHAPES
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Ctx:
    limits: Limits
    expect: _Expect | None = None
    blocked: bool = False

    def shape(self, name: str) -> Mapping[str, str]:
        return self.limits.RESPONSE_SHAPES.get(name, _NO_MEMBERS)

    def required(self, name: str) -> tuple[str, ...]:
        return self.limits.RESPONSE_REQUIRED.get(name, ())


_NO_MEMBERS: Mapping[str, str] = MappingProxyType({})

# Members whose string value must come from a list in the limits table, and the code used
# when it does not: an unknown value in an open API list is a warning, in 001 an error.
_ENUMS: Mapping[tuple[str, str], tuple[str, str]] = MappingProxyType(
    {
        ("response", "mode"): ("MODES", "response.enum"),
        ("prompt_feedback", "block_reason"): ("BLOCK_REASONS", "response.enum"),
        ("modality_tokens", "modality"): ("MODALITIES", "response.enum"),
        ("grounding_tool_count", "type"): ("GROUNDING_TOOL_TYPES", "response.enum"),
        ("error_response", "type"): ("ERROR_BODY_TYPES", "response.enum"),
        ("grounding_signals", "decision"): ("GROUNDING_DECISIONS", "signals.enum"),
        ("grounding_signals", "score"): ("GROUNDING_SCORE_BUCKETS", "signals.enum"),
        ("safety_signals", "decision"): ("SAFETY_DECISIONS", "signals.enum"),
        ("safety_signals", "bannedPhraseMatch"): ("BANNED_PHRASE_MATCHES", "signals.enum"),
    }
)


def _describe(kind: str) -> str:
    if kind.endswith("?"):
        return _describe(kind[:-1]) + " or null"
    if kind.startswith("["):
        return "array"
    if kind in ("string", "number", "integer", "boolean"):
        return kind
    return "object"


def _kind_ok(value: object, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return _is_number(value)
    if kind == "integer":
        return _is_integer(value)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind.startswith("["):
        return isinstance(value, list)
    return isinstance(value, dict)


def _walk(value: object, path: Path, kind: str, ctx: _Ctx) -> Iterator[Problem]:
    """Check a value against a kind of the shape language; see ``Limits.RESPONSE_SHAPES``."""
    if kind.endswith("?"):
        if value is None:
            return
        kind = kind[:-1]
    if not _kind_ok(value, kind):
        yield _problem(
            path, "response.type", f"expected {_describe(kind)}, found {_json_kind(value)}"
        )
        return
    if kind.startswith("[") and isinstance(value, list):
        for i, item in enumerate(value):
            yield from _walk(item, (*path, i), kind[1:-1], ctx)
    elif kind.startswith("{") and isinstance(value, dict):
        for name, item in value.items():
            yield from _walk(item, (*path, name), kind[1:-1], ctx)
    elif kind == "answer" and isinstance(value, dict):
        yield from _answer(value, path, ctx)
    elif kind in ctx.limits.RESPONSE_SHAPES and isinstance(value, dict):
        yield from _object(value, path, kind, ctx)


def _missing(value: dict[str, object], path: Path, shape: str, ctx: _Ctx) -> Iterator[Problem]:
    for name in ctx.required(shape):
        if name not in value:
            yield _problem(path, "response.required", f"expected member {name!r}, found none")


def _members(
    value: dict[str, object],
    path: Path,
    shape: str,
    ctx: _Ctx,
    tolerated: frozenset[str] = frozenset(),
) -> Iterator[Problem]:
    members = ctx.shape(shape)
    for name, item in value.items():
        kind = members.get(name)
        if kind is not None:
            yield from _walk(item, (*path, name), kind, ctx)
            yield from _enum(shape, name, item, (*path, name), ctx)
        elif name not in tolerated:
            yield _problem((*path, name), "response.unknown_member", f"expected no member {name!r}")


def _enum(shape: str, name: str, item: object, path: Path, ctx: _Ctx) -> Iterator[Problem]:
    entry = _ENUMS.get((shape, name))
    if entry is None or not isinstance(item, str):
        return
    limit, code = entry
    allowed: tuple[str, ...] = getattr(ctx.limits, limit)
    if item not in allowed:
        expected = ", ".join(map(repr, allowed)) or "no value"
        yield _problem(path, code, f"expected one of {expected}, found {_show(item)}")


def _object(
    value: dict[str, object], path: Path, shape: str, ctx: _Ctx, before: Iterable[Problem] = ()
) -> Iterator[Problem]:
    """Check one object of a shape; its problems come out in document order."""
    problems = [*before, *_missing(value, path, shape, ctx)]
    tolerated = _VALUE_MEMBERS if shape == "refusal_answer" else frozenset()
    problems.extend(_members(value, path, shape, ctx, tolerated))
    hook = _HOOKS.get(shape)
    if hook is not None:
        problems.extend(hook(value, path, ctx))
    yield from _in_order(value, path, problems)


# --------------------------------------------------------------------------------------
# Numbers as printed
# --------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------
# Answers
# --------------------------------------------------------------------------------------


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
        yield from _object(value, path, kind + "_answer", ctx, before)
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
_VALUE_MEMBERS = frozenset({"noul", "choice", "score", "probabilities", "legend", "confidence"})


# --------------------------------------------------------------------------------------
# Usage, citations, signals
# --------------------------------------------------------------------------------------


_Hook = Callable[[dict[str, object], Path, _Ctx], Iterator[Problem]]


def _counts(shape: str) -> _Hook:
    """Return the hook for the integer members of a usage shape."""

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


def _squash(text: str) -> str:
    return "".join(text.split())


def _signals_hook(value: dict[str, object], path: Path, ctx: _Ctx) -> Iterator[Problem]:
    snippets = value.get("searchSnippets", [])
    count = len(snippets) if isinstance(snippets, list) else None
    parts = _list(value, "answerParts") or []
    answer = _str(value, "answer")
    texts = [p.get("text", "") for p in parts if isinstance(p, dict)]
    if answer is not None and parts and all(isinstance(t, str) for t in texts):
        joined, whole = _squash("".join(texts)), _squash(answer)
        if joined != whole:
            at = next(
                (i for i, (a, b) in enumerate(zip(joined, whole, strict=False)) if a != b),
                min(len(joined), len(whole)),
            )
            message = (
                "expected the parts' texts to make up the answer, ignoring whitespace;"
                f" they differ at character {at}"
            )
            yield _problem((*path, "answerParts"), "signals.answer_parts", message)
    if count is None:
        return
    for i, part in enumerate(parts):
        indices = part.get("supportingIndices") if isinstance(part, dict) else None
        for j, index in enumerate(indices if isinstance(indices, list) else []):
            if _is_integer(index) and not 0 <= index < count:
                where = (*path, "answerParts", i, "supportingIndices", j)
                yield _problem(
                    where,
                    "signals.index",
                    f"expected an index below {count}, the number of searchSnippets, found {index}",
                )
    for i, cited in enumerate(_list(value, "citedSnippets") or []):
        if isinstance(cited, dict):
            yield from _cited(cited, (*path, "citedSnippets", i), snippets, count)  # type: ignore[arg-type]


def _cited(
    cited: dict[str, object], where: Path, snippets: list[object], count: int
) -> Iterator[Problem]:
    index = cited.get("snippetIndex", 0)
    if not _is_integer(index):
        return
    position = int(index)  # type: ignore[call-overload]
    if not 0 <= position < count:
        at = (*where, "snippetIndex") if "snippetIndex" in cited else where
        yield _problem(
            at,
            "signals.index",
            f"expected an index below {count}, the number of searchSnippets, found {position}",
        )
        return
    snippet = cited.get("searchSnippet")
    if isinstance(snippet, dict) and snippet != snippets[position]:
        message = f"expected the same snippet as searchSnippets[{position}], found a different one"
        yield _problem((*where, "searchSnippet"), "signals.cited_snippet", message)


_HOOKS: Mapping[str, _Hook] = MappingProxyType(
    {
        "noul_answer": _noul_hook,
        "choice_answer": _choice_hook,
        "score_answer": _score_hook,
        "refusal_answer": _refusal_hook,
        "usage": _counts("usage"),
        "modality_tokens": _counts("modality_tokens"),
        "grounding_tool_count": _counts("grounding_tool_count"),
        "citation": _citation_hook,
        "signals": _signals_hook,
    }
)


# --------------------------------------------------------------------------------------
# Responses: the root streams, member by member
# --------------------------------------------------------------------------------------


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
    ctx = _Ctx(ctx.limits, ctx.expect, _is_blocked(value, ctx))
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
    ctx = _Ctx(table, _expectations(request, table))
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
    ctx = _Ctx(table, _expectations(request, table))
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


# --------------------------------------------------------------------------------------
# Error bodies and signals
# --------------------------------------------------------------------------------------


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
    return _stream(body, _Ctx(_resolve(target, limits)), _check_error)


def parse_error(body: object, *, target: str, limits: Limits | None = None) -> ErrorBody:
    """Check an error body and return it as an :class:`ErrorBody`.

    Raises:
        InvalidInput: when the body is not an error body of the target API.

    .. versionadded:: 0.1
    """
    table = _resolve(target, limits)
    value, warnings = _checked(body, _Ctx(table), _check_error)
    return _build(_build_error, value, table, warnings)


def iter_signals_problems(body: object, *, limits: Limits | None = None) -> Iterator[Problem]:
    """Yield every problem of a ``DataStoreConnectionSignals`` body in document order.

    .. versionadded:: 0.1
    """
    return _stream(body, _Ctx(_resolve("gemini", limits)), _check_signals)


def parse_signals(body: object, *, limits: Limits | None = None) -> DataStoreConnectionSignals:
    """Check a ``DataStoreConnectionSignals`` body and return it as a model.

    Raises:
        InvalidInput: when any problem is an error.

    .. versionadded:: 0.1
    """
    table = _resolve("gemini", limits)
    value, warnings = _checked(body, _Ctx(table), _check_signals)
    return _build(_build_signals, value, table, warnings)


# --------------------------------------------------------------------------------------
# Building models from checked values
# --------------------------------------------------------------------------------------


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
