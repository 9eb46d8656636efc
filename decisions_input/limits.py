"""The one table of every limit, pattern and enum, per target API, and the list of rule codes.

Every number the library enforces lives here, once, with the seed document it comes from
(``000`` Gemini Decisions reference, ``001`` DataStoreConnectionSignals, ``002`` Parallel
Decisions, ``003`` the proxy's full OpenAPI reference). Where the seeds are vague or silent
the comment says which reading was chosen; the reading is always the one that never lets
through what the server may refuse. Code, README and messages read numbers from here.

A table is immutable. Derive a changed copy instead of editing the package::

    import dataclasses, decisions_input as di
    mine = dataclasses.replace(di.GEMINI, MODELS=di.GEMINI.MODELS | {"gemini-decision-2"})
    di.iter_problems(body, limits=mine)

Tables pickle: ``GEMINI`` and ``PARALLEL`` by name (they come back as the same objects), a
derived table by its values.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from ._pickling import reduce_fields
from .errors import Severity

__all__ = [
    "GEMINI",
    "LIMITS",
    "PARALLEL",
    "RULES",
    "Endpoint",
    "Limits",
    "Rule",
    "describe_limit",
    "limits_for",
    "rules_markdown",
    "target_of",
]


def _frozen(mapping: Mapping[str, tuple[str, ...]]) -> Mapping[str, tuple[str, ...]]:
    return MappingProxyType(dict(mapping))


# Members of each annotation type an instruction text block may carry (000:
# DecisionInstructionContent.annotations). The value names the JSON type of each member.
_ANNOTATION_MEMBERS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "file_citation": MappingProxyType(
            {
                "type": "string",
                "document_uri": "string",
                "file_name": "string",
                "source": "string",
                "custom_metadata": "object",
                "page_number": "integer",
                "media_id": "string",
                "start_index": "integer",
                "end_index": "integer",
            }
        ),
        "place_citation": MappingProxyType(
            {
                "type": "string",
                "place_id": "string",
                "name": "string",
                "url": "string",
                "review_snippets": "array",
                "start_index": "integer",
                "end_index": "integer",
            }
        ),
        "speech_metadata": MappingProxyType(
            {
                "type": "string",
                "speaker": "string",
                "style": "string",
                "start_index": "integer",
                "end_index": "integer",
            }
        ),
        "url_citation": MappingProxyType(
            {
                "type": "string",
                "url": "string",
                "title": "string",
                "start_index": "integer",
                "end_index": "integer",
            }
        ),
        "word_info": MappingProxyType(
            {
                "type": "string",
                "text": "string",
                "start_offset": "string",
                "end_offset": "string",
                "speaker": "string",
                "start_index": "integer",
                "end_index": "integer",
            }
        ),
    }
)

# 000: PlaceCitation.review_snippets items.
_REVIEW_SNIPPET_MEMBERS: Mapping[str, str] = MappingProxyType(
    {"title": "string", "url": "string", "review_id": "string"}
)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where one service takes a target's requests, and how it wants the API key.

    ``base_urls`` are its servers, the first the default (others are fallbacks the service
    names). The key goes in the header ``auth_header``, after ``auth_scheme`` and a space
    when a scheme is named (``Authorization: Bearer KEY``).

    .. versionadded:: 0.1
    """

    name: str
    base_urls: tuple[str, ...]
    auth_header: str
    auth_scheme: str = ""

    def __str__(self) -> str:
        scheme = f": {self.auth_scheme}" if self.auth_scheme else ""
        return f"{', '.join(self.base_urls)} ({self.auth_header}{scheme})"


