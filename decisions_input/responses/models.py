"""The typed, immutable results: answers, usage, responses and error bodies.

Every model is a frozen pydantic v2 model, so ``model_dump``, ``model_dump_json``,
``model_json_schema`` and ``pickle`` work as pydantic users expect. Members the model does
not name (APIs add fields) are kept as pydantic extras, read-only, and :meth:`to_dict`
gives back the body the model was parsed from, unknown members included.

These models are also the one statement of the wire shapes: which members each object has
for each target and the JSON type of each. :mod:`.shapes` reads them from the field
annotations; where the Python type does not say enough (a member one API sends and the
other does not, a member that may be ``null``), the field carries a :class:`Wire` note.
The seed document each member comes from is named beside it (``000`` Gemini Decisions,
``002`` Parallel Decisions, ``003`` the proxy's OpenAPI reference).
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import FrozenInstanceError, dataclass
from typing import Annotated, Any, Literal, TypeAlias, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PrivateAttr,
    WithJsonSchema,
    WrapValidator,
)

from .._types import JSONObject, Target
from ..errors import DecisionsInputError, InvalidInput, Problem
from ..limits import LIMITS
from ._common import _INDEX_KEY, _REQUEST_ID, _problem, _show, _threshold, _utf8
from ._frozen import EMPTY, freeze, frozen_map

__all__ = [
    "APIError",
    "Answer",
    "ChoiceAnswer",
    "Citation",
    "DecisionResponse",
    "ErrorBody",
    "GeminiError",
    "GeminiUsage",
    "GroundingToolCount",
    "ModalityTokens",
    "NoulAnswer",
    "ParallelError",
    "ParallelUsage",
    "PromptFeedback",
    "RefusalAnswer",
    "ResponseModel",
    "ScoreAnswer",
    "Wire",
]

_ALL: frozenset[str] = frozenset(LIMITS)


@dataclass(frozen=True, slots=True)
class Wire:
    """What a field's Python type does not say about its member on the wire.

    ``only``: the targets whose API sends the member (every target when ``None``);
    ``nullable``: the targets whose API may send ``null`` for it.
    """

    only: frozenset[str] | None = None
    nullable: frozenset[str] = frozenset()

    def sent_by(self, target: str) -> bool:
        """Return whether the target's API sends the member."""
        return self.only is None or target in self.only


GEMINI_ONLY = Wire(only=frozenset({"gemini"}))
PARALLEL_ONLY = Wire(only=frozenset({"parallel"}))
NULLABLE = Wire(nullable=_ALL)


def _keep_int(value: Any, handler: Any) -> Any:
    # A whole number stays an int, so that a body comes back as it was sent.
    return value if type(value) is int else handler(value)


def _same(value: Any) -> Any:
    return value


# A JSON number as it was sent: an int stays an int (a float where the type asks for one).
Number = Annotated[
    float,
    WrapValidator(_keep_int),
    PlainSerializer(_same, return_type=Any),
    WithJsonSchema({"type": "number"}),
]
_Frozen = AfterValidator(frozen_map)


def _empty() -> Mapping[str, Any]:
    return EMPTY


# An empty mapping by default (made by a factory, so the JSON schema shows no default).
_NONE: Any = Field(default_factory=_empty)
JsonObject: TypeAlias = Annotated[Mapping[str, object], AfterValidator(freeze)]


