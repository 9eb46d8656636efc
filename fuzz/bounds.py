"""The harness's own bounds: how much time and memory one input may cost the library.

These are checks of the harness, not limits of the library (those live in
``decisions_input.limits``). They are generous on purpose, so that a machine shared with
other work does not report noise: CPU time (not wall time) is measured, and a real defect
(a walk that does not stop, a buffer that grows with a declared length) overshoots them
by orders of magnitude.
"""

from __future__ import annotations

__all__ = [
    "CLI_CPU_SECONDS",
    "HANG_CPU_SECONDS",
    "MEDIA_CPU_SECONDS",
    "MEDIA_PEAK_BYTES",
    "json_cpu_seconds",
]

# One call of the library on one request, response, error or signals body (iter_problems,
# estimate, parse_response, ...): a second, plus ten per megabyte of body, which is a
# hundred times what reading JSON text costs.
_JSON_BASE_SECONDS = 1.0
_JSON_SECONDS_PER_BYTE = 10.0 / 1_000_000


def json_cpu_seconds(size: int) -> float:
    """The CPU time one call may take on a body of ``size`` bytes."""
    return _JSON_BASE_SECONDS + _JSON_SECONDS_PER_BYTE * size


# One call on one media file (sniff, a builder, a request built from it and validated
# again); fixtures are at most a few MB, and sniffing reads a bounded head.
MEDIA_CPU_SECONDS = 2.0

# Peak of the Python heap (tracemalloc) while one media file is checked, over what the
# file itself takes: sniffing reads a bounded head and seeks, so this does not grow with
# the file or with the lengths its header declares.
MEDIA_PEAK_BYTES = 64 * 1024 * 1024

# One run of the command line on one file, in process (its output formatted too).
CLI_CPU_SECONDS = 5.0

# One case of any target, all its calls together: past this much CPU time the case is
# stopped and reported as a ``hang``, so that a call that never returns (a regular
# expression backtracking without end, a loop that does not advance) is saved and replayed
# instead of stalling the run. Four times the largest bound above.
HANG_CPU_SECONDS = 20.0