@dataclass(frozen=True, slots=True)
class Limits:
    """Every limit of one target API. Derive a changed copy with ``dataclasses.replace``.

    .. versionadded:: 0.1
    """

    TARGET: Literal["gemini", "parallel"]
    API_PATH: str
    ENDPOINTS: Mapping[str, Endpoint]  # the services that take this target's requests, by name
    DEFAULT_ENDPOINT: str
    # --- request members ---------------------------------------------------------------
    REQUEST_MEMBERS: tuple[str, ...]
    REQUIRED_MEMBERS: tuple[str, ...]
    MODELS: frozenset[str]
    MODEL_PREFIXES: tuple[str, ...]  # resource prefixes a client may put before a model name
    MODES: tuple[str, ...]
    MAX_EXACT_STATE_INTEGER: int | None  # past it, an inexact integer in the state warns
    # --- questions ---------------------------------------------------------------------
    MIN_QUESTIONS: int
    MAX_QUESTIONS: int
    QUESTION_KEY_CHARS: str  # a regex character class body, matched over the whole key
    MIN_QUESTION_KEY_CHARS: int
    MAX_QUESTION_KEY_CHARS: int | None  # None: no cap stated
    QUESTION_TYPES: tuple[str, ...]
    QUESTION_MEMBERS: tuple[str, ...]
    INSTRUCTION_FORMS: frozenset[str]  # "string", "block", "blocks"
    TEXT_BLOCK_MEMBERS: tuple[str, ...]
    INSTRUCTION_BLOCK_MEMBERS: tuple[str, ...]
    ANNOTATION_MEMBERS: Mapping[str, Mapping[str, str]]
    REVIEW_SNIPPET_MEMBERS: Mapping[str, str]
    NOUL_CRITERIA_MEMBERS: tuple[str, ...]
    MIN_OPTIONS: int
    MAX_OPTIONS: int
    MIN_OPTION_ID_CHARS: int
    MAX_OPTION_ID_CHARS: int
    MAX_OPTION_ID_BYTES: int
    CATCH_ALL_OPTION_IDS: frozenset[str]
    MIN_LEVELS: int
    MAX_LEVELS: int
    RECOMMENDED_MAX_LEVELS: int
    # --- input and media ---------------------------------------------------------------
    INPUT_BLOCK_TYPES: tuple[str, ...]
    MEDIA_MEMBERS: Mapping[str, tuple[str, ...]]
    MIME_TYPES: Mapping[str, tuple[str, ...]]
    MIME_EQUIVALENTS: Mapping[str, str]
    GENERIC_MIME_TYPES: frozenset[str]
    RESOLUTIONS: Mapping[str, tuple[str, ...]]
    MAX_INLINE_TOTAL_BYTES: int
    MAX_INLINE_PDF_BYTES: int
    MAX_URI_FILE_BYTES: int
    URI_SCHEMES: tuple[str, ...]
    YOUTUBE_HOSTS: frozenset[str]
    YOUTUBE_HOST_LABELS: frozenset[str]
    PRIVATE_HOST_SUFFIXES: frozenset[str]
    FILES_API_HOSTS: frozenset[str]
    MAX_REDIRECTS: int
    MAX_IMAGE_PIXELS: int
    # --- budgets -----------------------------------------------------------------------
    CONTEXT_WINDOW_TOKENS: int | None
    MAX_STATE_PLUS_QUESTION_TOKENS: int | None
    # --- token estimate: (low, high) where figures disagree; per resolution, "default" --
    TEXT_LETTERS_PER_TOKEN: int  # high bound: a run of letters adds a token per this many
    TEXT_CJK_CHARS_PER_TOKEN: int  # low bound: CJK and kana characters in one token at most
    TEXT_MAX_PIECE_CHARS: int  # low bound: characters in the longest token
    QUESTION_OVERHEAD_TOKENS: tuple[int, int]  # per question, beyond its own text
    CRITERION_OVERHEAD_TOKENS: tuple[int, int]  # per option, level or noul description
    IMAGE_TOKENS: Mapping[str, int]  # per image
    IMAGE_TILE_TOKENS: int  # older tile rule: per tile
    IMAGE_TILE_PX: int  # older tile rule: side of a square tile
    IMAGE_SMALL_PX: int  # older tile rule: both sides at most this -> one tile
    VIDEO_FRAMES_PER_SECOND: float
    VIDEO_FRAME_TOKENS: Mapping[str, int]  # per sampled frame
    VIDEO_TILE_RULE_TOKENS_PER_SECOND: int  # older rule, frames of a second together
    PDF_PAGE_TOKENS: Mapping[str, int]  # per page
    PDF_TILE_RULE_PAGE_TOKENS: int  # older rule: a page as one image tile
    AUDIO_TOKENS_PER_SECOND: tuple[int, int]  # also an audio track of a video
    UNMEASURED_IMAGE_TILES: tuple[int, int]  # assumed when width and height are unknown
    UNMEASURED_SECONDS: tuple[float, float]  # assumed when a duration is unknown
    UNMEASURED_PAGES: tuple[int, int]  # assumed when a page count is unknown
    ESTIMATED_DURATION_SPREAD: float  # a duration worked out from frame sizes: / and x this
    # --- usage a response reported, compared with the estimate (decisions_input.reported_usage)
    REPORTED_MODALITIES: Mapping[str, tuple[str, ...]]  # estimate row -> usage modalities
    REPORTED_INPUT_BEYOND_REQUEST: bool  # reported input counts what no request holds
    # --- library bounds ----------------------------------------------------------------
    MAX_JSON_DEPTH: int
    SNIFF_BYTES: int
    MAX_AUDIO_JUNK_BYTES: int
    MAX_SNIFF_STEPS: int
    MAX_SNIFF_READ_BYTES: int
    MAX_PDF_PAGE_NODES: int
    MAX_PDF_RECOVERY_BYTES: int
    MAX_FRAME_WALK_BYTES: int
    CHUNK_BYTES: int
    # --- the command line: bytes read per kind of file, problems shown, worker processes --
    MAX_REQUEST_FILE_BYTES: int
    MAX_RESPONSE_FILE_BYTES: int
    MAX_SPEC_FILE_BYTES: int
    MAX_SCHEMA_FILE_BYTES: int
    MAX_PIPED_MEDIA_BYTES: int
    MAX_PROBLEMS_PER_FILE: int
    PARALLEL_MIN_BYTES: int
    MAX_WORKERS: int
    # --- responses -----------------------------------------------------------------------
    # The members of each response object and their JSON types are stated once, by the
    # response models (decisions_input.responses.models); which of them are required is a
    # limit of each target.
    RESPONSE_REQUIRED: Mapping[str, tuple[str, ...]]
    MIN_ERROR_STATUS: int  # an HTTP status from this one up carries an error body
    ANSWER_TYPES: tuple[str, ...]
    NOUL_RANGE: tuple[float, float]
    PROBABILITY_SUM_TOLERANCE: float
    PROBABILITY_ROUNDING_DECIMALS: int
    CONFIDENCE_TOLERANCE: float
    SCORE_MEAN_TOLERANCE: float
    FLOAT_SLACK: float
    DECISION_ID_PATTERN: str | None  # None: the API has no decision ID
    ZERO_USAGE_MEMBERS: tuple[str, ...]
    # Usage counts against each other and against the request's estimate (warnings), by
    # wire name: a total and the counts it is at least the sum of; a count that is part of
    # another; a breakdown by modality and the total it adds up to; counts of generated
    # tokens, which a decision never has; the input count compared with the estimate, and
    # the first turn's input count checked against the high bound in its place when sent;
    # the bounds of the estimate the input count is checked against.
    USAGE_TOTALS: Mapping[str, tuple[str, ...]]
    USAGE_PARTS: Mapping[str, str]
    USAGE_BREAKDOWNS: Mapping[str, str]
    USAGE_NO_OUTPUT: tuple[str, ...]
    USAGE_INPUT: str
    USAGE_FIRST_TURN_INPUT: str | None
    USAGE_AGAINST_ESTIMATE: bool  # compare reported input with the request's estimate
    BLOCK_REASONS: tuple[str, ...]
    MODALITIES: tuple[str, ...]
    GROUNDING_TOOL_TYPES: tuple[str, ...]
    ERROR_BODY_TYPES: tuple[str, ...]
    GROUNDING_DECISIONS: tuple[str, ...]
    GROUNDING_SCORE_BUCKETS: tuple[str, ...]
    SAFETY_DECISIONS: tuple[str, ...]
    BANNED_PHRASE_MATCHES: tuple[str, ...]

    def derive(self, **changes: object) -> Limits:
        """Return a copy with some limits changed, for example a new model name."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle a target's own table by its name, and a derived table by its values."""
        if LIMITS.get(self.TARGET) is self:
            return (limits_for, (self.TARGET,))
        return reduce_fields(self)

    def __repr__(self) -> str:
        """Name the table, and the limits a derived table changed, not every value."""
        base = LIMITS.get(self.TARGET)
        if base is None or base is self or base == self:
            return self.TARGET.upper()
        changed = [
            f.name
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != getattr(base, f.name)
        ]
        return f"<Limits {self.TARGET}, derived: {', '.join(changed)}>"


