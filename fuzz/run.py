"""The fuzz runner: ``python -m fuzz [--target T] [--seconds N] [--seed S] [--out DIR]``.

Each target runs for ``--seconds`` of wall time, with the engines it has taking turns:
hypothesis (structured bodies and builder calls, shrunk on failure) and the byte mutator
(over the corpus of :mod:`fuzz.corpus`, minimised on failure). Every failure of a property
not seen before in the run is shrunk, saved as a case file under ``--out`` and printed with
the command that replays it. Failures that match an open finding kept in ``fuzz/findings/``
are counted, not reported again.

The exit status is 0 when nothing new was found, 1 otherwise, 2 for a usage error.
``python -m fuzz --replay FILE...`` checks saved cases again.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from fuzz.cases import TARGETS, Case, iter_cases, load_case, save_case
from fuzz.hypothesis_engine import HypothesisEngine
from fuzz.mutate import minimize
from fuzz.probe import Failure
from fuzz.properties import check_case
from fuzz.sources import hypothesis_source, mutation_source

__all__ = ["FINDINGS", "SEEDS", "Session", "main", "run_target"]

ROOT = Path(__file__).resolve().parent.parent
FINDINGS = ROOT / "fuzz" / "findings"
SEEDS = ROOT / "tests" / "fuzz_seeds"
DEFAULT_OUT = ROOT / "fuzz" / "out"

# Wall time one engine runs before the next takes its turn.
_SLICE_SECONDS = 5.0
# Wall time spent shrinking one failure found by the mutator.
_MINIMIZE_SECONDS = 30.0


@dataclass
class Session:
    """What one run has tried and found, and where it writes."""

    out: Path
    workdir: Path
    stream: TextIO
    known: dict[tuple[str, str], Path] = field(default_factory=dict)
    tried: Counter[str] = field(default_factory=Counter)
    new: dict[tuple[str, str], tuple[Failure, Path]] = field(default_factory=dict)
    again: Counter[tuple[str, str]] = field(default_factory=Counter)

    def say(self, line: str) -> None:
        """Print one line of the run's report."""
        self.stream.write(line + "\n")
        self.stream.flush()

    def check(self, case: Case) -> list[Failure]:
        """Check a case; a failure of the harness itself is reported as one too."""
        try:
            return check_case(case, self.workdir)
        except Exception as exc:  # the harness's own defect: say so, and keep going
            return [Failure("harness-error", f"{type(exc).__name__}: {exc}", type(exc).__name__)]

    def unseen(self, failures: Iterable[Failure]) -> list[Failure]:
        """The failures whose kind this run has not reported yet (known ones are counted)."""
        found: dict[tuple[str, str], Failure] = {}
        for failure in failures:
            if failure.signature in self.known or failure.signature in self.new:
                self.again[failure.signature] += 1
            else:
                found.setdefault(failure.signature, failure)
        return list(found.values())

    def record(self, failure: Failure, case: Case) -> None:
        """Save the (shrunk) case of a new failure and print how to replay it."""
        path = save_case(case, self.out)
        self.new[failure.signature] = (failure, path)
        self.say(f"FAIL {case.target}: {failure}")
        self.say(f"     saved {path} ({len(case.data):,} bytes)")
        self.say(f"     replay: python -m fuzz --replay {path}")


def _same(failure: Failure) -> Callable[[list[Failure]], bool]:
    return lambda found: any(f.signature == failure.signature for f in found)


def _run_mutation(session: Session, next_case: Callable[[], Case], until: float) -> None:
    while time.monotonic() < until:
        case = next_case()
        session.tried[f"{case.target} mutation"] += 1
        for failure in session.unseen(session.check(case)):
            same = _same(failure)
            data = _minimize(session, case, same)
            session.record(failure, dataclasses.replace(case, data=data))


def _minimize(session: Session, case: Case, same: Callable[[list[Failure]], bool]) -> bytes:
    def fails(data: bytes) -> bool:
        return same(session.check(dataclasses.replace(case, data=data)))

    return minimize(case.data, fails, max_seconds=_MINIMIZE_SECONDS)


