"""Start-up cost of the command line: ``decisions-input --help`` against ``python -c pass``.

Each figure is the median over fresh interpreters started one after another: the wall
time a user waits for (the interpreter, the imports, the output), and the processor time
the process used (user and system), which other work on a shared machine disturbs far
less. Compiled bytecode is allowed (a warm-up run writes it, as installing a wheel does),
so the figures do not include compiling the sources.

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


def median_ms(argv: list[str], runs: int, env: dict[str, str]) -> tuple[float, float]:
    """Median wall and processor milliseconds of ``runs`` fresh processes."""
    subprocess.run(argv, capture_output=True, env=env, check=True)  # warm-up: writes bytecode
    wall, cpu = [], []
    for _ in range(runs):
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall.append(time.perf_counter() - start)
        cpu.append(usage.ru_utime + usage.ru_stime)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{argv} failed")
    return statistics.median(wall) * 1e3, statistics.median(cpu) * 1e3


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 41
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base: tuple[float, float] | None = None
    print(f"{'command':<44}{'wall':>9}{'over pass':>11}{'cpu':>9}{'over pass':>11}")
    for name, argv in CASES:
        if argv is None:
            argv = [*command(), *name.split()[1:]]
        wall, cpu = median_ms(argv, runs, env)
        base = (wall, cpu) if base is None else base
        print(
            f"{name:<44}{wall:>7.1f}ms{wall - base[0]:>9.1f}ms{cpu:>7.1f}ms{cpu - base[1]:>9.1f}ms"
        )
    print(f"(medians of {runs} fresh interpreters each)")
    print("target: decisions-input --help at most 40 ms over python -c pass")


if __name__ == "__main__":
    main()
