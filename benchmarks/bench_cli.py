"""Start-up cost of the command line: ``decisions-input --help`` against ``python -c pass``.

Each figure is the median wall time of fresh interpreters started one after another, so it
counts what a user waits for: the interpreter, the imports and the output. Compiled
bytecode is allowed (a warm-up run writes it, as installing a wheel does), so the figures
do not include compiling the sources.

    python benchmarks/bench_cli.py [RUNS]
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time

CASES = (
    ("python -c pass", [sys.executable, "-c", "pass"]),
    ("import decisions_input", [sys.executable, "-c", "import decisions_input"]),
    (
        "from decisions_input import iter_problems",
        [sys.executable, "-c", "from decisions_input import iter_problems"],
    ),
    ("decisions-input --help", None),
    ("decisions-input rules --help", None),
)


def command() -> list[str]:
    """The installed console script, or ``python -m decisions_input`` without one."""
    script = shutil.which("decisions-input")
    return [script] if script else [sys.executable, "-m", "decisions_input"]


def median_ms(argv: list[str], runs: int, env: dict[str, str]) -> float:
    subprocess.run(argv, capture_output=True, env=env, check=True)  # warm-up: writes bytecode
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, env=env, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 31
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base = None
    print(f"{'command':<44}{'median':>10}{'over pass':>12}")
    for name, argv in CASES:
        if argv is None:
            argv = [*command(), *name.split()[1:]]
        ms = median_ms(argv, runs, env)
        base = ms if base is None else base
        print(f"{name:<44}{ms:>8.1f}ms{ms - base:>10.1f}ms")
    print(f"(median of {runs} fresh interpreters each)")


if __name__ == "__main__":
    main()