class ResponseModel(BaseModel):
    """Base of every response model: frozen, unknown members kept, JSON out as it came in.

    .. versionadded:: 0.2
    """

    # No protected namespace: 001 has a member model_output, which older pydantic warns of.
    model_config = ConfigDict(
        frozen=True, extra="allow", populate_by_name=True, protected_namespaces=()
    )

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to {name!r}: a parsed response is read-only")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete {name!r}: a parsed response is read-only")

    @property
    def extra(self) -> Mapping[str, object]:
        """Members the model does not name, read-only (APIs add fields)."""
        return self.__pydantic_extra__ or EMPTY

    def to_dict(self) -> JSONObject:
        """Return the body as JSON values: the members it was parsed from, unknown ones kept."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    def to_json(self) -> str:
        """Return :meth:`to_dict` as canonical JSON text (sorted members, compact, UTF-8)."""
        return json.dumps(
            self.to_dict(),
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
            allow_nan=False,
        )


class _Answer(ResponseModel):
    """What every answer has: a ``type`` that is always sent, and a certainty."""

    def model_post_init(self, context: Any, /) -> None:
        # The type tells answers apart, so it is part of the body even when left default.
        self.__pydantic_fields_set__.add("type")

    @property
    @abstractmethod
    def certainty(self) -> float | None:
        """The probability of the winning outcome; ``None`` for a refusal."""

    def is_uncertain(self, threshold: float) -> bool:
        """Return whether the certainty is below ``threshold`` (a refusal always is)."""
        limit = _threshold(threshold)
        certainty = self.certainty
        return certainty is None or certainty < limit


class NoulAnswer(_Answer):
    """A yes/no answer: ``noul`` is the calibrated probability that the statement is true.

    ``confidence`` is ``None`` where the API does not report it (Parallel).

    .. versionadded:: 0.1
    """

    type: Literal["noul"] = "noul"
    noul: Number  # 000, 003 "P(true) in [0.01, 0.99]"; 002 "from 0 to 1"
    # 000 and 003 send max(noul, 1 - noul); 002 sends no confidence for noul answers.
    confidence: Annotated[Number | None, GEMINI_ONLY] = None

    @property
    def winner(self) -> bool:
        """The more probable outcome: ``True`` when ``noul`` is at least 0.5."""
        return self.noul >= 0.5

    @property
    def certainty(self) -> float:
        """The reported confidence, or ``max(noul, 1 - noul)`` when none is reported."""
        return self.confidence if self.confidence is not None else max(self.noul, 1 - self.noul)

    def is_true(self, threshold: float = 0.5) -> bool:
        """Return whether ``noul`` reaches ``threshold`` (a threshold of your own labels)."""
        return self.noul >= _threshold(threshold)


class ChoiceAnswer(_Answer):
    """A single-select answer: the chosen option ID and the probability of every option.

    .. versionadded:: 0.1
    """

    type: Literal["choice"] = "choice"
    choice: str  # 000, 002, 003
    probabilities: Annotated[Mapping[str, Number], _Frozen] = _NONE  # 000, 002, 003
    # 000 and 003 always send it; 002 "when available", and may send null.
    confidence: Annotated[Number | None, Wire(nullable=frozenset({"parallel"}))] = None

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


class ScoreAnswer(_Answer):
    """A rubric answer: the expected level, the probability of every level and the legend.

    Keys of ``probabilities`` and ``legend`` are level indexes as strings (``"0"``, ``"1"``…).

    .. versionadded:: 0.1
    """

    type: Literal["score"] = "score"
    score: Number  # 000, 002, 003: sum of k * p_k
    probabilities: Annotated[Mapping[str, Number], _Frozen] = _NONE  # 000, 002, 003
    legend: Annotated[Mapping[str, str], _Frozen] = _NONE  # 000, 002, 003
    # 000 and 003 always send it; 002 "when available", and may send null.
    confidence: Annotated[Number | None, Wire(nullable=frozenset({"parallel"}))] = None

    @property
    def winner(self) -> int:
        """The most probable level index, ties to the lowest; ``round(score)`` without one."""
        best: tuple[int, float] | None = None
        for key, p in self.probabilities.items():
            if not _INDEX_KEY.fullmatch(key):
                continue
            index = int(key)
            if best is None or p > best[1] or (p == best[1] and index < best[0]):
                best = (index, p)
        return round(self.score) if best is None else best[0]

    @property
    def certainty(self) -> float:
        """The reported confidence, or the highest probability when none is reported."""
        if self.confidence is not None:
            return self.confidence
        return max(self.probabilities.values(), default=0.0)


class RefusalAnswer(_Answer):
    """Parallel's answer when the decision provider declined a question: no values at all.

    .. versionadded:: 0.1
    """

    type: Literal["refusal"] = "refusal"  # 002 GroundedRefusalAnswer

    @property
    def winner(self) -> None:
        """Always ``None``: a refusal decides nothing."""
        return None

    @property
    def certainty(self) -> None:
        """Always ``None``: a refusal carries no confidence."""
        return None


Answer: TypeAlias = NoulAnswer | ChoiceAnswer | ScoreAnswer | RefusalAnswer
_Answers = Annotated[
    Mapping[str, Annotated[Answer, Field(discriminator="type")]],
    _Frozen,
]


class ModalityTokens(ResponseModel):
    """Tokens of one modality (``text``, ``image``…) in a Gemini usage breakdown."""

    modality: str | None = None  # 000 ResponseModality
    tokens: int | None = None  # 000


class GroundingToolCount(ResponseModel):
    """How often a grounding tool (``google_search``, ``google_maps``) was used."""

    type: str | None = None  # 000
    count: int | None = None  # 000


class GeminiUsage(ResponseModel):
    """Gemini token usage; every member is optional (the proxy sends a subset).

    .. versionadded:: 0.1
    """

    # 000 Usage in full; 003 DecisionUsage sends a subset of it.
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

    @property
    def input_tokens(self) -> int | None:
        """The input tokens billed: ``total_input_tokens``."""
        return self.total_input_tokens


class ParallelUsage(ResponseModel):
    """Parallel token usage; ``output_tokens`` is always 0.

    .. versionadded:: 0.1
    """

    input_tokens: int  # 002
    output_tokens: int = 0  # 002 const 0


class PromptFeedback(ResponseModel):
    """Gemini's input filter verdict; a set ``block_reason`` means nothing was answered.

    .. versionadded:: 0.1
    """

    block_reason: str | None = None  # 000, 003
    block_reason_message: str | None = None  # 000

    @property
    def blocked(self) -> bool:
        """True when the input was blocked."""
        return bool(self.block_reason)


class Citation(ResponseModel):
    """A web source Parallel used for the whole request.

    .. versionadded:: 0.1
    """

    url: str  # 002
    excerpts: tuple[str, ...] = ()  # 002
    title: Annotated[str | None, NULLABLE] = None  # 002, null or left out when unknown


class _Checked(ResponseModel):
    """A body the library checked: it knows its target and the warnings found."""

    _target: Target = PrivateAttr(default="gemini")
    _warnings: tuple[Problem, ...] = PrivateAttr(default=())

    @property
    def target(self) -> Target:
        """The API the body was checked for."""
        return self._target

    @property
    def warnings(self) -> tuple[Problem, ...]:
        """The warnings found while checking, in document order."""
        return self._warnings

    def __eq__(self, other: object) -> bool:
        # Equal bodies of one target are equal, whatever order the warnings came in.
        if not isinstance(other, _Checked):
            return NotImplemented
        return (
            type(self) is type(other)
            and self._target == other._target
            and self.__dict__ == other.__dict__
            and (self.__pydantic_extra__ or {}) == (other.__pydantic_extra__ or {})
        )

    __hash__ = None  # type: ignore[assignment]


_M = TypeVar("_M", bound=_Checked)


def checked(model: _M, target: Target, warnings: Iterable[Problem], **private: object) -> _M:
    """Return the model with what checking found: its target and its warnings."""
    state = object.__getattribute__(model, "__pydantic_private__")
    state.update(_target=target, _warnings=tuple(warnings), **private)
    return model


_A = TypeVar("_A", bound=_Answer)


class DecisionResponse(_Checked):
    """A checked response of either API, answers keyed by question key.

    Gemini responses fill ``usage`` (a :class:`GeminiUsage`) and maybe ``prompt_feedback``;
    Parallel responses fill ``mode``, ``usage`` (a :class:`ParallelUsage`), ``citations``
    and ``decision_id``. ``warnings`` holds the warnings found while checking.

    .. versionadded:: 0.1
    """

    mode: Annotated[str | None, PARALLEL_ONLY] = None  # 002 const "fast"
    answers: _Answers = _NONE  # 000, 002, 003
    usage: GeminiUsage | ParallelUsage | None = None  # 000, 003 / 002
    prompt_feedback: PromptFeedback | None = None  # 000, 003
    citations: tuple[Citation, ...] = ()  # 002
    decision_id: Annotated[str | None, PARALLEL_ONLY] = None  # 002

    @property
    def blocked(self) -> bool:
        """True when Gemini's input filter blocked the request."""
        return self.prompt_feedback is not None and self.prompt_feedback.blocked

    @property
    def input_tokens(self) -> int | None:
        """The input tokens the API reports, from either API's usage."""
        return None if self.usage is None else self.usage.input_tokens

    def uncertain(self, threshold: float) -> tuple[str, ...]:
        """Return the keys of answers whose certainty is below ``threshold``, in order."""
        limit = _threshold(threshold)
        return tuple(key for key, answer in self.answers.items() if answer.is_uncertain(limit))

    def noul(self, key: str) -> NoulAnswer:
        """Return the answer to a ``noul`` question; raise ``InvalidInput`` for any other."""
        return self._typed(key, NoulAnswer)

    def choice(self, key: str) -> ChoiceAnswer:
        """Return the answer to a ``choice`` question; raise ``InvalidInput`` for any other."""
        return self._typed(key, ChoiceAnswer)

    def score(self, key: str) -> ScoreAnswer:
        """Return the answer to a ``score`` question; raise ``InvalidInput`` for any other."""
        return self._typed(key, ScoreAnswer)

    def _typed(self, key: str, kind: type[_A]) -> _A:
        answer = self.answers.get(key)
        wanted = kind.model_fields["type"].default
        if answer is None:
            found = _show(sorted(self.answers)) if self.answers else "no answers"
            message = f"expected a {wanted!r} answer to {key!r}, found only {found}"
            raise InvalidInput([_problem(("answers",), "answer.missing", message)])
        if not isinstance(answer, kind):
            message = f"expected a {wanted!r} answer, found {answer.type!r}"
            raise InvalidInput(
                [_problem(("answers", key, "type"), "answer.type_mismatch", message)]
            )
        return answer


