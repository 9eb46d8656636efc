"""Benchmark ``estimate --against``: what comparing with responses adds to the estimate.

Figures, each the median of several runs in one process:
  estimate            ``estimate FOLDER --format json`` on N request files
  estimate --against  the same requests against their N responses (read, checked against
                      the request's questions, compared)
  compare_usage       the comparison alone, per pair, on an estimate already made
  pairing             pairing 10,000 requests with 10,000 responses by name

The N pairs are copies of the three example pairs (the seeds' multiple-question request and
Parallel's live example, and the README's ticket with its image), under names that pair.

    python benchmarks/bench_against.py
"""

from __future__ import annotations

import io
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import decisions_input as di
from decisions_input.cli import main
from decisions_input.cli.pairing import pair_by_name

ROOT = Path(__file__).parent.parent
PAIRS = ("gemini-multiple.json", "parallel-basic.json", "ticket.json")
COPIES = 100


def median_seconds(work: Callable[[], object], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def make_pairs(folder: Path) -> int:
    (folder / "requests").mkdir()
    (folder / "responses").mkdir()
    for i in range(COPIES):
        for name in PAIRS:
            stem = name.removesuffix(".json")
            shutil.copy(ROOT / "testdata/requests" / name, folder / f"requests/{stem}-{i}.json")
            shutil.copy(ROOT / "testdata/responses" / name, folder / f"responses/{stem}-{i}.json")
    return COPIES * len(PAIRS)


def command(*argv: str) -> Callable[[], object]:
    def run() -> None:
        status = main(list(argv), stdout=io.StringIO(), stderr=io.StringIO())
        assert status == 0, status

    return run


def compare_alone() -> float:
    estimates = []
    for name in PAIRS:
        body = json.loads((ROOT / "testdata/requests" / name).read_text())
        usage = json.loads((ROOT / "testdata/responses" / name).read_text())["usage"]
        total = usage.get("total_input_tokens", usage.get("input_tokens"))
        breakdown = [
            (m["modality"], m["tokens"]) for m in usage.get("input_tokens_by_modality", [])
        ]
        estimates.append((di.estimate(body), total, breakdown))

    def work() -> None:
        for _ in range(1000):
            for found, total, breakdown in estimates:
                di.compare_usage(found, input_tokens=total, by_modality=breakdown)

    return median_seconds(work) / (1000 * len(estimates))


def pairing_alone(count: int = 10_000) -> float:
    requests = [f"requests/order-{i}.json" for i in range(count)]
    responses = [f"responses/order-{i}.2024-06-01.json" for i in reversed(range(count))]
    return median_seconds(lambda: pair_by_name(requests, responses))


def main_bench() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        n = make_pairs(folder)
        requests, responses = str(folder / "requests"), str(folder / "responses")
        plain = median_seconds(command("estimate", requests, "--format", "json"))
        against = median_seconds(
            command("estimate", requests, "--against", responses, "--format", "json")
        )
    print(f"{n} pairs (copies of {', '.join(PAIRS)})")
    print(f"estimate            {plain * 1000:8.1f} ms  {plain / n * 1000:6.3f} ms a request")
    print(f"estimate --against  {against * 1000:8.1f} ms  {against / n * 1000:6.3f} ms a pair")
    print(f"compare_usage       {compare_alone() * 1e6:8.1f} us a pair")
    print(f"pairing 10,000      {pairing_alone() * 1000:8.1f} ms")


if __name__ == "__main__":
    main_bench()
