"""Fuzz the sniffer with mutations of the real fixtures, for minutes rather than seconds.

    python benchmarks/fuzz_media.py [--seconds 300] [--seed 1] [--out DIR]

Each round takes a fixture from ``testdata/media/`` (and the larger files made by
``tests/long_media.py``), overwrites, cuts, inserts or repeats a few bytes, and sniffs the
result, whole and as a partial head. A result is a defect when sniffing raises anything
but the library's own errors, refuses with ``internal.error``, or breaks an invariant of
``Detected``. Every defect is written to ``--out`` (one file per distinct place it came
from) and listed at the end; the exit status is 1 when there was any. The suite's
hypothesis properties run the same mutations with a small budget; a defect found here
goes into the suite as a regression case.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from decisions_input import GEMINI, RULES  # noqa: E402
from decisions_input.errors import DecisionsInputError  # noqa: E402
from decisions_input.sniffing import Detected, sniff_bytes  # noqa: E402
from tests.long_media import long_files  # noqa: E402

_WORDS = (b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\x00\x00\x00\x01", b"\x7f\xff\xff\xff")


def mutate(data: bytes, rng: random.Random) -> bytes:
    """Overwrite, cut, insert or repeat a few bytes of ``data``."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        at = rng.randrange(max(1, len(out)))
        action = rng.choice(("set", "set", "cut", "insert", "word", "repeat"))
        if action == "set" and out:
            out[at] = rng.randrange(256)
        elif action == "cut":
            del out[at:]
        elif action == "insert":
            out[at:at] = rng.randbytes(rng.randint(1, 32))
        elif action == "word":
            out[at : at + 4] = rng.choice(_WORDS)
        elif action == "repeat" and out:
            piece = out[at : at + rng.randint(1, 512)]
            out[at:at] = piece * rng.randint(1, 8)
    return bytes(out)


def problem(det: Detected) -> str | None:
    """Say what is wrong with a verdict, or None."""
    if (det.mime is None) == (det.code is None):
        return "mime and code both set or both unset"
    if det.code is not None and det.code not in RULES:
        return f"unknown code {det.code}"
    if det.code == "internal.error":
        return det.reason
    if det.mime is not None and det.mime not in GEMINI.MIME_TYPES.get(str(det.kind), ()):
        return f"{det.mime} is not a {det.kind} type"
    if any(w.code not in RULES for w in det.warnings):
        return "unknown warning code"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("fuzz-defects"))
    args = parser.parse_args(argv)
    seeds = [p.read_bytes() for p in sorted((ROOT / "testdata" / "media").iterdir())]
    seeds = [s for s in seeds if s]
    longs = [data for _, data in long_files()]
    rng = random.Random(args.seed)
    found: dict[str, bytes] = {}
    rounds, stop = 0, time.monotonic() + args.seconds
    while time.monotonic() < stop:
        data = mutate(rng.choice(longs if rng.random() < 0.02 else seeds), rng)
        partial = rng.random() < 0.2
        rounds += 1
        try:
            why = problem(sniff_bytes(data, partial=partial))
        except DecisionsInputError:
            continue
        except Exception:  # a foreign error escaped: the defect is where it came from
            why = traceback.format_exc().strip().splitlines()[-3].strip()
        if why is not None:
            key = why.split(";")[0][:160]
            found.setdefault(key, data)
    args.out.mkdir(exist_ok=True)
    for key, data in found.items():
        name = hashlib.sha256(key.encode()).hexdigest()[:12] + ".bin"
        (args.out / name).write_bytes(data)
        print(f"{name}: {key}")
    print(f"{rounds} files in {args.seconds:.0f} s, {len(found)} distinct defects")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
