"""Estimate the input tokens of a request offline: per block, per question and in total.

Counting tokens exactly needs the provider's tokenizer and a network call. This module
gives bounds instead, from what the request holds and what media headers say, with the
rates of the limits table (each with its source there):

* text: characters at ``TEXT_CHARS_PER_TOKEN``, the high bound widened for non-ASCII text;
* a question: its instructions and criteria as text, plus ``QUESTION_OVERHEAD_TOKENS`` and
  ``CRITERION_OVERHEAD_TOKENS`` for the prompt structure around them;
* an image: the per-resolution figure and the older tile rule on its width and height;
* a video: sampled frames per resolution and the older per-second rate, plus its audio;
* audio: its duration at ``AUDIO_TOKENS_PER_SECOND``;
* a PDF: its pages per resolution and as one tile each.

Where the rules disagree, ``low`` is the smaller and ``high`` the larger figure. A block
whose measurement is not available (a URL is never fetched, a header may lack the figure)
gets the range of the ``UNMEASURED_*`` assumptions, and its ``basis`` says so.

Media are never decoded. Inline base64 is read through
:class:`~decisions_input.media_checks.Base64Stream`, which decodes only the bytes the
sniffer asks for; durations, and the ranges stated where a duration cannot be counted
(MPEG program streams, long VBR MP3), come from the sniffed evidence.
A :class:`~decisions_input.request.Request` carries no bytes: its media blocks are measured
from the evidence kept when they were built.

The budgets: Gemini counts the input and every question against
``CONTEXT_WINDOW_TOKENS``; Parallel counts the state (its JSON text) plus the largest
question against ``MAX_STATE_PLUS_QUESTION_TOKENS``. :func:`check_budget` is the rule the
validator runs: ``budget.exceeded`` when even the low bound is over the budget,
``budget.at_risk`` when only the high bound is. Every row is rounded outwards on its own and
a total is the sum of its rows.

The validator runs on every request, so it first bounds the high total from above in one
pass over the strings and one C-speed join (counting every criterion member as text); only
a request that may be over its budget is estimated row by row.

.. versionadded:: 0.1
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import DecisionsInputError, InvalidInput, Path, Problem, Severity, render_json_path
from .limits import Limits, limits_for, target_of
from .media_checks import Base64Stream, DeferredData
from .textmeasure import TextTokens, measure_strings, measure_utf8

if TYPE_CHECKING:
    from .sniffing import Detected

__all__ = [
    "BlockEstimate",
    "Estimate",
    "TextSize",
    "Tokens",
    "check_budget",
    "estimate",
    "screen_size",
]

_NO_PROBLEMS: tuple[Problem, ...] = ()
_CRITERIA_NAMES = {"choice": "option", "score": "level", "noul": "description"}


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tokens:
    """Bounds on a count of input tokens, under the rates of one limits table.

    .. versionadded:: 0.1
    """

    low: int
    high: int

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(self.low + other.low, self.high + other.high)

    def __str__(self) -> str:
        return f"{self.low:,} to {self.high:,}"


@dataclass(frozen=True, slots=True)
class BlockEstimate:
    """The estimate of one part of a request: an input block, the state or a question.

    ``basis`` says what was measured and which rates were applied; ``measured`` is False
    when the range rests on the table's ``UNMEASURED_*`` assumptions.

    .. versionadded:: 0.1
    """

    path: Path
    modality: str
    basis: str
    low: int
    high: int
    measured: bool = True

    @property
    def tokens(self) -> Tokens:
        """The bounds as one value."""
        return Tokens(self.low, self.high)

    @property
    def json_path(self) -> str:
        """The path as JSONPath text."""
        return render_json_path(self.path)


@dataclass(frozen=True, slots=True)
class Estimate:
    """Bounds on the input tokens of one request, per part and against the target's budget.

    ``blocks`` are the input blocks (Gemini) or the state (Parallel); ``questions`` one row
    per question. ``total`` is what counts against ``budget`` (named ``budget_limit`` in the
    limits table): every part for Gemini, the state plus the largest question for Parallel.

    .. versionadded:: 0.1
    """

    target: str
    blocks: tuple[BlockEstimate, ...]
    questions: tuple[BlockEstimate, ...]
    total: Tokens
    budget: int | None
    budget_limit: str | None
    counted: str

    @property
    def parts(self) -> tuple[BlockEstimate, ...]:
        """Every row: the blocks, then the questions."""
        return self.blocks + self.questions

    @property
    def fits(self) -> bool:
        """False when even the low bound is over the budget."""
        return self.budget is None or self.total.low <= self.budget

    @property
    def at_risk(self) -> bool:
        """True when the low bound fits the budget but the high bound does not."""
        return self.budget is not None and self.total.low <= self.budget < self.total.high


# --- text ------------------------------------------------------------------------------------


class _Texts:
    """The UTF-8 of each text one budget check looks at, encoded once for the whole check.

    The validator sizes a text, may bound it from its size, and may then measure it: with
    this, each of those reads the same bytes. Kept by identity together with the text,
    so that no other string can take its place while the check runs; a state's JSON text
    likewise.
    """

    __slots__ = ("_state", "_utf8")

    def __init__(self) -> None:
        self._utf8: dict[int, tuple[str, bytes]] = {}
        self._state: tuple[Any, str | None] | None = None

    def utf8(self, text: str) -> bytes:
        """Return the UTF-8 of ``text``, lone surrogates as their three bytes."""
        kept = self._utf8.get(id(text))
        if kept is None or kept[0] is not text:
            kept = (text, text.encode("utf-8", "surrogatepass"))
            self._utf8[id(text)] = kept
        return kept[1]

    def size(self, text: str) -> tuple[int, int]:
        """Return the characters of ``text`` and its UTF-8 bytes past one per character."""
        if text.isascii():
            return len(text), 0
        return len(text), len(self.utf8(text)) - len(text)

    def state_text(self, state: Any) -> str | None:
        """Return :func:`_state_text` of ``state``, made once."""
        if self._state is None or self._state[0] is not state:
            self._state = (state, _state_text(state))
        return self._state[1]


def _text_size(strings: list[str], texts: _Texts | None = None) -> tuple[int, int]:
    """Return the characters of the strings and their UTF-8 bytes past one per character."""
    if texts is not None:
        sizes = [*map(texts.size, strings)]
        return sum(size[0] for size in sizes), sum(size[1] for size in sizes)
    joined = "".join(strings)
    chars = len(joined)
    if joined.isascii():
        return chars, 0
    return chars, len(joined.encode("utf-8", "surrogatepass")) - chars


def _text_tokens(
    strings: list[str],
    limits: Limits,
    *,
    cheap: bool,
    stop_above: int | None = None,
    texts: _Texts | None = None,
) -> TextTokens:
    """Bound the tokens of some strings: by class, or (``cheap``) from their size alone.

    The cheap bounds cost one join: one token per ``TEXT_MAX_PIECE_CHARS`` characters at
    least, one per UTF-8 byte at most. The validator tries them before measuring, and
    measures no further than ``stop_above`` tokens. With ``texts``, one string is encoded
    once for both.
    """
    if not cheap:
        if texts is not None and len(strings) == 1:
            data, chars = texts.utf8(strings[0]), len(strings[0])
            return measure_utf8(data, chars=chars, limits=limits, stop_above=stop_above)
        return measure_strings(strings, limits=limits, stop_above=stop_above)
    chars, extra = _text_size(strings, texts)
    return TextTokens(-(-chars // limits.TEXT_MAX_PIECE_CHARS), chars + extra, chars, chars + extra)


def _text_basis(measured: TextTokens, what: str) -> str:
    basis = f"{measured.chars:,} characters of {what}"
    if measured.utf8_bytes != measured.chars:
        basis += f" ({measured.utf8_bytes:,} UTF-8 bytes)"
    return basis + ", counted by class (digits, words, punctuation, scripts)"


def _instruction_strings(value: Any, out: list[str]) -> None:
    if type(value) is str:
        out.append(value)
        return
    for block in [value] if type(value) is dict else value if type(value) is list else ():
        if type(block) is dict and type(block.get("text")) is str:
            out.append(block["text"])


def _question_strings(question: Any, out: list[str]) -> int:
    """Append a question's instruction and criteria texts to ``out``; return its criteria."""
    if type(question) is not dict:
        return 0
    _instruction_strings(question.get("instructions"), out)
    criteria = question.get("criteria")
    if type(criteria) is dict:
        if question.get("type") != "noul":  # noul criteria are named members, not options
            out.extend(k for k in criteria if type(k) is str)
        out.extend(v for v in criteria.values() if type(v) is str)
        return len(criteria)
    if type(criteria) is list:
        out.extend(v for v in criteria if type(v) is str)
        return len(criteria)
    return 0


