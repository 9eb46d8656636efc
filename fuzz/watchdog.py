"""Stopping a case that does not return: a CPU-time alarm that raises into the library.

:func:`cpu_deadline` arms the process's profiling timer (``ITIMER_PROF``, which counts the
CPU time of the process, so a loaded machine does not trip it) and raises :class:`Hung`
from its signal handler. ``Hung`` is a ``BaseException``, so no ``except Exception`` of the
library can take it for one of its own failures; the regular expression engine and every
Python loop check for signals, so a backtracking pattern stops too. Signals reach only the
main thread: anywhere else the deadline is not armed and the case runs unwatched.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["Hung", "cpu_deadline"]


class Hung(BaseException):
    """A case went past its CPU deadline."""


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Hung


@contextmanager
def cpu_deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`Hung` inside the block once it has used ``seconds`` of CPU time."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGPROF, _raise)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
