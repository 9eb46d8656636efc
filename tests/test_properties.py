"""Properties of the validator and of canonical emission over generated input."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import decisions_input as di
from decisions_input import checks, question_checks
from decisions_input.limits import GEMINI, PARALLEL
from tests.strategies import (
    any_json,
    ascii_tricky_text,
    look_alike_options,
    nearly_clean_questions,
    question_values,
    request_like,
    tricky_levels,
    tricky_text,
)


def resolve(body: Any, path: tuple[str | int, ...]) -> None:
    node = body
    for step in path:
        node = node[step]


@settings(max_examples=300, deadline=None)
@given(
    body=st.one_of(any_json.filter(lambda v: not isinstance(v, str)), request_like),
    target=st.sampled_from(["gemini", "parallel"]),
)
def test_any_json_gives_problems_never_foreign_errors(body: Any, target: str) -> None:
    for problem in di.iter_problems(body, target=target):
        assert isinstance(problem, di.Problem)
        assert problem.code in di.RULES, problem.code
        assert problem.code != "internal.error", problem.message
        resolve(body, problem.path)


@settings(max_examples=300, deadline=None)
@given(body=request_like, target=st.sampled_from(["gemini", "parallel"]))
def test_no_body_in_any_form_meets_an_internal_error(body: Any, target: str) -> None:
    text = json.dumps(body, ensure_ascii=False)
    forms: list[Any] = [body, text]
    with contextlib.suppress(UnicodeEncodeError):  # a lone surrogate has no UTF-8
        forms.append(text.encode())
    for form in forms:
        codes = [p.code for p in di.iter_problems(form, target=target)]
        assert "internal.error" not in codes


@settings(max_examples=200, deadline=None)
@given(body=request_like, target=st.sampled_from(["gemini", "parallel"]))
def test_json_text_and_mapping_agree(body: Any, target: str) -> None:
    try:
        text = json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return  # a lone surrogate cannot be written as UTF-8 text
    from_text = [(p.code, p.path) for p in di.iter_problems(text, target=target)]
    from_value = [(p.code, p.path) for p in di.iter_problems(body, target=target)]
    assert from_text == from_value


def _exact_question(question: Any, path: tuple[str, ...], limits: Any) -> list[tuple[str, Any]]:
    """The problems of one question by the exact checks, option by option."""
    found = [(p.code, p.path) for p in checks.check_question(question, path, limits)]
    if isinstance(question, dict) and question.get("type") == "choice":
        criteria = question.get("criteria")
        if isinstance(criteria, dict):
            where = (*path, "criteria")
            found += [
                (p.code, p.path) for p in question_checks._check_options(criteria, where, limits)
            ]
    return found


@settings(max_examples=400, deadline=None)
@given(
    questions=st.lists(question_values | nearly_clean_questions, min_size=1, max_size=4),
    limits=st.sampled_from([GEMINI, PARALLEL]),
)
def test_question_fast_path_finds_what_the_exact_checks_find(
    questions: list[dict[str, Any]], limits: Any
) -> None:
    clean = question_checks._clean_questions(questions, limits)
    if clean is None:
        return
    exact = [
        problem
        for index, question in enumerate(questions)
        for problem in _exact_question(question, (str(index),), limits)
    ]
    many = [("level.many", (str(index), "criteria")) for index in clean.many_levels]
    assert exact == many


def fast_path_clean(found: Any) -> bool:
    """Tell whether the fast path passed criteria: their check, then the measure of their
    text, which refuses a lone surrogate."""
    return found is not None and question_checks._measured((found,)) is not None


@settings(max_examples=400, deadline=None)
@given(
    options=st.dictionaries(tricky_text, st.just(""), min_size=2, max_size=6)
    | st.dictionaries(ascii_tricky_text, st.just(""), min_size=2, max_size=6)
    | look_alike_options
)
def test_choice_fast_path_never_hides_a_problem(options: dict[str, str]) -> None:
    if fast_path_clean(question_checks._clean_options([options], GEMINI)):
        assert list(question_checks._check_options(options, (), GEMINI)) == []


@settings(max_examples=400, deadline=None)
@given(levels=tricky_levels)
def test_levels_fast_path_never_hides_a_problem(levels: list[str]) -> None:
    if fast_path_clean(question_checks._clean_levels([levels], GEMINI)):
        found = [p.code for p in checks.check_score_criteria(levels, (), GEMINI)]
        assert found in ([], ["level.many"])


clean_words = st.text("abcdefXYZ019_-. éßΩЖ中😀", min_size=1, max_size=12).filter(
    lambda word: word.strip() == word
)


@settings(max_examples=200, deadline=None)
@given(
    options=st.lists(clean_words, min_size=2, max_size=40, unique_by=lambda w: w.casefold()),
    levels=st.lists(clean_words, min_size=2, max_size=40, unique=True),
    prompt=clean_words,
)
def test_clean_questions_take_the_fast_path_whatever_their_size(
    options: list[str], levels: list[str], prompt: str
) -> None:
    questions = [
        {"type": "noul", "instructions": prompt},
        {"type": "choice", "instructions": prompt, "criteria": dict.fromkeys(options, prompt)},
        {"type": "score", "instructions": prompt, "criteria": levels},
    ]
    assume(GEMINI.CATCH_ALL_OPTION_IDS.isdisjoint(o.lower() for o in options))
    clean = question_checks._clean_questions(questions, GEMINI)
    assert clean is not None
    many = {2: len(levels)} if len(levels) > GEMINI.RECOMMENDED_MAX_LEVELS else {}
    assert clean.many_levels == many


option_ids = st.text(
    st.characters(codec="utf-8", categories=["L", "N", "P", "S"]), min_size=1, max_size=20
)


def _drain(generator: Any) -> Any:
    try:
        while True:
            next(generator)
    except StopIteration as stop:
        return stop.value


@settings(max_examples=200, deadline=None)
@given(questions=st.dictionaries(st.sampled_from(["a", "b", "c"]), question_values, max_size=3))
def test_question_sizes_match_the_budget_screen(questions: dict[str, Any]) -> None:
    from decisions_input import budget as estimate

    size = _drain(checks.check_questions(questions, ("questions",), GEMINI))
    screened = estimate._screen(["input"], questions, GEMINI)
    if size is not None:
        chars, extra, strings = size
        bound = estimate._text_bound(
            (chars + 5, extra, strings + 1), 1 + len(questions), len(questions), GEMINI
        )
        assert bound == screened


@settings(max_examples=150, deadline=None)
@given(
    options=st.dictionaries(option_ids, st.text(max_size=10), min_size=2, max_size=8),
    levels=st.lists(st.text(min_size=1, max_size=10), min_size=2, max_size=10),
    state=any_json,
)
def test_canonical_emission_is_idempotent(
    options: dict[str, str], levels: list[str], state: Any
) -> None:
    questions: dict[str, Any] = {"n": di.noul("Is it?"), "s": di.score("How much?", levels)}
    # Generated IDs may break a rule; other tests cover refusals.
    with contextlib.suppress(di.InvalidInput):
        questions["c"] = di.choice("Which?", options)
    req = di.Request(target="parallel", state=state, questions=questions)
    text = req.dumps()
    assert di.canonical_dumps(json.loads(text)) == text
    again = di.Request(target="parallel", **{k: v for k, v in json.loads(text).items()})
    assert again.dumps() == text
    assert [p for p in di.iter_problems(text.encode(), target="parallel") if p.is_error] == []


@settings(max_examples=100, deadline=None)
@given(body=request_like, seed=st.randoms(use_true_random=False))
def test_best_problem_survives_reordering(body: Any, seed: Any) -> None:
    problems = list(di.iter_problems(body))
    shuffled = problems[:]
    seed.shuffle(shuffled)
    assert di.best_problem(problems) == di.best_problem(shuffled)


question_keys = st.text("aZ09_-. é\x00", max_size=70) | st.sampled_from(["", "a" * 64, "a" * 65])


@settings(max_examples=400, deadline=None)
@example(keys=["0\x000"], limits=GEMINI)  # a NUL inside a key is no separator
@given(
    keys=st.lists(question_keys, max_size=5, unique=True),
    limits=st.sampled_from([GEMINI, PARALLEL]),
)
def test_question_keys_pass_together_only_when_each_passes_alone(
    keys: list[str], limits: Any
) -> None:
    questions = dict.fromkeys(keys, {})
    alone = [
        (p.code, p.path) for key in keys for p in question_checks._check_key(key, (key,), limits)
    ]
    assert question_checks._keys_are_clean(questions, limits) == (alone == [])


@settings(max_examples=300, deadline=None)
@given(levels=tricky_levels, other=tricky_levels, repeats=st.integers(1, 3), last=st.booleans())
def test_a_rubric_repeated_by_the_next_question_passes_as_it_does_alone(
    levels: list[str], other: list[str], repeats: int, last: bool
) -> None:
    rubrics = [list(levels) for _ in range(repeats)]
    groups = [*rubrics, other] if last else [other, *rubrics]
    together = fast_path_clean(question_checks._clean_levels(groups, GEMINI))
    alone = [fast_path_clean(question_checks._clean_levels([group], GEMINI)) for group in groups]
    assert together == all(alone)
