"""DataStoreConnectionSignals: the models of a grounded answer's diagnostics and their checks."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import ConfigDict
from pydantic.alias_generators import to_camel

from ..errors import Path, Problem
from ._common import _is_integer, _list, _problem, _str
from .context import _Ctx
from .models import JsonObject, ResponseModel, _Checked

__all__ = [
    "AnswerPart",
    "CitedSnippet",
    "DataStoreConnectionSignals",
    "GroundingSignals",
    "ModelCallSignals",
    "SafetySignals",
    "SearchSnippet",
]


class _Signals(ResponseModel):
    """001 names its members in lowerCamelCase; the Python names are snake_case."""

    model_config = ConfigDict(alias_generator=to_camel)


class ModelCallSignals(_Signals):
    """Diagnostics of one model call (the rewriter's or the answer generator's)."""

    # 001 RewriterModelCallSignals and AnswerGenerationModelCallSignals share one shape.
    rendered_prompt: str | None = None
    model_output: str | None = None
    model: str | None = None


class SearchSnippet(_Signals):
    """A search snippet put into the answer generation prompt."""

    document_title: str | None = None  # 001 SearchSnippet
    document_uri: str | None = None
    text: str | None = None
    metadata: JsonObject | None = None  # a protobuf Struct: any JSON object


class AnswerPart(_Signals):
    """A piece of the answer with the indexes of the snippets supporting it."""

    text: str = ""  # 001 AnswerPart
    supporting_indices: tuple[int, ...] = ()


class CitedSnippet(_Signals):
    """A snippet the answer generator cited; an absent index means 0, as in protobuf JSON."""

    search_snippet: SearchSnippet | None = None  # 001 CitedSnippet
    snippet_index: int = 0


class GroundingSignals(_Signals):
    """The grounding check's decision and score bucket (values of ``limits``)."""

    decision: str | None = None  # 001 GroundingSignals
    score: str | None = None


class SafetySignals(_Signals):
    """The safety check's decision and banned phrase match (values of ``limits``)."""

    decision: str | None = None  # 001 SafetySignals
    banned_phrase_match: str | None = None
    matched_banned_phrase: str | None = None


class DataStoreConnectionSignals(_Checked):
    """Diagnostic signals of a grounded answer; any member may be missing.

    .. versionadded:: 0.1
    """

    model_config = ConfigDict(alias_generator=to_camel)

    # 001 DataStoreConnectionSignals
    rewriter_model_call_signals: ModelCallSignals | None = None
    rewritten_query: str | None = None
    search_snippets: tuple[SearchSnippet, ...] = ()
    answer_generation_model_call_signals: ModelCallSignals | None = None
    answer: str | None = None
    answer_parts: tuple[AnswerPart, ...] = ()
    cited_snippets: tuple[CitedSnippet, ...] = ()
    grounding_signals: GroundingSignals | None = None
    safety_signals: SafetySignals | None = None

    def snippets_for(self, part: AnswerPart) -> tuple[SearchSnippet, ...]:
        """Return the search snippets supporting an answer part."""
        return tuple(self.search_snippets[i] for i in part.supporting_indices)


# --- checks ---


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
