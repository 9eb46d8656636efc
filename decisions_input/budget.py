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
sniffer asks for; a duration the sniffed evidence lacks (AVI, FLV, MPEG program streams,
Ogg FLAC) is read from the container's own header or last page with a few bounded reads.
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
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import DecisionsInputError, InvalidInput, Path, Problem, Severity, render_json_path
from .limits import Limits, limits_for, target_of
from .media_checks import Base64Stream, DeferredData

if TYPE_CHECKING:
    from .sniffing import Detected, SeekableReader

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


def _text_size(strings: list[str]) -> tuple[int, int]:
    """Return the characters of the strings and their UTF-8 bytes past one per character."""
    joined = "".join(strings)
    chars = len(joined)
    if joined.isascii():
        return chars, 0
    return chars, len(joined.encode("utf-8", "surrogatepass")) - chars


def _text_bounds(chars: int, extra: int, limits: Limits) -> tuple[int, int]:
    fewest, most = limits.TEXT_CHARS_PER_TOKEN
    high = chars / fewest + extra * limits.TEXT_TOKENS_PER_EXTRA_UTF8_BYTE
    return math.floor(chars / most), math.ceil(high)


def _text_basis(chars: int, extra: int, what: str, limits: Limits) -> str:
    fewest, most = limits.TEXT_CHARS_PER_TOKEN
    basis = f"{chars:,} characters of {what} at {fewest:g} to {most:g} per token"
    if extra:
        basis += f", {extra:,} more UTF-8 bytes"
    return basis


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


def _question_size(question: Any) -> tuple[int, int, int]:
    """Return a question's characters, extra UTF-8 bytes and criteria.

    A well-formed question takes C-speed list operations and one join; anything unusual
    goes to the careful walk, which skips what is not text. Both agree on well-formed ones.
    """
    try:
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
        return (*_text_size(parts), count)
    except (KeyError, TypeError, AttributeError):
        parts = []
        count = _question_strings(question, parts)
        return (*_text_size(parts), count)


def _question_bounds(size: tuple[int, int, int], limits: Limits) -> tuple[int, int]:
    chars, extra, count = size
    low, high = _text_bounds(chars, extra, limits)
    q_low, q_high = limits.QUESTION_OVERHEAD_TOKENS
    c_low, c_high = limits.CRITERION_OVERHEAD_TOKENS
    return low + q_low + count * c_low, high + q_high + count * c_high


def _question_row(key: Any, question: Any, limits: Limits) -> BlockEstimate:
    chars, extra, count = size = _question_size(question)
    low, high = _question_bounds(size, limits)
    kind = question.get("type") if type(question) is dict else None
    noun = _CRITERIA_NAMES.get(kind, "criterion") if type(kind) is str else "criterion"
    q_low, q_high = limits.QUESTION_OVERHEAD_TOKENS
    c_low, c_high = limits.CRITERION_OVERHEAD_TOKENS
    basis = f"{_text_basis(chars, extra, 'instructions and criteria', limits)}; {q_low} to "
    basis += f"{q_high} for the question"
    if count:
        basis += f" and {c_low} to {c_high} for each of {count} {noun}{'s' if count != 1 else ''}"
    return BlockEstimate(("questions", key), "text", basis, low, high)


def _text_row(path: Path, text: str, limits: Limits) -> BlockEstimate:
    chars, extra = _text_size([text])
    low, high = _text_bounds(chars, extra, limits)
    return BlockEstimate(path, "text", _text_basis(chars, extra, "text", limits), low, high)


def _screen(texts: list[str], questions: Mapping[Any, Any], limits: Limits) -> int | None:
    """Bound the high total of the texts and questions from above, in one cheap pass.

    Every member of a criteria object counts as text (noul member names too) and every
    string as a criterion, so the bound only errs upwards; each row's rounding adds at
    most one token. None when the questions are not well-formed enough for the pass.
    ``texts`` is extended in place.
    """
    rows = len(texts) + len(questions)
    chars, extra = _text_size(texts)
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
    """Bound the high token estimate of some text from above (see :func:`_screen`)."""
    chars, extra, strings = size
    high = chars / limits.TEXT_CHARS_PER_TOKEN[0] + extra * limits.TEXT_TOKENS_PER_EXTRA_UTF8_BYTE
    structure = questions * limits.QUESTION_OVERHEAD_TOKENS[1]
    return math.ceil(high) + rows + structure + strings * limits.CRITERION_OVERHEAD_TOKENS[1]


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


