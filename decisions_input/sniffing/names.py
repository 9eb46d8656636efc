"""MIME names: whether a declared type names what the bytes are, and the target's own name.

The API lists some types under two names (``audio/mp3`` and ``audio/mpeg``); a target may
allow only one of them, so a verdict is settled on the name the target accepts, or refused
when it accepts none.
"""

from __future__ import annotations

from dataclasses import replace

from ..limits import GEMINI, Limits
from .base import Broken, Detected

__all__ = ["mime_matches", "parse_mime", "settle"]


def mime_matches(detected: Detected, declared: str, *, limits: Limits = GEMINI) -> bool:
    """Return True when ``declared`` names what was detected.

    Names are compared without parameters and case, up to ``Limits.MIME_EQUIVALENTS``
    (``audio/mp3`` is ``audio/mpeg`` for layer III; MPEG audio of layers I and II matches
    only ``audio/mpeg``). ``image/heif`` also matches HEVC-coded HEIF
    (``image/heic``); ``audio/opus`` matches Ogg only when every stream in it is Opus.

    .. versionadded:: 0.1
    """
    if detected.mime is None:
        return False
    try:
        want = _canonical(parse_mime(declared)[0], limits)
    except Broken:
        return False
    got = _canonical(detected.mime, limits)
    if want == got:
        # audio/mp3 names layer III; MPEG audio of layers I and II is only audio/mpeg.
        literal = parse_mime(declared)[0].strip().lower()
        return not (literal == "audio/mp3" and detected.format != "MP3")
    if want == "audio/opus" and got == "audio/ogg":
        codecs = detected.evidence.get("codecs")
        return isinstance(codecs, tuple) and bool(codecs) and all(c == "opus" for c in codecs)
    return want == "image/heif" and got == "image/heic"


def _canonical(mime: str, limits: Limits) -> str:
    mime = mime.strip().lower()
    return limits.MIME_EQUIVALENTS.get(mime, mime)


def parse_mime(text: str) -> tuple[str, dict[str, str]]:
    base, *parts = text.split(";")
    params: dict[str, str] = {}
    for part in parts:
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise Broken("mime.parameter", f"expected name=value parameters, found {part!r}")
        params[key.strip().lower()] = value.strip().strip('"')
    return base.strip().lower(), params


def settle(det: Detected, limits: Limits) -> Detected:
    """Give an accepted result the target's own name for its type, or refuse it."""
    if det.mime is None:
        return det
    if det.kind is not None and det.mime in limits.MIME_TYPES.get(det.kind, ()):
        return det  # already the target's own name
    aliases = [k for k, v in limits.MIME_EQUIVALENTS.items() if v == det.mime]
    for name in (det.mime, *aliases):
        for kind, allowed in limits.MIME_TYPES.items():
            if name in allowed:
                return replace(det, mime=name, kind=kind)  # type: ignore[arg-type]
    return replace(
        det,
        mime=None,
        code="mime.not_allowed",
        warnings=(),
        reason=f"expected a type this target accepts, found {det.format} ({det.mime})",
    )
