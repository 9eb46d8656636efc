"""Many requests: threads, worker processes and a Dask cluster give what one process gives.

The README's "Many requests" recipe runs here as the module it is written as, on worker
processes and on a real Dask cluster (in-process workers), and finds the same problems at
the same places as ``decisions-input validate --jobs 2 --format json``.
"""

from __future__ import annotations

import base64
import importlib
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from decisions_input.cli import main

ROOT = Path(__file__).parent.parent
MEDIA = ROOT / "testdata" / "media"
REQUESTS = ROOT / "testdata" / "requests"

_NOUL = {"type": "noul", "instructions": "Is it broken?"}


def _body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "gemini-decision-1",
        "input": [{"type": "text", "text": "Grüße 😀, the left earcup is silent."}],
        "questions": {"q": _NOUL},
    }
    body.update(changes)
    return body


def _inline(media: str, mime: str) -> dict[str, Any]:
    data = base64.b64encode((MEDIA / media).read_bytes()).decode()
    return {"type": "image", "mime_type": mime, "data": data}


def _choice(options: dict[str, str]) -> dict[str, Any]:
    return {"type": "choice", "instructions": "Which one?", "criteria": options}


# (file name, JSON text): problems placed at names, values, and objects missing a member,
# on lines after non-ASCII text, and one member name written twice.
BROKEN = {
    "unknown-member.json": _body(temperature=0.2, questions={"q": {**_NOUL, "hint": "x"}}),
    "option-ids.json": _body(questions={"q": _choice({" refund": "", "none_of_the_above": ""})}),
    "missing-member.json": _body(questions={"q": {"type": "noul"}}, input=[{"text": "x"}]),
    "values.json": _body(model="gemini-decision-9", input=[{"type": "text", "text": ""}]),
    "question-keys.json": _body(questions={"bad key!": _NOUL, "k" * 70: _NOUL}),
    "inline-media.json": _body(input=[_inline("wav_pcm16.wav", "image/png")]),
    "no-questions.json": {"model": "gemini-decision-1", "input": "x", "questions": {}},
}


def _texts() -> dict[str, str]:
    texts = {name: json.dumps(body, indent=2, ensure_ascii=False) for name, body in BROKEN.items()}
    twice = json.dumps(_body(), indent=2, ensure_ascii=False)
    texts["duplicate.json"] = twice.replace("{", '{\n  "model": "gemini-decision-1",', 1)
    return texts


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The seed requests and the broken ones, as files in one folder."""
    folder = tmp_path_factory.mktemp("requests")
    for seed in sorted(REQUESTS.glob("*.json")):
        (folder / seed.name).write_bytes(seed.read_bytes())
    for name, text in _texts().items():
        (folder / name).write_text(text, encoding="utf-8")
    return sorted(str(p) for p in folder.glob("*.json"))


@pytest.fixture(scope="module")
def recipe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The README's recipe, written out as ``check_files.py`` and imported."""
    readme = (ROOT / "README.md").read_text()
    section = re.search(r"\n## Many requests\n.*?(?=\n## )", readme, re.S)
    assert section is not None
    (code,) = re.findall(r"```python\n(.*?)```", section.group(), re.S)
    folder = tmp_path_factory.mktemp("recipe")
    (folder / "check_files.py").write_text(code)
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("check_files")
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("check_files", None)


# --- the one comparison with the command line ----------------------------------------------

Place = tuple[str, int, int, tuple[Any, ...], str]


def _places(rows: Sequence[dict[str, Any]]) -> list[Place]:
    """File, line, column, path and code of each problem, in the command line's order."""
    return sorted((r["file"], r["line"], r["column"], tuple(r["path"]), r["code"]) for r in rows)