def _read(stream: SeekableReader, offset: int, size: int) -> bytes:
    stream.seek(offset)
    return stream.read(size)


def _avi_seconds(stream: SeekableReader, size: int, limits: Limits) -> float | None:
    """Frames times microseconds per frame, from the AVI main header (avih)."""
    head = _read(stream, 0, limits.SNIFF_BYTES)
    at = head.find(b"avih")
    if at < 0 or len(head) < at + 28:
        return None
    usec, _rate, _pad, _flags, frames = struct.unpack_from("<5I", head, at + 8)
    return frames * usec / 1e6 if frames and usec else None


def _flv_seconds(stream: SeekableReader, size: int, limits: Limits) -> float | None:
    """The duration member of the FLV onMetaData script tag."""
    head = _read(stream, 0, limits.SNIFF_BYTES)
    at = head.find(b"\x00\x08duration\x00")  # AMF0 key "duration", then a number marker
    if at < 0 or len(head) < at + 19:
        return None
    (seconds,) = struct.unpack_from(">d", head, at + 11)
    return float(seconds)


_PACK = b"\x00\x00\x01\xba"


def _scr(data: bytes, at: int) -> int | None:
    """The system clock reference of the MPEG pack header at ``at``, in 90 kHz units."""
    b = data[at + 4 : at + 10] if at >= 0 else b""
    if len(b) == 6 and b[0] & 0xC0 == 0x40:  # MPEG-2
        return (
            ((b[0] >> 3) & 7) << 30
            | (b[0] & 3) << 28
            | b[1] << 20
            | (b[2] >> 3) << 15
            | (b[2] & 3) << 13
            | b[3] << 5
            | b[4] >> 3
        )
    if len(b) >= 5 and b[0] & 0xF0 == 0x20:  # MPEG-1
        return _timestamp(b)
    return None


def _timestamp(b: bytes) -> int:
    """Decode a 33-bit MPEG timestamp from its 5-byte form (marker bits skipped)."""
    return ((b[0] >> 1) & 7) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1


def _pes_pts(data: bytes, at: int) -> int | None:
    """The presentation time stamp of the audio or video PES packet at ``at``, if any."""
    sid = data[at + 3] if at + 3 < len(data) else 0
    if not (0xC0 <= sid <= 0xEF or sid == 0xBD):
        return None
    pos = at + 6
    if pos + 3 <= len(data) and data[pos] & 0xC0 == 0x80:  # MPEG-2 PES header
        if not data[pos + 1] & 0x80:
            return None
        pos += 3
    else:  # MPEG-1: stuffing, an optional buffer size, then the time stamps
        while pos < min(len(data), at + 22) and data[pos] == 0xFF:
            pos += 1
        if pos < len(data) and data[pos] & 0xC0 == 0x40:
            pos += 2
        if pos >= len(data) or data[pos] & 0xE0 != 0x20:
            return None
    stamp = data[pos : pos + 5]
    return _timestamp(stamp) if len(stamp) == 5 else None


def _stamps(data: bytes, limits: Limits) -> list[int]:
    """The time stamps of the PES packets in ``data``, looking at a bounded number of them."""
    found = []
    at = data.find(b"\x00\x00\x01")
    for _ in range(limits.MAX_SNIFF_STEPS):
        if at < 0:
            break
        pts = _pes_pts(data, at)
        if pts is not None:
            found.append(pts)
        at = data.find(b"\x00\x00\x01", at + 3)
    return found


