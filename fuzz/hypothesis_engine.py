"""Running a hypothesis strategy under a time budget, shrinking each new failure.

Hypothesis has no time budget of its own, so the engine runs it in seeded batches of
:data:`BATCH` examples until the time is up. Within a batch, the first failure not seen
before is shrunk by hypothesis; the smallest case that still fails the same way is saved.
Shrinking is bounded in time too: past :data:`SHRINK_SECONDS` no new candidate is
accepted, and the best one so far is kept.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st

from fuzz.cases import Case
from fuzz.probe import Failure

if TYPE_CHECKING:
    from fuzz.run import Session

__all__ = ["BATCH", "SHRINK_SECONDS", "HypothesisEngine"]

BATCH = 40
SHRINK_SECONDS = 60.0

_SETTINGS = settings(
    max_examples=BATCH,
    database=None,
    deadline=None,
    derandomize=False,
    phases=(Phase.generate, Phase.shrink),
    report_multiple_bugs=False,
    suppress_health_check=list(HealthCheck),
    verbosity=Verbosity.quiet,
)


class _Found(Exception):
    """Raised inside a hypothesis run to say: this example fails the property."""


class HypothesisEngine:
    """Seeded batches of one strategy, for one target of a session."""

    def __init__(
        self,
        session: Session,
        target: str,
        strategy: st.SearchStrategy[Any],
        to_case: Callable[[Any], Case],
        run_seed: int,
    ) -> None:
        self.session = session
        self.target = target
        self.strategy = strategy
        self.to_case = to_case
        self.run_seed = run_seed
        self.batch = 0

    def run_until(self, until: float) -> None:
        """Run batches until the wall clock passes ``until`` (a batch is not cut short)."""
        while time.monotonic() < until:
            self._run_batch()
            self.batch += 1

    def _run_batch(self) -> None:
        state: dict[str, Any] = {}

        @_SETTINGS
        @seed(self.run_seed * 1_000_003 + self.batch)
        @given(self.strategy)
        def run(drawn: Any) -> None:
            case = self.to_case(drawn)
            self.session.tried[f"{self.target} hypothesis"] += 1
            failures = self._failures(case, state)
            if failures:
                state.setdefault("since", time.monotonic())
                state["case"], state["failure"] = case, failures[0]
                raise _Found

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # hypothesis's notes on large examples
                run()
        except _Found:
            pass
        except Exception as exc:  # hypothesis's own complaints (flaky, unsatisfiable)
            if "case" not in state:
                self.session.say(f"note: {self.target} batch {self.batch}: {type(exc).__name__}")
        if "case" in state:
            self.session.record(state["failure"], state["case"])

    def _failures(self, case: Case, state: dict[str, Any]) -> list[Failure]:
        if "failure" in state:
            best: Case = state["case"]
            shrinking_too_long = time.monotonic() - state["since"] > SHRINK_SECONDS
            if shrinking_too_long and case != best:
                return []
            wanted = state["failure"].signature
            return [f for f in self.session.check(case) if f.signature == wanted]
        return self.session.unseen(self.session.check(case))
