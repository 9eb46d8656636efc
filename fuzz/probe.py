"""Calling the library under watch: foreign exceptions, CPU time, and the failures found.

Every call into the library goes through :meth:`Probe.call`, which lets through only the
exceptions the caller names as the library's own, records any other one as a failure with
the place it was raised, and adds up the CPU time spent in the library.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import decisions_input as di

__all__ = ["Failure", "Probe", "origin"]

_T = TypeVar("_T")

_PACKAGE = os.sep + "decisions_input" + os.sep
_WATCHDOG = os.sep + "fuzz" + os.sep + "watchdog.py"


@dataclass(frozen=True)
class Failure:
    """One broken property: which, a one-line detail, and where (which also deduplicates).

    Two failures with the same ``prop`` and ``where`` are taken to be the same defect.
    """

    prop: str
    detail: str
    where: str = ""

    @property
    def signature(self) -> tuple[str, str]:
        """What tells this failure from another."""
        return (self.prop, self.where)

    def __str__(self) -> str:
        return f"{self.prop} [{self.where}] {self.detail}"


def origin(exc: BaseException) -> str:
    """The exception type and the innermost function of the library it came through."""
    frames = [  # all but the alarm's own frame
        f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.endswith(_WATCHDOG)
    ]
    ours = [f for f in frames if _PACKAGE in f.filename]
    frame = ours[-1] if ours else (frames[-1] if frames else None)
    if frame is None:
        return type(exc).__name__
    module = frame.filename.rsplit(os.sep, 1)[-1]
    return f"{type(exc).__name__} in {module}:{frame.name}"


@dataclass
class Probe:
    """Collects the failures of one input and the CPU time the library spent on it.

    ``cpu_seconds`` adds up every call; ``slowest`` is the longest single call and its name.
    """

    failures: list[Failure] = field(default_factory=list)
    cpu_seconds: float = 0.0
    slowest: tuple[float, str] = (0.0, "")

    def fail(self, prop: str, detail: str, where: str = "") -> None:
        """Record a broken property."""
        self.failures.append(Failure(prop, " ".join(detail.split())[:500], where))

    def call(
        self,
        what: str,
        fn: Callable[[], _T],
        allowed: tuple[type[BaseException], ...] = (di.DecisionsInputError,),
    ) -> tuple[_T | None, BaseException | None]:
        """Run ``fn``: (its result, None), or (None, the allowed exception it raised).

        Any other exception is recorded as a ``foreign-exception`` failure, and comes back
        as (None, None).
        """
        start = time.process_time()
        try:
            return fn(), None
        except allowed as exc:
            return None, exc
        except Exception as exc:
            self.fail("foreign-exception", f"{what}: {type(exc).__name__}: {exc}", origin(exc))
            return None, None
        finally:
            spent = time.process_time() - start
            self.cpu_seconds += spent
            self.slowest = max(self.slowest, (spent, what))

    def check_time(self, bound: float, what: str) -> None:
        """Record a ``slow`` failure when one call took more CPU time than ``bound``."""
        spent, call = self.slowest
        if spent > bound:
            name = call.split("(", 1)[0]
            self.fail(
                "slow", f"{what}: {call} took {spent:.2f} s of CPU, bound {bound:.2f} s", name
            )
