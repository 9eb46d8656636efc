"""Rule functions over a parsed request body, each yielding :class:`Problem` records.

Every check has one signature, ``check_x(value, path, limits) -> Iterator[Problem]``, and
the checks that walk a request are registered in the literal :data:`CHECKS` table. Checks
never raise: any shape of JSON value gives problems, never a foreign exception. Problems
come out in document order: an object's own problems (missing members) first, then its
members in the order the body holds them.

Valid input is the common case, so the hot checks (questions, option IDs) test whole
collections with C-speed operations first and only walk item by item when something is
wrong.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable, Generator, Iterator, Mapping
from functools import lru_cache
from itertools import chain, islice, repeat
from typing import Any, NamedTuple, cast

from ._unicode import has_surrogate
from .budget import TextSize, check_budget
from .errors import Path, Problem, Severity
from .limits import Limits
from .media_checks import check_media_data, check_media_uri

__all__ = [
    "CHECKS",
    "Check",
    "FORMAT_CHARS",
    "WHITE_SPACE",
    "check_annotation",
    "check_block",
    "check_choice_criteria",
    "check_input",
    "check_instructions",
    "check_noul_criteria",
    "check_option_id",
    "check_question",
    "check_questions",
    "check_request",
    "check_score_criteria",
    "check_text_block",
    "json_type",
]

Check = Callable[[Any, Path, Limits], Iterator[Problem]]

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

_JSON_TYPE_NAMES: Mapping[type, str] = {
    dict: "object",
    list: "array",
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def json_type(value: object) -> str:
    """Name the JSON type of a parsed value, for messages."""
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def _is(value: object, kind: str) -> bool:
    if kind == "string":
        return type(value) is str
    if kind == "integer":
        return type(value) is int or (type(value) is float and value.is_integer())
    if kind == "object":
        return type(value) is dict
    if kind == "array":
        return type(value) is list
    if kind == "boolean":
        return type(value) is bool
    return kind == "number" and type(value) in (int, float)


def _wrong_type(value: object, path: Path, expected: str) -> Problem:
    return Problem(path, "schema.type", f"expected {expected}, found {json_type(value)}")


def _names(items: object) -> str:
    return ", ".join(repr(i) for i in items)  # type: ignore[attr-defined]


def _closed(
    obj: dict[str, Any], path: Path, allowed: tuple[str, ...], what: str
) -> Iterator[Problem]:
    for key in obj:
        if key not in allowed:
            yield Problem(
                path + (key,),
                "schema.unknown_member",
                f"member {key!r} is not accepted in {what}; expected only {_names(allowed)}",
            )


def _required(
    obj: dict[str, Any], path: Path, names: tuple[str, ...], what: str
) -> Iterator[Problem]:
    for name in names:
        if name not in obj:
            yield Problem(path, "schema.required", f"member {name!r} is required in {what}")


# --- request -------------------------------------------------------------------------------


def check_request(body: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check a whole request body of the limits' target."""
    if type(body) is not dict:
        yield _wrong_type(body, path, "a JSON object")
        return
    what = f"a {limits.TARGET} request"
    for name in limits.REQUIRED_MEMBERS:
        if name not in body:
            yield Problem(path, "schema.required", f"member {name!r} is required in {what}")
    questions_size: TextSize | None = None
    for key, value in body.items():
        check = _REQUEST_MEMBER_CHECKS.get(key) if key in limits.REQUEST_MEMBERS else None
        if key == "questions" and check is not None:
            questions_size = yield from check_questions(value, path + (key,), limits)
        elif _plainly_valid(key, value, limits):
            continue
        elif check is None:
            yield Problem(
                path + (key,),
                "schema.unknown_member",
                f"member {key!r} is not accepted; {what} takes only "
                f"{_names(limits.REQUEST_MEMBERS)}",
            )
        else:
            yield from check(value, path + (key,), limits)
    if limits.INPUT_BLOCK_TYPES and type(body.get("input", "")) is not str:
        yield from _check_inline_total(body["input"], path + ("input",), limits)
    yield from check_budget(body, path, limits, questions_size=questions_size)


