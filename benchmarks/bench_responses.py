"""Benchmark reading responses: import costs, and parsing against json.loads of the same body.

Figures:
  import decisions_input             the package alone (the response models are not loaded)
  import decisions_input.responses   the first use of responses: pydantic and the models
  R1  the proxy's example response (three answers), parsed against its request
  R2  a response to the most questions Gemini allows, a third of each type, choice answers
      with 8 options

The last column is the offline estimate of the request alone (decisions_input.budget), which
parsing against a request makes once to check the reported input tokens.

Each parse figure is the median of several runs of ``parse_response`` on the JSON text, and
the ratio is to the median of ``json.loads`` on the same text, in the same run; import
figures are the median of fresh interpreters.

    python benchmarks/bench_responses.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import decisions_input as di
from decisions_input.limits import GEMINI

ROOT = Path(__file__).parent.parent


def import_time(module: str, runs: int = 7) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return statistics.median(times)


def r2_bodies() -> tuple[bytes, bytes]:
    """A request with the most questions Gemini allows, and a consistent response to it."""
    questions: dict[str, object] = {}
    answers: dict[str, object] = {}
    options = [f"option_{i}" for i in range(8)]
    for i in range(GEMINI.MAX_QUESTIONS):
        key = f"q{i}"
        if i % 3 == 0:
            questions[key] = {"type": "noul", "instructions": "Is it true?"}
            answers[key] = {"type": "noul", "noul": 0.8, "confidence": 0.8}
        elif i % 3 == 1:
            questions[key] = {"type": "choice", "instructions": "Which?", "criteria": options}
            probabilities = dict.fromkeys(options, 0.1) | {"option_0": 0.3}
            answers[key] = {
                "type": "choice",
                "choice": "option_0",
                "probabilities": probabilities,
                "confidence": 0.3,
            }
        else:
            levels = ["Low", "Medium", "High"]
            questions[key] = {"type": "score", "instructions": "How much?", "criteria": levels}
            answers[key] = {
                "type": "score",
                "score": 1.1,
                "probabilities": {"0": 0.2, "1": 0.5, "2": 0.3},
                "legend": {str(n): text for n, text in enumerate(levels)},
                "confidence": 0.5,
            }
    request = {"model": "gemini-decision-1", "input": "text", "questions": questions}
    bounds = di.estimate(request).total
    tokens = (bounds.low + bounds.high) // 2  # a count the estimate of the request allows
    response = {"answers": answers, "usage": {"total_input_tokens": tokens, "total_tokens": tokens}}
    return json.dumps(request).encode(), json.dumps(response).encode()


def median_time(run: object, repeat: int, number: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            run()  # type: ignore[operator]
        times.append((time.perf_counter() - start) / number)
    return statistics.median(times)


def row(name: str, request: bytes, response: bytes, repeat: int, number: int) -> str:
    parsed = di.parse_response(response, request=request)  # warm up, and check it parses
    assert not parsed.warnings
    loads = median_time(lambda: json.loads(response), repeat, number)
    parse = median_time(lambda: di.parse_response(response, request=request), repeat, number)
    to_dict = median_time(parsed.to_dict, repeat, number)
    estimate = median_time(lambda: di.estimate(request), repeat, number)
    return (
        f"{name:<12} {len(response):>10,} {loads * 1e3:>10.3f}ms {parse * 1e3:>12.3f}ms "
        f"{parse / loads:>7.1f}x {to_dict * 1e3:>10.3f}ms {estimate * 1e3:>10.3f}ms"
    )


def main() -> None:
    print(f"import decisions_input: {import_time('decisions_input') * 1e3:.1f} ms")
    first = import_time("decisions_input.responses")
    print(f"import decisions_input.responses: {first * 1e3:.1f} ms (median of 7 interpreters)")
    head = f"{'workload':<12} {'bytes':>10} {'json.loads':>12} {'parse':>14} {'ratio':>8}"
    print(f"{head} {'to_dict':>12} {'estimate':>12}")
    r1_request = (ROOT / "testdata" / "requests" / "gemini-multiple.json").read_bytes()
    r1_response = (ROOT / "testdata" / "responses" / "gemini-multiple.json").read_bytes()
    print(row("R1 example", r1_request, r1_response, repeat=7, number=200))
    print(row("R2 maximal", *r2_bodies(), repeat=5, number=3))


if __name__ == "__main__":
    main()
