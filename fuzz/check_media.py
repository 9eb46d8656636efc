"""Properties of media bytes, through ``sniff``, the block builders and ``Request``.

- ``sniff`` raises only the library's own errors; the builders only ``InvalidInput`` or
  ``SourceError``; every code they give is a rule, and none is ``internal.error``;
- a block ``media`` builds is built the same by its own kind's builder with its MIME type,
  and a request holding it is built, written, and valid when its text is checked again
  (the budget aside: a header may declare hours of video in a few bytes, and the budget is
  a rule of the whole request, which the builder cannot know);
- the library spends at most :data:`~fuzz.bounds.MEDIA_CPU_SECONDS` of CPU time and
  :data:`~fuzz.bounds.MEDIA_PEAK_BYTES` of Python heap (tracemalloc peak) on one file.
"""

from __future__ import annotations

import functools
import tracemalloc
from collections.abc import Callable, Iterable

import decisions_input as di
from fuzz.bounds import MEDIA_CPU_SECONDS, MEDIA_PEAK_BYTES
from fuzz.probe import Failure, Probe
from fuzz.verdicts import INTERNAL_CODE, check_emitted

__all__ = ["check_media"]

_BUILDERS: dict[str, Callable[..., di.MediaBlock]] = {
    "image": di.image,
    "audio": di.audio,
    "video": di.video,
    "document": di.document,
}
_BUILDER_ERRORS = (di.InvalidInput, di.SourceError)


def check_media(data: bytes) -> list[Failure]:
    """Check one media file, given as its bytes."""
    probe = Probe()
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        _check_all(probe, data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        if not tracing:
            tracemalloc.stop()
    if peak > MEDIA_PEAK_BYTES:
        detail = (
            f"{peak / 2**20:.1f} MiB of Python heap at peak, bound {MEDIA_PEAK_BYTES / 2**20} MiB"
        )
        probe.fail("memory", f"{len(data)} bytes: {detail}", "media")
    probe.check_time(MEDIA_CPU_SECONDS, "media")
    return probe.failures


def _check_all(probe: Probe, data: bytes) -> None:
    detected, _ = probe.call("sniff", lambda: di.sniff(data))
    if detected is not None and detected.code is not None:
        _check_codes(probe, "sniff", [detected.code])
    block, raised = probe.call("media", lambda: di.media(data), _BUILDER_ERRORS)
    _check_raised(probe, "media", raised)
    for kind, build in _BUILDERS.items():
        _, raised = probe.call(kind, functools.partial(build, data), _BUILDER_ERRORS)
        _check_raised(probe, kind, raised)
    if block is not None:
        _check_codes(probe, "media", [p.code for p in block.warnings])
        _check_built(probe, block, data)


def _check_raised(probe: Probe, what: str, raised: BaseException | None) -> None:
    if isinstance(raised, di.InvalidInput):
        _check_codes(probe, what, raised.codes)


def _check_codes(probe: Probe, what: str, codes: Iterable[str]) -> None:
    for code in codes:
        if code not in di.RULES:
            probe.fail("unknown-code", f"{what}: {code}", code)
        if code == INTERNAL_CODE:
            probe.fail("internal-error", f"{what}: {code}", what)


def _check_built(probe: Probe, block: di.MediaBlock, data: bytes) -> None:
    """The kind's own builder agrees, and a request of the block is valid when re-read."""
    build = _BUILDERS[block.type]
    again, raised = probe.call(
        f"{block.type}(mime_type=…)",
        lambda: build(data, mime_type=block.mime_type),
        _BUILDER_ERRORS,
    )
    if again is None and raised is not None:
        detail = f"media() built {block.type} {block.mime_type}; {block.type}() refused: {raised}"
        probe.fail("builders-disagree", detail, f"{block.type} {block.mime_type}")
    check_emitted(
        probe,
        lambda: di.Request(
            target="gemini",
            model=sorted(di.GEMINI.MODELS)[0],
            input=[block],
            questions={"q": di.noul("Is it?")},
        ),
        f"a built {block.mime_type}",
        di.GEMINI,
    )
