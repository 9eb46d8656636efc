"""Benchmark the class-aware text measure against json.loads of the same text.

Texts of 10 MB, each built here from a fixed seed:
  prose    English words from a small vocabulary, with punctuation and paragraphs
  digits   random decimal digits
  cjk      Chinese characters and kana, no spaces
  base64   the base64 of random bytes, one unbroken run

For each: ``json.loads`` of the text as a JSON string in UTF-8 bytes, as a request
arrives; ``measure_text`` (the full
measure, as ``estimate`` runs it); and the validator's budget rule on a request whose
input is the text, which decides from sizes first and measures only when they cannot.
Each figure is the median of several runs in one process; ratios are to json.loads.

    python benchmarks/bench_budget.py
"""

from __future__ import annotations

import base64
import json
import random
import statistics
import time
from collections.abc import Callable

from decisions_input.budget import check_budget
from decisions_input.limits import GEMINI
from decisions_input.textmeasure import measure_text

SIZE = 10_000_000
RUNS = 7

_WORDS = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "they",
    "you",
    "were",
    "her",
    "she",
    "there",
    "been",
    "one",
    "all",
    "we",
    "their",
    "has",
    "would",
    "when",
    "if",
    "so",
    "no",
    "more",
    "out",
    "up",
    "said",
    "what",
    "its",
    "about",
    "into",
    "them",
    "than",
    "can",
    "only",
    "other",
    "new",
    "some",
    "could",
    "time",
    "these",
    "two",
    "may",
    "then",
    "do",
    "first",
    "any",
    "my",
    "now",
    "such",
    "like",
    "our",
    "over",
    "man",
    "me",
    "even",
    "most",
    "made",
    "after",
    "also",
    "did",
    "many",
    "before",
    "must",
    "through",
    "back",
    "years",
    "where",
    "much",
    "your",
    "way",
    "well",
    "down",
    "should",
    "because",
    "each",
    "just",
    "those",
    "people",
    "how",
    "too",
    "little",
    "state",
    "good",
    "very",
    "make",
    "world",
    "still",
    "own",
    "see",
]
# Common ideographs (the first block of CJK Unified Ideographs) and hiragana.
_CJK = [chr(c) for c in range(0x4E00, 0x5600)] + [chr(c) for c in range(0x3041, 0x3097)]


def prose(size: int) -> str:
    rng = random.Random(1)
    parts: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(_WORDS)
        if rng.random() < 0.05:
            word = word.capitalize()
        if rng.random() < 0.08:
            word += rng.choice(",.;")
        if rng.random() < 0.0125:
            word += ".\n\n"
        parts.append(word)
        length += len(word) + 1
    return " ".join(parts)[:size]


def digits(size: int) -> str:
    return "".join(random.Random(2).choices("0123456789", k=size))


def cjk(size: int) -> str:
    return "".join(random.Random(3).choices(_CJK, k=size // 3))  # 3 UTF-8 bytes each


def base64_run(size: int) -> str:
    data = random.Random(4).randbytes(size * 3 // 4)
    return base64.b64encode(data).decode("ascii")


def median_ms(work: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    print("targets: the measure and the budget rule each under 2x json.loads of the same text")
    print(
        f"{'text':8} {'bytes':>12} {'json.loads':>11} {'measure':>10} {'ratio':>6}  "
        f"{'budget rule':>11} {'ratio':>6}  verdict"
    )
    for name, make in (("prose", prose), ("digits", digits), ("cjk", cjk), ("base64", base64_run)):
        text = make(SIZE)
        doc = json.dumps(text, ensure_ascii=False).encode("utf-8")  # as a request arrives
        body = {
            "model": "gemini-decision-1",
            "input": text,
            "questions": {"q": {"type": "noul", "instructions": "Is it?"}},
        }
        loads = median_ms(lambda doc=doc: json.loads(doc))
        measured = median_ms(lambda text=text: measure_text(text, limits=GEMINI))
        rule = median_ms(lambda body=body: list(check_budget(body, (), GEMINI)))
        verdict = [p.code for p in check_budget(body, (), GEMINI)]
        found = measure_text(text, limits=GEMINI)
        print(
            f"{name:8} {len(text.encode()):>12,} {loads:>9.1f}ms {measured:>8.1f}ms "
            f"{measured / loads:>5.2f}x  {rule:>9.1f}ms {rule / loads:>5.2f}x  "
            f"{','.join(verdict) or 'fits'} ({found.low:,} to {found.high:,})"
        )


if __name__ == "__main__":
    main()