def _cli_places(files: Sequence[str], *, target: str) -> list[Place]:
    """What ``decisions-input validate --jobs 2 --format json`` reports for the files."""
    out, err = io.StringIO(), io.StringIO()
    argv = ["validate", "--jobs", "2", "--format", "json", "--target", target, *files]
    status = main(argv, stdout=out, stderr=err)
    assert status in (0, 1), err.getvalue()
    return _places(json.loads(out.getvalue())["problems"])


@pytest.fixture(scope="module")
def cli_gemini(files: list[str]) -> list[Place]:
    places = _cli_places(files, target="gemini")
    codes = {place[-1] for place in places}
    # Placed at a name, at a value, at the object missing a member, by the repeated name.
    placed = {"schema.unknown_member", "option.whitespace", "question.key_pattern"}
    placed |= {"mime.mismatch", "model.unknown", "schema.required", "json.duplicate_key"}
    assert placed <= codes, placed - codes
    return places


def test_recipe_in_one_process_matches_the_command_line(
    recipe: ModuleType, files: list[str], cli_gemini: list[Place]
) -> None:
    rows = [row for name in files for row in recipe.problems_in_file(name)]
    assert _places(rows) == cli_gemini
    rows = [row for name in files for row in recipe.problems_in_file(name, "parallel")]
    assert _places(rows) == _cli_places(files, target="parallel")


def test_recipe_on_worker_processes_matches_the_command_line(
    recipe: ModuleType, files: list[str], cli_gemini: list[Place]
) -> None:
    assert _places(recipe.check_here(files, workers=2)) == cli_gemini


def test_recipe_on_a_dask_cluster_matches_the_command_line(
    recipe: ModuleType, files: list[str], cli_gemini: list[Place]
) -> None:
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        gemini = recipe.check_on_dask(files, client)
        parallel = recipe.check_on_dask(files, client, target="parallel")
    assert _places(gemini) == cli_gemini
    assert _places(parallel) == _cli_places(files, target="parallel")
    assert {Path(row["file"]).name for row in gemini} >= {*BROKEN, "duplicate.json"}


# --- threads -----------------------------------------------------------------------------------

# Run in a fresh interpreter, so that every cache starts empty and the threads race to fill
# them; warnings are errors there, as a strict program would have them.
_THREADS_SCRIPT = r"""
import json, sys, threading, warnings
from pathlib import Path
import decisions_input as di

sys.setswitchinterval(1e-5)
media = [Path(p) for p in sys.argv[2:]]
bodies = [p.read_bytes() for p in sorted(Path(sys.argv[1]).glob("*.json"))]

def work():
    out = []
    for path in media:
        try:
            out.append(repr(di.sniff(path)))
        except di.DecisionsInputError as exc:
            out.append(f"{type(exc).__name__}: {exc}")
    for body in bodies:
        for target in ("gemini", "parallel"):
            found = di.iter_problems(body, target=target)
            out.append([[list(p.path), p.code, p.message, str(p.severity)] for p in found])
    return out

filters = list(warnings.filters)
barrier = threading.Barrier(8)
results = [None] * 8
def run(i):
    barrier.wait()
    results[i] = work()
threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps({"threads": results, "one": work(), "filters": filters == warnings.filters}))
"""


def test_threads_answer_as_one_thread(tmp_path: Path, files: list[str]) -> None:
    for name in files:
        (tmp_path / Path(name).name).write_bytes(Path(name).read_bytes())
    media = sorted(p for p in MEDIA.iterdir() if p.is_file() and p.stat().st_size < 64_000)
    for path in media[::4]:  # inline, so iter_problems sniffs them too
        body = _body(input=[_inline(path.name, "image/png")])
        (tmp_path / f"inline-{path.name}.json").write_text(json.dumps(body))
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", _THREADS_SCRIPT, str(tmp_path), *map(str, media)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert len(found["one"]) == len(media) + 2 * len(list(tmp_path.glob("*.json")))
    for answers in found["threads"]:
        assert answers == found["one"]
    assert found["filters"], "threads left the process with other warning filters"
