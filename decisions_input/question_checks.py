"""Rule functions over the questions of a request: keys, types, instructions, criteria.

Every check has the signature of :data:`decisions_input.checks.Check`; the request checks
register them. Questions are usually all clean, so they are first checked together by a fast
path (see below) and only walked one by one, exactly, when something there is unusual.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Generator, Iterator, Mapping
from functools import lru_cache
from itertools import chain, groupby, islice, repeat
from operator import itemgetter
from typing import Any, NamedTuple, TypeVar, cast

from .budget import TextSize
from .errors import Path, Problem, Severity
from .json_checks import (
    check_text_member,
    check_typed_members,
    json_type,
    names,
    required,
    surrogate_problem,
    wrong_type,
)
from .limits import Limits

__all__ = [
    "FORMAT_CHARS",
    "WHITE_SPACE",
    "check_annotation",
    "check_choice_criteria",
    "check_instruction_block",
    "check_instructions",
    "check_noul_criteria",
    "check_option_id",
    "check_question",
    "check_questions",
    "check_score_criteria",
]

_W = Severity.WARNING

# Unicode White_Space (PropList.txt). Python's str.isspace differs: it also takes U+001C..1F.
WHITE_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# General category Cf (invisible format characters), Unicode 15.1. A test checks that the
# running interpreter's Unicode database holds no Cf character outside these ranges.
FORMAT_CHARS = (
    "\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_NON_SPACE_WHITE = "".join(sorted(WHITE_SPACE - {" "} - set(map(chr, range(32)))))
# Any character an option ID may not hold anywhere: controls (Cc), white space other than
# the ASCII space, format characters, and surrogate code points.
_BAD_ID_CHAR = re.compile(f"[\x00-\x1f\x7f-\x9f{_NON_SPACE_WHITE}{FORMAT_CHARS}\ud800-\udfff]")


# --- questions -----------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _key_regex(chars: str) -> re.Pattern[str]:
    return re.compile(f"[{chars}]+")


@lru_cache(maxsize=8)
def _keys_regex(chars: str, shortest: int, longest: int | None) -> re.Pattern[str]:
    """Match question keys joined, each followed by a NUL: allowed characters, lengths."""
    return re.compile(f"(?:[{chars}]{{{max(shortest, 1)},{longest or ''}}}\x00)*")


def check_questions(
    value: Any, path: Path, limits: Limits
) -> Generator[Problem, None, TextSize | None]:
    """Check the question map: count, keys, and each question.

    Returns (through ``yield from``) the text size of all questions when every one of them
    is clean, for the budget rule; None otherwise.
    """
    if type(value) is not dict:
        yield wrong_type(value, path, "an object mapping question keys to questions")
        return None
    count = len(value)
    if not limits.MIN_QUESTIONS <= count <= limits.MAX_QUESTIONS:
        yield Problem(
            path,
            "questions.count",
            f"expected {limits.MIN_QUESTIONS} to {limits.MAX_QUESTIONS} questions, found {count}",
        )
    keys_clean = _keys_are_clean(value, limits)
    clean = _clean_questions([*value.values()], limits) if keys_clean else None
    if clean is not None:
        keys = [*value] if clean.many_levels else []
        for index in clean.many_levels:
            yield _many_levels(path + (keys[index], "criteria"), clean.many_levels[index], limits)
        return clean.size
    sizes: list[TextSize] | None = []
    for key, question in value.items():
        where = path + (key,)
        if not keys_clean:
            yield from _check_key(key, where, limits)
        clean = _clean_questions([question], limits)
        if clean is None:
            yield from check_question(question, where, limits)
            sizes = None
            continue
        for levels in clean.many_levels.values():
            yield _many_levels(where + ("criteria",), levels, limits)
        if sizes is not None:
            sizes.append(clean.size)
    return None if sizes is None else _sum_sizes(sizes)


def _keys_are_clean(questions: dict[str, Any], limits: Limits) -> bool:
    """Return True when every question key is valid, checked on all keys at once."""
    try:
        joined = "\x00".join(questions)
    except TypeError:
        return False
    pattern = _keys_regex(
        limits.QUESTION_KEY_CHARS, limits.MIN_QUESTION_KEY_CHARS, limits.MAX_QUESTION_KEY_CHARS
    )
    if not questions or pattern.fullmatch(joined + "\x00") is None:
        return not questions
    return joined.count("\x00") == len(questions) - 1  # no NUL within a key


def _check_key(key: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    if type(key) is not str:
        yield wrong_type(key, path, "a string question key")
        return
    longest = limits.MAX_QUESTION_KEY_CHARS
    if len(key) < limits.MIN_QUESTION_KEY_CHARS:
        yield Problem(path, "question.key_length", "expected a non-empty question key")
        return
    pattern = _key_regex(limits.QUESTION_KEY_CHARS)
    if pattern.fullmatch(key) is None:
        bad = next(c for c in key if not pattern.fullmatch(c))
        yield Problem(
            path,
            "question.key_pattern",
            f"expected only the characters [{limits.QUESTION_KEY_CHARS}] in a question key, "
            f"found {bad!r}",
        )
    if longest is not None and len(key) > longest:
        yield Problem(
            path,
            "question.key_length",
            f"expected a key of {limits.MIN_QUESTION_KEY_CHARS} to {longest} characters, "
            f"found {len(key)}",
        )


# --- questions: the fast path ---------------------------------------------------------------
#
# Questions are usually all clean, so they are checked together: a handful of C-speed
# operations over all of them at once (their types, sizes and instructions in lists; every
# option ID of every choice question in one joined string, every level likewise), the same
# few operations whatever their number, casing or script. The texts of all kinds are
# measured for the budget in one pass at the end, and a rubric that the next score question
# repeats is checked once. Anything unusual makes the answer None, and the questions are
# then checked one by one, exactly. The fast path may be over-cautious, never lenient:
# property tests hold it to the exact checks.


class _Clean(NamedTuple):
    """What the fast path found in clean questions: their text size, and the score questions
    with more levels than recommended (position -> levels), the one problem they may have."""

    size: TextSize
    many_levels: dict[int, int]


def _clean_questions(questions: list[Any], limits: Limits) -> _Clean | None:
    """Check questions together; return what a clean set has, or None to look closer."""
    groups = _question_groups(questions, limits)
    if groups is None:
        return None
    prompts, choices, scores, nouls = groups
    if not all(map(str.strip, prompts)):  # empty or blank instructions
        return None
    found = (
        ("".join(prompts), len(prompts)),
        _clean_options(choices, limits) if choices else _NO_TEXT,
        _clean_levels(scores, limits) if scores else _NO_TEXT,
        _clean_noul(nouls, limits) if nouls else _NO_TEXT,
    )
    if None in found:
        return None
    size = _measured(cast("tuple[_Found, ...]", found))
    if size is None:
        return None
    many = {}
    if scores and max(map(len, scores)) > limits.RECOMMENDED_MAX_LEVELS:
        many = _many_level_positions(questions, limits)
    return _Clean(size, many)


# What the fast path gives for clean criteria of one kind: their texts joined and how many
# strings they are, to be measured with the others in one pass; or, when they were checked
# in several batches, their text size already taken batch by batch.
_Found = tuple[str, int] | TextSize
_NO_TEXT: _Found = ("", 0)


def _measured(found: tuple[_Found, ...]) -> TextSize | None:
    """Measure the joined texts in one pass and add the sizes taken already; None when a
    text holds a lone surrogate."""
    texts: list[str] = []
    sizes: list[TextSize] = []
    strings = 0
    for item in found:
        if len(item) == 2:
            texts.append(item[0])
            strings += item[1]
        else:
            sizes.append(item)
    size = _text_size("".join(texts), strings)
    if size is None or not sizes:
        return size
    return _sum_sizes([size, *sizes])


_Groups = tuple[list[str], list[dict[str, Any]], list[list[Any]], list[dict[str, Any]]]


def _question_groups(questions: list[Any], limits: Limits) -> _Groups | None:
    """Sort the questions' instructions and criteria by type; None for an unusual shape.

    A plain loop: for the few questions of a request it costs less than the C-speed
    operations it would take to check their shapes together.
    """
    prompts: list[str] = []
    choices: list[Any] = []  # objects
    scores: list[Any] = []  # arrays
    nouls: list[Any] = []  # objects
    plain_nouls = 0
    try:
        for question in questions:
            if type(question) is not dict:
                return None
            prompt = question["instructions"]
            if type(prompt) is not str:
                return None
            prompts.append(prompt)
            kind = question["type"]
            if len(question) == 2:
                if kind != "noul":
                    return None
                plain_nouls += 1
                continue
            criteria = question["criteria"]
            if len(question) != 3:
                return None
            if kind == "choice" and type(criteria) is dict:
                choices.append(criteria)
            elif kind == "score" and type(criteria) is list:
                scores.append(criteria)
            elif kind == "noul" and type(criteria) is dict:
                nouls.append(criteria)
            else:
                return None
    except KeyError:  # a member missing
        return None
    kinds = limits.QUESTION_TYPES
    if (
        (choices and "choice" not in kinds)
        or (scores and "score" not in kinds)
        or ((nouls or plain_nouls) and "noul" not in kinds)
    ):
        return None
    return prompts, choices, scores, nouls


def _sum_sizes(sizes: list[TextSize]) -> TextSize:
    chars, extra, strings = map(sum, zip(*sizes, strict=True)) if sizes else (0, 0, 0)
    return chars, extra, strings


def _many_level_positions(questions: list[dict[str, Any]], limits: Limits) -> dict[int, int]:
    return {
        index: len(question["criteria"])
        for index, question in enumerate(questions)
        if question["type"] == "score" and len(question["criteria"]) > limits.RECOMMENDED_MAX_LEVELS
    }


def _many_levels(path: Path, count: int, limits: Limits) -> Problem:
    return Problem(
        path,
        "level.many",
        f"{count} levels; {limits.MIN_LEVELS} to {limits.RECOMMENDED_MAX_LEVELS} are "
        "recommended, since the score averages level indices",
        _W,
    )


def _text_size(text: str, strings: int) -> TextSize | None:
    """Return characters, UTF-8 bytes past one per character, and ``strings``; None when
    the text holds a lone surrogate. Non-ASCII text is encoded once, for both answers."""
    if text.isascii():
        return len(text), 0, strings
    try:
        return len(text), len(text.encode("utf-8")) - len(text), strings
    except UnicodeEncodeError:
        return None


def _distinct_runs(items: list[Any], counts: list[int]) -> bool:
    """Tell whether the items of each consecutive run (of ``counts`` items) are distinct."""
    stream = iter(items)
    return [*map(len, map(set, map(islice, repeat(stream), counts)))] == counts


# Groups (options, levels) are checked together in batches of about this many items: few
# enough that the joined text stays small, so the allocator reuses memory instead of
# mapping fresh pages for every temporary copy.
_BATCH_ITEMS = 512


def _batched(
    clean: Callable[[list[Any], Limits], tuple[str, int] | None],
    groups: list[Any],
    limits: Limits,
) -> _Found | None:
    """Run ``clean`` on consecutive batches of groups; None when one is not clean.

    One batch gives its joined text, measured later with the other texts; several give
    their sizes added up, each batch's text measured while it is small.
    """
    if sum(map(len, groups)) <= _BATCH_ITEMS:
        return clean(groups, limits)  # the common case: one batch
    sizes: list[TextSize] = []
    start = taken = 0
    for end, count in enumerate(map(len, groups), 1):
        taken += count
        if taken >= _BATCH_ITEMS or end == len(groups):
            found = clean(groups[start:end], limits)
            size = None if found is None else _text_size(*found)
            if size is None:
                return None
            sizes.append(size)
            start, taken = end, 0
    return _sum_sizes(sizes)


def _clean_options(groups: list[dict[str, Any]], limits: Limits) -> _Found | None:
    """Check the options of choice questions together: counts, IDs, descriptions."""
    return _batched(_clean_option_batch, groups, limits)


def _clean_option_batch(groups: list[dict[str, Any]], limits: Limits) -> tuple[str, int] | None:
    """Check options together; return the text of their IDs and descriptions, and how many
    strings that is, or None."""
    counts = [*map(len, groups)]
    if min(counts) < limits.MIN_OPTIONS or max(counts) > limits.MAX_OPTIONS:
        return None
    ids = [*chain.from_iterable(groups)]
    try:
        plain = "".join(ids)
        described = "".join(chain.from_iterable(map(dict.values, groups)))
    except TypeError:  # an ID or a description that is not a string
        return None
    if "" in ids or not _id_lengths_clean(len(plain), ids, limits):  # empty, short or long
        return None
    clean_ids = _ascii_ids_clean if plain.isascii() else _unicode_ids_clean
    if not clean_ids(plain, ids, counts, limits):
        return None
    return plain + described, 2 * len(ids)


def _once(groups: list[_G]) -> list[_G]:
    """The groups, each once where the next question repeats it (the same rubric): equal
    groups have the same problems, so one is checked for all."""
    return groups if len(groups) < 2 else [*map(_first, groupby(groups))]


_G = TypeVar("_G")
_first = itemgetter(0)


def _id_lengths_clean(total: int, ids: list[str], limits: Limits) -> bool:
    """Tell whether every ID has an allowed length in code points (given none is empty)."""
    if limits.MIN_OPTION_ID_CHARS > 1 and min(map(len, ids)) < limits.MIN_OPTION_ID_CHARS:
        return False
    # The total length of the IDs bounds every one of them.
    return total <= limits.MAX_OPTION_ID_CHARS or max(map(len, ids)) <= limits.MAX_OPTION_ID_CHARS


def _space_at_an_edge(plain: str, ids: list[str]) -> bool:
    if " " not in plain:
        return False
    joined = "\x00".join(ids)  # NUL-separated: the edges of an ID sit next to a separator
    return joined[0] == " " or joined[-1] == " " or " \x00" in joined or "\x00 " in joined


def _lower_and_mark() -> bytes:
    table = bytearray(range(256))
    table[0x41:0x5B] = range(0x61, 0x7B)  # upper case to lower case
    for byte in (*range(0x20), 0x7F):  # the controls an ID may not hold
        table[byte] = 0x80
    return bytes(table)


# ASCII bytes: upper case lowered, controls marked as non-ASCII.
_LOWER_AND_MARK = _lower_and_mark()


def _ascii_ids_clean(plain: str, ids: list[str], counts: list[int], limits: Limits) -> bool:
    """ASCII IDs: no control, no space at an edge, no catch-all, none equal to another of
    its question but for case."""
    raw = plain.encode("ascii")
    lowered = raw.translate(_LOWER_AND_MARK)  # one pass for the controls and the case
    if not lowered.isascii():
        return False
    too_long = limits.MAX_OPTION_ID_CHARS > limits.MAX_OPTION_ID_BYTES  # a byte a character
    if too_long and max(map(len, ids)) > limits.MAX_OPTION_ID_BYTES:
        return False
    if _space_at_an_edge(plain, ids):
        return False
    if lowered == raw:  # no upper case: the IDs of a question are distinct as they are
        return limits.CATCH_ALL_OPTION_IDS.isdisjoint(ids)
    folded = [*map(str.lower, ids)]
    return _distinct_runs(folded, counts) and limits.CATCH_ALL_OPTION_IDS.isdisjoint(folded)


def _unicode_ids_clean(plain: str, ids: list[str], counts: list[int], limits: Limits) -> bool:
    """Any IDs: as ASCII ones, distinct after NFC normalisation and case folding.

    ``str.isprintable`` is False for every character an ID may not hold (controls, format
    characters, white space other than the ASCII space, surrogates) and for a few more
    (private use, unassigned), which the exact checks then accept.
    """
    if not plain.isprintable():
        return False
    too_long = limits.MAX_OPTION_ID_CHARS * 4 > limits.MAX_OPTION_ID_BYTES
    if too_long and max(len(k.encode("utf-8")) for k in ids) > limits.MAX_OPTION_ID_BYTES:
        return False
    if _space_at_an_edge(plain, ids) or not _distinct_runs([*map(_fold, ids)], counts):
        return False
    return limits.CATCH_ALL_OPTION_IDS.isdisjoint(map(str.lower, ids))


def _clean_levels(groups: list[list[Any]], limits: Limits) -> _Found | None:
    """Check the levels of score questions together: counts, empty and repeated levels."""
    return _batched(_clean_level_batch, groups, limits)


def _clean_level_batch(groups: list[list[Any]], limits: Limits) -> tuple[str, int] | None:
    levels = [*chain.from_iterable(groups)]
    try:
        text = "".join(levels)
    except TypeError:  # a level that is not a string
        return None
    groups = _once(groups)
    counts = [*map(len, groups)]
    if min(counts) < limits.MIN_LEVELS or max(counts) > limits.MAX_LEVELS:
        return None
    seen = levels if len(levels) == sum(counts) else [*chain(*groups)]
    if "" in seen or any(map(str.isspace, seen)):  # empty, or white space alone
        return None
    if [*map(len, map(set, groups))] != counts:  # repeated levels
        return None
    return text, len(levels)


def _clean_noul(groups: list[dict[str, Any]], limits: Limits) -> tuple[str, int] | None:
    """Check the criteria objects of noul questions together: known names, string values."""
    names = [*chain.from_iterable(groups)]
    if not set(names) <= set(limits.NOUL_CRITERIA_MEMBERS):
        return None
    try:
        text = "".join(names) + "".join(chain.from_iterable(map(dict.values, groups)))
    except TypeError:  # a description that is not a string
        return None
    return text, 2 * len(names)


def check_question(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check one question: its type, instructions and the criteria of its type."""
    if type(value) is not dict:
        yield wrong_type(value, path, "a question object")
        return
    kind = value.get("type")
    known = kind in limits.QUESTION_TYPES
    needed = ("type", "instructions") + (("criteria",) if kind in ("choice", "score") else ())
    if "type" not in value or "instructions" not in value or (known and kind != "noul"):
        yield from required(value, path, needed, f"a {kind} question" if known else "a question")
    for key, member in value.items():
        where = path + (key,)
        if key == "type":
            if not known:
                yield Problem(
                    where,
                    "question.type",
                    f"expected type {names(limits.QUESTION_TYPES)}, found "
                    + (repr(kind) if type(kind) is str else json_type(kind)),
                )
        elif key == "instructions":
            yield from check_instructions(member, where, limits)
        elif key == "criteria":
            if known:
                yield from _CRITERIA_CHECKS[cast(str, kind)](member, where, limits)
        else:
            yield Problem(
                where,
                "schema.unknown_member",
                f"member {key!r} is not accepted in a question; expected only "
                f"{names(limits.QUESTION_MEMBERS)}",
            )


