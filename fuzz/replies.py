"""Hypothesis strategies for what the APIs send back: responses, error bodies, signals.

Responses are generated from a valid request of their target, with one answer per question
that keeps every invariant the references state (probabilities that add up to one, the
choice the most probable option, the score their weighted mean, the confidence the
probability of the winning outcome, ...), so that a mutation breaks one thing at a time.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from fuzz.bodies import TARGETS, valid_bodies
from fuzz.corpus import json_examples
from fuzz.tree import mutated

__all__ = ["error_bodies", "reply_cases", "responses_to", "signals_bodies"]

_HEX = "0123456789abcdef"
_PERCENT = 100


@st.composite
def _probabilities(draw: st.DrawFn, keys: list[str]) -> dict[str, float]:
    """Probabilities in hundredths that add up to exactly 100 hundredths."""
    cuts = sorted(
        draw(st.lists(st.integers(0, _PERCENT), min_size=len(keys) - 1, max_size=len(keys) - 1))
    )
    bounds = [0, *cuts, _PERCENT]
    return {key: (bounds[i + 1] - bounds[i]) / _PERCENT for i, key in enumerate(keys)}


def _utf8(key: str) -> bytes:
    return key.encode("utf-8", "surrogatepass")


@st.composite
def _answer(draw: st.DrawFn, question: dict[str, Any], target: str) -> dict[str, Any]:
    kind = question["type"]
    if target == "parallel" and draw(st.integers(0, 9)) == 0:
        return {"type": "refusal"}
    if kind == "noul":
        return _noul(draw, target)
    if kind == "choice":
        return _choice(draw, list(question["criteria"]), target)
    return _score(draw, question["criteria"], target)


def _noul(draw: st.DrawFn, target: str) -> dict[str, Any]:
    low, high = (1, 99) if target == "gemini" else (0, 100)
    noul = draw(st.integers(low, high)) / _PERCENT
    answer: dict[str, Any] = {"type": "noul", "noul": noul}
    if target == "gemini":
        answer["confidence"] = max(noul, round(1 - noul, 2))
    return answer


def _with_confidence(draw: st.DrawFn, answer: dict[str, Any], top: float, target: str) -> None:
    if target == "gemini":
        answer["confidence"] = top
    elif draw(st.booleans()):
        answer["confidence"] = draw(st.sampled_from([top, None]))


def _choice(draw: st.DrawFn, options: list[str], target: str) -> dict[str, Any]:
    probabilities = draw(_probabilities(options))
    top = max(probabilities.values())
    winner = min((k for k, p in probabilities.items() if p == top), key=_utf8)
    answer = {"type": "choice", "choice": winner, "probabilities": probabilities}
    _with_confidence(draw, answer, top, target)
    return answer


def _score(draw: st.DrawFn, levels: list[str], target: str) -> dict[str, Any]:
    keys = [str(i) for i in range(len(levels))]
    probabilities = draw(_probabilities(keys))
    mean = sum(i * p for i, p in enumerate(probabilities.values()))
    answer = {
        "type": "score",
        "score": mean,
        "probabilities": probabilities,
        "legend": dict(zip(keys, levels, strict=True)),
    }
    _with_confidence(draw, answer, max(probabilities.values()), target)
    return answer


def _usage(target: str) -> st.SearchStrategy[dict[str, Any]]:
    tokens = st.integers(0, 10**6)
    if target == "parallel":
        return st.fixed_dictionaries({"input_tokens": tokens, "output_tokens": st.just(0)})
    modality = st.fixed_dictionaries(
        {
            "modality": st.sampled_from(["text", "image", "audio", "video", "document"]),
            "tokens": tokens,
        }
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "total_input_tokens": tokens,
            "input_tokens_by_modality": st.lists(modality, max_size=3),
            "total_output_tokens": st.just(0),
            "total_tokens": tokens,
            "grounding_tool_count": st.lists(
                st.fixed_dictionaries(
                    {"type": st.sampled_from(["google_search", "google_maps"]), "count": tokens}
                ),
                max_size=2,
            ),
        },
    )


def _citation(excerpts: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "url": st.integers(0, 99).map(lambda n: f"https://example.com/page/{n}"),
            "excerpts": st.lists(st.text(max_size=20), max_size=2) if excerpts else st.just([]),
        },
        optional={"title": st.one_of(st.none(), st.text(max_size=10))},
    )


@st.composite
def responses_to(draw: st.DrawFn, request: dict[str, Any], target: str) -> dict[str, Any]:
    """A valid response to a valid request of the target."""
    answers = {
        key: draw(_answer(question, target)) for key, question in request["questions"].items()
    }
    if target == "parallel":
        excerpts = request.get("include_excerpts", True) is not False
        return {
            "mode": "fast",
            "answers": answers,
            "usage": draw(_usage(target)),
            "citations": draw(st.lists(_citation(excerpts), max_size=3)),
            "decision_id": "decisions_" + draw(st.text(_HEX, min_size=32, max_size=32)),
        }
    body: dict[str, Any] = {"answers": answers, "usage": draw(_usage(target))}
    if draw(st.integers(0, 9)) == 0:
        reason = draw(st.sampled_from(["safety", "other", "blocklist"]))
        body = {"answers": {}, "prompt_feedback": {"block_reason": reason}, "usage": body["usage"]}
    return body


def error_bodies(target: str) -> st.SearchStrategy[dict[str, Any]]:
    """Valid error bodies (any reply but 200) of the target."""
    text = st.text(max_size=12)
    error: st.SearchStrategy[dict[str, Any]]
    if target == "parallel":
        error = st.fixed_dictionaries(
            {"ref_id": text, "message": text},
            optional={"detail": st.one_of(st.none(), st.dictionaries(text, text, max_size=2))},
        )
        return st.fixed_dictionaries({"type": st.just("error"), "error": error})
    message = st.tuples(text, st.text(_HEX, min_size=1, max_size=8)).map(
        lambda pair: f"{pair[0]} (request id: {pair[1]})"
    )
    maybe = st.one_of(st.none(), text)
    optional: dict[str, st.SearchStrategy[Any]] = {
        "type": maybe,
        "param": maybe,
        "code": maybe,
        "retryable": st.booleans(),
        "allowed_endpoints": st.lists(text, max_size=2),
        "expected_endpoint": text,
    }
    error = st.fixed_dictionaries({"message": message}, optional=optional)
    return st.fixed_dictionaries({"error": error})


@st.composite
def _signals(draw: st.DrawFn) -> dict[str, Any]:
    snippet = st.fixed_dictionaries(
        {},
        optional={
            "documentTitle": st.text(max_size=8),
            "documentUri": st.just("https://example.com/doc"),
            "text": st.text(max_size=20),
            "metadata": st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=2),
        },
    )
    snippets = draw(st.lists(snippet, max_size=4))
    indexes = st.lists(st.integers(0, max(0, len(snippets) - 1)), max_size=2 if snippets else 0)
    parts: list[dict[str, Any]] = draw(
        st.lists(
            st.fixed_dictionaries(
                {"text": st.text(min_size=1, max_size=12)},
                optional={"supportingIndices": indexes},
            ),
            max_size=3,
        )
    )
    body: dict[str, Any] = {"searchSnippets": snippets, "answerParts": parts}
    body["answer"] = "".join(part["text"] for part in parts)
    body["citedSnippets"] = [
        {"searchSnippet": snippets[i], "snippetIndex": i} for i in draw(indexes)
    ]
    body["groundingSignals"] = {
        "decision": draw(st.sampled_from(["ACCEPTED_BY_GROUNDING", "REJECTED_BY_GROUNDING"])),
        "score": draw(st.sampled_from(["VERY_LOW", "LOW", "MEDIUM", "HIGH", "VERY_HIGH"])),
    }
    return body


def signals_bodies() -> st.SearchStrategy[dict[str, Any]]:
    """Valid DataStoreConnectionSignals: generated, or the schema's own examples."""
    examples = [value for _, kind, value in json_examples() if kind == "signals"]
    return st.one_of(_signals(), st.sampled_from(examples)) if examples else _signals()


def _response_case(target: str) -> st.SearchStrategy[tuple[str, str, Any, Any]]:
    return valid_bodies(target).flatmap(
        lambda request: st.tuples(
            st.just("response"),
            st.just(target),
            mutated(responses_to(request, target)),
            st.sampled_from([request, None]),
        )
    )


def reply_cases() -> st.SearchStrategy[tuple[str, str, Any, Any]]:
    """(kind, target, body, request or None): a valid reply, broken by up to three mutations."""
    cases = [_response_case(target) for target in TARGETS]
    cases += [
        st.tuples(st.just("error"), st.just(t), mutated(error_bodies(t)), st.none())
        for t in TARGETS
    ]
    cases.append(
        st.tuples(st.just("signals"), st.just("gemini"), mutated(signals_bodies()), st.none())
    )
    return st.one_of(cases)
