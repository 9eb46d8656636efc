"""The installed command as users run it: a process with real standard streams and limits.

Each case runs ``decisions-input`` (or ``python -m decisions_input`` when the console
script is not installed) with a time limit, and where the input could grow without end,
with a limit on the address space (``RLIMIT_AS``), so a regression fails here instead of
hanging or filling the machine.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SECONDS = 60  # no case here takes more than a few seconds; a hang fails at this bound
MEMORY = 1 << 30  # address space for a case that reads an endless input
MILLION = 10**6

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


def command() -> list[str]:
    script = shutil.which("decisions-input")
    return [script] if script else [sys.executable, "-m", "decisions_input"]


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("CI", None)
    return env


def _limited(memory: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return apply


def cli(
    *argv: str, stdin: object = subprocess.DEVNULL, memory: int | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*command(), *argv],
        stdin=stdin,  # type: ignore[arg-type]
        capture_output=True,
        cwd=ROOT,
        env=_env(),
        timeout=SECONDS,
        preexec_fn=_limited(memory) if memory else None,  # noqa: PLW1509
        check=False,
    )


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[str]:
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    yield str(path)


@pytest.mark.parametrize("argv", [["validate"], ["check-response"], ["build"]])
def test_a_fifo_with_no_writer_is_refused_at_once(fifo: str, argv: list[str]) -> None:
    started = time.monotonic()
    done = cli(*argv, fifo)
    assert done.returncode == 2
    assert f"cannot read {fifo}: it is a named pipe (FIFO), not a regular file" in (
        done.stderr.decode()
    )
    assert time.monotonic() - started < SECONDS / 2


@pytest.mark.parametrize("argv", [["validate"], ["check-response"]])
def test_dev_zero_is_refused_unread(argv: list[str]) -> None:
    done = cli(*argv, "/dev/zero", memory=MEMORY)
    assert done.returncode == 2
    assert "it is a character device, not a regular file" in done.stderr.decode()


@pytest.mark.parametrize("argv", [["validate", "-"], ["check-response", "-"], ["build", "-"]])
def test_standard_input_from_dev_zero_ends_at_once(argv: list[str]) -> None:
    with open("/dev/zero", "rb") as zero:
        done = cli(*argv, stdin=zero, memory=MEMORY)
    assert done.returncode == 2
    assert done.stderr.decode().startswith("decisions-input: error: cannot read standard input: ")


def test_an_endless_pipe_is_read_up_to_the_bound_only() -> None:
    writer = subprocess.Popen(
        [sys.executable, "-c", "import sys\nwhile True: sys.stdout.buffer.write(b'y\\n' * 65536)"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        done = cli("validate", "-", "--max-bytes", "50M", stdin=writer.stdout, memory=MEMORY)
    finally:
        writer.kill()
        writer.wait()
        if writer.stdout is not None:
            writer.stdout.close()
    assert done.returncode == 2
    assert b"more than 50,000,000 bytes, over the bound of 50,000,000 bytes" in done.stderr


def test_a_lone_surrogate_member_name_keeps_the_json_report(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b'{"\\ud800": 1}')
    shutil.copy(ROOT / "tests" / "golden" / "inputs" / "refund.json", tmp_path / "b.json")
    done = cli("validate", str(tmp_path), "--format", "json")
    assert (done.returncode, done.stderr) == (1, b"")
    doc = json.loads(done.stdout)  # strict UTF-8: the surrogate is written as an escape
    assert b"\\ud800" in done.stdout
    assert {p["file"] for p in doc["problems"]} == {
        str(tmp_path / "a.json"),
        str(tmp_path / "b.json"),
    }
    assert "\ud800" in {str(p["path"][0]) for p in doc["problems"] if p["path"]}


def test_a_file_name_that_is_not_utf_8_is_escaped(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/caf\xe9.json"
    with open(name, "wb") as fp:
        fp.write(b"{}")
    done = cli("validate", str(tmp_path))
    assert done.returncode == 1
    assert done.stdout.decode("utf-8").startswith(f"{tmp_path}/caf\\xe9.json:1:1: error ")
    sarif = cli("validate", str(tmp_path), "--format", "sarif")
    result = json.loads(sarif.stdout)["runs"][0]["results"][0]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.endswith("/caf%E9.json")


def _million_problems(path: Path) -> None:
    members = ",".join(f'"x{i}":0' for i in range(MILLION))
    head = '{"model":"gemini-decision-1","input":"Hi","questions":{"q":{"type":"noul",'
    path.write_text(head + '"instructions":"Is it?"}},' + members + "}")


def _peak_rss_bytes(argv: list[str], out: Path) -> tuple[int, int]:
    """Run the command with its output to a file; return its status and peak memory."""
    with open(out, "wb") as sink:
        child = subprocess.Popen([*command(), *argv], stdout=sink, cwd=ROOT, env=_env())
        started = time.monotonic()
        while (found := os.wait4(child.pid, os.WNOHANG))[0] == 0:
            if time.monotonic() - started > 4 * SECONDS:
                child.kill()
            time.sleep(0.05)
    child.returncode = os.waitstatus_to_exitcode(found[1])
    return child.returncode, found[2].ru_maxrss * 1024


def test_a_million_problems_cost_memory_and_output_of_the_cap(tmp_path: Path) -> None:
    body = tmp_path / "million.json"
    _million_problems(body)
    sarif = tmp_path / "out.sarif"
    status, peak = _peak_rss_bytes(["validate", str(body), "--format", "sarif"], sarif)
    assert status == 1
    log = json.loads(sarif.read_text())
    run_ = log["runs"][0]
    assert len(run_["results"]) == 1000
    note = run_["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    assert f"{MILLION - 1000} more problems not shown ({MILLION - 1000} errors" in note
    assert sarif.stat().st_size < 2_000_000  # not 810 MB
    assert peak < 600 * 2**20, f"peak memory {peak / 2**20:.0f} MiB"  # not 7 GB


def test_an_empty_folder_fails(tmp_path: Path) -> None:
    done = cli("validate", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"decisions-input: error: {tmp_path}: the folder holds no *.json files\n"
    )


def test_the_mixed_requests_folder_passes() -> None:
    done = cli("validate", "testdata/requests/")
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.decode().endswith(" files, 0 errors, 0 warnings\n")


def test_a_spec_with_criteria_builds(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "model: gemini-decision-1\ninput: I was charged twice.\nquestions:\n"
        "  department:\n    type: choice\n    instructions: Which department?\n"
        "    criteria:\n      billing: Payments.\n      technical: Problems.\n"
    )
    done = cli("build", str(spec))
    assert (done.returncode, done.stderr) == (0, b"")
    criteria = json.loads(done.stdout)["questions"]["department"]["criteria"]
    assert criteria == {"billing": "Payments.", "technical": "Problems."}


def test_a_spec_with_a_missing_file_reports_it_at_its_line(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "model: gemini-decision-1\ninput:\n  - image: gone.jpg\nquestions:\n"
        "  q:\n    type: noul\n    instructions: ''\n"
    )
    done = cli("build", str(spec))
    assert done.returncode == 1
    lines = done.stdout.decode().splitlines()
    assert lines[0].startswith(f"{spec}:3:12: error source.unreadable  cannot read gone.jpg")
    assert lines[1].startswith(f"{spec}:7:19: error instructions.empty ")
    assert lines[2] == "1 file, 2 errors, 0 warnings"


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(
    not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
    reason="needs /proc/PID/task/TID/children to find the worker processes",
)
def test_worker_processes_end_when_the_command_is_killed(tmp_path: Path) -> None:
    body = tmp_path / "a.json"
    _million_problems(body)  # seconds of work for each worker
    shutil.copy(body, tmp_path / "b.json")
    child = subprocess.Popen(
        [*command(), "validate", "--jobs", "2", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=_env(),
    )
    try:
        deadline = time.monotonic() + SECONDS
        while len(workers := _children(child.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(workers) >= 2, "no worker processes started"
        time.sleep(0.5)  # the workers are busy with the files now
        child.send_signal(signal.SIGKILL)
        child.wait()
        deadline = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [w for w in workers if _alive(w)], "worker processes outlived the command"
    finally:
        for pid in [child.pid, *_children(child.pid)]:
            with _suppress():
                os.kill(pid, signal.SIGKILL)


class _suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return True