def _mpeg_ps_seconds(
    stream: SeekableReader, size: int, limits: Limits
) -> tuple[float, float] | None:
    """The span of the program stream, as a range of two readings (90 kHz clocks).

    Presentation time stamps (first to last) miss the frames of the last packet; the
    system clock references of the first and last pack headers include the muxer's
    preload. Neither is the duration, so both bound it.
    """
    head = _read(stream, 0, limits.SNIFF_BYTES)
    tail = _read(stream, max(0, size - limits.SNIFF_BYTES), limits.SNIFF_BYTES)
    first, last = _stamps(head, limits), _stamps(tail, limits)
    if not first or not last or max(last) <= min(first):
        return None
    spans = [(max(last) - min(first)) / 90_000]
    clocks = [_scr(head, head.find(_PACK)), _scr(tail, tail.rfind(_PACK))]
    if clocks[0] is not None and clocks[1] is not None and clocks[1] > clocks[0]:
        spans.append((clocks[1] - clocks[0]) / 90_000)
    return min(spans), max(spans)


def _ogg_seconds(stream: SeekableReader, size: int, limits: Limits) -> float | None:
    """The last page's granule position over the FLAC STREAMINFO sample rate."""
    head = _read(stream, 0, limits.SNIFF_BYTES)
    at = head.find(b"\x7fFLAC")  # FLAC in Ogg; Vorbis and Opus durations come from sniffing
    if at < 0 or len(head) < at + 30 or head[at + 9 : at + 13] != b"fLaC":
        return None
    rate = int.from_bytes(head[at + 27 : at + 30], "big") >> 4
    serial = head[14:18]
    tail = _read(stream, max(0, size - limits.SNIFF_BYTES), limits.SNIFF_BYTES)
    end = len(tail)
    while True:
        end = tail.rfind(b"OggS", 0, end)
        if end < 0 or len(tail) < end + 18:
            return None
        if tail[end + 14 : end + 18] == serial:
            (granule,) = struct.unpack_from("<q", tail, end + 6)
            return granule / rate if rate and granule > 0 else None


def _container_seconds(
    stream: SeekableReader, size: int, detected: Detected, limits: Limits
) -> tuple[float, float] | None:
    """Read a duration the sniffed evidence lacks from the container, with bounded reads."""
    readers: Mapping[str, Callable[[SeekableReader, int, Limits], Any]] = {
        "video/avi": _avi_seconds,
        "video/x-flv": _flv_seconds,
        "video/mpeg": _mpeg_ps_seconds,
        "audio/ogg": _ogg_seconds,
    }
    reader = readers.get(detected.mime or "")
    if reader is None or "duration_s" in detected.evidence:
        return None
    try:
        found = reader(stream, size, limits)
    except (OSError, ValueError, struct.error, DecisionsInputError):
        return None
    first, last = found if isinstance(found, tuple) else (found, found)
    if first is None or not (math.isfinite(last) and 0 < first <= last):
        return None
    return float(first), float(last)


def _measure_inline(block: Mapping[str, Any], limits: Limits) -> _Measure:
    """Sniff inline base64 (decoding only what the headers need) and measure it."""
    from .sniffing import sniff_stream

    declared = block.get("mime_type")
    try:
        stream = Base64Stream(block["data"])
        detected = sniff_stream(
            stream, stream.size, declared=declared if type(declared) is str else None, limits=limits
        )
        seconds = _container_seconds(stream, stream.size, detected, limits)
    except (DecisionsInputError, ValueError, OSError):
        return _Measure(why="the data could not be read")
    return _measure(detected, "", limits, seconds)


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
    """Measure a block built from a file: its sniffed evidence, and the container's duration
    read again from its bytes (bounded header reads) when the evidence lacks it."""
    detected: Detected | None = getattr(block, "detected", None)
    seconds = None
    if detected is not None and "duration_s" not in detected.evidence:
        try:
            with block.open() as opened:
                seconds = _container_seconds(opened.stream, opened.size, detected, limits)
        except (DecisionsInputError, OSError, ValueError, AttributeError):
            seconds = None
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