GEMINI = Limits(
    TARGET="gemini",
    API_PATH="/v1beta/decisions",  # 000, 003
    ENDPOINTS=MappingProxyType(
        {
            # Google's own service. 000 gives only the path; the base URL and the key header
            # are those of Google's SDK (google-genai 3.6.1: SERVERS in
            # _gaos/sdkconfiguration.py, "Gemini API key sent as x-goog-api-key" in
            # _gaos/types/security.py).
            "google": Endpoint(
                "google", ("https://generativelanguage.googleapis.com",), "x-goog-api-key"
            ),
            # 003 servers (production first, then its fallback) and securitySchemes
            # bearerAuth: "Authorization: Bearer YOUR_API_KEY".
            "evolink": Endpoint(
                "evolink",
                ("https://direct.evolink.ai", "https://api.evolink.ai"),
                "Authorization",
                "Bearer",
            ),
        }
    ),
    DEFAULT_ENDPOINT="google",
    # 003 DecisionRequest: additionalProperties false; model, input, questions all required.
    REQUEST_MEMBERS=("model", "input", "questions"),
    REQUIRED_MEMBERS=("model", "input", "questions"),
    MODELS=frozenset({"gemini-decision-1"}),  # 003 model enum; 404 model_not_found otherwise
    # Google's SDK (google-genai 3.6.1, CreateDecisionRequest.model) documents the model as
    # a resource name, "Format: `models/{model}`", and sends it as given; 003 lists only the
    # bare name. The prefixed form of a known model is accepted with a warning
    # (model.prefixed): Google's endpoint takes it, a proxy may not. No other form appears
    # in the seeds or the SDK (its tuned and Vertex model forms are not Decisions models).
    MODEL_PREFIXES=("models/",),
    MODES=(),  # no mode member (003)
    MAX_EXACT_STATE_INTEGER=None,  # no state member (003)
    MIN_QUESTIONS=1,  # 003 questions.minProperties
    MAX_QUESTIONS=1000,  # 003 questions.maxProperties
    QUESTION_KEY_CHARS="A-Za-z0-9_-",  # 003 propertyNames pattern
    MIN_QUESTION_KEY_CHARS=1,  # 003 "1 bis 64 Zeichen"
    MAX_QUESTION_KEY_CHARS=64,  # 003
    QUESTION_TYPES=("choice", "noul", "score"),  # 000, 003; the 400 example lists them sorted
    QUESTION_MEMBERS=("type", "instructions", "criteria"),  # 000, 003
    # 000, 003: a non-empty string, one text block, or a non-empty array of text blocks.
    INSTRUCTION_FORMS=frozenset({"string", "block", "blocks"}),
    TEXT_BLOCK_MEMBERS=("type", "text"),  # 003 TextContent (input blocks carry no annotations)
    INSTRUCTION_BLOCK_MEMBERS=("type", "text", "annotations"),  # 000 DecisionInstructionContent
    ANNOTATION_MEMBERS=_ANNOTATION_MEMBERS,  # 000 Annotation types
    REVIEW_SNIPPET_MEMBERS=_REVIEW_SNIPPET_MEMBERS,  # 000 ReviewSnippet
    NOUL_CRITERIA_MEMBERS=("true_description", "false_description"),  # 000, 003
    MIN_OPTIONS=2,  # 000, 003
    MAX_OPTIONS=255,  # 000, 003
    MIN_OPTION_ID_CHARS=1,  # 000 "non-empty", 003 "1 bis 128 Zeichen"
    MAX_OPTION_ID_CHARS=128,  # 003, counted in code points
    MAX_OPTION_ID_BYTES=512,  # 003 "bis zu 512 UTF-8-Bytes"
    # 003 advises a position-independent catch-all ID ("other") because IDs are re-sorted.
    CATCH_ALL_OPTION_IDS=frozenset(
        {
            "none_of_the_above",
            "none of the above",
            "none-of-the-above",
            "noneoftheabove",
            "all_of_the_above",
            "all of the above",
            "all-of-the-above",
            "none_of_these",
            "none of these",
            "none-of-these",
            "neither",
        }
    ),
    MIN_LEVELS=2,  # 000, 003
    MAX_LEVELS=255,  # 000, 003
    RECOMMENDED_MAX_LEVELS=10,  # 003 "2 bis 10 empfohlen"
    INPUT_BLOCK_TYPES=("text", "image", "audio", "video", "document"),  # 003 InputContent
    # 003 ImageContent/AudioContent/VideoContent/DocumentContent properties.
    MEDIA_MEMBERS=_frozen(
        {
            "image": ("type", "data", "uri", "mime_type", "resolution"),
            "audio": ("type", "data", "uri", "mime_type"),
            "video": ("type", "data", "uri", "mime_type", "resolution"),
            "document": ("type", "data", "uri", "mime_type"),
        }
    ),
    # 003 mime_type enums, per block type.
    MIME_TYPES=_frozen(
        {
            "image": (
                "image/png",
                "image/jpeg",
                "image/webp",
                "image/heic",
                "image/heif",
                "image/gif",
                "image/bmp",
                "image/tiff",
            ),
            "audio": (
                "audio/wav",
                "audio/mp3",
                "audio/mpeg",
                "audio/aiff",
                "audio/aac",
                "audio/ogg",
                "audio/flac",
                "audio/m4a",
                "audio/opus",
                "audio/webm",
                "audio/l16",
                "audio/alaw",
                "audio/mulaw",
            ),
            "video": (
                "video/mp4",
                "video/mpeg",
                "video/mov",
                "video/avi",
                "video/webm",
                "video/wmv",
                "video/x-flv",
                "video/3gpp",
            ),
            "document": ("application/pdf",),
        }
    ),
    # 003 lists both names for MPEG audio; a declaration of either matches sniffed MP3.
    MIME_EQUIVALENTS=MappingProxyType({"audio/mp3": "audio/mpeg"}),
    # 003: "generische Typen wie application/octet-stream werden abgelehnt".
    GENERIC_MIME_TYPES=frozenset(
        {
            "application/octet-stream",
            "binary/octet-stream",
            "application/binary",
            "application/unknown",
            "application/x-binary",
            "image/*",
            "audio/*",
            "video/*",
            "*/*",
        }
    ),
    # 003 resolution enums; audio and document blocks have no resolution member.
    RESOLUTIONS=_frozen(
        {
            "image": ("low", "medium", "high", "ultra_high"),
            "video": ("low", "medium", "high"),
            "audio": (),
            "document": (),
        }
    ),
    # 003 "eingebettete Daten insgesamt bis zu 100 MB pro Anfrage". Read as decimal megabytes
    # counted on the base64 text (the smaller of the possible readings).
    MAX_INLINE_TOTAL_BYTES=100_000_000,
    # 003 DocumentContent.data "Base64-codierte PDF-Bytes (bis zu 50 MB)": whether the limit
    # counts the PDF or its base64 text is not said; counted on the base64 text, decimal MB.
    MAX_INLINE_PDF_BYTES=50_000_000,
    MAX_URI_FILE_BYTES=15_000_000,  # 003 uri "bis zu 15 MB", decimal MB
    URI_SCHEMES=("https",),  # 003 "öffentliche oder signierte HTTPS-URL"
    # 003: YouTube URLs are not supported; every host form of it is refused.
    YOUTUBE_HOSTS=frozenset(
        {
            "youtube.com",
            "www.youtube.com",
            "m.youtube.com",
            "music.youtube.com",
            "youtu.be",
            "youtube-nocookie.com",
            "www.youtube-nocookie.com",
            "yt.be",
        }
    ),
    # Any host with one of these labels before its last one is taken as YouTube too
    # (youtube.de, www.youtube.co.uk, youtube.googleapis.com): the reading that refuses
    # every host form of YouTube, at the cost of refusing an unrelated host so named.
    YOUTUBE_HOST_LABELS=frozenset({"youtube", "youtube-nocookie"}),
    # Name suffixes that only resolve inside private networks (RFC 6762 .local, RFC 8375
    # home.arpa, ICANN's reserved .internal, and common private-network ones). The seeds
    # say only "public or signed https URLs"; such hosts cannot be public.
    PRIVATE_HOST_SUFFIXES=frozenset(
        {"local", "localdomain", "internal", "intranet", "lan", "home", "corp", "home.arpa"}
    ),
    # 003 403 permission_denied: Google Files API URIs are only readable by their project.
    FILES_API_HOSTS=frozenset({"generativelanguage.googleapis.com"}),
    MAX_REDIRECTS=5,  # library bound for the optional remote check; seeds are silent
    # Library bound against decompression bombs (the seeds are silent): Pillow's own
    # warning threshold, read from the header before any decoding.
    MAX_IMAGE_PIXELS=89_478_485,
    CONTEXT_WINDOW_TOKENS=262_144,  # 003: input and all questions share this window
    MAX_STATE_PLUS_QUESTION_TOKENS=None,
    # Token estimate (decisions_input.budget). The seeds name no model family behind
    # gemini-decision-1, so where public figures disagree the estimate takes the range
    # over them: the Gemini 3-class figures per resolution and the older tile rule. The
    # figures are from the Gemini API documentation (media resolution, token counting);
    # the rest is marked as a library choice.
    # Text (decisions_input.textmeasure) is bounded by the classes of its characters. The
    # facts: the Gemma technical reports describe Gemini's SentencePiece tokenizer, shared
    # by Gemma, as splitting digits, keeping white space and falling back to UTF-8 bytes
    # for unknown characters; SentencePiece's piece rules (split by white space, by
    # Unicode script and by digit) keep the space marker at the start of a piece, never
    # mix scripts in one piece and never join a digit to anything.
    # Gemini API documentation (token counting): 100 tokens are about 60 to 80 English
    # words, so a word costs up to 1.67 tokens. Library choice: a run of letters costs one
    # token plus one per 8 letters (English words average under 5 letters, so about 1.6
    # tokens a word), one more at each change to upper case within the run.
    TEXT_LETTERS_PER_TOKEN=8,
    # Library choice, the low bound for Chinese and Japanese, which leave no spaces: one
    # token per 4 characters (words of one to four characters are pieces of their own in
    # a large vocabulary; longer pieces are names and set phrases). A CJK run right after a
    # space may share that space's token, so the bound rests on this stated reading.
    TEXT_CJK_CHARS_PER_TOKEN=4,
    # Library choice: no token spans more than 32 characters. SentencePiece trains pieces
    # of at most 16 characters by default; Gemma's vocabulary adds longer runs of white
    # space and markup such as HTML tags, which the choice leaves room for.
    TEXT_MAX_PIECE_CHARS=32,
    # Library choice. 003: each question adds only its own instructions and criteria; the
    # prompt around them is not shown. Its multiple example bills 324 tokens for input,
    # instructions and criteria that the text measure puts at 230 tokens at most, so each
    # question may add 0 to 64 tokens of structure and each option, level or noul
    # description 0 to 8.
    QUESTION_OVERHEAD_TOKENS=(0, 64),
    CRITERION_OVERHEAD_TOKENS=(0, 8),
    # Gemini API documentation (media resolution): Gemini 3-class tokens per image; an
    # image without a resolution is counted at the default, high.
    IMAGE_TOKENS=MappingProxyType(
        {"default": 1120, "low": 280, "medium": 560, "high": 1120, "ultra_high": 2240}
    ),
    # Gemini API documentation (token counting), the older tile rule: 258 tokens when both
    # sides are at most 384 px, else 258 per 768 x 768 px tile; tiles are counted as
    # ceil(width / 768) * ceil(height / 768) (the reading chosen: no scaling first).
    IMAGE_TILE_TOKENS=258,
    IMAGE_TILE_PX=768,
    IMAGE_SMALL_PX=384,
    # Gemini API documentation (media resolution): video is sampled at 1 frame per second,
    # 70 tokens per frame, 280 at high; low and medium count as the default.
    VIDEO_FRAMES_PER_SECOND=1.0,
    VIDEO_FRAME_TOKENS=MappingProxyType({"default": 70, "low": 70, "medium": 70, "high": 280}),
    # Gemini API documentation (token counting), older models: 263 tokens per second of video.
    VIDEO_TILE_RULE_TOKENS_PER_SECOND=263,
    # Gemini API documentation (media resolution): 560 tokens per PDF page by default,
    # 280 at low, 1120 at high (medium taken as the default). 003 gives documents no
    # resolution member, so the default applies unless a derived table adds one.
    PDF_PAGE_TOKENS=MappingProxyType({"default": 560, "low": 280, "medium": 560, "high": 1120}),
    # Older models count a page as one image of one tile (the tile rule's 258 tokens).
    PDF_TILE_RULE_PAGE_TOKENS=258,
    # Gemini API documentation (token counting, media resolution): 25 to 32 tokens per
    # second of audio, at every resolution; a video's audio track counts the same.
    AUDIO_TOKENS_PER_SECOND=(25, 32),
    # Library choice: what a block is assumed to measure when the library cannot measure
    # it (a URL is never fetched; a header may lack the figure). The estimate says so in
    # the block's basis. Images: 1 to 16 tiles (up to 3,072 x 3,072 px); recordings: up
    # to an hour; documents: 1 to 1,000 pages.
    UNMEASURED_IMAGE_TILES=(1, 16),
    UNMEASURED_SECONDS=(0.0, 3600.0),
    UNMEASURED_PAGES=(1, 1000),
    # Library choice: an ADTS or MP3 duration worked out from the first frames' sizes (no
    # frame count in the header) may be off where the bit rate varies; the estimate takes
    # it as from a third of that to three times it.
    ESTIMATED_DURATION_SPREAD=3.0,
    # The modalities of a response's input breakdown the tokens of each kind of estimated
    # row may be reported under. 000 ResponseModality names text, image, audio, video and
    # document; 003 says video frames and PDF page images are counted as image. A video's
    # sound is read as audio (003 lists audio among the modalities and says no more).
    # Rows that may share a modality are compared with the breakdown together.
    REPORTED_MODALITIES=_frozen(
        {
            "text": ("text",),
            "image": ("image",),
            "audio": ("audio",),
            "video": ("video", "image", "audio"),
            "document": ("document", "image"),
        }
    ),
    # 003 total_input_tokens: the shared input counted once and each question's own
    # instructions and criteria, nothing the request does not hold.
    REPORTED_INPUT_BEYOND_REQUEST=False,
    # Library bound on nesting, counted from the document root (the body is level 1), the
    # same for JSON text and mappings; seeds are silent.
    MAX_JSON_DEPTH=128,
    SNIFF_BYTES=65_536,  # library bound: bytes read from the head of a file to sniff it
    # Library bound: bytes of junk an MPEG audio or ADTS stream may have before its first
    # frame (after ID3 tags and zero padding), as stream recordings and some taggers leave
    # and decoders resync past; seeds are silent.
    MAX_AUDIO_JUNK_BYTES=4096,
    # Library bounds on walking a container's structure (box, element, chunk and page
    # headers read) and on all bytes read to sniff one file, so a hostile file can neither
    # loop nor make sniffing time grow with its size.
    MAX_SNIFF_STEPS=4096,
    MAX_SNIFF_READ_BYTES=8 * 1024 * 1024,
    # Library bound: page-tree nodes read to count a PDF's pages leaf by leaf. Past it the
    # root's /Count stands, once a page leaf was found: a document of up to 7 pages is
    # counted exactly, and a large one costs what a small one does (a page node is the
    # largest part of the cost of sniffing a PDF; benchmarks/bench_media.py).
    MAX_PDF_PAGE_NODES=8,
    # Library bound: bytes of a damaged FlateDecode stream that pypdf (the slow path, for
    # PDFs the own reader cannot follow) may try to inflate one byte at a time. It costs
    # about 2 µs a byte, so a hostile file of a few hundred kilobytes took seconds; past the
    # bound pypdf gives the stream up. A PDF that needs more repair than this is refused
    # (media.corrupt, or media.too_complex), though poppler or qpdf might repair it: a
    # refusal of a badly damaged file, never an acceptance of one; seeds are silent.
    MAX_PDF_RECOVERY_BYTES=16 * 1024,
    # Library bound: bytes of MPEG audio or ADTS frames counted one by one for a duration
    # no header states (no Xing, Info or VBRI frame); past it, the rest is estimated from
    # the bit rates seen. 64 KiB is 4 s of MP3 at 128 kbit/s, and a few milliseconds.
    MAX_FRAME_WALK_BYTES=64 * 1024,
    # Library bound: read size for streaming, a multiple of 3 so that the base64 of the chunks
    # joins up. Chunks this small reuse the allocator's memory instead of fresh pages, which
    # measured faster than 3 MiB chunks (benchmarks/bench_media.py).
    CHUNK_BYTES=3 * 64 * 1024,
    # --- the command line ------------------------------------------------------------------
    # Library bounds on the bytes the command line reads from one file (or standard input)
    # of each kind, each larger than any file of that kind the server can take, so that
    # they never stand between a user and a verdict; a file over its bound is refused
    # unread (exit 2, no verdict) and --max-bytes raises the bound. The seeds state no
    # body size. A request carries at most MAX_INLINE_TOTAL_BYTES of base64 text, and
    # everything else it holds counts against the context window: 262,144 tokens at
    # 6 characters a token, each character a 12-byte escape, is under 19 MB. Twice the
    # inline limit leaves room for that and for JSON white space.
    MAX_REQUEST_FILE_BYTES=200_000_000,
    # A response answers at most MAX_QUESTIONS questions with at most MAX_OPTIONS
    # probabilities keyed by option IDs of at most MAX_OPTION_ID_BYTES: about 140 MB as
    # UTF-8 at the very worst, within the same bound.
    MAX_RESPONSE_FILE_BYTES=200_000_000,
    # A spec names media by path; its own text is the request's text, questions and state:
    # a full context window at 6 characters a token, each a 10-byte YAML escape, is under
    # 16 MB; four times that leaves room for comments and white space.
    MAX_SPEC_FILE_BYTES=64_000_000,
    # OpenAPI and JSON Schema documents: the largest public API descriptions run to a few
    # MB of JSON (GitHub's REST API description is about 10 MB); the YAML reader takes
    # about a minute for the bound.
    MAX_SCHEMA_FILE_BYTES=64_000_000,
    # A file on disk is sniffed from its head and structure and never read whole; media on
    # standard input must be held to be sniffed: at most what one inline block can carry
    # (the bytes whose base64 is MAX_INLINE_TOTAL_BYTES).
    MAX_PIPED_MEDIA_BYTES=75_000_000,
    # Problems reported per file, errors first; the rest are counted, not shown, so that a
    # hostile file's report (and the memory to build it) is bounded by this, not by the file.
    MAX_PROBLEMS_PER_FILE=1000,
    # Below this many bytes of input files, worker processes cost more than they save.
    # Measured on 2 cores: 2,700 small request files take 0.58 s in one process and 0.75 s
    # in two; two files of 20 MB break even (0.41-0.44 s against 0.36-0.52 s); three take
    # 0.52 s against 0.43 s, eight 0.83 s against 0.59 s.
    PARALLEL_MIN_BYTES=48 * 1024 * 1024,
    MAX_WORKERS=8,  # worker processes at most, when the files are spread over the CPUs
    # --- responses -----------------------------------------------------------------------
    RESPONSE_REQUIRED=MappingProxyType(
        {
            # Library choice: 003 lists no required member, but a response that is not
            # blocked must answer; a blocked one may leave "answers" out (000: it is empty,
            # and protobuf JSON drops empty maps).
            "response": ("answers",),
            "noul_answer": ("type", "noul", "confidence"),  # 000 marks these required
            "choice_answer": ("type", "choice", "probabilities", "confidence"),  # 000
            "score_answer": ("type", "score", "probabilities", "legend", "confidence"),  # 000
            # Library choice: 003 lists none, but a body without "error" is no error body.
            "error_response": ("error",),
            # Library choice: 003 marks no member of the error required, but says the message
            # describes the error and ends with the request ID, and every error it documents
            # carries one; the bundled schema requires it too.
            "error": ("message",),
        }
    ),
    # 003 documents error bodies for 400, 401, 402, 403, 404, 429, 500 and 503; 002 for
    # "non-200 status codes" and shows 422. Library choice for both: 4xx and 5xx carry an
    # error body; other statuses are read as a decision and checked as one.
    MIN_ERROR_STATUS=400,
    ANSWER_TYPES=("choice", "noul", "score"),  # 000, 003
    NOUL_RANGE=(0.01, 0.99),  # 000 "P(true) in [0.01, 0.99]", 003 minimum/maximum
    # Library choice, the rule for sums and equalities of printed numbers: a printed number
    # is off by at most half a unit in its last printed place, and never coarser than
    # PROBABILITY_ROUNDING_DECIMALS (so 0.5 counts as 0.50 printed short; 0 and 1 take the
    # coarsest place of their neighbours). The probabilities of one answer may then miss 1
    # by the sum of those halves, or by PROBABILITY_SUM_TOLERANCE if that is larger:
    # 255 options at two decimals may miss by up to 1.275 (all of them could print 0.00),
    # four options at two decimals by 0.02, so 0.9 is an error there; four decimals allow
    # 0.0002, and full doubles fall back to 1e-4, which still takes 0.9999 as rounding.
    PROBABILITY_SUM_TOLERANCE=1e-4,
    PROBABILITY_ROUNDING_DECIMALS=2,
    # Library choice: confidence against its definition (000: max(noul, 1 - noul), the
    # probability of choice, the highest level probability) may differ by the rounding of
    # both printed numbers, or by this much, whichever is larger.
    CONFIDENCE_TOLERANCE=1e-6,
    # Library choice: score against sum of k * p_k may differ by the rounding of the
    # printed numbers (each p_k weighted by k), or by this much per step of the scale.
    SCORE_MEAN_TOLERANCE=1e-4,
    FLOAT_SLACK=1e-9,  # library choice: added to every tolerance for binary rounding
    DECISION_ID_PATTERN=None,  # 000, 003: no decision ID
    # 003 says total_output_tokens is always 0 for gemini-decision-1, but 000 (the upstream
    # API) counts output and thought tokens: no error for Gemini, a warning (USAGE_NO_OUTPUT).
    ZERO_USAGE_MEMBERS=(),
    # 000 Usage.total_tokens is "prompt + responses + other internal tokens". The prompt is
    # total_input_tokens (cached tokens are inside it, so not added again), the responses
    # total_output_tokens. Reading chosen: thought and tool-use tokens, which 000 counts
    # apart with totals of their own, are among the other internal tokens, so they are
    # added too. Internal tokens may go unreported, so the total is checked as at least the
    # sum, never as equal to it. The 003 example: 324 >= 324 + 0.
    USAGE_TOTALS=MappingProxyType(
        {
            "total_tokens": (
                "total_input_tokens",
                "total_output_tokens",
                "total_thought_tokens",
                "total_tool_use_tokens",
            )
        }
    ),
    # 000: cached tokens are "the cached part of the prompt", so within the input; the
    # first turn's input (initial_input_tokens) is within the prompt of the whole
    # interaction (total_input_tokens), whatever later turns add.
    USAGE_PARTS=MappingProxyType(
        {"total_cached_tokens": "total_input_tokens", "initial_input_tokens": "total_input_tokens"}
    ),
    # 000: each *_by_modality is "a breakdown" of its count by modality, so its tokens add
    # up to the total; the 003 example breaks 324 input tokens down as text 324. Reading
    # chosen: a breakdown that lists nothing, or an entry without a token count (protobuf
    # JSON leaves zeros out), states no sum, and a breakdown without its total is not
    # compared.
    USAGE_BREAKDOWNS=MappingProxyType(
        {
            "input_tokens_by_modality": "total_input_tokens",
            "cached_tokens_by_modality": "total_cached_tokens",
            "output_tokens_by_modality": "total_output_tokens",
            "tool_use_tokens_by_modality": "total_tool_use_tokens",
        }
    ),
    # 003 total_output_tokens: "always 0; this model generates no text"; 000 answers with
    # probabilities, no text. A warning, since 000's Usage is shared with models that do
    # generate; when the total is left out, its breakdown is checked in its place. Thought
    # tokens are not output (000 counts them apart) and are not checked.
    USAGE_NO_OUTPUT=("total_output_tokens",),
    # 003 total_input_tokens: the billed input of the shared input (once) and every
    # question's instructions and criteria: what the estimate bounds (decisions_input.budget).
    # Readings chosen, so that a count the request cannot explain is never blamed on the
    # estimate: a later turn of the interaction (000: tools) adds input the request does not
    # hold, so when initial_input_tokens (000: the first turn) is sent, it takes the place
    # of the total against the high bound; a prompt the filter blocked was not evaluated and
    # 003 does not say how much of it is billed, so only the high bound applies; a block the
    # estimate could not measure (a URL, a header without the figure) rests on assumptions,
    # so only the low bound applies. Where the input holds what no request does
    # (REPORTED_INPUT_BEYOND_REQUEST), only the low bound applies. The comparison costs an
    # estimate of the request per response; a table with USAGE_AGAINST_ESTIMATE=False skips it.
    USAGE_INPUT="total_input_tokens",
    USAGE_FIRST_TURN_INPUT="initial_input_tokens",
    USAGE_AGAINST_ESTIMATE=True,
    # 000 and 003 PromptFeedback.block_reason; an unknown value is a warning.
    BLOCK_REASONS=("safety", "other", "blocklist", "prohibited_content", "image_safety"),
    MODALITIES=("text", "image", "audio", "video", "document"),  # 000 ResponseModality
    GROUNDING_TOOL_TYPES=("google_search", "google_maps"),  # 000 GroundingToolCount.type
    ERROR_BODY_TYPES=(),  # 003 ErrorResponse has no top-level "type"
    # 001 enums of DataStoreConnectionSignals; an unknown value is an error.
    GROUNDING_DECISIONS=(
        "GROUNDING_DECISION_UNSPECIFIED",
        "ACCEPTED_BY_GROUNDING",
        "REJECTED_BY_GROUNDING",
    ),
    GROUNDING_SCORE_BUCKETS=(
        "GROUNDING_SCORE_BUCKET_UNSPECIFIED",
        "VERY_LOW",
        "LOW",
        "MEDIUM",
        "HIGH",
        "VERY_HIGH",
    ),
    SAFETY_DECISIONS=(
        "SAFETY_DECISION_UNSPECIFIED",
        "ACCEPTED_BY_SAFETY_CHECK",
        "REJECTED_BY_SAFETY_CHECK",
    ),
    BANNED_PHRASE_MATCHES=(
        "BANNED_PHRASE_MATCH_UNSPECIFIED",
        "BANNED_PHRASE_MATCH_NONE",
        "BANNED_PHRASE_MATCH_QUERY",
        "BANNED_PHRASE_MATCH_RESPONSE",
    ),
)