def check_instructions(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check instructions: a non-empty string, one text block, or an array of text blocks."""
    if type(value) is str:
        if not value:
            yield Problem(path, "instructions.empty", "expected non-empty instructions")
        elif not value.strip():
            yield Problem(path, "instructions.blank", "instructions are only whitespace", _W)
        elif (problem := surrogate_problem(value, path)) is not None:
            yield problem
        return
    form = "block" if type(value) is dict else "blocks" if type(value) is list else None
    if form is None:
        yield wrong_type(value, path, "a string, a text block or an array of text blocks")
        return
    if form not in limits.INSTRUCTION_FORMS:
        yield Problem(
            path,
            "instructions.form",
            f"expected instructions as {_forms(limits.INSTRUCTION_FORMS)} for the "
            f"{limits.TARGET} target, found {'a text block' if form == 'block' else 'an array'}",
        )
        return
    blocks = [value] if form == "block" else value
    if not blocks:
        yield Problem(path, "instructions.empty", "expected at least one text block, found none")
        return
    if _blank_blocks(blocks):
        yield Problem(path, "instructions.blank", "instructions are only whitespace", _W)
    for index, block in enumerate(blocks):
        yield from check_instruction_block(
            block, path if form == "block" else path + (index,), limits
        )


def _blank_blocks(blocks: list[Any]) -> bool:
    """Tell whether text blocks join to white space alone: text, but none that states
    anything (an empty text is an error of its own, and counts as blank here)."""
    texts = [b.get("text") if type(b) is dict else None for b in blocks]
    if not all(type(text) is str for text in texts):
        return False
    joined = "".join(cast("list[str]", texts))
    return bool(joined) and joined.isspace()


def _forms(forms: frozenset[str]) -> str:
    words = {"string": "a string", "block": "one text block", "blocks": "an array of text blocks"}
    return " or ".join(words[f] for f in ("string", "block", "blocks") if f in forms)


def check_instruction_block(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check an instruction text block, with its optional annotations."""
    if type(value) is not dict:
        yield wrong_type(value, path, "a text block object")
        return
    yield from required(value, path, ("type", "text"), "an instruction text block")
    for key, member in value.items():
        where = path + (key,)
        if key not in limits.INSTRUCTION_BLOCK_MEMBERS:
            yield Problem(
                where,
                "schema.unknown_member",
                f"member {key!r} is not accepted in an instruction text block; expected only "
                f"{names(limits.INSTRUCTION_BLOCK_MEMBERS)}",
            )
        elif key == "type":
            if member != "text":
                yield Problem(where, "schema.const", f"expected type 'text', found {member!r}")
        elif key == "text":
            yield from check_text_member(member, where)
        elif key == "annotations":
            yield from _check_annotations(member, where, limits)


def _check_annotations(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check an instruction block's annotations: a warning that a request has any, then
    each one against its type."""
    if type(value) is not list:
        yield wrong_type(value, path, "an array of annotations")
        return
    if value:
        yield Problem(
            path,
            "annotation.in_request",
            "annotations are documented for generated text (citations, speech, words), not "
            "as anything a request tells the model; leave them out",
            _W,
        )
    for index, item in enumerate(value):
        yield from check_annotation(item, path + (index,), limits)


def check_annotation(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check one instruction annotation against the members of its type."""
    if type(value) is not dict:
        yield wrong_type(value, path, "an annotation object")
        return
    kind = value.get("type")
    members = limits.ANNOTATION_MEMBERS.get(kind) if type(kind) is str else None
    if members is None:
        if "type" not in value:
            yield Problem(path, "schema.required", "member 'type' is required in an annotation")
        else:
            yield Problem(
                path + ("type",),
                "annotation.type",
                f"expected annotation type {names(limits.ANNOTATION_MEMBERS)}, found {kind!r}",
            )
        return
    yield from check_typed_members(
        value, path, members, f"a {kind} annotation", limits.MAX_JSON_DEPTH
    )
    snippets = value.get("review_snippets")
    if type(snippets) is list:
        for index, item in enumerate(snippets):
            where = path + ("review_snippets", index)
            if type(item) is not dict:
                yield wrong_type(item, where, "a review snippet object")
            else:
                yield from check_typed_members(
                    item, where, limits.REVIEW_SNIPPET_MEMBERS, "a review snippet"
                )


def check_noul_criteria(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check noul criteria: an object with optional string descriptions."""
    if type(value) is not dict:
        yield wrong_type(value, path, "an object with 'true_description' and 'false_description'")
        return
    yield from check_typed_members(
        value, path, dict.fromkeys(limits.NOUL_CRITERIA_MEMBERS, "string"), "noul criteria"
    )


def check_choice_criteria(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check choice criteria: the option count, every option ID, string descriptions."""
    if type(value) is not dict:
        yield wrong_type(value, path, "an object mapping option IDs to descriptions")
        return
    count = len(value)
    if not limits.MIN_OPTIONS <= count <= limits.MAX_OPTIONS:
        yield Problem(
            path,
            "option.count",
            f"expected {limits.MIN_OPTIONS} to {limits.MAX_OPTIONS} options, found {count}",
        )
    found = _clean_options([value], limits)
    if found is None or _measured((found,)) is None:  # unusual, or a lone surrogate
        yield from _check_options(value, path, limits)


def _check_options(options: dict[Any, Any], path: Path, limits: Limits) -> Iterator[Problem]:
    """Check the options one by one: each ID, each description, catch-alls, look-alikes."""
    if set(map(type, options)) - {str}:
        for key in options:
            if type(key) is not str:
                yield wrong_type(key, path + (key,), "a string option ID")
        return
    lowered = [k.lower() for k in options]
    folded = lowered if "".join(options).isascii() else [_fold(k) for k in options]
    first_of: dict[str, str] = {}
    for (option_id, description), low, fold in zip(options.items(), lowered, folded, strict=True):
        where = path + (option_id,)
        yield from check_option_id(option_id, where, limits)
        if type(description) is not str:
            yield wrong_type(description, where, "a description string (it may be empty)")
        elif (problem := surrogate_problem(description, where)) is not None:
            yield problem
        if low in limits.CATCH_ALL_OPTION_IDS:
            yield Problem(
                where,
                "option.catch_all",
                f"{option_id!r} refers to the position of other options, but option IDs "
                "are sorted before scoring; use a position-independent ID such as 'other'",
                _W,
            )
        first = first_of.setdefault(fold, option_id)
        if first != option_id:
            yield Problem(
                where,
                "option.similar",
                f"option ID {option_id!a} equals {first!a} after NFC normalisation and case "
                "folding; the two are easy to confuse",
                _W,
            )


def check_option_id(option_id: str, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check one option ID: length in code points and bytes, white space, invisible characters."""
    size = len(option_id)
    if not limits.MIN_OPTION_ID_CHARS <= size <= limits.MAX_OPTION_ID_CHARS:
        yield Problem(
            path,
            "option.id_length",
            "expected a non-empty option ID"
            if size == 0
            else f"expected an option ID of {limits.MIN_OPTION_ID_CHARS} to "
            f"{limits.MAX_OPTION_ID_CHARS} characters, found {size}",
        )
    encoded = len(option_id.encode("utf-8", "surrogatepass"))
    if encoded > limits.MAX_OPTION_ID_BYTES:
        yield Problem(
            path,
            "option.id_bytes",
            f"expected an option ID of at most {limits.MAX_OPTION_ID_BYTES} UTF-8 bytes, "
            f"found {encoded}",
        )
    if not size:
        return
    for end, char in (("starts", option_id[0]), ("ends", option_id[-1])):
        if char in WHITE_SPACE:
            yield Problem(
                path, "option.whitespace", f"option ID {end} with white space {_char(char)}"
            )
    inner = option_id[1:-1]
    for char in dict.fromkeys(_BAD_ID_CHAR.findall(option_id)):
        at_edge = char in WHITE_SPACE and char not in inner
        if at_edge:
            continue
        yield _bad_char_problem(char, path)


def _bad_char_problem(char: str, path: Path) -> Problem:
    point = ord(char)
    if 0xD800 <= point <= 0xDFFF:
        return Problem(
            path, "json.lone_surrogate", f"option ID holds a lone surrogate {_char(char)}"
        )
    if point < 0x20 or 0x7F <= point <= 0x9F:
        return Problem(
            path, "option.control", f"option ID holds the control character {_char(char)}"
        )
    if char in WHITE_SPACE:
        return Problem(
            path,
            "option.interior_whitespace",
            f"expected only the ASCII space inside an option ID, found {_char(char)}",
        )
    return Problem(
        path, "option.format_char", f"option ID holds the invisible format character {_char(char)}"
    )


def _char(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def check_score_criteria(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check score criteria: the level count, non-empty level strings, repeats."""
    if type(value) is not list:
        yield wrong_type(value, path, "an array of level descriptions")
        return
    count = len(value)
    if not limits.MIN_LEVELS <= count <= limits.MAX_LEVELS:
        yield Problem(
            path,
            "level.count",
            f"expected {limits.MIN_LEVELS} to {limits.MAX_LEVELS} levels, found {count}",
        )
    elif count > limits.RECOMMENDED_MAX_LEVELS:
        yield Problem(
            path,
            "level.many",
            f"{count} levels; {limits.MIN_LEVELS} to {limits.RECOMMENDED_MAX_LEVELS} are "
            "recommended, since the score averages level indices",
            _W,
        )
    try:
        plain = "".join(value).isascii()  # all strings, and no surrogate can hide in them
    except TypeError:
        plain = False
    if not plain or "" in value or any(map(str.isspace, value)):
        for index, level in enumerate(value):
            yield from _check_level(level, path + (index,))
    hashable = [v for v in value if type(v) is str]
    if len(set(hashable)) != len(hashable):
        first: dict[str, int] = {}
        for index, level in enumerate(value):
            if type(level) is str and level and first.setdefault(level, index) != index:
                yield Problem(
                    path + (index,),
                    "level.duplicate",
                    f"level {index} repeats level {first[level]}: {level[:40]!r}",
                    _W,
                )


def _check_level(level: Any, path: Path) -> Iterator[Problem]:
    if type(level) is not str:
        yield wrong_type(level, path, "a level description string")
    elif not level:
        yield Problem(path, "level.empty", "expected a non-empty level description")
    elif level.isspace():
        yield Problem(
            path, "level.blank", "level is only whitespace; it describes nothing to score", _W
        )
    elif (problem := surrogate_problem(level, path)) is not None:
        yield problem


_CRITERIA_CHECKS: Mapping[str, Callable[[Any, Path, Limits], Iterator[Problem]]] = {
    "noul": check_noul_criteria,
    "choice": check_choice_criteria,
    "score": check_score_criteria,
}
