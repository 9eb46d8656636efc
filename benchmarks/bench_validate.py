"""Benchmark the pre-flight validator against json.loads of the same body.

Workloads:
  W1  typical: 20 questions (a third of each type), a short text input
  W2  maximal: the most questions the target allows, a third of each type, choice
      questions with the most options of the longest IDs, score questions with the
      most levels
  W4  1,000 W1-sized requests validated one after another

Each figure is the median of several runs of ``iter_problems`` on the parsed body, divided
by the median of ``json.loads`` on the canonical text of the same body, in the same run.

    python benchmarks/bench_validate.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import decisions_input as di
from decisions_input.limits import GEMINI


def w1_body(seed: int = 0) -> dict[str, object]:
    questions: dict[str, object] = {}
    for i in range(20):
        key = f"q{seed}_{i}"
        if i % 3 == 0:
            questions[key] = {"type": "noul", "instructions": f"Is statement {i} true?"}
        elif i % 3 == 1:
            questions[key] = {
                "type": "choice",
                "instructions": f"Which team owns item {i}?",
                "criteria": {"billing": "Payments.", "technical": "", "shipping": "", "other": ""},
            }
        else:
            questions[key] = {
                "type": "score",
                "instructions": f"How severe is item {i}?",
                "criteria": ["Cosmetic", "Workaround exists", "Blocked"],
            }
    return {
        "model": "gemini-decision-1",
        "input": "I was charged twice for my order and the refund has not arrived.",
        "questions": questions,
    }


def w2_body() -> dict[str, object]:
    lim = GEMINI
    questions: dict[str, object] = {}
    ids = [f"{i:03d}" + "x" * (lim.MAX_OPTION_ID_CHARS - 3) for i in range(lim.MAX_OPTIONS)]
    levels = [
        f"Level {i}: described in a sentence of moderate length." for i in range(lim.MAX_LEVELS)
    ]
    for i in range(lim.MAX_QUESTIONS):
        key = f"q{i:04d}"
        if i % 3 == 0:
            questions[key] = {"type": "noul", "instructions": f"Is statement {i} true?"}
        elif i % 3 == 1:
            questions[key] = {
                "type": "choice",
                "instructions": f"Which option fits item {i}?",
                "criteria": dict.fromkeys(ids, ""),
            }
        else:
            questions[key] = {
                "type": "score",
                "instructions": f"How severe is item {i}?",
                "criteria": levels,
            }
    return {"model": "gemini-decision-1", "input": "A short shared input.", "questions": questions}


def _median(fn: Callable[[], object], repeat: int, number: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return statistics.median(times)


def _validate(body: object) -> None:
    # W2 is over the context window by design (it is the largest body the structural limits
    # allow); the budget rule still runs and is timed, its finding is expected.
    for problem in di.iter_problems(body):
        if problem.is_error and problem.code != "budget.exceeded":
            raise SystemExit(f"benchmark body is not valid: {problem}")


def _jsonschema(body: object) -> None:
    from decisions_input import schemas

    for _ in schemas.validator("gemini", "DecisionRequest").iter_errors(body):
        pass


def ratio(
    name: str, bodies: list[dict[str, object]], repeat: int, number: int, schema: bool = True
) -> dict[str, float]:
    texts = [json.dumps(b) for b in bodies]
    loads = _median(lambda: [json.loads(t) for t in texts], repeat, number)
    check = _median(lambda: [_validate(b) for b in bodies], repeat, number)
    reference = (
        _median(lambda: [_jsonschema(b) for b in bodies], 3, max(1, number // 10))
        if schema
        else float("nan")
    )
    return {
        "workload": name,  # type: ignore[dict-item]
        "bytes": sum(map(len, texts)),
        "json_loads_s": loads,
        "iter_problems_s": check,
        "ratio": check / loads,
        "jsonschema_ratio": reference / loads,
    }


def import_time() -> float:
    code = (
        "import time; t = time.perf_counter(); from decisions_input import iter_problems; "
        "print(time.perf_counter() - t)"
    )
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(5)
    ]
    return statistics.median(runs)


def main() -> None:
    rows = [
        ratio("W1 typical", [w1_body()], repeat=7, number=200),
        ratio("W2 maximal", [w2_body()], repeat=5, number=1),
        ratio("W4 1000 x W1", [w1_body(i) for i in range(1000)], 5, 1, schema=False),
    ]
    print(
        f"{'workload':<14} {'body bytes':>12} {'json.loads':>12} {'iter_problems':>14} "
        f"{'ratio':>7} {'jsonschema':>11}"
    )
    for r in rows:
        print(
            f"{r['workload']:<14} {r['bytes']:>12,} {r['json_loads_s'] * 1e3:>10.3f}ms "
            f"{r['iter_problems_s'] * 1e3:>12.3f}ms {r['ratio']:>6.2f}x "
            + (
                f"{r['jsonschema_ratio']:>10.0f}x"
                if r["jsonschema_ratio"] == r["jsonschema_ratio"]
                else f"{'-':>11}"
            )
        )
    print(
        f"from decisions_input import iter_problems: {import_time() * 1e3:.1f} ms "
        "(median of 5 fresh interpreters)"
    )


if __name__ == "__main__":
    main()