class GeminiError(ResponseModel):
    """The ``error`` object of a Gemini error body, in both shapes the proxy sends."""

    # 003 ErrorResponse.error; the members after "code" appear in its model_endpoint_mismatch
    # and model_not_found examples, not in its schema.
    message: str | None = None
    type: Annotated[str | None, NULLABLE] = None
    param: Annotated[str | None, NULLABLE] = None
    code: Annotated[str | None, NULLABLE] = None
    retryable: bool | None = None
    allowed_endpoints: tuple[str, ...] = ()
    expected_endpoint: str | None = None

    @property
    def request_id(self) -> str | None:
        """The ``(request id: …)`` at the end of the message, for support tickets."""
        found = _REQUEST_ID.search(self.message or "")
        return found.group(1) if found else None


class ParallelError(ResponseModel):
    """The ``error`` object of a Parallel error body."""

    ref_id: str  # 002 Error
    message: str  # 002
    detail: Annotated[JsonObject | None, NULLABLE] = None  # 002, any object or null

    @property
    def request_id(self) -> str:
        """The reference ID to quote to support."""
        return self.ref_id


class ErrorBody(_Checked):
    """A checked error body of either API, with the HTTP status when it was known.

    .. versionadded:: 0.1
    """

    type: Annotated[str | None, PARALLEL_ONLY] = None  # 002 const "error"; 003 has none
    error: GeminiError | ParallelError  # 002, 003

    _status: int | None = PrivateAttr(default=None)

    @property
    def status(self) -> int | None:
        """The HTTP status the body came with, when it was read from an HTTP response."""
        return self._status

    @property
    def message(self) -> str | None:
        """The human-readable message."""
        return self.error.message

    @property
    def code(self) -> str | None:
        """The machine-readable code (Gemini only)."""
        return self.error.code if isinstance(self.error, GeminiError) else None

    @property
    def request_id(self) -> str | None:
        """The ID to quote to support: Gemini's ``(request id: …)``, Parallel's ``ref_id``."""
        return self.error.request_id


