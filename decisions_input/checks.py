"""Rule functions over a parsed request body, each yielding :class:`Problem` records.

Every check has one signature, ``check_x(value, path, limits) -> Iterator[Problem]``, and
the checks that walk a request are registered in the literal :data:`CHECKS` table. Checks
never raise: any shape of JSON value gives problems, never a foreign exception. Problems
come out in document order: an object's own problems (missing members) first, then its
members in the order the body holds them.

This module holds the request, its input and its blocks, and the :data:`CHECKS` table; the
question checks are in :mod:`~decisions_input.question_checks`, the checks of media bytes in
:mod:`~decisions_input.media_checks`, and what they all use (JSON types, member lists, open
JSON values) in :mod:`~decisions_input.json_checks`. The names are importable from here too.

Valid input is the common case, so the hot checks (questions, option IDs) test whole
collections with C-speed operations first and only walk item by item when something is
wrong.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from . import json_checks as _json
from .budget import TextSize, check_budget
from .errors import Path, Problem, Severity
from .json_checks import json_type
from .limits import Limits
from .media_checks import check_media_data, check_media_uri
from .question_checks import (
    FORMAT_CHARS,
    WHITE_SPACE,
    check_annotation,
    check_choice_criteria,
    check_instructions,
    check_noul_criteria,
    check_option_id,
    check_question,
    check_questions,
    check_score_criteria,
)

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

# The helpers shared with the other checks, under the names this module has used.
_wrong_type, _names, _required, _closed = (
    _json.wrong_type,
    _json.names,
    _json.required,
    _json.closed,
)
_article, _surrogate_problem = _json.article, _json.surrogate_problem
_check_json_value, _check_text_member = _json.check_json_value, _json.check_text_member


# --- request -------------------------------------------------------------------------------


def check_request(body: Any, path: Path, limits: Limits) -> Iterator[Problem]:
    """Check a whole request body of the limits' target."""
    if type(body) is not dict:
        yield _wrong_type(body, path, "a JSON object")
        return
    for name in limits.REQUIRED_MEMBERS:
        if name not in body:
            what = f"a {limits.TARGET} request"
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
                f"member {key!r} is not accepted; a {limits.TARGET} request takes only "
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
        prefix = next((p for p in limits.MODEL_PREFIXES if value.startswith(p)), "")
        if prefix and value[len(prefix) :] in limits.MODELS:
            yield Problem(
                path,
                "model.prefixed",
                f"{value!r} is the resource name of {value[len(prefix) :]!r}; Google's "
                "endpoint takes either, but a proxy may know only the bare name",
                _W,
            )
            return
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
    An integer beyond ``MAX_EXACT_STATE_INTEGER`` is valid JSON that many readers cannot
    hold exactly: a warning, ``state.integer_precision``. A float is not an integer (it is a
    double already), nor is a boolean.
    """
    yield from _check_json_value(
        value, path, limits.MAX_JSON_DEPTH, max_exact_integer=limits.MAX_EXACT_STATE_INTEGER
    )


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
    """True when the joined text would fuse two words, in a script that separates words
    with spaces: letters or digits meet (``abc`` + ``def``), or a sentence ends and the
    next begins (``late.`` + ``Customer``)."""
    a, b = left[-1], right[0]
    if a.isalnum() and b.isalnum():
        return _spaced(a) and _spaced(b)
    return _sentence_meets_word(left, right)


# Sentence-ending punctuation, the closing quotes and brackets that may follow it, and the
# opening ones that may precede the next sentence's first letter.
_SENTENCE_ENDS = ".!?\u2026\u203d"
_CLOSERS = "\"')]}\u2019\u201d\u00bb\u203a"
_OPENERS = "\"'([{\u2018\u201c\u00ab\u2039"
# Scripts written without spaces between words, beyond the wide (CJK) characters: Thai,
# Lao, Tibetan, Myanmar, Khmer, the Tai scripts, Buginese, Balinese, Javanese, and
# half-width katakana.
_UNSPACED = re.compile(
    "[\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u1950-\u1aaf\u19e0-\u19ff\u1b00-\u1b7f"
    "\ua980-\ua9ff\uaa60-\uaadf\uff61-\uff9f]"
)
# Within a word that runs across the join: what makes it a name of its own, written
# without spaces (a URL, a path, an e-mail address, a host or file name, an
# abbreviation such as "e.g.", a version or decimal number).
_NAME_MARK = re.compile(r"[/\\@]|\w\.\w")
_NAME_MARK_IN_FIRST_WORD = re.compile(r"\S*?(?:[/\\@]|\w\.\w)")


def _spaced(char: str) -> bool:
    """Tell whether a character is of a script that separates words with spaces."""
    return unicodedata.east_asian_width(char) not in "WF" and _UNSPACED.match(char) is None


def _sentence_meets_word(left: str, right: str) -> bool:
    """True when ``left`` ends a sentence and ``right`` starts one with no space between:
    the next word starts with a capital, or a letter of a script without case."""
    ending = left.rstrip(_CLOSERS)
    word = right.lstrip(_OPENERS)
    if not ending or ending[-1] not in _SENTENCE_ENDS or not word:
        return False
    first, before = word[0], ending.rstrip(_SENTENCE_ENDS)[-1:]
    if not first.isalpha() or first.islower() or not _spaced(first):
        return False
    if before and not _spaced(before):  # the sentence is of a script without spaces
        return False
    # The word across the join: the start of the right text up to its first space, and
    # the end of the left one back to its last.
    if _NAME_MARK_IN_FIRST_WORD.match(word) is not None:
        return False
    return _NAME_MARK.search(ending.rsplit(None, 1)[-1]) is None


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