def _well_formed_parts(question: Any) -> tuple[list[Any], int]:
    """A question's instructions and criteria texts, and its criteria, by C-speed list
    operations; raises ``KeyError``, ``TypeError`` or ``AttributeError`` on an unusual one."""
    parts = [question["instructions"]]
    criteria = question.get("criteria")
    count = 0
    if type(criteria) is dict:
        count = len(criteria)
        if question["type"] != "noul":
            parts.extend(criteria)
        parts.extend(criteria.values())
    elif type(criteria) is list:
        count = len(criteria)
        parts.extend(criteria)
    return parts, count


def _question_texts(question: Any) -> tuple[list[str], int]:
    """Return a question's instruction and criteria texts and its number of criteria.

    A well-formed question takes C-speed list operations; anything unusual goes to the
    careful walk, which skips what is not text. Both agree on well-formed ones.
    """
    try:
        parts, count = _well_formed_parts(question)
        if all(type(part) is str for part in parts):
            return parts, count
    except (KeyError, TypeError, AttributeError):
        pass
    texts: list[str] = []
    count = _question_strings(question, texts)
    return texts, count


def _question_size(question: Any) -> tuple[int, int, int]:
    """Return a question's characters, extra UTF-8 bytes and criteria, as
    :func:`_question_texts` finds them, with one join for a well-formed question."""
    try:
        parts, count = _well_formed_parts(question)
        return (*_text_size(parts), count)
    except (KeyError, TypeError, AttributeError):
        texts, count = _question_texts(question)
        return (*_text_size(texts), count)