class APIError(DecisionsInputError):
    """The API answered with an error body instead of a decision.

    ``error`` is the parsed :class:`ErrorBody`, or ``None`` when the body could not be read
    as one (then ``problems`` says why); ``status`` is the HTTP status when it was known.
    The API's message is in the text of the exception.

    .. versionadded:: 0.2
    """

    def __init__(
        self,
        error: ErrorBody | None,
        *,
        status: int | None = None,
        problems: Iterable[Problem] = (),
    ) -> None:
        self.error = error
        self.status = status if status is not None or error is None else error.status
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__(self._summary())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_api_error, (self.error, self.status, self.problems))

    @property
    def message(self) -> str | None:
        """The API's message."""
        return None if self.error is None else self.error.message

    @property
    def code(self) -> str | None:
        """The API's error code (Gemini only)."""
        return None if self.error is None else self.error.code

    @property
    def request_id(self) -> str | None:
        """The ID to quote to support."""
        return None if self.error is None else self.error.request_id

    def _summary(self) -> str:
        head = "API error" if self.status is None else f"HTTP {self.status}"
        if self.code:
            head += f" {self.code}"
        if self.error is not None:
            return f"{head}: {self.message or 'no message'}"
        why = self.problems[0] if self.problems else "no error body"
        return f"{head}: the body is not an error body of the API ({why})"


def _api_error(
    error: ErrorBody | None, status: int | None, problems: tuple[Problem, ...]
) -> APIError:
    return APIError(error, status=status, problems=problems)
