"""Benchmark the pre-flight validator: every workload as a ratio to its baseline, in one run.

Rows (a body is validated by ``iter_problems`` as a mapping, as ``str`` and as ``bytes``):

  W1             typical: 20 questions (a third of each type), a short text input
  W2             maximal: the most questions the target allows, a third of each type;
                 choice questions with the most options, each ID of the most characters,
                 random letters and digits in both cases; score questions with the most
                 levels (W2 is over the context window by design: its budget.exceeded is
                 expected and timed)
  W4             1,000 W1-sized requests validated one after another
  text N MB      a request whose input is N MB of text, ASCII or non-ASCII (accents,
                 Greek, Cyrillic, CJK), to show one cost curve for both
  base64 20 MB   20 MB of inline base64 audio (a WAVE file)
  11/10 levels   a body of one score question with 11 levels against one with 10 (no
                 step at the recommended count); 17/16 options likewise

Baselines: a mapping and ``str`` against ``json.loads`` of the same text, ``bytes`` against
``json.loads`` of the same bytes; the base64 mapping against pybase64's validating decoder
on the same base64 text; 11/10 and 17/16 against the same form with 10 levels or 16
options. Each figure is a median of interleaved rounds of CPU time (``time.process_time``),
so that other work on the machine weighs little. Then, as wall time: ``decisions-input
--help`` over ``python -c pass`` (fresh interpreters), importing ``iter_problems``, and
sniffing a PDF against libmagic naming the same bytes.

    python benchmarks/bench_validate.py [--quick]
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import random
import shutil
import statistics
import subprocess
import sys
import time
import wave
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import decisions_input as di
from decisions_input.limits import GEMINI

ROOT = Path(__file__).resolve().parent.parent
PDF = ROOT / "testdata" / "media" / "pdf_pypdf_three_pages.pdf"
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
NON_ASCII = "Größe café Ελληνικά Кириллица 中文字符 "


# --- bodies ---------------------------------------------------------------------------------


def w1_body(seed: int = 0) -> dict[str, Any]:
    questions: dict[str, Any] = {}
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


def w2_body() -> dict[str, Any]:
    lim, rng = GEMINI, random.Random(2)
    levels = [f"Level {i}: described in a sentence of moderate length." for i in range(255)]
    questions: dict[str, Any] = {}
    for i in range(lim.MAX_QUESTIONS):
        key = f"q{i:04d}"
        if i % 3 == 0:
            questions[key] = {"type": "noul", "instructions": f"Is statement {i} true?"}
        elif i % 3 == 1:
            ids = (
                "".join(rng.choices(ALNUM, k=lim.MAX_OPTION_ID_CHARS))
                for _ in range(lim.MAX_OPTIONS)
            )
            questions[key] = {
                "type": "choice",
                "instructions": f"Which option fits item {i}?",
                "criteria": dict.fromkeys(ids, ""),
            }
        else:
            questions[key] = {
                "type": "score",
                "instructions": f"How severe is item {i}?",
                "criteria": levels[: lim.MAX_LEVELS],
            }
    return {"model": "gemini-decision-1", "input": "A short shared input.", "questions": questions}


def text_body(chars: int, alphabet: str) -> dict[str, Any]:
    text = (alphabet * (chars // len(alphabet) + 1))[:chars]
    questions = {"q": {"type": "noul", "instructions": "Is the customer asking for a refund?"}}
    return {"model": "gemini-decision-1", "input": text, "questions": questions}


def audio_body(size: int) -> tuple[dict[str, Any], str]:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(random.Random(3).randbytes(size // 2 * 2))
    data = base64.b64encode(buffer.getvalue()).decode()
    block = {"type": "audio", "mime_type": "audio/wav", "data": data}
    questions = {"q": {"type": "noul", "instructions": "Is someone speaking?"}}
    roomy = {"model": "gemini-decision-1", "input": [block], "questions": questions}
    return roomy, data


def one_question(question: dict[str, Any]) -> dict[str, Any]:
    return {"model": "gemini-decision-1", "input": "A short input.", "questions": {"q": question}}


def score_body(levels: int) -> dict[str, Any]:
    criteria = [f"Level {i}" for i in range(levels)]
    return one_question({"type": "score", "instructions": "How severe?", "criteria": criteria})


def choice_body(options: int) -> dict[str, Any]:
    criteria = {f"option_{i}": "" for i in range(options)}
    return one_question({"type": "choice", "instructions": "Which one?", "criteria": criteria})


# --- measuring ------------------------------------------------------------------------------


def medians(fns: Mapping[str, Callable[[], object]], number: int, rounds: int) -> dict[str, float]:
    """Median CPU seconds per call of each function, measured in interleaved rounds."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            start = time.process_time()
            for _ in range(number):
                fn()
            times[name].append((time.process_time() - start) / number)
    return {name: statistics.median(found) for name, found in times.items()}