PARALLEL = GEMINI.derive(
    TARGET="parallel",
    API_PATH="/v1/decisions",  # 002
    # 002 servers and securitySchemes ApiKeyAuth (type apiKey, in header, name x-api-key).
    ENDPOINTS=MappingProxyType(
        {"parallel": Endpoint("parallel", ("https://api.parallel.ai",), "x-api-key")}
    ),
    DEFAULT_ENDPOINT="parallel",
    # 002 GroundedDecisionRequest: additionalProperties false; state and questions required.
    REQUEST_MEMBERS=("mode", "state", "questions", "include_excerpts"),
    REQUIRED_MEMBERS=("state", "questions"),
    MODELS=frozenset(),  # 002 has no model member
    MODEL_PREFIXES=(),
    MODES=("fast",),  # 002 mode const "fast"
    # 002 state "accepts any JSON value", and its own client example builds the body with
    # JavaScript's JSON.stringify. RFC 8259 (section 6) and I-JSON (RFC 7493, section 2.2):
    # integers beyond 2**53 are not interoperable, since readers that keep numbers as
    # IEEE 754 doubles (53-bit significands; JavaScript among them) hold every integer up
    # to 2**53 exactly and only some past it (2**53 + 1 reads as 2**53). An integer past
    # the bound that a double does not hold exactly is valid JSON, so it is a warning
    # (state.integer_precision); one a double holds (2**60) is not. None turns it off.
    MAX_EXACT_STATE_INTEGER=2**53,
    MAX_QUESTIONS=100,  # 002 questions.maxProperties, "1-100 questions"
    MAX_QUESTION_KEY_CHARS=None,  # 002 pattern ^[A-Za-z0-9_-]+$ states no length cap
    # 002 references GroundedChoiceQuestion, GroundedScoreQuestion and GroundedNoulQuestion
    # without defining them. They are read as the upstream Gemini question shapes (same
    # type names, "criteria" of the same form, answers of the same form), so the Gemini
    # option and level limits apply. Only the plain string form of instructions is shown
    # by 002, so block forms are refused until a caller relaxes INSTRUCTION_FORMS.
    INSTRUCTION_FORMS=frozenset({"string"}),
    INSTRUCTION_BLOCK_MEMBERS=("type", "text"),
    INPUT_BLOCK_TYPES=(),  # 002 takes a JSON state, no content blocks
    CONTEXT_WINDOW_TOKENS=None,
    # 002: "State plus the largest question may use at most 32,000 estimated input tokens."
    # 002 does not say how it estimates; the text rates and question structure above are
    # applied to the state's JSON text and to each question.
    MAX_STATE_PLUS_QUESTION_TOKENS=32_000,
    # 002 GroundedDecisionUsage reports one input total and no breakdown by modality.
    REPORTED_MODALITIES=_frozen({}),
    # 002 answers "using current web evidence", and its live example reports 4,212 input
    # tokens for a state and one question that hold a small fraction of that: the evidence
    # retrieved is counted as input. A request's estimate is then a floor of what is
    # reported, never a ceiling.
    REPORTED_INPUT_BEYOND_REQUEST=True,
    # --- responses -----------------------------------------------------------------------
    RESPONSE_REQUIRED=MappingProxyType(
        {
            "response": ("mode", "answers", "usage", "citations", "decision_id"),  # 002
            # 002 requires the values; "type" has a default there but is the discriminator
            # the answers are told apart by, so it is required here (library choice).
            "noul_answer": ("type", "noul"),
            "choice_answer": ("type", "choice", "probabilities"),
            "score_answer": ("type", "score", "legend", "probabilities"),
            "refusal_answer": ("type",),
            "usage": ("input_tokens", "output_tokens"),  # 002
            "citation": ("url", "excerpts"),  # 002
            "error_response": ("type", "error"),  # 002
            "error": ("ref_id", "message"),  # 002
        }
    ),
    ANSWER_TYPES=("choice", "noul", "refusal", "score"),  # 002 discriminator mapping
    NOUL_RANGE=(0.0, 1.0),  # 002 "from 0 to 1"; its live example sends 0.9992643798509062
    DECISION_ID_PATTERN="decisions_[0-9a-f]{32}",  # 002: "decisions_" and a UUID, no hyphens
    ZERO_USAGE_MEMBERS=("output_tokens",),  # 002 output_tokens const 0
    # 002 usage has no total and no breakdown; output_tokens other than 0 is an error
    # (ZERO_USAGE_MEMBERS) already.
    USAGE_TOTALS=MappingProxyType({}),
    USAGE_PARTS=MappingProxyType({}),
    USAGE_BREAKDOWNS=MappingProxyType({}),
    USAGE_NO_OUTPUT=(),
    # 002 input_tokens includes the web evidence Parallel retrieves for the answers, which no
    # request holds (REPORTED_INPUT_BEYOND_REQUEST above): only the low bound of the estimate
    # applies to it.
    USAGE_INPUT="input_tokens",
    USAGE_FIRST_TURN_INPUT=None,
    BLOCK_REASONS=(),  # 002 has no prompt feedback
    ERROR_BODY_TYPES=("error",),  # 002 ErrorResponse.type const "error"
)