def run_target(session: Session, target: str, seconds: float, seed: int) -> None:
    """Fuzz one target for ``seconds`` of wall time, the engines taking turns."""
    start = time.monotonic()
    deadline = start + seconds
    engines: list[Callable[[float], None]] = []
    generated = hypothesis_source(target)
    if generated is not None:
        engines.append(_hypothesis_engine(session, target, generated, seed))
    mutated = mutation_source(
        target, random.Random(f"{seed}:{target}"), extra=_extra_corpus(target)
    )
    if mutated is not None:
        engines.append(lambda until: _run_mutation(session, mutated, until))
    while time.monotonic() < deadline:
        for engine in engines:
            engine(min(deadline, time.monotonic() + _SLICE_SECONDS))
    counts = {k.split(" ", 1)[1]: v for k, v in session.tried.items() if k.startswith(target + " ")}
    total = sum(counts.values())
    parts = ", ".join(f"{name} {count:,}" for name, count in sorted(counts.items()))
    session.say(f"{target}: {total:,} inputs in {time.monotonic() - start:.0f} s ({parts})")


def _hypothesis_engine(
    session: Session, target: str, source: tuple[Any, Callable[[Any], Case]], seed: int
) -> Callable[[float], None]:
    strategy, to_case = source
    engine = HypothesisEngine(session, target, strategy, to_case, seed)
    return engine.run_until


def _extra_corpus(target: str) -> list[Case]:
    """Saved cases of the target (regression seeds and open findings) join the corpus."""
    cases = []
    for folder in (SEEDS, FINDINGS):
        for path in iter_cases(folder):
            if path.parent.name == target:
                try:
                    cases.append(load_case(path))
                except (OSError, ValueError):
                    continue
    return cases


def learn_known(session: Session, folder: Path) -> None:
    """Replay the open findings; what still fails is known and not reported again."""
    for path in iter_cases(folder):
        failures = session.check(load_case(path))
        if not failures:
            session.say(f"fixed: {path} no longer fails; move it to {SEEDS}/")
        for failure in failures:
            session.known.setdefault(failure.signature, path)


def replay(paths: Sequence[str], stream: TextIO) -> int:
    """Check saved cases again and print their failures; 1 when any fails."""
    status = 0
    with tempfile.TemporaryDirectory(prefix="fuzz-") as folder:
        for name in paths:
            case = load_case(Path(name))
            failures = check_case(case, Path(folder))
            stream.write(f"{name}: {'ok' if not failures else f'{len(failures)} failures'}\n")
            for failure in failures:
                stream.write(f"  {failure}\n")
            status = max(status, 1 if failures else 0)
    return status


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m fuzz", description="Fuzz decisions_input through its public API."
    )
    parser.add_argument("--target", choices=(*TARGETS, "all"), default="all")
    parser.add_argument(
        "--seconds", type=float, default=60.0, help="wall time per target (default 60)"
    )
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=f"where new failures go (default {DEFAULT_OUT})",
    )
    parser.add_argument("--replay", nargs="+", metavar="FILE", help="check saved cases again")
    return parser


def main(argv: Sequence[str] | None = None, stream: TextIO | None = None) -> int:
    """Run the harness; return 0 when nothing new was found, 1 otherwise."""
    args = _parser().parse_args(argv)
    out_stream = stream if stream is not None else sys.stdout
    if args.replay:
        return replay(args.replay, out_stream)
    targets = list(TARGETS) if args.target == "all" else [args.target]
    with tempfile.TemporaryDirectory(prefix="fuzz-") as folder:
        session = Session(args.out, Path(folder), out_stream)
        session.say(
            f"fuzz: targets {', '.join(targets)}; {args.seconds:g} s each; seed {args.seed}; "
            f"new failures go to {args.out}"
        )
        learn_known(session, FINDINGS)
        session.say(f"open findings in {FINDINGS}: {len(set(session.known.values()))}")
        for target in targets:
            run_target(session, target, args.seconds, args.seed)
    return _summary(session)


def _summary(session: Session) -> int:
    total = sum(session.tried.values())
    session.say(f"total: {total:,} inputs; {len(session.new)} new failures")
    for signature, count in sorted(session.again.items()):
        where = session.known.get(signature) or session.new[signature][1]
        session.say(f"  seen again {count:,} times: {signature[0]} [{signature[1]}] ({where})")
    return 1 if session.new else 0