def _plainly_valid(key: str, value: Any, limits: Limits) -> bool:
    """Shortcut for the most common members: a known model, a non-blank text input."""
    if type(value) is not str or key not in limits.REQUEST_MEMBERS:
        return False
    if key == "model":
        return value in limits.MODELS
    return key == "input" and bool(value) and value.isascii() and not value.isspace()


def check_model(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check the model name against the table's model list."""
    if type(value) is not str:
        yield _wrong_type(value, path, "a model name string")
    elif value not in limits.MODELS:
        yield Problem(
            path,
            "model.unknown",
            f"expected model {_names(sorted(limits.MODELS))}, found {value!r}",
        )


def check_mode(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check the execution mode."""
    if type(value) is not str:
        yield _wrong_type(value, path, "a mode string")
    elif value not in limits.MODES:
        yield Problem(
            path, "mode.unknown", f"expected mode {_names(limits.MODES)}, found {value!r}"
        )


def check_boolean(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check for a real JSON boolean: no coercion of strings or numbers."""
    if type(value) is not bool:
        yield _wrong_type(value, path, "true or false")


def check_state(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Accept any JSON value as state, and refuse what no JSON text can hold.

    A Python value may hold what JSON text cannot: NaN, numbers beyond a double, member
    names that are not strings, lone surrogates, a container that holds itself, or more
    nesting than the library's bound. The JSON text checks refuse these in text already.
    Nesting counts from the document root, as in text: the body is level 1, so the state's
    own containers start at level 2, and ``json.too_deep`` names the first one past the bound.
    """
    yield from _check_json_value(value, path, limits.MAX_JSON_DEPTH)


def _check_json_value(value: Any, path: Path, max_depth: int) -> Iterator[Problem]:
    # Iterative walk: a state may nest deeper than the interpreter's recursion limit. The
    # containers on the way down are kept, so a container that holds itself is caught.
    stack: list[tuple[Any, Path, tuple[int, ...], Problem | None]] = [(value, path, (), None)]
    while stack:
        item, where, above, name_problem = stack.pop()
        if name_problem is not None:
            yield name_problem
        kind = type(item)
        if kind is str:
            problem = _surrogate_problem(item, where)
            if problem is not None:
                yield problem
        elif kind is float:
            if item != item or item in (float("inf"), float("-inf")):
                yield Problem(where, "json.non_finite", f"expected a finite number, found {item!r}")
        elif kind is int:
            if abs(item) > sys.float_info.max:
                yield Problem(
                    where, "json.number_range", "expected a number within a double's range"
                )
        elif kind is dict or kind is list:
            if id(item) in above:
                yield Problem(where, "json.too_deep", "the value holds itself; it has no JSON text")
                continue
            if len(where) >= max_depth:  # counted from the document root, as in JSON text
                yield Problem(
                    where,
                    "json.too_deep",
                    f"expected at most {max_depth} nested levels, found more",
                )
                continue
            inner = above + (id(item),)
            if kind is list:
                stack.extend(
                    (v, where + (i,), inner, None) for i, v in reversed(list(enumerate(item)))
                )
                continue
            stack.extend(
                (v, where + (k,), inner, _member_name_problem(k, where + (k,)))
                for k, v in reversed(list(item.items()))
            )
        elif kind not in (bool, type(None)):
            yield Problem(where, "schema.type", f"expected a JSON value, found {kind.__name__}")


def _member_name_problem(key: Any, path: Path) -> Problem | None:
    if type(key) is not str:
        return _wrong_type(key, path, "a string member name")
    return _surrogate_problem(key, path)


def _surrogate_problem(text: str, path: Path) -> Problem | None:
    """A ``json.lone_surrogate`` problem when the text cannot be written as UTF-8, else None."""
    if has_surrogate(text):
        return Problem(path, "json.lone_surrogate", "text holds a lone surrogate code point")
    return None


# --- input ---------------------------------------------------------------------------------


def check_input(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check the shared input: a non-blank string, one block, or a non-empty array of blocks."""
    if type(value) is str:
        if not value.strip():
            yield Problem(
                path,
                "input.empty",
                "expected non-blank text, found only whitespace"
                if value
                else "expected non-empty input, found an empty string",
            )
        elif (problem := _surrogate_problem(value, path)) is not None:
            yield problem
        return
    if type(value) is dict:
        yield from check_block(value, path, limits)
        text = _text_of(value)
        if text and not text.strip():
            yield Problem(path, "input.empty", "expected non-blank text, found only whitespace")
        return
    if type(value) is not list:
        yield _wrong_type(value, path, "a string, a content block or an array of content blocks")
        return
    if not value:
        yield Problem(
            path, "input.empty", "expected at least one content block, found an empty array"
        )
        return
    previous_text: str | None = None
    all_blank = True
    for index, block in enumerate(value):
        where = path + (index,)
        yield from check_block(block, where, limits)
        text = _text_of(block)
        if text is None:
            all_blank = all_blank and _is_text_block(block)
            previous_text = None
            continue
        if text.strip():
            all_blank = False
        if previous_text and text and _runs_together(previous_text, text):
            yield Problem(
                where,
                "text.run_together",
                f"text blocks are joined with no separator: {previous_text[-12:]!r} + "
                f"{text[:12]!r} reads as one word; end or start one of them with a space",
                _W,
            )
        previous_text = text
    if all_blank:
        yield Problem(path, "input.empty", "expected some non-blank content, found only blank text")


def _is_text_block(block: Any) -> bool:
    return type(block) is dict and block.get("type") == "text"


def _text_of(block: Any) -> str | None:
    if type(block) is dict and block.get("type") == "text":
        text = block.get("text")
        return text if type(text) is str else None
    return None


def _runs_together(left: str, right: str) -> bool:
    """True when the joined text would fuse two words: letters or digits meet, in a script
    that separates words with spaces (CJK text, written without them, is left alone)."""
    a, b = left[-1], right[0]
    if not (a.isalnum() and b.isalnum()):
        return False
    return not (unicodedata.east_asian_width(a) in "WF" or unicodedata.east_asian_width(b) in "WF")


def check_block(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check one input content block and dispatch on its type."""
    if type(value) is not dict:
        yield _wrong_type(value, path, "a content block object")
        return
    kind = value.get("type")
    if kind is None:
        yield Problem(path, "schema.required", "member 'type' is required in a content block")
        return
    if kind not in limits.INPUT_BLOCK_TYPES:
        yield Problem(
            path + ("type",),
            "input.block_type",
            f"expected block type {_names(limits.INPUT_BLOCK_TYPES)}, found {kind!r}",
        )
        return
    if kind == "text":
        yield from check_text_block(value, path, limits)
    else:
        yield from CHECKS["media_block"](value, path, limits)


def check_text_block(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check an input text block: exactly ``type`` and a non-empty ``text``."""
    yield from _required(value, path, ("text",), "a text block")
    yield from _closed(value, path, limits.TEXT_BLOCK_MEMBERS, "an input text block")
    if "text" in value:
        yield from _check_text_member(value["text"], path + ("text",))


def _check_text_member(text: Any, path: Path) -> Iterator[Problem]:
    if type(text) is not str:
        yield _wrong_type(text, path, "a string")
    elif not text:
        yield Problem(path, "text.empty", "expected non-empty text, found an empty string")
    elif (problem := _surrogate_problem(text, path)) is not None:
        yield problem


def _check_inline_total(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    blocks = value if type(value) is list else [value]
    total = 0
    for index, block in enumerate(blocks):
        if type(block) is dict and isinstance(block.get("data"), str):
            total += len(block["data"])
            if total > limits.MAX_INLINE_TOTAL_BYTES:
                where = path + (index, "data") if type(value) is list else path + ("data",)
                yield Problem(
                    where,
                    "data.too_large",
                    f"inline data reaches {total:,} bytes of base64 text here; the limit per "
                    f"request is {limits.MAX_INLINE_TOTAL_BYTES:,} bytes",
                )
                return


def check_media_block(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check the members of an image, audio, video or document block (no byte sniffing)."""
    kind = value["type"]
    allowed = limits.MEDIA_MEMBERS.get(kind, ())
    yield from _required(value, path, ("mime_type",), f"an {kind} block")
    for key in value:
        if key == "resolution" and key not in allowed:
            yield Problem(
                path + (key,),
                "resolution.not_allowed",
                f"{kind} blocks take no resolution; only "
                f"{' and '.join(k for k, v in limits.RESOLUTIONS.items() if v)} blocks do",
            )
        elif key not in allowed:
            yield Problem(
                path + (key,),
                "schema.unknown_member",
                f"member {key!r} is not accepted in {_article(kind)} block; expected only "
                f"{_names(allowed)}",
            )
    has_data, has_uri = "data" in value, "uri" in value
    if has_data == has_uri:
        yield Problem(
            path,
            "block.data_or_uri",
            "expected exactly one of 'data' and 'uri', found "
            + ("both" if has_data else "neither"),
        )
    mime = value.get("mime_type")
    if "mime_type" in value:
        yield from _check_mime(mime, path + ("mime_type",), kind, limits)
    if "resolution" in value and "resolution" in allowed:
        res = value["resolution"]
        choices = limits.RESOLUTIONS.get(kind, ())
        if type(res) is not str:
            yield _wrong_type(res, path + ("resolution",), "a resolution string")
        elif res not in choices:
            yield Problem(
                path + ("resolution",),
                "resolution.not_allowed",
                f"expected resolution {_names(choices)} for {_article(kind)} block, found {res!r}",
            )
    for member in ("data", "uri"):
        if member in value and not isinstance(value[member], str):
            yield _wrong_type(value[member], path + (member,), "a string")
    if isinstance(value.get("data"), str):
        yield from CHECKS["media_data"](value, path, limits)
    if isinstance(value.get("uri"), str):
        yield from CHECKS["media_uri"](value, path, limits)


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _check_mime(mime: Any, path: Path, kind: str, limits: Limits) -> Iterator[Problem]:
    allowed = limits.MIME_TYPES.get(kind, ())
    if type(mime) is not str:
        yield _wrong_type(mime, path, "a MIME type string")
    elif mime.lower() in limits.GENERIC_MIME_TYPES or mime.lower().startswith(
        "application/octet-stream"
    ):
        yield Problem(
            path,
            "mime.generic",
            f"expected the file's own type ({', '.join(allowed)}), found generic {mime!r}",
        )
    elif mime not in allowed:
        yield Problem(
            path,
            "mime.not_allowed",
            f"expected {', '.join(allowed)} for {_article(kind)} block, found {mime!r}",
        )


# --- questions -----------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _key_regex(chars: str) -> re.Pattern[str]:
    return re.compile(f"[{chars}]+")


def check_questions(
    value: Any, path: Path, limits: Limits
) -> Generator[Problem, None, TextSize | None]:
    """Check the question map: count, keys, and each question.

    Returns (through ``yield from``) the text size of all questions when every one of them
    is clean, for the budget rule; None otherwise.
    """
    if type(value) is not dict:
        yield _wrong_type(value, path, "an object mapping question keys to questions")
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
        joined = "".join(questions)
    except TypeError:
        return False
    if not joined:
        return not questions
    if _key_regex(limits.QUESTION_KEY_CHARS).fullmatch(joined) is None:
        return False
    shortest, longest = limits.MIN_QUESTION_KEY_CHARS, limits.MAX_QUESTION_KEY_CHARS
    if "" in questions or (shortest > 1 and min(map(len, questions)) < shortest):
        return False
    return longest is None or max(map(len, questions)) <= longest


def _check_key(key: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    if type(key) is not str:
        yield _wrong_type(key, path, "a string question key")
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
# few operations whatever their number, casing or script. Anything unusual makes the answer
# None, and the questions are then checked one by one, exactly. The fast path may be
# over-cautious, never lenient: a property test holds it to the exact checks.


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
    sizes = [
        _text_size("".join(prompts), len(prompts)),
        _clean_options(choices, limits) if choices else _NO_TEXT,
        _clean_levels(scores, limits) if scores else _NO_TEXT,
        _clean_noul(nouls, limits) if nouls else _NO_TEXT,
    ]
    if None in sizes:
        return None
    chars, extra, strings = map(sum, zip(*cast("list[TextSize]", sizes), strict=True))
    many = {}
    if scores and max(map(len, scores)) > limits.RECOMMENDED_MAX_LEVELS:
        many = _many_level_positions(questions, limits)
    return _Clean((chars, extra, strings), many)


_NO_TEXT: TextSize = (0, 0, 0)
_Groups = tuple[list[str], list[dict[str, Any]], list[list[Any]], list[dict[str, Any]]]


def _question_groups(questions: list[Any], limits: Limits) -> _Groups | None:
    """Sort the questions' instructions and criteria by type; None for an unusual shape.

    A plain loop: for the few questions of a request it costs less than the C-speed
    operations it would take to check their shapes together.
    """
    prompts: list[str] = []
    by_kind: dict[str, list[Any]] = {kind: [] for kind in limits.QUESTION_TYPES}
    for question in questions:
        if type(question) is not dict:
            return None
        kind, prompt = question.get("type"), question.get("instructions")
        group = by_kind.get(kind) if type(kind) is str else None
        if type(prompt) is not str or group is None:
            return None
        size = len(question)
        if size == 3:
            group.append(question.get("criteria"))
        elif size != 2 or group is not by_kind.get("noul"):
            return None
        prompts.append(prompt)
    choices, scores, nouls = (by_kind.get(kind, []) for kind in ("choice", "score", "noul"))
    if {*map(type, choices)} - _DICT_ONLY or {*map(type, scores)} - _LIST_ONLY:
        return None
    if {*map(type, nouls)} - _DICT_ONLY:
        return None
    return prompts, choices, scores, nouls


_DICT_ONLY, _LIST_ONLY = frozenset({dict}), frozenset({list})


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
    clean: Callable[[list[Any], Limits], TextSize | None], groups: list[Any], limits: Limits
) -> TextSize | None:
    """Run ``clean`` on consecutive batches of groups; add up their sizes, or None."""
    if sum(map(len, groups)) <= _BATCH_ITEMS:
        return clean(groups, limits)  # the common case: one batch
    sizes: list[TextSize] = []
    start = taken = 0
    for end, count in enumerate(map(len, groups), 1):
        taken += count
        if taken >= _BATCH_ITEMS or end == len(groups):
            size = clean(groups[start:end], limits)
            if size is None:
                return None
            sizes.append(size)
            start, taken = end, 0
    return _sum_sizes(sizes)


def _clean_options(groups: list[dict[str, Any]], limits: Limits) -> TextSize | None:
    """Check the options of choice questions together: counts, IDs, descriptions."""
    return _batched(_clean_option_batch, groups, limits)


def _clean_option_batch(groups: list[dict[str, Any]], limits: Limits) -> TextSize | None:
    counts = [*map(len, groups)]
    if min(counts) < limits.MIN_OPTIONS or max(counts) > limits.MAX_OPTIONS:
        return None
    if any(map(dict.__contains__, groups, repeat(""))):  # an empty ID
        return None
    ids = [*chain.from_iterable(groups)]
    try:
        plain = "".join(ids)
        described = "".join(chain.from_iterable(map(dict.values, groups)))
    except TypeError:  # an ID or a description that is not a string
        return None
    if not _id_lengths_clean(len(plain), ids, limits):
        return None
    clean_ids = _ascii_ids_clean if plain.isascii() else _unicode_ids_clean
    if not clean_ids(plain, ids, counts, limits):
        return None
    id_size, text_size = _text_size(plain, 2 * len(ids)), _text_size(described, 0)
    if id_size is None or text_size is None:
        return None
    return id_size[0] + text_size[0], id_size[1] + text_size[1], id_size[2]


def _id_lengths_clean(total: int, ids: list[str], limits: Limits) -> bool:
    """Tell whether every ID has an allowed length in code points (none is empty)."""
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


def _clean_levels(groups: list[list[Any]], limits: Limits) -> TextSize | None:
    """Check the levels of score questions together: counts, empty and repeated levels."""
    return _batched(_clean_level_batch, groups, limits)


def _clean_level_batch(groups: list[list[Any]], limits: Limits) -> TextSize | None:
    counts = [*map(len, groups)]
    if min(counts) < limits.MIN_LEVELS or max(counts) > limits.MAX_LEVELS:
        return None
    levels = [*chain.from_iterable(groups)]
    try:
        text = "".join(levels)
    except TypeError:  # a level that is not a string
        return None
    if "" in levels or [*map(len, map(set, groups))] != counts:  # empty or repeated levels
        return None
    return _text_size(text, len(levels))


def _clean_noul(groups: list[dict[str, Any]], limits: Limits) -> TextSize | None:
    """Check the criteria objects of noul questions together: known names, string values."""
    names = [*chain.from_iterable(groups)]
    if not set(names) <= set(limits.NOUL_CRITERIA_MEMBERS):
        return None
    try:
        text = "".join(names) + "".join(chain.from_iterable(map(dict.values, groups)))
    except TypeError:  # a description that is not a string
        return None
    return _text_size(text, 2 * len(names))


def check_question(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check one question: its type, instructions and the criteria of its type."""
    if type(value) is not dict:
        yield _wrong_type(value, path, "a question object")
        return
    kind = value.get("type")
    known = kind in limits.QUESTION_TYPES
    needed = ("type", "instructions") + (("criteria",) if kind in ("choice", "score") else ())
    if "type" not in value or "instructions" not in value or (known and kind != "noul"):
        yield from _required(value, path, needed, f"a {kind} question" if known else "a question")
    for key, member in value.items():
        where = path + (key,)
        if key == "type":
            if not known:
                yield Problem(
                    where,
                    "question.type",
                    f"expected type {_names(limits.QUESTION_TYPES)}, found "
                    + (repr(kind) if type(kind) is str else json_type(kind)),
                )
        elif key == "instructions":
            yield from check_instructions(member, where, limits)
        elif key == "criteria":
            if known:
                yield from CHECKS[f"{kind}_criteria"](member, where, limits)
        else:
            yield Problem(
                where,
                "schema.unknown_member",
                f"member {key!r} is not accepted in a question; expected only "
                f"{_names(limits.QUESTION_MEMBERS)}",
            )


def check_instructions(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check instructions: a non-empty string, one text block, or an array of text blocks."""
    if type(value) is str:
        if not value:
            yield Problem(path, "instructions.empty", "expected non-empty instructions")
        elif not value.strip():
            yield Problem(path, "instructions.blank", "instructions are only whitespace", _W)
        elif (problem := _surrogate_problem(value, path)) is not None:
            yield problem
        return
    form = "block" if type(value) is dict else "blocks" if type(value) is list else None
    if form is None:
        yield _wrong_type(value, path, "a string, a text block or an array of text blocks")
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
    for index, block in enumerate(blocks):
        yield from check_instruction_block(
            block, path if form == "block" else path + (index,), limits
        )


def _forms(forms: frozenset[str]) -> str:
    words = {"string": "a string", "block": "one text block", "blocks": "an array of text blocks"}
    return " or ".join(words[f] for f in ("string", "block", "blocks") if f in forms)


def check_instruction_block(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check an instruction text block, with its optional annotations."""
    if type(value) is not dict:
        yield _wrong_type(value, path, "a text block object")
        return
    yield from _required(value, path, ("type", "text"), "an instruction text block")
    for key, member in value.items():
        where = path + (key,)
        if key not in limits.INSTRUCTION_BLOCK_MEMBERS:
            yield Problem(
                where,
                "schema.unknown_member",
                f"member {key!r} is not accepted in an instruction text block; expected only "
                f"{_names(limits.INSTRUCTION_BLOCK_MEMBERS)}",
            )
        elif key == "type":
            if member != "text":
                yield Problem(where, "schema.const", f"expected type 'text', found {member!r}")
        elif key == "text":
            yield from _check_text_member(member, where)
        elif key == "annotations":
            if type(member) is not list:
                yield _wrong_type(member, where, "an array of annotations")
            else:
                for index, item in enumerate(member):
                    yield from check_annotation(item, where + (index,), limits)


def check_annotation(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check one instruction annotation against the members of its type."""
    if type(value) is not dict:
        yield _wrong_type(value, path, "an annotation object")
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
                f"expected annotation type {_names(limits.ANNOTATION_MEMBERS)}, found {kind!r}",
            )
        return
    yield from _check_typed_members(
        value, path, members, f"a {kind} annotation", limits.MAX_JSON_DEPTH
    )
    snippets = value.get("review_snippets")
    if type(snippets) is list:
        for index, item in enumerate(snippets):
            where = path + ("review_snippets", index)
            if type(item) is not dict:
                yield _wrong_type(item, where, "a review snippet object")
            else:
                yield from _check_typed_members(
                    item, where, limits.REVIEW_SNIPPET_MEMBERS, "a review snippet"
                )


def _check_typed_members(
    obj: dict[str, Any],
    path: Path,
    members: Mapping[str, str],
    what: str,
    max_depth: int = 0,
) -> Iterator[Problem]:
    """Check members against their JSON types; an open ``object`` member (user metadata)
    holds any JSON value, walked to ``max_depth`` for what no JSON text can hold."""
    for key, member in obj.items():
        kind = members.get(key)
        if kind is None:
            yield Problem(
                path + (key,),
                "schema.unknown_member",
                f"member {key!r} is not accepted in {what}; expected only {_names(members)}",
            )
        elif not _is(member, kind):
            yield _wrong_type(
                member, path + (key,), _article(kind) if kind != "array" else "an array"
            )
        elif kind == "string" and (problem := _surrogate_problem(member, path + (key,))):
            yield problem
        elif kind == "object":
            yield from _check_json_value(member, path + (key,), max_depth)


def check_noul_criteria(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check noul criteria: an object with optional string descriptions."""
    if type(value) is not dict:
        yield _wrong_type(value, path, "an object with 'true_description' and 'false_description'")
        return
    yield from _check_typed_members(
        value, path, dict.fromkeys(limits.NOUL_CRITERIA_MEMBERS, "string"), "noul criteria"
    )


def check_choice_criteria(value: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check choice criteria: the option count, every option ID, string descriptions."""
    if type(value) is not dict:
        yield _wrong_type(value, path, "an object mapping option IDs to descriptions")
        return
    count = len(value)
    if not limits.MIN_OPTIONS <= count <= limits.MAX_OPTIONS:
        yield Problem(
            path,
            "option.count",
            f"expected {limits.MIN_OPTIONS} to {limits.MAX_OPTIONS} options, found {count}",
        )
    if _clean_options([value], limits) is None:
        yield from _check_options(value, path, limits)


def _check_options(options: dict[Any, Any], path: Path, limits: Limits) -> Iterator[Problem]:
    """Check the options one by one: each ID, each description, catch-alls, look-alikes."""
    if set(map(type, options)) - {str}:
        for key in options:
            if type(key) is not str:
                yield _wrong_type(key, path + (key,), "a string option ID")
        return
    lowered = [k.lower() for k in options]
    folded = lowered if "".join(options).isascii() else [_fold(k) for k in options]
    first_of: dict[str, str] = {}
    for (option_id, description), low, fold in zip(options.items(), lowered, folded, strict=True):
        where = path + (option_id,)
        yield from check_option_id(option_id, where, limits)
        if type(description) is not str:
            yield _wrong_type(description, where, "a description string (it may be empty)")
        elif (problem := _surrogate_problem(description, where)) is not None:
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
        yield _wrong_type(value, path, "an array of level descriptions")
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
    if not plain or "" in value:
        for index, level in enumerate(value):
            if type(level) is not str:
                yield _wrong_type(level, path + (index,), "a level description string")
            elif not level:
                yield Problem(
                    path + (index,), "level.empty", "expected a non-empty level description"
                )
            elif (problem := _surrogate_problem(level, path + (index,))) is not None:
                yield problem
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


CHECKS: Mapping[str, Check] = {
    "request": check_request,
    "model": check_model,
    "mode": check_mode,
    "state": check_state,
    "include_excerpts": check_boolean,
    "input": check_input,
    "block": check_block,
    "text_block": check_text_block,
    "media_block": check_media_block,
    "media_data": check_media_data,
    "media_uri": check_media_uri,
    "questions": check_questions,
    "question": check_question,
    "instructions": check_instructions,
    "annotation": check_annotation,
    "noul_criteria": check_noul_criteria,
    "choice_criteria": check_choice_criteria,
    "score_criteria": check_score_criteria,
    "budget": check_budget,
}

_REQUEST_MEMBER_CHECKS: Mapping[str, Check] = {
    name: CHECKS[name]
    for name in ("model", "mode", "state", "include_excerpts", "input", "questions")
}