def _state_row(state: Any, limits: Limits) -> BlockEstimate:
    try:
        text = json.dumps(state, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return BlockEstimate(("state",), "text", "not JSON: not counted", 0, 0, measured=False)
    chars, extra = _text_size([text])
    low, high = _text_bounds(chars, extra, limits)
    basis = _text_basis(chars, extra, "compact JSON text", limits)
    return BlockEstimate(("state",), "text", basis, low, high)


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


# A part of a request as the validator sees it: (high, low, path, modality, measured).
_Part = tuple[int, int, Path, str, bool]


def _question_parts(questions: Mapping[Any, Any], limits: Limits) -> list[_Part]:
    parts: list[_Part] = []
    for key, question in questions.items():
        low, high = _question_bounds(_question_size(question), limits)
        parts.append((high, low, ("questions", key), "text", True))
    return parts


def _row_part(row: BlockEstimate) -> _Part:
    return row.high, row.low, row.path, row.modality, row.measured


def check_budget(
    body: Any, path: Path, limits: Limits, *, questions_size: TextSize | None = None
) -> Iterator[Problem]:
    """Check the estimated input tokens against the target's budget.

    Runs only on a body whose ``questions`` is an object. Inline media are sniffed through
    their base64 (headers only). Left out: blocks whose bytes sniffing refuses (the request
    has that error already) and blocks built by the library (deferred data), which
    :func:`estimate` measures on the ``Request``. ``questions_size``, when the question
    checks measured the questions' text already, spares the pass over them for a text input.
    """
    budget = _budget(limits)
    if budget is None or type(body) is not dict or type(body.get("questions")) is not dict:
        return iter(_NO_PROBLEMS)
    questions = body["questions"]
    value = body.get("input")
    screened = False
    if questions_size is not None and limits.INPUT_BLOCK_TYPES and type(value) is str:
        screened = True
        chars, extra = _text_size([value])
        size = (questions_size[0] + chars, questions_size[1] + extra, questions_size[2] + 1)
        if _text_bound(size, 1 + len(questions), len(questions), limits) <= budget:
            return iter(_NO_PROBLEMS)
    if limits.INPUT_BLOCK_TYPES:
        value = body.get("input", ())
        if type(value) is str:
            media_rows, texts = [], [value]
        else:
            media_rows = _media_rows(value, limits, refused=False)
            texts = _input_texts(value)
        bound = None if screened else _screen(texts, questions, limits)
        if bound is not None and bound + sum(r.high for r in media_rows) <= budget:
            return iter(_NO_PROBLEMS)
        parts = [_row_part(r) for r in _input_rows(value, limits, media_rows)]
        parts += _question_parts(questions, limits)
        low, high = sum(p[1] for p in parts), sum(p[0] for p in parts)
        counted = "the input and every question's instructions and criteria"
    else:
        state = [_row_part(_state_row(body["state"], limits))] if "state" in body else []
        bound = _screen([], questions, limits)
        if bound is not None and bound + sum(p[0] for p in state) <= budget:
            return iter(_NO_PROBLEMS)
        asked = _question_parts(questions, limits)
        parts = state + asked
        low = sum(p[1] for p in state) + max((p[1] for p in asked), default=0)
        high = sum(p[0] for p in state) + max((p[0] for p in asked), default=0)
        counted = "the state's JSON text plus the largest question"
    if high <= budget:
        return iter(_NO_PROBLEMS)
    return iter((_budget_problem(path, budget, counted, low, high, parts),))


def _budget_problem(
    path: Path, budget: int, counted: str, low: int, high: int, parts: list[_Part]
) -> Problem:
    code, severity = "budget.exceeded", Severity.ERROR
    if low <= budget:
        code, severity = "budget.at_risk", Severity.WARNING
    message = (
        f"expected at most {budget:,} input tokens for {counted}, estimated {low:,} to "
        f"{high:,} tokens"
    )
    if parts:
        top_high, top_low, where, modality, measured = max(parts, key=lambda p: p[:2])
        note = "" if measured else ", not measured"
        message += (
            f"; the largest part is {render_json_path(where)} ({modality}, {top_low:,} to "
            f"{top_high:,}{note})"
        )
    return Problem(path, code, message, severity)