def validate(body: object) -> None:
    for problem in di.iter_problems(body):
        if problem.is_error and problem.code != "budget.exceeded":
            raise SystemExit(f"benchmark body is not valid: {problem}")


def forms(body: dict[str, Any], number: int, rounds: int) -> dict[str, float]:
    """Ratios of the three forms of ``body`` to json.loads of its text and bytes."""
    text = json.dumps(body, ensure_ascii=False)
    raw = text.encode()
    found = medians(
        {
            "loads": lambda: json.loads(text),
            "loads_bytes": lambda: json.loads(raw),
            "mapping": lambda: validate(body),
            "str": lambda: validate(text),
            "bytes": lambda: validate(raw),
        },
        number,
        rounds,
    )
    return {
        "mapping": found["mapping"] / found["loads"],
        "str": found["str"] / found["loads"],
        "bytes": found["bytes"] / found["loads_bytes"],
        "bytes_of_text": len(raw),
    }


def step(small: dict[str, Any], large: dict[str, Any], number: int) -> dict[str, float]:
    """Ratios of validating ``large`` to validating ``small``, in each form."""
    found: dict[str, float] = {}
    for form, convert in (("mapping", _same), ("str", json.dumps), ("bytes", _utf8)):
        pair = {
            name: partial(validate, convert(body))
            for name, body in (("small", small), ("large", large))
        }
        times = medians(pair, number, 15)
        found[form] = times["large"] / times["small"]
    return found


def _same(body: Any) -> Any:
    return body


def _utf8(body: Any) -> bytes:
    return json.dumps(body).encode()


def base64_row(rounds: int) -> dict[str, float]:
    import pybase64

    body, data = audio_body(15_000_000)
    text = json.dumps(body)
    raw = text.encode()
    found = medians(
        {
            "pybase64": lambda: pybase64.b64decode(data, validate=True),
            "loads": lambda: json.loads(text),
            "loads_bytes": lambda: json.loads(raw),
            "mapping": lambda: validate(body),
            "str": lambda: validate(text),
            "bytes": lambda: validate(raw),
        },
        1,
        rounds,
    )
    return {
        "mapping": found["mapping"] / found["pybase64"],
        "str": found["str"] / found["loads"],
        "bytes": found["bytes"] / found["loads_bytes"],
        "bytes_of_text": len(raw),
    }