def _question_tokens(
    question: Any, limits: Limits, *, cheap: bool = False
) -> tuple[TextTokens, int, int, int]:
    """Bound a question: its text measured, its criteria, and low and high with structure."""
    if cheap:
        chars, extra, count = _question_size(question)
        pieces = -(-chars // limits.TEXT_MAX_PIECE_CHARS)
        measured = TextTokens(pieces, chars + extra, chars, chars + extra)
    else:
        texts, count = _question_texts(question)
        measured = _text_tokens(texts, limits, cheap=False)
    q_low, q_high = limits.QUESTION_OVERHEAD_TOKENS
    c_low, c_high = limits.CRITERION_OVERHEAD_TOKENS
    return (
        measured,
        count,
        measured.low + q_low + count * c_low,
        measured.high + q_high + count * c_high,
    )


def _question_row(key: Any, question: Any, limits: Limits) -> BlockEstimate:
    measured, count, low, high = _question_tokens(question, limits)
    kind = question.get("type") if type(question) is dict else None
    noun = _CRITERIA_NAMES.get(kind, "criterion") if type(kind) is str else "criterion"
    q_low, q_high = limits.QUESTION_OVERHEAD_TOKENS
    c_low, c_high = limits.CRITERION_OVERHEAD_TOKENS
    basis = f"{_text_basis(measured, 'instructions and criteria')}; {q_low} to "
    basis += f"{q_high} for the question"
    if count:
        basis += f" and {c_low} to {c_high} for each of {count} {noun}{'s' if count != 1 else ''}"
    return BlockEstimate(("questions", key), "text", basis, low, high)


def _text_row(path: Path, text: str, limits: Limits) -> BlockEstimate:
    measured = _text_tokens([text], limits, cheap=False)
    basis = _text_basis(measured, "text")
    return BlockEstimate(path, "text", basis, measured.low, measured.high)


def _screen(
    texts: list[str], questions: Mapping[Any, Any], limits: Limits, known: _Texts | None = None
) -> int | None:
    """Bound the high total of the texts and questions from above, in one cheap pass.

    Every member of a criteria object counts as text (noul member names too) and every
    string as a criterion, so the bound only errs upwards. None when the questions are
    not well-formed enough for the pass. ``texts`` is extended in place.
    """
    rows = len(texts) + len(questions)
    chars, extra = _text_size(texts, known)
    strings = len(texts)
    for question in questions.values():
        size = screen_size(question)
        if size is None:
            return None
        chars, extra, strings = chars + size[0], extra + size[1], strings + size[2]
    return _text_bound((chars, extra, strings), rows, len(questions), limits)


def screen_size(question: Any) -> TextSize | None:
    """Measure one question's text as the budget screen counts it, or None when malformed.

    The instructions, every member name of a criteria object (noul's too) and every string
    count: more than the estimate counts, so a bound built on it only errs upwards.
    """
    try:
        criteria = question.get("criteria") or ()
        texts = [question["instructions"], *criteria]
        if type(criteria) is dict:
            texts.extend(criteria.values())
        chars, extra = _text_size(texts)
    except (KeyError, TypeError, AttributeError):
        return None
    return chars, extra, len(texts)


# Characters, UTF-8 bytes beyond one per character, and the number of strings of some text.
# A plain tuple: the question checks build one per question on the hot path.
TextSize = tuple[int, int, int]


def _text_bound(size: TextSize, rows: int, questions: int, limits: Limits) -> int:
    """Bound the high token estimate of some text from above (see :func:`_screen`).

    No text is estimated at more tokens than its UTF-8 bytes.
    """
    chars, extra, strings = size
    structure = questions * limits.QUESTION_OVERHEAD_TOKENS[1]
    return chars + extra + rows + structure + strings * limits.CRITERION_OVERHEAD_TOKENS[1]


# --- media measurements -------------------------------------------------------------------


class _Measure(NamedTuple):
    """What a media header says: size, pages, duration, audio track; ``why`` when nothing."""

    width: int | None = None
    height: int | None = None
    pages: int | None = None
    seconds: tuple[float, float] | None = None  # (shortest, longest) the header allows
    audio_track: bool | None = None
    why: str = ""
    refused: bool = False  # sniffing refused the bytes: the request has an error already
    estimated: bool = False  # the duration was worked out from frame sizes, not counted


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def _measure(
    detected: Detected | None,
    why: str,
    limits: Limits,
    seconds: tuple[float, float] | None = None,
) -> _Measure:
    """Read the measurements a rate needs from sniffed evidence; ``why`` when there is none."""
    if detected is None:
        return _Measure(why=why)
    ev = detected.evidence
    width, height, pages = _number(ev.get("width")), _number(ev.get("height")), ev.get("pages")
    tracks = ev.get("tracks")
    audio = ("audio" in tracks) if isinstance(tracks, tuple) else None
    duration = _number(ev.get("duration_s"))
    estimated = bool(ev.get("duration_estimated")) and duration is not None
    if duration is not None:
        seconds = (duration, duration)
        if estimated:
            # Worked out from the first frames' sizes, not counted: a stated, wider range.
            spread = limits.ESTIMATED_DURATION_SPREAD
            seconds = (duration / spread, duration * spread)
    return _Measure(
        int(width) if width and height else None,
        int(height) if width and height else None,
        pages if type(pages) is int and pages > 0 else None,
        seconds,
        audio,
        f"{detected.format} refused: {detected.code}"
        if detected.mime is None
        else f"the {detected.format} header does not give it",
        refused=detected.mime is None,
        estimated=estimated,
    )


def _stated_range(detected: Detected) -> tuple[float, float] | None:
    """The duration range sniffing states where it cannot count one (MPEG-PS, VBR MP3)."""
    found = detected.evidence.get("duration_range_s")
    if not isinstance(found, tuple) or len(found) != 2:
        return None
    first, last = (_number(v) for v in found)
    if first is None or last is None or first > last:
        return None
    return first, last


def _measure_inline(block: Mapping[str, Any], limits: Limits) -> _Measure:
    """Sniff inline base64 (decoding only what the headers need) and measure it."""
    from .sniffing import sniff_stream

    declared = block.get("mime_type")
    try:
        stream = Base64Stream(block["data"])
        detected = sniff_stream(
            stream, stream.size, declared=declared if type(declared) is str else None, limits=limits
        )
    except (DecisionsInputError, ValueError, OSError):
        return _Measure(why="the data could not be read")
    return _measure(detected, "", limits, _stated_range(detected))


# --- media rows --------------------------------------------------------------------------------


def _by_resolution(table: Mapping[str, int], resolution: Any) -> tuple[int, int, str]:
    """Tokens per unit for a resolution: exact when the table has it, else its whole range."""
    if resolution is None:
        return table["default"], table["default"], "the default resolution"
    if type(resolution) is str and resolution in table and resolution != "default":
        return table[resolution], table[resolution], f"resolution {resolution}"
    return min(table.values()), max(table.values()), f"resolution {resolution!r} (not known)"


def _per(low: int, high: int) -> str:
    return f"{low:,}" if low == high else f"{low:,} to {high:,}"


def _seconds(value: float) -> str:
    return f"{value:,.3f}".rstrip("0").rstrip(".") + " s"


def _duration(m: _Measure, limits: Limits) -> str:
    if m.seconds is None:
        first, last = limits.UNMEASURED_SECONDS
        return f"duration not measured ({m.why}), {_seconds(first)} to {_seconds(last)} assumed"
    first, last = m.seconds
    if m.estimated:
        return f"{_seconds(first)} to {_seconds(last)} (worked out from frame sizes)"
    return _seconds(first) if first == last else f"{_seconds(first)} to {_seconds(last)}"


def _tiles(width: int, height: int, limits: Limits) -> int:
    if width <= limits.IMAGE_SMALL_PX and height <= limits.IMAGE_SMALL_PX:
        return 1
    side = limits.IMAGE_TILE_PX
    return -(-width // side) * -(-height // side)


def _image_row(path: Path, block: Mapping[str, Any], m: _Measure, limits: Limits) -> BlockEstimate:
    low, high, at = _by_resolution(limits.IMAGE_TOKENS, block.get("resolution"))
    tile = limits.IMAGE_TILE_TOKENS
    if m.width and m.height:
        tiles = _tiles(m.width, m.height, limits)
        basis = (
            f"{m.width:,} px x {m.height:,} px at {at}: {_per(low, high)} per image, "
            f"or {tiles} tile{'s' if tiles != 1 else ''} x {tile}"
        )
        return BlockEstimate(path, "image", basis, min(low, tiles * tile), max(high, tiles * tile))
    few, many = limits.UNMEASURED_IMAGE_TILES
    basis = (
        f"size not measured ({m.why}), at {at}: {_per(low, high)} per image, "
        f"or {few} to {many} tiles x {tile} assumed"
    )
    return BlockEstimate(
        path, "image", basis, min(low, few * tile), max(high, many * tile), measured=False
    )


def _video_row(path: Path, block: Mapping[str, Any], m: _Measure, limits: Limits) -> BlockEstimate:
    per_low, per_high, at = _by_resolution(limits.VIDEO_FRAME_TOKENS, block.get("resolution"))
    fps = limits.VIDEO_FRAMES_PER_SECOND
    older = limits.VIDEO_TILE_RULE_TOKENS_PER_SECOND
    a_low, a_high = limits.AUDIO_TOKENS_PER_SECOND
    first, last = m.seconds or limits.UNMEASURED_SECONDS
    frames_low, frames_high = max(1, math.floor(first * fps)), math.floor(last * fps) + 1
    low = min(frames_low * per_low, math.floor(first * older))
    high = max(frames_high * per_high, math.ceil(last * older))
    if m.audio_track is not False:
        high += math.ceil(last * a_high)
    if m.audio_track:
        low += math.floor(first * a_low)
    rate = f"at {a_low} to {a_high} per second"
    sound = {
        True: f"audio track {rate}",
        False: "no audio track",
        None: f"audio track, if any, {rate}",
    }
    basis = (
        f"{_duration(m, limits)} at {fps:g} frame per second "
        f"({_per(frames_low, frames_high)} frames) at {at}: {_per(per_low, per_high)} per "
        f"frame, or {older} per second; {sound[m.audio_track]}"
    )
    return BlockEstimate(path, "video", basis, low, high, measured=m.seconds is not None)


def _audio_row(path: Path, m: _Measure, limits: Limits) -> BlockEstimate:
    a_low, a_high = limits.AUDIO_TOKENS_PER_SECOND
    first, last = m.seconds or limits.UNMEASURED_SECONDS
    basis = f"{_duration(m, limits)} at {a_low} to {a_high} per second"
    low, high = math.floor(first * a_low), math.ceil(last * a_high)
    return BlockEstimate(path, "audio", basis, low, high, measured=m.seconds is not None)


def _document_row(
    path: Path, block: Mapping[str, Any], m: _Measure, limits: Limits
) -> BlockEstimate:
    low, high, at = _by_resolution(limits.PDF_PAGE_TOKENS, block.get("resolution"))
    tile = limits.PDF_TILE_RULE_PAGE_TOKENS
    per_low, per_high = min(low, tile), max(high, tile)
    first, last = (m.pages, m.pages) if m.pages else limits.UNMEASURED_PAGES
    count = f"{first:,} page{'s' if first != 1 else ''}"
    if not m.pages:
        count = f"pages not counted ({m.why}), {first:,} to {last:,} assumed"
    basis = f"{count} at {at}: {_per(low, high)} per page, or {tile} (one tile)"
    return BlockEstimate(
        path, "document", basis, first * per_low, last * per_high, measured=bool(m.pages)
    )


def _media_row(
    path: Path, block: Mapping[str, Any], kind: str, m: _Measure, limits: Limits
) -> BlockEstimate:
    if kind == "image":
        return _image_row(path, block, m, limits)
    if kind == "video":
        return _video_row(path, block, m, limits)
    if kind == "audio":
        return _audio_row(path, m, limits)
    return _document_row(path, block, m, limits)


# --- whole requests ----------------------------------------------------------------------------

_MEDIA_KINDS = frozenset({"image", "audio", "video", "document"})


def _input_items(value: Any) -> list[tuple[Path, dict[str, Any]]]:
    if type(value) is list:
        return [(("input", i), b) for i, b in enumerate(value) if type(b) is dict]
    return [(("input",), value)] if type(value) is dict else []


def _input_texts(value: Any) -> list[str]:
    if type(value) is str:
        return [value]
    return [
        b["text"]
        for _path, b in _input_items(value)
        if b.get("type") == "text" and type(b.get("text")) is str
    ]


def _media_rows(value: Any, limits: Limits, *, refused: bool = True) -> list[BlockEstimate]:
    """Rows of the media blocks of the input, measured.

    A deferred block (a :class:`Request`'s) is measured through the block it stands for, or
    left out when it stands for none. With ``refused=False`` blocks whose bytes sniffing
    refuses are left out too.
    """
    if type(value) is str:
        return []
    rows = []
    for path, block in _input_items(value):
        kind = block.get("type")
        if type(kind) is str and kind in _MEDIA_KINDS:  # a type may be any JSON value
            measured = _block_measure(block, limits)
            if measured is not None and (refused or not measured.refused):
                rows.append(_media_row(path, block, kind, measured, limits))
    return rows


def _built_measure(block: Any, limits: Limits) -> _Measure:
    """Measure a block built from a file from the evidence sniffed when it was built."""
    detected: Detected | None = getattr(block, "detected", None)
    seconds = None if detected is None else _stated_range(detected)
    return _measure(detected, "the block was not sniffed", limits, seconds)


def _block_measure(block: Mapping[str, Any], limits: Limits) -> _Measure | None:
    data = block.get("data")
    if isinstance(data, DeferredData):
        # A block built from a file: measured through the block its placeholder stands for.
        return None if data.block is None else _built_measure(data.block, limits)
    if type(data) is str:
        return _measure_inline(block, limits)
    if type(block.get("uri")) is str:
        return _Measure(why="URL not fetched")
    return _Measure(why="no data or URL")


def _sum(rows: Iterable[BlockEstimate]) -> Tokens:
    rows = list(rows)
    return Tokens(sum(r.low for r in rows), sum(r.high for r in rows))


def _input_rows(value: Any, limits: Limits, media_rows: list[BlockEstimate]) -> list[BlockEstimate]:
    """Every input row in document order: text rows made here, media rows as measured."""
    if type(value) is str:
        return [_text_row(("input",), value, limits)]
    measured = {row.path: row for row in media_rows}
    rows = []
    for path, block in _input_items(value):
        if path in measured:
            rows.append(measured[path])
        elif block.get("type") == "text" and type(block.get("text")) is str:
            rows.append(_text_row(path, block["text"], limits))
    return rows


def _gemini(body: Mapping[str, Any], limits: Limits) -> Estimate:
    value = body.get("input", ())
    questions = body.get("questions")
    questions = questions if type(questions) is dict else {}
    blocks = tuple(_input_rows(value, limits, _media_rows(value, limits)))
    q_rows = tuple(_question_row(k, q, limits) for k, q in questions.items())
    return Estimate(
        limits.TARGET,
        blocks,
        q_rows,
        _sum(blocks + q_rows),
        limits.CONTEXT_WINDOW_TOKENS,
        "CONTEXT_WINDOW_TOKENS",
        "the input and every question's instructions and criteria",
    )


def _state_text(state: Any) -> str | None:
    """The state as the compact JSON text it is counted by, or None when it is not JSON."""
    try:
        return json.dumps(state, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None


def _state_row(state: Any, limits: Limits) -> BlockEstimate:
    text = _state_text(state)
    if text is None:
        return BlockEstimate(("state",), "text", "not JSON: not counted", 0, 0, measured=False)
    measured = _text_tokens([text], limits, cheap=False)
    basis = _text_basis(measured, "compact JSON text")
    return BlockEstimate(("state",), "text", basis, measured.low, measured.high)


def _parallel(body: Mapping[str, Any], limits: Limits) -> Estimate:
    questions = body.get("questions")
    questions = questions if type(questions) is dict else {}
    q_rows = tuple(_question_row(k, q, limits) for k, q in questions.items())
    blocks = (_state_row(body["state"], limits),) if "state" in body else ()
    total = _sum(blocks)
    if q_rows:
        total += Tokens(max(r.low for r in q_rows), max(r.high for r in q_rows))
    return Estimate(
        limits.TARGET,
        blocks,
        q_rows,
        total,
        limits.MAX_STATE_PLUS_QUESTION_TOKENS,
        "MAX_STATE_PLUS_QUESTION_TOKENS",
        "the state's JSON text plus the largest question",
    )


def _estimate_body(body: Mapping[str, Any], limits: Limits) -> Estimate:
    if limits.INPUT_BLOCK_TYPES:
        return _gemini(body, limits)
    return _parallel(body, limits)


def _as_body(value: Any) -> Any:
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        try:
            return json.loads(bytes(value) if not isinstance(value, str) else value)
        except (ValueError, RecursionError) as exc:
            raise InvalidInput(
                [Problem((), "json.syntax", f"expected a JSON request body: {exc}")]
            ) from exc
    if isinstance(value, Mapping):
        return value if type(value) is dict else dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="json", by_alias=True, exclude_none=True)
        except Exception as exc:  # pydantic raises its own errors while serialising
            raise InvalidInput(
                [Problem((), "schema.type", f"the model could not be serialised to JSON: {exc}")]
            ) from exc
    return value


def estimate(value: Any, *, target: str | None = None, limits: Limits | None = None) -> Estimate:
    """Estimate the input tokens of a request offline: per block, per question, in total.

    Args:
        value: a :class:`~decisions_input.request.Request` (its target and table are used
            unless ``limits`` is given), a mapping, a pydantic model, or JSON text.
        target: ``"gemini"`` or ``"parallel"``, for a value that is not a ``Request``;
            without it, a body with ``state`` and no ``model`` is taken as Parallel's.
        limits: a table to use instead of the target's.

    Raises:
        InvalidInput: the value is not a JSON object (or not JSON text).

    .. versionadded:: 0.1
    """
    skeleton = getattr(value, "skeleton", None)
    if callable(skeleton):
        table = limits if limits is not None else value.limits
        return _estimate_body(skeleton(), table)
    body = _as_body(value)
    if not isinstance(body, Mapping):
        found = type(body).__name__
        raise InvalidInput([Problem((), "schema.type", f"expected a JSON object, found {found}")])
    if target is None:
        target = target_of(body)
    table = limits if limits is not None else limits_for(target)
    return _estimate_body(body, table)


# --- the validator's rule ----------------------------------------------------------------------


def _budget(limits: Limits) -> int | None:
    if limits.INPUT_BLOCK_TYPES:
        return limits.CONTEXT_WINDOW_TOKENS
    return limits.MAX_STATE_PLUS_QUESTION_TOKENS


class _Part(NamedTuple):
    """A part of a request as the validator sees it.

    ``complete`` is False for a text measured only until it was over the budget: ``low``
    then counts what was measured, ``high`` is its UTF-8 bytes.
    """

    low: int
    high: int
    path: Path
    modality: str
    measured: bool
    question: bool
    complete: bool = True


def _question_parts(questions: Mapping[Any, Any], limits: Limits, *, cheap: bool) -> list[_Part]:
    if cheap:
        return _sized_question_parts(questions, limits)
    parts = []
    for key, question in questions.items():
        _measured, _count, low, high = _question_tokens(question, limits, cheap=cheap)
        parts.append(_Part(low, high, ("questions", key), "text", True, True))
    return parts


def _sized_question_parts(questions: Mapping[Any, Any], limits: Limits) -> list[_Part]:
    """The questions' parts from their sizes alone, as :func:`_question_tokens` bounds them
    with ``cheap``, in one loop: a request may hold a thousand questions."""
    q_low, q_high = limits.QUESTION_OVERHEAD_TOKENS
    c_low, c_high = limits.CRITERION_OVERHEAD_TOKENS
    piece = limits.TEXT_MAX_PIECE_CHARS
    parts = []
    for key, question in questions.items():
        chars, extra, count = _question_size(question)
        low = -(-chars // piece) + q_low + count * c_low
        high = chars + extra + q_high + count * c_high
        parts.append(_Part(low, high, ("questions", key), "text", True, True))
    return parts


def _row_part(row: BlockEstimate) -> _Part:
    return _Part(row.low, row.high, row.path, row.modality, row.measured, False)


def _text_part(
    path: Path, text: str, limits: Limits, *, cheap: bool, stop: int | None, texts: _Texts
) -> _Part:
    found = _text_tokens([text], limits, cheap=cheap, stop_above=stop, texts=texts)
    return _Part(found.low, found.high, path, "text", True, False, found.complete)


def _input_parts(
    value: Any, media_rows: list[BlockEstimate], limits: Limits, *, cheap: bool, texts: _Texts
) -> list[_Part]:
    """The input's parts in document order, as :func:`_input_rows` has them.

    Measured, a text stops once over the window: it decides the verdict alone.
    """
    stop = None if cheap else limits.CONTEXT_WINDOW_TOKENS
    if type(value) is str:
        return [_text_part(("input",), value, limits, cheap=cheap, stop=stop, texts=texts)]
    measured = {row.path: row for row in media_rows}
    parts = []
    for path, block in _input_items(value):
        if path in measured:
            parts.append(_row_part(measured[path]))
        elif block.get("type") == "text" and type(block.get("text")) is str:
            text = block["text"]
            parts.append(_text_part(path, text, limits, cheap=cheap, stop=stop, texts=texts))
    return parts


def _state_part(state: Any, limits: Limits, *, cheap: bool, texts: _Texts) -> _Part:
    text = texts.state_text(state)
    if text is None:
        return _Part(0, 0, ("state",), "text", False, False)
    stop = None if cheap else limits.MAX_STATE_PLUS_QUESTION_TOKENS
    return _text_part(("state",), text, limits, cheap=cheap, stop=stop, texts=texts)


class _Counted(NamedTuple):
    """The parts of a request, what they add up to, and how the budget counts them."""

    parts: list[_Part]
    low: int
    high: int
    counted: str


def _gemini_parts(
    body: dict[str, Any],
    media_rows: list[BlockEstimate],
    limits: Limits,
    *,
    cheap: bool,
    texts: _Texts,
) -> _Counted:
    value, questions = body.get("input", ()), body["questions"]
    parts = _input_parts(value, media_rows, limits, cheap=cheap, texts=texts)
    parts += _question_parts(questions, limits, cheap=cheap)
    low, high = sum(p.low for p in parts), sum(p.high for p in parts)
    return _Counted(parts, low, high, "the input and every question's instructions and criteria")


def _parallel_parts(
    body: dict[str, Any], limits: Limits, *, cheap: bool, texts: _Texts
) -> _Counted:
    state = (
        [_state_part(body["state"], limits, cheap=cheap, texts=texts)] if "state" in body else []
    )
    asked = _question_parts(body["questions"], limits, cheap=cheap)
    low = sum(p.low for p in state) + max((p.low for p in asked), default=0)
    high = sum(p.high for p in state) + max((p.high for p in asked), default=0)
    return _Counted(state + asked, low, high, "the state's JSON text plus the largest question")


def _screened_out(
    body: dict[str, Any],
    limits: Limits,
    budget: int,
    questions_size: TextSize | None,
    texts: _Texts,
) -> tuple[bool, list[BlockEstimate]]:
    """Decide from sizes alone whether the request fits; return the measured media rows.

    A text is estimated at no more tokens than its UTF-8 bytes, so a request whose bytes
    and media fit the budget needs no closer look.
    """
    questions, value = body["questions"], body.get("input")
    if not limits.INPUT_BLOCK_TYPES:
        state = 0
        if "state" in body:
            state = _state_part(body["state"], limits, cheap=True, texts=texts).high
        bound = _screen([], questions, limits)
        return bound is not None and bound + state <= budget, []
    if questions_size is not None and type(value) is str:
        chars, extra = texts.size(value)
        size = (questions_size[0] + chars, questions_size[1] + extra, questions_size[2] + 1)
        return _text_bound(size, 1 + len(questions), len(questions), limits) <= budget, []
    value = body.get("input", ())
    if type(value) is str:
        media_rows, strings = [], [value]
    else:
        media_rows, strings = _media_rows(value, limits, refused=False), _input_texts(value)
    bound = _screen(strings, questions, limits, texts)
    return bound is not None and bound + sum(r.high for r in media_rows) <= budget, media_rows


def check_budget(
    body: Any, path: Path, limits: Limits, *, questions_size: TextSize | None = None
) -> Iterator[Problem]:
    """Check the estimated input tokens against the target's budget.

    Runs only on a body whose ``questions`` is an object. Inline media are sniffed through
    their base64 (headers only). Left out: blocks whose bytes sniffing refuses (the request
    has that error already) and blocks built by the library (deferred data), which
    :func:`estimate` measures on the ``Request``. ``questions_size``, when the question
    checks measured the questions' text already, spares the pass over them for a text input.

    Three looks, each only when the one before cannot decide: the sizes of the texts (a
    token per UTF-8 byte at most); the same sizes at one token per ``TEXT_MAX_PIECE_CHARS``
    characters at least, which may already show the request over the budget; the texts
    measured by class, as :func:`estimate` measures them.
    """
    budget = _budget(limits)
    if budget is None or type(body) is not dict or type(body.get("questions")) is not dict:
        return iter(_NO_PROBLEMS)
    texts = _Texts()
    fits, media_rows = _screened_out(body, limits, budget, questions_size, texts)
    if fits:
        return iter(_NO_PROBLEMS)
    if limits.INPUT_BLOCK_TYPES:
        if type(body.get("input")) is not str and not media_rows:
            media_rows = _media_rows(body.get("input", ()), limits, refused=False)
        found = _gemini_parts(body, media_rows, limits, cheap=True, texts=texts)
        if found.low <= budget:
            found = _gemini_parts(body, media_rows, limits, cheap=False, texts=texts)
    else:
        found = _parallel_parts(body, limits, cheap=True, texts=texts)
        if found.low <= budget:
            found = _parallel_parts(body, limits, cheap=False, texts=texts)
    if found.high <= budget:
        return iter(_NO_PROBLEMS)
    return iter((_budget_problem(path, budget, found, bool(limits.INPUT_BLOCK_TYPES)),))


def _dominant(parts: list[_Part], exceeded: bool, gemini: bool) -> tuple[Path, list[_Part]]:
    """Name the part that decides the verdict, and the rows it stands for.

    Gemini: the input or the questions, whichever adds up to more; of the input, its
    largest block when that holds more than half of it, else the input as a whole; of the
    questions, the largest. Parallel: the state or the largest question. Parts are
    weighed by the bound that decides: the low one for ``exceeded``, the high one else.
    """

    def weight(part: _Part) -> tuple[int, int]:
        return (part.low, part.high) if exceeded else (part.high, part.low)

    asked = [p for p in parts if p.question]
    given = [p for p in parts if not p.question]
    largest_question = max(asked, key=weight, default=None)
    if gemini:
        given_total = sum(weight(p)[0] for p in given)
        if largest_question is None or (given and given_total >= sum(weight(p)[0] for p in asked)):
            top = max(given, key=weight)
            if 2 * weight(top)[0] > given_total:
                return top.path, [top]
            return ("input",), given
        return largest_question.path, [largest_question]
    if largest_question is None or (given and weight(given[0]) >= weight(largest_question)):
        return given[0].path, given[:1]
    return largest_question.path, [largest_question]


def _budget_problem(path: Path, budget: int, found: _Counted, gemini: bool) -> Problem:
    code, severity = "budget.exceeded", Severity.ERROR
    if found.low <= budget:
        code, severity = "budget.at_risk", Severity.WARNING
    where, rows = _dominant(found.parts, code == "budget.exceeded", gemini)
    low, high = sum(r.low for r in rows), sum(r.high for r in rows)
    modalities = sorted({r.modality for r in rows})
    note = "" if all(r.measured for r in rows) else ", not measured"
    whole, part = f"{found.low:,} to {found.high:,}", f"{low:,} to {high:,}"
    if not all(p.complete for p in found.parts):
        whole, part = f"at least {found.low:,}", f"at least {low:,}"
        note += ", measured until over the budget"
    message = (
        f"expected at most {budget:,} input tokens for {found.counted}, estimated {whole} "
        f"tokens in all; {render_json_path(where)} ({', '.join(modalities)}{note}) "
        f"accounts for {part}"
    )
    return Problem(path + where, code, message, severity)
