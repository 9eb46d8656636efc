"""The typed, immutable results: answers, usage, responses and error bodies."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from ..errors import Problem
from ._common import _INDEX_KEY, _REQUEST_ID, _no_extra, _threshold, _utf8

__all__ = [
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
    "ScoreAnswer",
]


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