def wall_ms(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def help_ms(runs: int) -> tuple[float, float]:
    """Median wall time of ``decisions-input --help`` and of ``python -c pass``, interleaved."""
    command = shutil.which("decisions-input")
    argv = [command, "--help"] if command else [sys.executable, "-m", "decisions_input", "--help"]
    ours, base = [], []
    for _ in range(runs):
        ours.append(wall_ms(argv, 1))
        base.append(wall_ms([sys.executable, "-c", "pass"], 1))
    return statistics.median(ours), statistics.median(base)


def import_ms(runs: int) -> float:
    code = (
        "import time; t = time.perf_counter(); from decisions_input import iter_problems; "
        "print(time.perf_counter() - t)"
    )
    found = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return statistics.median(found) * 1e3


def pdf_row(rounds: int) -> float | None:
    """Sniffing a PDF's bytes against libmagic naming them (None without libmagic)."""
    try:
        import magic
    except ImportError:
        return None
    data = PDF.read_bytes()
    found = medians(
        {"ours": lambda: di.sniff(data), "libmagic": lambda: magic.from_buffer(data, mime=True)},
        50,
        rounds,
    )
    return found["ours"] / found["libmagic"]


def jsonschema_ratio(body: dict[str, Any]) -> float:
    from decisions_input import schemas

    validator = schemas.validator("gemini", "DecisionRequest")
    text = json.dumps(body)
    found = medians(
        {"loads": lambda: json.loads(text), "jsonschema": lambda: [*validator.iter_errors(body)]},
        1,
        3,
    )
    return found["jsonschema"] / found["loads"]


# --- the table ------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer rounds, smaller large rows")
    args = parser.parse_args()
    rounds = 5 if args.quick else 11
    big = 5_000_000 if args.quick else 20_000_000
    rows: list[tuple[str, dict[str, float], str]] = [
        ("W1 typical", forms(w1_body(), 200, rounds), "str <= 2.5x"),
        ("W2 maximal", forms(w2_body(), 1, rounds), "str <= 1.8x, mapping <= 1.0x"),
        ("W4 1000 x W1", forms_many([w1_body(i) for i in range(1000)], rounds), ""),
        ("text 1 MB non-ASCII", forms(text_body(1_000_000, NON_ASCII), 20, rounds), "<= 2x"),
        (f"text {big // 10**6} MB ASCII", forms(text_body(big, ALNUM + " "), 1, rounds), ""),
        (f"text {big // 10**6} MB non-ASCII", forms(text_body(big, NON_ASCII), 1, rounds), ""),
        ("base64 20 MB audio", base64_row(rounds), "mapping <= 2x pybase64"),
        ("11 / 10 levels", step(score_body(10), score_body(11), 500), "no step"),
        ("17 / 16 options", step(choice_body(16), choice_body(17), 500), "no step"),
    ]
    print(f"{'row':<24} {'body bytes':>12} {'mapping':>8} {'str':>7} {'bytes':>7}  target")
    for name, found, target in rows:
        size = f"{int(found['bytes_of_text']):,}" if "bytes_of_text" in found else "-"
        print(
            f"{name:<24} {size:>12} {found['mapping']:>7.2f}x {found['str']:>6.2f}x "
            f"{found['bytes']:>6.2f}x  {target}"
        )
    ours, base = help_ms(5 if args.quick else 15)
    print(
        f"decisions-input --help: {ours:.0f} ms; python -c pass: {base:.0f} ms; "
        f"over: {ours - base:.0f} ms (target <= 40 ms)"
    )
    pdf = pdf_row(rounds)
    print(
        "sniff a PDF vs libmagic: " + (f"{pdf:.1f}x (target <= 2x)" if pdf else "libmagic missing")
    )
    print(
        f"from decisions_input import iter_problems: {import_ms(5):.1f} ms "
        "(median of 5 fresh interpreters)"
    )
    if not args.quick:
        w1, w2 = jsonschema_ratio(w1_body()), jsonschema_ratio(w2_body())
        print(
            "jsonschema on the bundled schema (schema rules only), as mappings: "
            f"W1 {w1:.0f}x, W2 {w2:.0f}x json.loads"
        )


def forms_many(bodies: list[dict[str, Any]], rounds: int) -> dict[str, float]:
    texts = [json.dumps(b) for b in bodies]
    raws = [t.encode() for t in texts]
    found = medians(
        {
            "loads": lambda: _each(json.loads, texts),
            "loads_bytes": lambda: _each(json.loads, raws),
            "mapping": lambda: _each(validate, bodies),
            "str": lambda: _each(validate, texts),
            "bytes": lambda: _each(validate, raws),
        },
        1,
        rounds,
    )
    return {
        "mapping": found["mapping"] / found["loads"],
        "str": found["str"] / found["loads"],
        "bytes": found["bytes"] / found["loads_bytes"],
        "bytes_of_text": sum(map(len, raws)),
    }


def _each(fn: Callable[[Any], object], items: list[Any]) -> None:
    for item in items:  # nothing kept: each result is garbage before the next is made
        fn(item)


if __name__ == "__main__":
    main()
