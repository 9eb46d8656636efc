"""Benchmark checking many request files: one process, ``validate --jobs 2``, and Dask.

Workloads, written to a temporary folder:
  S  2,000 small request files (20 questions each, about 2.4 kB)
  L  40 request files with about 2 MB of inline media each (a WAV file, base64)

Each figure is bodies (files) per second, the median of three runs, for:
  one process   ``decisions-input validate --jobs 1 --format json FILES`` (through ``main``)
  --jobs 2      the same with two worker processes
  Dask          the README's "Many requests" recipe (``check_on_dask``) on a
                ``distributed.LocalCluster`` of two single-threaded worker processes,
                started beforehand (its start-up is printed apart)
  Dask threads  the same recipe on two in-process worker threads (``processes=False``)

Beside each Dask figure, the time of the same bag mapping ``len`` over the names instead:
what the engine costs before any checking.

The load average of the machine is printed before and after: the figures only mean
something beside it.

    python benchmarks/bench_many.py
"""

from __future__ import annotations

import base64
import functools
import importlib
import io
import json
import os
import re
import statistics
import sys
import tempfile
import time
import wave
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_validate import w1_body  # noqa: E402

from decisions_input.cli import main  # noqa: E402

REPEAT = 3


def _wav(seconds: float) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16_000)
        w.writeframes(bytes(range(256)) * int(seconds * 16_000 * 2 / 256))
    return out.getvalue()


def _write(folder: Path, count: int, body: Callable[[int], dict[str, object]]) -> list[str]:
    folder.mkdir()
    names = []
    for i in range(count):
        path = folder / f"r{i:05d}.json"
        path.write_text(json.dumps(body(i), ensure_ascii=False))
        names.append(str(path))
    return names


def _large(i: int) -> dict[str, object]:
    data = base64.b64encode(_LARGE_WAV).decode()
    return {
        "model": "gemini-decision-1",
        "input": [
            {"type": "text", "text": f"Recording {i}."},
            {"type": "audio", "mime_type": "audio/wav", "data": data},
        ],
        "questions": {"q": {"type": "noul", "instructions": "Is a fault described?"}},
    }


_LARGE_WAV = _wav(46.0)  # about 1.5 MB, 2 MB as base64


def _recipe(folder: Path) -> object:
    readme = (ROOT / "README.md").read_text()
    section = re.search(r"\n## Many requests\n.*?(?=\n## )", readme, re.S)
    assert section is not None
    (code,) = re.findall(r"```python\n(.*?)```", section.group(), re.S)
    (folder / "check_files.py").write_text(code)
    sys.path.insert(0, str(folder))
    return importlib.import_module("check_files")


def _cli(files: list[str], jobs: int) -> int:
    out, err = io.StringIO(), io.StringIO()
    argv = ["validate", "--jobs", str(jobs), "--format", "json", *files]
    status = main(argv, stdout=out, stderr=err)
    assert status in (0, 1), err.getvalue()
    return len(json.loads(out.getvalue())["problems"])


def _rate(files: list[str], run: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return len(files) / statistics.median(times)


def _engine_only(files: list[str], client: object) -> object:
    """The recipe's bag with a task that does nothing: what the engine itself costs."""
    import dask.bag as db

    bag = db.from_sequence(files, npartitions=max(1, min(len(files), 64)))
    return bag.map(len).compute(scheduler=client)


def _load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main_bench() -> None:
    from distributed import Client, LocalCluster

    print(f"cores: {os.cpu_count()}; load average (1, 5, 15 min) before: {_load()}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        recipe = _recipe(root)
        workloads = {
            "S 2000 small": _write(root / "s", 2000, lambda i: w1_body(i)),
            "L 40 x 2 MB": _write(root / "l", 40, _large),
        }
        rates: dict[str, dict[str, float]] = {name: {} for name in workloads}
        for name, files in workloads.items():
            rates[name]["one process"] = _rate(files, functools.partial(_cli, files, 1))
            rates[name]["--jobs 2"] = _rate(files, functools.partial(_cli, files, 2))
        for label, processes in (("Dask", True), ("Dask threads", False)):
            start = time.perf_counter()
            with (
                LocalCluster(
                    n_workers=2, threads_per_worker=1, processes=processes, dashboard_address=None
                ) as cluster,
                Client(cluster) as client,
            ):
                print(f"{label}: cluster start {time.perf_counter() - start:.2f} s")
                check = recipe.check_on_dask  # type: ignore[attr-defined]
                for name, files in workloads.items():
                    rates[name][label] = _rate(files, functools.partial(check, files, client))
                    idle = _rate(files, functools.partial(_engine_only, files, client))
                    ms = 1000 * len(files) / idle
                    print(f"  {name}: the same bag mapping len(): {ms:.0f} ms")
    columns = ["one process", "--jobs 2", "Dask", "Dask threads"]
    print(f"{'workload':<14}" + "".join(f"{c:>14}" for c in columns) + "   bodies/s")
    for name, row in rates.items():
        print(f"{name:<14}" + "".join(f"{row[c]:>14,.0f}" for c in columns))
    print(f"load average after: {_load()}")


if __name__ == "__main__":
    main_bench()
