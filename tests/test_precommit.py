"""The README's pre-commit and CI snippets work as written, and so do the hook definitions.

pre-commit itself loads ``.pre-commit-hooks.yaml`` and the README's config, picks the files
each hook sees by its default ``files`` and types, and ``pre-commit try-repo`` installs this
checkout as a hook environment (offline: no index, no dependencies, which ``validate``
does not need) and runs the validate hook on a repository of request files. The CI
snippet's commands run in a shell on a folder of requests.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
GOOD = ROOT / "testdata" / "requests" / "gemini-noul.json"
PARALLEL = ROOT / "testdata" / "requests" / "parallel-basic.json"
BAD = ROOT / "tests" / "golden" / "inputs" / "refund.json"
SCHEMA = ROOT / "schemas" / "gemini-decisions.openapi.json"

pre_commit = pytest.importorskip("pre_commit", reason="pre-commit is not installed")


def _manifest() -> list[dict[str, Any]]:
    from pre_commit.clientlib import load_manifest

    hooks: list[dict[str, Any]] = load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    return hooks


def _readme_configs() -> list[str]:
    """Every .pre-commit-config.yaml snippet of the README (ours, and check-jsonschema's)."""
    found = re.findall(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", README, re.S)
    assert found, "the README has no .pre-commit-config.yaml snippet"
    return found


def _readme_config() -> str:
    """The snippet that uses this repository's hooks."""
    ours = [text for text in _readme_configs() if "# this repository" in text]
    assert len(ours) == 1, "the README should show one config using this repository"
    return ours[0]


def test_the_readme_config_is_valid_and_names_the_hooks(tmp_path: Path) -> None:
    from pre_commit.clientlib import load_config

    path = tmp_path / ".pre-commit-config.yaml"
    for text in _readme_configs():  # every snippet loads as pre-commit reads it
        path.write_text(text)
        for repo in load_config(str(path))["repos"]:
            for hook in repo["hooks"]:
                re.compile(hook.get("files", ""))
    path.write_text(_readme_config())
    config = load_config(str(path))
    ids = {hook["id"] for hook in _manifest()}
    named = [hook["id"] for repo in config["repos"] for hook in repo["hooks"]]
    assert named and set(named) <= ids


# (path in a repository, the hooks that see it by default)
TREE = [
    ("requests/refund.json", {"decisions-input-validate"}),
    ("api/request/parallel.json", {"decisions-input-validate"}),
    ("package.json", set()),
    ("src/requests.py", set()),
    ("openapi/api.yaml", {"decisions-input-schemas-lint"}),
    ("docs/schemas/thing.json", {"decisions-input-schemas-lint"}),
    ("config/settings.yaml", set()),
]


def test_the_hooks_see_request_and_schema_files_by_default(tmp_path: Path) -> None:
    from pre_commit.commands.run import Classifier, filter_by_include_exclude

    for name, _ in TREE:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    os.chdir(tmp_path)
    try:
        classifier = Classifier([name for name, _ in TREE])
        seen: dict[str, set[str]] = {name: set() for name, _ in TREE}
        for hook in _manifest():
            names = filter_by_include_exclude(classifier.filenames, hook["files"], hook["exclude"])
            chosen = classifier.by_types(
                names, hook["types"], hook["types_or"], hook["exclude_types"]
            )
            for name in chosen:
                seen[name].add(hook["id"])
    finally:
        os.chdir(ROOT)
    assert seen == dict(TREE)


def test_every_hook_runs_its_entry_on_its_files(tmp_path: Path) -> None:
    script = shutil.which("decisions-input")
    if script is None:
        pytest.skip("decisions-input is not installed")
    files = {"decisions-input-validate": [GOOD, PARALLEL], "decisions-input-schemas-lint": [SCHEMA]}
    for hook in _manifest():
        entry = hook["entry"].split()
        assert entry[0] == "decisions-input"
        argv = [script, *entry[1:], *hook["args"], *map(str, files[hook["id"]])]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
        assert (done.returncode, done.stderr) == (0, ""), hook["id"]


def _git(*argv: str, cwd: Path) -> None:
    subprocess.run(["git", *argv], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.skipif(
    sys.version_info >= (3, 12),
    reason="a venv of Python 3.12+ has no setuptools to build the hook with, and this runs offline",
)
def test_pre_commit_try_repo_runs_the_validate_hook(tmp_path: Path) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("the checkout is not a git repository")
    repo = tmp_path / "repo"
    (repo / "requests").mkdir(parents=True)
    shutil.copy(GOOD, repo / "requests" / "good.json")
    shutil.copy(PARALLEL, repo / "requests" / "parallel.json")
    shutil.copy(BAD, repo / "requests" / "refund.json")
    (repo / "package.json").write_text('{"name": "not a request"}')
    _git("init", "-q", cwd=repo)
    _git("add", "-A", cwd=repo)
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "PIP_NO_INDEX": "1",  # offline: the hook needs no dependency to validate JSON
        "PIP_NO_DEPS": "1",
        "PIP_NO_BUILD_ISOLATION": "0",  # pip reads this one inverted: no build isolation
    }
    argv = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT)]
    argv += ["decisions-input-validate", "--all-files"]
    done = subprocess.run(
        argv, cwd=repo, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "requests/refund.json:11:9: error option.whitespace" in out
    assert "3 files, 1 error, 0 warnings" in out
    assert "package.json" not in out


def _ci_commands() -> list[str]:
    block = README.split("### GitHub Actions", 1)[1].split("### pre-commit", 1)[0]
    runs = re.findall(r"run: (decisions-input .*)", block)
    assert len(runs) >= 2
    return runs


def test_the_ci_snippets_commands_run_as_written(tmp_path: Path) -> None:
    script = shutil.which("decisions-input")
    if script is None:
        pytest.skip("decisions-input is not installed")
    (tmp_path / "requests").mkdir()
    shutil.copy(GOOD, tmp_path / "requests" / "good.json")
    shutil.copy(PARALLEL, tmp_path / "requests" / "parallel.json")
    shutil.copy(BAD, tmp_path / "requests" / "refund.json")
    env = {**os.environ, "PATH": f"{Path(script).parent}{os.pathsep}{os.environ['PATH']}"}
    for line in _ci_commands():
        done = subprocess.run(
            ["bash", "-c", line],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 1, line + done.stderr
        if "--format sarif" in line:
            log = json.loads((tmp_path / "decisions-input.sarif").read_text())
            results = log["runs"][0]["results"]
            assert [r["ruleId"] for r in results] == ["option.whitespace"]
        if "--format github" in line:
            assert done.stdout.startswith("::error file=requests/refund.json,line=11,col=9,")
    (tmp_path / "requests" / "refund.json").unlink()
    for name in ("good.json", "parallel.json"):
        (tmp_path / "requests" / name).unlink()
    done = subprocess.run(
        ["bash", "-c", _ci_commands()[0]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2  # CI pointed at an empty folder does not go green