LIMITS: Mapping[str, Limits] = MappingProxyType({"gemini": GEMINI, "parallel": PARALLEL})


def limits_for(target: str) -> Limits:
    """Return the table of a target name; raise ``InvalidInput`` naming the known targets."""
    try:
        return LIMITS[target]
    except (KeyError, TypeError):
        from .errors import InvalidInput, Problem

        raise InvalidInput(
            [
                Problem(
                    (),
                    "target.unknown",
                    f"expected target {' or '.join(map(repr, sorted(LIMITS)))}, found {target!r}",
                )
            ]
        ) from None


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule code with what it means, its severity and the limits it reads."""

    code: str
    description: str
    severity: Severity = Severity.ERROR
    limits: tuple[str, ...] = ()


_W = Severity.WARNING

# Every rule code, grouped by area. Codes are stable: never renamed, never reused.
_RULE_LIST: tuple[Rule, ...] = (
    Rule("target.unknown", "The target API name is not one this library knows."),
    # A failure of the library itself, reported in place of a result so the rest of a
    # report is kept. Tests and fuzzing assert that it never appears.
    Rule(
        "internal.error",
        "The library failed on this input; this is a defect of the library, not of the input.",
    ),
    # Schema documents (bundled or given): checked by decisions_input.schemas
    Rule("schema.dangling_ref", "A local $ref in a schema document points at nothing."),
    Rule("schema.meta", "A schema document breaks its meta-schema (OpenAPI or JSON Schema)."),
    Rule("schema.example", "An example in a schema document does not match its schema."),
    # JSON text hazards (only when the body is given as text or bytes)
    Rule("json.syntax", "The text is not JSON."),
    Rule("json.invalid_utf8", "The bytes are not valid UTF-8."),
    Rule("json.bom", "The text starts with a byte order mark."),
    Rule("json.encoding", "The bytes are UTF-16 or UTF-32; JSON requests must be UTF-8."),
    Rule(
        "json.duplicate_key",
        "An object has the same member name twice; parsers keep different ones.",
    ),
    Rule("json.non_finite", "NaN or Infinity appears; they are not JSON."),
    Rule("json.lone_surrogate", "A \\u escape names half of a surrogate pair."),
    Rule("json.number_range", "A number is beyond the range of a double."),
    Rule(
        "json.too_deep",
        "Nesting, counted from the document root, is deeper than the library's bound.",
        limits=("MAX_JSON_DEPTH",),
    ),
    Rule("json.trailing_data", "Something follows the JSON value."),
    # Structure
    Rule("schema.type", "A member has the wrong JSON type."),
    Rule("schema.required", "A required member is missing.", limits=("REQUIRED_MEMBERS",)),
    Rule("schema.unknown_member", "A member the API does not define; every object is closed."),
    Rule("schema.const", "A member that has one fixed value holds another."),
    Rule("model.unknown", "The model name is not one the API serves.", limits=("MODELS",)),
    Rule(
        "model.prefixed",
        "The model is named as a resource (models/...); Google's endpoint takes it, but a "
        "proxy may list only the bare name.",
        _W,
        limits=("MODEL_PREFIXES",),
    ),
    Rule("mode.unknown", "The mode is not one the API offers.", limits=("MODES",)),
    Rule(
        "state.integer_precision",
        "An integer in the state that a double does not hold exactly; JavaScript and many "
        "JSON readers would read another number.",
        _W,
        limits=("MAX_EXACT_STATE_INTEGER",),
    ),
    # Sending (Request.http): the arguments that say where and how a request goes
    Rule("endpoint.unknown", "The endpoint name is not one of the target's services."),
    Rule(
        "endpoint.base_url",
        "The base URL is not an absolute http or https URL without credentials, query or fragment.",
    ),
    Rule(
        "endpoint.auth_header",
        "An endpoint's key header is not an HTTP header name, or its scheme holds white space.",
    ),
    Rule(
        "endpoint.api_key",
        "The API key is empty, has white space at either end, or holds a character an HTTP "
        "header cannot carry.",
    ),
    # Input
    Rule("input.empty", "The shared input is empty or only whitespace."),
    Rule(
        "input.block_type",
        "A content block type the API does not accept.",
        limits=("INPUT_BLOCK_TYPES",),
    ),
    Rule("text.empty", "A text block has empty text."),
    Rule("text.reserved", "A string holds the text the library uses to place inline media."),
    Rule(
        "text.run_together",
        "Two adjacent text blocks would run words together, letter to letter or across the "
        "end of a sentence (late. + Customer); the API joins them with no separator.",
        _W,
    ),
    # Questions
    Rule(
        "questions.count",
        "Too few or too many questions.",
        limits=("MIN_QUESTIONS", "MAX_QUESTIONS"),
    ),
    Rule(
        "question.key_pattern",
        "A question key has a character outside the allowed set.",
        limits=("QUESTION_KEY_CHARS",),
    ),
    Rule(
        "question.key_length",
        "A question key is empty or too long.",
        limits=("MIN_QUESTION_KEY_CHARS", "MAX_QUESTION_KEY_CHARS"),
    ),
    Rule("question.type", "The question type is not supported.", limits=("QUESTION_TYPES",)),
    Rule("instructions.empty", "Instructions are empty: an empty string or no text block."),
    Rule(
        "instructions.blank",
        "Instructions are only whitespace, as a string or as text blocks: they pass the "
        "length check and ask nothing.",
        _W,
    ),
    Rule(
        "instructions.form",
        "Instructions take a form the target does not accept.",
        limits=("INSTRUCTION_FORMS",),
    ),
    Rule("annotation.type", "An instruction annotation has an unknown type."),
    Rule(
        "annotation.in_request",
        "An instruction block carries annotations, which are documented for generated text, "
        "not as anything a request tells the model.",
        _W,
    ),
    Rule(
        "option.count",
        "A choice question has too few or too many options.",
        limits=("MIN_OPTIONS", "MAX_OPTIONS"),
    ),
    Rule(
        "option.id_length",
        "An option ID is empty or too long, counted in code points.",
        limits=("MIN_OPTION_ID_CHARS", "MAX_OPTION_ID_CHARS"),
    ),
    Rule(
        "option.id_bytes",
        "An option ID is too long in UTF-8 bytes.",
        limits=("MAX_OPTION_ID_BYTES",),
    ),
    Rule("option.duplicate_id", "The same option ID is given twice to a builder."),
    Rule("option.whitespace", "An option ID starts or ends with whitespace."),
    Rule("option.control", "An option ID contains a control character."),
    Rule(
        "option.interior_whitespace", "An option ID contains whitespace other than the ASCII space."
    ),
    Rule("option.format_char", "An option ID contains an invisible format character."),
    Rule(
        "option.catch_all",
        "A catch-all option ID whose meaning depends on position; IDs are re-sorted, use 'other'.",
        _W,
        limits=("CATCH_ALL_OPTION_IDS",),
    ),
    Rule("option.similar", "Two option IDs are equal after NFC normalisation or case folding.", _W),
    Rule(
        "level.count",
        "A score question has too few or too many levels.",
        limits=("MIN_LEVELS", "MAX_LEVELS"),
    ),
    Rule("level.empty", "A score level is an empty string."),
    Rule(
        "level.blank",
        "A score level is only whitespace: it passes the length check and describes nothing.",
        _W,
    ),
    Rule(
        "level.many", "More score levels than recommended.", _W, limits=("RECOMMENDED_MAX_LEVELS",)
    ),
    Rule("level.duplicate", "Two score levels have the same text.", _W),
    # Token budgets (decisions_input.budget)
    Rule(
        "budget.exceeded",
        "Even the low estimate of input tokens is over the budget: the context window "
        "(input and every question) or the state plus the largest question.",
        limits=("CONTEXT_WINDOW_TOKENS", "MAX_STATE_PLUS_QUESTION_TOKENS"),
    ),
    Rule(
        "budget.at_risk",
        "Only the high estimate of input tokens is over the budget; the request may not fit.",
        _W,
        limits=("CONTEXT_WINDOW_TOKENS", "MAX_STATE_PLUS_QUESTION_TOKENS"),
    ),
    # Sniffing
    Rule("media.empty", "The media file has no bytes."),
    Rule("media.unknown", "The bytes match no format the library can recognise."),
    Rule(
        "media.truncated",
        "The file ends before its format's structure does (missing end marker or index).",
    ),
    Rule("media.corrupt", "The file starts like a known format but its structure is broken."),
    Rule(
        "media.polyglot",
        "The file reads as two formats at once, e.g. an image with a ZIP or PDF appended.",
    ),
    Rule("media.no_tracks", "A container holds no audio or video track."),
    Rule(
        "media.no_samples",
        "The tracks hold no media samples, so there is nothing to decode "
        "(an MP4 initialization segment).",
    ),
    Rule(
        "media.incomplete",
        "The file ends before its structure says it does (a missing end marker, a last "
        "chunk or fragment cut short), but the mainstream decoders decode what is there.",
        _W,
    ),
    Rule(
        "media.too_complex",
        "Confirming the format needs more structure steps or bytes than the library's bound.",
        limits=(
            "MAX_SNIFF_STEPS",
            "MAX_SNIFF_READ_BYTES",
            "MAX_PDF_PAGE_NODES",
            "MAX_PDF_RECOVERY_BYTES",
        ),
    ),
    Rule(
        "image.too_many_pixels",
        "Width times height in the image header is over the bound; the image is never decoded.",
        limits=("MAX_IMAGE_PIXELS",),
    ),
    Rule("pdf.no_pages", "The PDF has no pages."),
    Rule(
        "pdf.encrypted",
        "The PDF is encrypted and needs a password to open (an owner password alone does not).",
    ),
    Rule(
        "pdf.damaged",
        "The PDF's end marker or cross-reference data is misplaced, missing or wrong, or its "
        "page count disagrees with its pages; PDF readers repair this when they open it.",
        _W,
    ),
    Rule(
        "audio.headerless_undeclared",
        "Audio bytes have no header; raw samples must be declared audio/l16, alaw or mulaw.",
    ),
    Rule("audio.odd_length", "Headerless audio is not a whole number of sample frames long."),
    Rule(
        "mime.parameter",
        "A MIME parameter is malformed, e.g. a rate that is not a positive integer.",
    ),
    # Media blocks
    Rule("block.data_or_uri", "A media block needs exactly one of data and uri."),
    Rule(
        "source.unreadable",
        "A file a spec names cannot be read: it is missing, not a regular file, or not readable.",
    ),
    Rule(
        "mime.not_allowed",
        "The MIME type is not accepted for this block type.",
        limits=("MIME_TYPES",),
    ),
    Rule(
        "mime.generic",
        "A generic MIME type such as application/octet-stream.",
        limits=("GENERIC_MIME_TYPES",),
    ),
    Rule("mime.mismatch", "The declared MIME type differs from what the bytes are."),
    Rule(
        "resolution.not_allowed",
        "The resolution is not accepted for this block type.",
        limits=("RESOLUTIONS",),
    ),
    Rule("data.base64", "Inline data is not standard, padded base64 without line breaks."),
    Rule(
        "data.too_large",
        "Inline data of the whole request is over the limit, counted on the base64 text.",
        limits=("MAX_INLINE_TOTAL_BYTES",),
    ),
    Rule("pdf.too_large", "An inline PDF is over its limit.", limits=("MAX_INLINE_PDF_BYTES",)),
    Rule("uri.syntax", "The URI cannot be parsed."),
    Rule("uri.scheme", "The URI scheme is not https.", limits=("URI_SCHEMES",)),
    Rule("uri.scheme_case", "The URI scheme is not lower case.", _W),
    Rule("uri.gcs", "A gs:// URI; the API cannot read Cloud Storage."),
    Rule(
        "uri.files_api",
        "A Google Files API name or URL; only its own project can read it.",
        limits=("FILES_API_HOSTS",),
    ),
    Rule(
        "uri.youtube",
        "A YouTube URL; the API does not fetch them.",
        limits=("YOUTUBE_HOSTS", "YOUTUBE_HOST_LABELS"),
    ),
    Rule("uri.credentials", "The URI carries a user name or password."),
    Rule(
        "uri.unreachable_host",
        "The host is local, private, loopback or link-local, or a name only a private "
        "network resolves.",
        limits=("PRIVATE_HOST_SUFFIXES",),
    ),
    Rule("uri.extension", "The URI's file extension contradicts the declared MIME type.", _W),
    # Opt-in remote check (sources.iter_remote_problems)
    Rule(
        "uri.too_large",
        "The remote file is over the URI size limit.",
        limits=("MAX_URI_FILE_BYTES",),
    ),
    Rule("uri.not_found", "The server answered 404 or 410 for the URI."),
    Rule("uri.unreachable", "No usable answer: network, TLS, timeout or an unexpected status."),
    Rule(
        "uri.redirect",
        "Too many redirects, or one that leaves https or leads to a refused URI.",
        limits=("MAX_REDIRECTS",),
    ),
    # Responses
    Rule(
        "response.type",
        "A response member has the wrong JSON type, or the body is not an object.",
    ),
    Rule("response.required", "A response member the API always sends is missing."),
    Rule(
        "response.unknown_member",
        "A response member the library does not know; APIs add fields.",
        _W,
    ),
    Rule(
        "response.enum",
        "A value outside a list the API may extend: mode, block reason, modality, tool.",
        _W,
        limits=("MODES", "BLOCK_REASONS", "MODALITIES", "GROUNDING_TOOL_TYPES", "ERROR_BODY_TYPES"),
    ),
    Rule("response.request", "The request given to compare a response with cannot be read."),
    Rule(
        "response.error_body",
        "The body is the API's error body, not a decision: the call failed.",
        limits=("MIN_ERROR_STATUS",),
    ),
    Rule(
        "response.threshold",
        "A threshold given to an answer helper is not a number from 0 to 1.",
    ),
    Rule(
        "response.decision_id",
        "The decision ID does not have the documented form.",
        limits=("DECISION_ID_PATTERN",),
    ),
    Rule(
        "response.output_tokens",
        "Usage reports output tokens where the API always reports 0.",
        limits=("ZERO_USAGE_MEMBERS",),
    ),
    Rule("usage.negative", "A token or tool count is negative."),
    Rule(
        "usage.total_below_parts",
        "A usage total is smaller than the sum of the counts it includes.",
        _W,
        limits=("USAGE_TOTALS",),
    ),
    Rule(
        "usage.part_over_whole",
        "A usage count is larger than the count it is part of (cached or first-turn input).",
        _W,
        limits=("USAGE_PARTS",),
    ),
    Rule(
        "usage.breakdown_sum",
        "A breakdown by modality does not add up to the total it breaks down.",
        _W,
        limits=("USAGE_BREAKDOWNS",),
    ),
    Rule(
        "usage.output_tokens",
        "Usage reports output tokens for a decision, which generates none.",
        _W,
        limits=("USAGE_NO_OUTPUT",),
    ),
    Rule(
        "usage.outside_estimate",
        "The reported input tokens are outside the offline estimate of the request: the "
        "estimate is off, worth reporting with the request.",
        _W,
        limits=(
            "USAGE_INPUT",
            "USAGE_FIRST_TURN_INPUT",
            "REPORTED_INPUT_BEYOND_REQUEST",
            "USAGE_AGAINST_ESTIMATE",
        ),
    ),
    Rule("answer.missing", "A question of the request has no answer."),
    Rule("answer.extra", "An answer has a key that is not a question of the request."),
    Rule(
        "answer.type_unknown",
        "An answer type the API does not define.",
        limits=("ANSWER_TYPES",),
    ),
    Rule("answer.type_mismatch", "An answer's type differs from its question's type."),
    Rule("answer.blocked_not_empty", "The prompt was blocked, yet answers were returned."),
    Rule(
        "answer.noul_range",
        "A noul probability is outside the documented range.",
        limits=("NOUL_RANGE",),
    ),
    Rule(
        "answer.confidence",
        "Confidence differs from the probability of the winning outcome.",
        limits=("CONFIDENCE_TOLERANCE", "PROBABILITY_ROUNDING_DECIMALS"),
    ),
    Rule(
        "answer.probability_keys",
        "Probabilities are not keyed by exactly the options or level indexes.",
    ),
    Rule("answer.probability_range", "A probability is below 0 or above 1."),
    Rule(
        "answer.probability_sum",
        "Probabilities do not add up to 1, beyond what printing them rounded can explain.",
        limits=("PROBABILITY_SUM_TOLERANCE", "PROBABILITY_ROUNDING_DECIMALS"),
    ),
    Rule("answer.choice_unknown", "The choice is not one of the option IDs."),
    Rule("answer.choice_not_max", "Another option is more probable than the choice."),
    Rule(
        "answer.choice_tie",
        "The choice ties with an option earlier in UTF-8 byte order, which exact ties go to.",
        _W,
    ),
    Rule("answer.legend", "The legend differs from the question's levels."),
    Rule(
        "answer.score_mean",
        "The score is not the probability-weighted mean of the level indexes.",
        limits=("SCORE_MEAN_TOLERANCE", "PROBABILITY_ROUNDING_DECIMALS"),
    ),
    Rule("answer.refusal_values", "A refusal carries values, which it never has."),
    Rule("citation.url", "A citation URL is not an absolute http or https URL."),
    Rule("citation.excerpts", "A citation has excerpts although the request turned them off."),
    Rule(
        "signals.answer_parts",
        "The answer parts' texts do not make up the answer, whitespace aside.",
    ),
    Rule("signals.index", "A supporting or cited snippet index is outside searchSnippets."),
    Rule("signals.cited_snippet", "A cited snippet differs from the search snippet at its index."),
    Rule(
        "signals.enum",
        "A signals value outside the documented enumeration.",
        limits=(
            "GROUNDING_DECISIONS",
            "GROUNDING_SCORE_BUCKETS",
            "SAFETY_DECISIONS",
            "BANNED_PHRASE_MATCHES",
        ),
    ),
)

RULES: Mapping[str, Rule] = MappingProxyType({r.code: r for r in _RULE_LIST})


def target_of(body: object) -> str:
    """Name the target a request body is shaped for: Parallel's has ``state`` and no
    ``model``; anything else is taken as Gemini's."""
    if isinstance(body, Mapping) and "state" in body and "model" not in body:
        return "parallel"
    return "gemini"


def describe_limit(value: object) -> str:
    """Render one limit value compactly for tables: numbers, short lists, counts of long ones."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        parts = [f"{k}: {describe_limit(v)}" for k, v in value.items()]
        return "; ".join(parts) or "none"
    if isinstance(value, (tuple, frozenset, set, list)):
        items = sorted(value) if isinstance(value, (frozenset, set)) else list(value)
        if not items:
            return "none"
        if len(items) > 8:
            return f"{len(items)} values"
        return ", ".join(str(i) for i in items)
    return str(value)


def rules_markdown() -> str:
    """Render every rule with its severity, description and limits per target, as Markdown."""
    lines = [
        "| code | severity | description | gemini | parallel |",
        "| --- | --- | --- | --- | --- |",
    ]
    for code in sorted(RULES):
        rule = RULES[code]
        cells = []
        for table in (GEMINI, PARALLEL):
            shown = [f"`{name}` {describe_limit(getattr(table, name))}" for name in rule.limits]
            cells.append("<br>".join(shown).replace("|", "\\|"))
        description = rule.description.replace("|", "\\|")
        lines.append(
            f"| `{code}` | {rule.severity.value} | {description} | {cells[0]} | {cells[1]} |"
        )
    return "\n".join(lines) + "\n"
