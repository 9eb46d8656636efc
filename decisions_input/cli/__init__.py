"""The ``decisions-input`` command: check request files in CI, build requests, lint schemas.

Commands::

    decisions-input validate FILE... | -      request files (JSON) or stdin
    decisions-input check-response RESPONSE [--request REQUEST]
    decisions-input build SPEC [-o OUT]        YAML or JSON spec -> canonical request
    decisions-input sniff FILE...              what the library sees in a file
    decisions-input estimate FILE|SPEC...      input tokens per block and in total, offline
    decisions-input rules                      every rule code with its limits
    decisions-input schemas lint [FILE...]     bundled or given OpenAPI / JSON Schema files

Exit status: 0 when nothing is wrong (warnings allowed unless ``--strict``), 1 when
something is, 2 for a usage error, an unreadable file or a failure of the tool itself.
Problems are printed as text, JSON, SARIF 2.1.0 or GitHub workflow commands, sorted by
file, line, column and code. Only this module prints; it never shows a traceback.
Heavy modules are imported by the command that needs them, so ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import re
import sys
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path as FsPath
from typing import IO, TYPE_CHECKING, Any, NoReturn, TextIO

from .. import __version__
from ..errors import DecisionsInputError, InvalidInput, Path, Problem, Severity
from ..limits import LIMITS, Limits, target_of
from .formats import (
    ESTIMATE_FORMATS,
    FORMATS,
    STDIN_NAME,
    TOOL_NAME,
    Finding,
    Report,
    render,
    render_estimates,
    render_text,
)

if TYPE_CHECKING:
    from ..budget import Estimate
    from ..questions import Question
    from ..request import Request
    from ..sniffing import Detected

__all__ = ["main", "main_entry"]

PROG = TOOL_NAME
EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2

TARGETS = tuple(LIMITS)

# Codes whose problem sits on a member name, not its value: reported at the key.
_KEY_CODES = frozenset(
    {
        "schema.unknown_member",
        "response.unknown_member",
        "question.key_pattern",
        "question.key_length",
        "json.duplicate_key",
    }
)
# Below this many bytes of input, worker processes cost more than they save. Measured on
# 2 cores: 2,700 small request files take 0.58 s in one process and 0.75 s in two; two
# files of 20 MB break even (0.41-0.44 s against 0.36-0.52 s); three take 0.52 s against
# 0.43 s, eight 0.83 s against 0.59 s.
_PARALLEL_MIN_BYTES = 48 * 1024 * 1024
_PARALLEL_MAX_WORKERS = 8
_PROGRESS_INTERVAL_S = 0.1


# --- plumbing --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Streams:
    out: TextIO
    err: TextIO
    stdin: IO[Any] | None


class _Exit(Exception):
    """Leave ``main`` with a status; raised by the parser instead of ``sys.exit``."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _UsageError(DecisionsInputError):
    """The command line or a file it names cannot be used; exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser that writes to the given streams and never exits the process."""

    def __init__(self, *args: Any, streams: _Streams, **kwargs: Any) -> None:
        self._streams = streams
        super().__init__(*args, **kwargs)

    def _print_message(self, message: str, file: Any = None) -> None:
        if message:
            to_out = file is None or file is sys.stdout
            (self._streams.out if to_out else self._streams.err).write(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self._streams.err.write(message)
        raise _Exit(status)

    def error(self, message: str) -> NoReturn:
        self.print_usage(self._streams.err)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and not isinstance(exc, DecisionsInputError):
        return exc.strerror
    return _one_line(str(exc)) or type(exc).__name__


def _read_bytes(name: str, streams: _Streams) -> bytes:
    """Read a named file, or standard input for ``-``; raise ``_UsageError`` if unreadable."""
    if name == "-":
        return _read_stdin(streams)
    try:
        return FsPath(name).read_bytes()
    except OSError as exc:
        raise _UsageError(f"cannot read {name}: {_reason(exc)}") from exc


def _read_stdin(streams: _Streams) -> bytes:
    stream = streams.stdin if streams.stdin is not None else sys.stdin
    if stream is None:
        raise _UsageError("cannot read standard input: there is none")
    source = getattr(stream, "buffer", stream)
    data = source.read()
    return data.encode("utf-8", "surrogateescape") if isinstance(data, str) else bytes(data)


def _strict(problems: Iterable[Problem], strict: bool) -> list[Problem]:
    """Report warnings as errors under ``--strict`` (``validate`` applies the same policy)."""
    if not strict:
        return list(problems)
    return [replace(p, severity=Severity.ERROR) for p in problems]


def _display(name: str) -> str:
    return STDIN_NAME if name == "-" else name


# --- locating problems in source text ---------------------------------------------------------

# Where a path is written: (key position, value position); for an array element or the
# root both are the value's. Spots answers that for many paths at once, leaving out the
# absent ones; a Placer turns a file's problems into findings.
Position = tuple[int, int]
Located = tuple[Position, Position]
Spots = Callable[[Collection[Path]], Mapping[Path, Located]]
Placer = Callable[[Iterable[Problem]], list[Finding]]

_AT_LINE_COLUMN = re.compile(r"\bat line (\d+) column (\d+)\b")


def _is_key_problem(problem: Problem) -> bool:
    if problem.code in _KEY_CODES:
        return True
    path = problem.path
    return (
        problem.code.startswith("option.")
        and len(path) == 4
        and path[0] == "questions"
        and path[2] in ("criteria", "options")
        and isinstance(path[3], str)
    )


def _place(problem: Problem, spots: Mapping[Path, Located]) -> Position:
    """Line and column of a problem: its key or value, else the nearest enclosing value."""
    found = spots.get(problem.path)
    if found is not None:
        return found[0] if _is_key_problem(problem) else found[1]
    for depth in range(len(problem.path) - 1, -1, -1):
        found = spots.get(problem.path[:depth])
        if found is not None:
            return found[1]
    return (1, 1)


def _findings(name: str, problems: Iterable[Problem], spots: Spots) -> list[Finding]:
    problems = list(problems)
    wanted = {p.path[:depth] for p in problems for depth in range(len(p.path) + 1)}
    found = spots(wanted) if problems else {}
    return [Finding(name, *_place(p, found), p) for p in problems]


def _json_spots(text: str) -> Spots:
    def spots(paths: Collection[Path]) -> Mapping[Path, Located]:
        from ..jsontext import locate_many

        return {
            path: ((at.key_line, at.key_column), (at.value_line, at.value_column))
            for path, at in locate_many(text, paths).items()
            if at is not None
        }

    return spots


def _placed_by_message(finding: Finding) -> Finding:
    """Move a finding to the "at line L column C" its message names, if it names one."""
    match = _AT_LINE_COLUMN.search(finding.problem.message)
    if match is None:
        return finding
    return replace(finding, line=int(match[1]), column=int(match[2]))


def _json_findings(name: str, text: str | None, problems: Iterable[Problem]) -> list[Finding]:
    """Place problems in JSON text: a syntax error where it is, the k-th repeat of a name."""
    if text is None:  # the bytes could not be decoded: only the messages tell the places
        return [_placed_by_message(Finding(name, 1, 1, p)) for p in problems]
    from ..jsontext import locate_all

    repeats: dict[Path, int] = {}
    out = []
    for finding in _findings(name, problems, _json_spots(text)):
        problem = finding.problem
        if problem.code in ("json.syntax", "json.invalid_utf8"):
            finding = _placed_by_message(finding)
        elif problem.code == "json.duplicate_key":
            nth = repeats[problem.path] = repeats.get(problem.path, 0) + 1
            spots = locate_all(text, problem.path)
            if nth < len(spots):
                finding = replace(finding, line=spots[nth].key_line, column=spots[nth].key_column)
        out.append(finding)
    return out


def _yaml_spots(text: str) -> Spots:
    """Locate paths in YAML (or JSON) text through the node tree; marks are 0-based."""

    def spots(paths: Collection[Path]) -> Mapping[Path, Located]:
        import yaml

        try:
            root = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            return {}
        found = {}
        for path in paths:
            key_node, node = None, root
            for step in path:
                key_node, node = _yaml_child(node, step)
                if node is None:
                    break
            if node is not None:
                value = (node.start_mark.line + 1, node.start_mark.column + 1)
                key = key_node or node
                found[path] = ((key.start_mark.line + 1, key.start_mark.column + 1), value)
        return found

    return spots


def _yaml_child(node: Any, step: str | int) -> tuple[Any, Any]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        match = None
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(step):
                match = (key, value)  # the last one wins, as in the loaded value
        return match if match is not None else (None, None)
    if isinstance(node, yaml.SequenceNode):
        if isinstance(step, int):
            return (None, node.value[step]) if 0 <= step < len(node.value) else (None, None)
        for item in node.value:  # a list of names standing for a mapping (option IDs)
            if isinstance(item, yaml.ScalarNode) and item.value == step:
                return item, item
    return None, None


# --- running many files ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Job:
    name: str
    target: str
    strict: bool
    data: bytes | None = None
    request: Any = None


@dataclass(frozen=True, slots=True)
class _Result:
    name: str
    findings: tuple[Finding, ...] = ()
    error: str | None = None


class _Progress:
    """``[n/N] file`` on one rewritten line of a terminal; silent in pipes and CI logs."""

    def __init__(self, stream: TextIO, total: int) -> None:
        self._stream = stream
        self._total = total
        self._done = 0
        self._shown = 0.0
        self._on = total > 1 and _is_terminal(stream)

    def step(self, name: str) -> None:
        self._done += 1
        if not self._on:
            return
        now = time.monotonic()
        if now - self._shown >= _PROGRESS_INTERVAL_S or self._done == self._total:
            self._shown = now
            self._stream.write(f"\r\x1b[2K[{self._done}/{self._total}] {name}")
            self._stream.flush()

    def close(self) -> None:
        if self._on and self._shown:
            self._stream.write("\r\x1b[2K")
            self._stream.flush()


def _is_terminal(stream: TextIO) -> bool:
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _workers(requested: int, jobs: Sequence[_Job]) -> int:
    """Worker processes for the jobs: as asked, else several only for many bytes of input.

    Checking is fast (small request files take well under a millisecond each), so worker
    processes only pay for their start-up when the files hold a lot of inline data.
    """
    if requested > 0:
        return max(1, min(requested, len(jobs)))
    if len(jobs) < 2 or _total_bytes(jobs) < _PARALLEL_MIN_BYTES:
        return 1
    return max(1, min(os.cpu_count() or 1, _PARALLEL_MAX_WORKERS, len(jobs)))


def _total_bytes(jobs: Sequence[_Job]) -> int:
    total = 0
    for job in jobs:
        if job.data is not None:
            total += len(job.data)
        else:
            with contextlib.suppress(OSError):
                total += os.stat(job.name).st_size
    return total


def _run(
    work: Callable[[_Job], _Result], jobs: Sequence[_Job], streams: _Streams, requested: int
) -> list[_Result]:
    """Run ``work`` over the jobs, in worker processes when that is faster, with progress."""
    progress = _Progress(streams.err, len(jobs))
    results: list[_Result] = []
    workers = _workers(requested, jobs)
    try:
        if workers <= 1:
            for job in jobs:
                results.append(work(job))
                progress.step(job.name)
        else:
            for result in _run_pool(work, jobs, workers):
                results.append(result)
                progress.step(result.name)
    finally:
        progress.close()
    return results


def _run_pool(
    work: Callable[[_Job], _Result], jobs: Sequence[_Job], workers: int
) -> Iterator[_Result]:
    import multiprocessing
    import threading
    from concurrent.futures import ProcessPoolExecutor

    # fork starts workers fastest, but is only safe while this process has one thread.
    single = threading.active_count() == 1
    context = multiprocessing.get_context("fork") if sys.platform == "linux" and single else None
    chunk = max(1, min(32, len(jobs) // (workers * 4)))
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        yield from pool.map(work, jobs, chunksize=chunk)


def _expand(names: Sequence[str]) -> list[str]:
    """Keep files and ``-`` as given; replace a directory by its ``*.json`` files, sorted."""
    out: list[str] = []
    for name in names:
        path = FsPath(name)
        if name != "-" and path.is_dir():
            found = (
                p
                for p in path.rglob("*.json")
                if p.is_file()
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            out.extend(sorted(str(p) for p in found))
        else:
            out.append(name)
    return out


def _finish(results: Sequence[_Result], fmt: str, streams: _Streams) -> int:
    """Print the report of checked files and the errors of unreadable ones; return the status."""
    from ..limits import RULES

    unreadable = sorted(r.error for r in results if r.error is not None)
    for message in unreadable:
        streams.err.write(f"{PROG}: error: {message}\n")
    checked = [r for r in results if r.error is None]
    findings = [f for r in checked for f in r.findings]
    report = Report.of(findings, files=len(checked))
    streams.out.write(render(report, fmt, RULES, version=__version__))
    if unreadable:
        return EXIT_USAGE
    return EXIT_PROBLEMS if report.errors else EXIT_OK


# --- validate ----------------------------------------------------------------------------------


def _request_result(name: str, data: bytes, problems: list[Problem], target: str) -> _Result:
    """Place the problems of a JSON file; the text is decoded only when there are any."""
    if not problems:
        return _Result(name)
    from ..jsontext import parse
    from ..limits import limits_for

    text = parse(data, limits=limits_for(target)).text
    return _Result(name, tuple(_json_findings(name, text, problems)))


def _check_job(job: _Job, check: Callable[[bytes], Iterable[Problem]]) -> _Result:
    """Read one JSON file (or the bytes already read from stdin), check it, place problems."""
    name = _display(job.name)
    try:
        data = job.data if job.data is not None else FsPath(job.name).read_bytes()
    except OSError as exc:
        return _Result(name, error=f"cannot read {job.name}: {_reason(exc)}")
    return _request_result(name, data, list(check(data)), job.target)


def _validate_job(job: _Job) -> _Result:
    """Check one request file; a worker-process entry point, so it takes one picklable job."""
    from ..validate import iter_problems

    return _check_job(job, lambda data: iter_problems(data, target=job.target, strict=job.strict))


def _stdin_jobs(names: Sequence[str], streams: _Streams, target: str, strict: bool) -> list[_Job]:
    if names.count("-") > 1:
        raise _UsageError("standard input ('-') can be named only once")
    return [_Job(n, target, strict, data=_read_stdin(streams) if n == "-" else None) for n in names]


def _cmd_validate(args: argparse.Namespace, streams: _Streams) -> int:
    jobs = _stdin_jobs(_expand(args.files), streams, args.target, args.strict)
    results = _run(_validate_job, jobs, streams, args.jobs)
    return _finish(results, args.format, streams)


# --- check-response ----------------------------------------------------------------------------


def _response_job(job: _Job) -> _Result:
    from ..responses import iter_response_problems

    def check(data: bytes) -> list[Problem]:
        found = iter_response_problems(data, request=job.request, target=job.target)
        return _strict(found, job.strict)

    return _check_job(job, check)


def _target_of_request(request: bytes | None) -> str:
    """Parallel for a request body with ``state`` and no ``model``; Gemini otherwise."""
    import json

    if request is None:
        return "gemini"
    try:
        body = json.loads(request)
    except ValueError:
        return "gemini"
    return target_of(body)


def _cmd_check_response(args: argparse.Namespace, streams: _Streams) -> int:
    if args.response == "-" and args.request == "-":
        raise _UsageError("standard input ('-') can be named only once")
    request = _read_bytes(args.request, streams) if args.request is not None else None
    data = _read_stdin(streams) if args.response == "-" else None
    target = args.target or _target_of_request(request)
    job = _Job(args.response, target, args.strict, data=data, request=request)
    return _finish([_response_job(job)], args.format, streams)


# --- sniff -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Sniffed:
    file: str
    size: int
    detected: Detected
    mismatch: str | None = None


def _sniff_one(name: str, streams: _Streams, declared: str | None, limits: Limits) -> _Sniffed:
    from ..sniffing import mime_matches, sniff_stream
    from ..sources import open_source

    source: Any = FsPath(name)
    if name == "-":
        stdin = streams.stdin if streams.stdin is not None else sys.stdin
        source = getattr(stdin, "buffer", stdin)
    try:
        with open_source(source) as opened:
            found = sniff_stream(opened.stream, opened.size, declared=declared, limits=limits)
            size = opened.size
    except OSError as exc:
        raise _UsageError(f"cannot read {name}: {_reason(exc)}") from exc
    mismatch = None
    if (
        declared is not None
        and found.mime is not None
        and not mime_matches(found, declared, limits=limits)
    ):
        mismatch = f"declared {declared}, but the bytes are {found.mime}"
    return _Sniffed(_display(name), size, found, mismatch)


def _jsonable(value: Any) -> Any:
    """Turn evidence of any shape into JSON values, deterministically."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v) for v in value), key=str)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:
        return {k: _jsonable(getattr(value, k)) for k in sorted(fields)}
    return str(value)


def _evidence_text(value: Any) -> str:
    plain = _jsonable(value)
    if plain is None:
        return ""
    if isinstance(plain, dict):
        return ", ".join(f"{k}={_evidence_text(v)}" for k, v in plain.items())
    if isinstance(plain, list):
        return ",".join(_evidence_text(v) for v in plain)
    return _one_line(str(plain))


def _sniff_record(row: _Sniffed) -> dict[str, Any]:
    d = row.detected
    return {
        "file": row.file,
        "size": row.size,
        "kind": d.kind,
        "mime": d.mime,
        "format": d.format,
        "code": "mime.mismatch" if row.mismatch else d.code,
        "reason": row.mismatch or d.reason,
        "evidence": _jsonable(d.evidence),
    }


def _sniff_table(records: Sequence[dict[str, Any]]) -> str:
    header = ("FILE", "SIZE", "KIND", "TYPE", "EVIDENCE")
    rows = [header]
    for r in records:
        refused = r["code"] is not None
        evidence = _evidence_text(r["evidence"])
        if refused and r["reason"]:
            evidence = (
                f"{_one_line(r['reason'])}; {evidence}" if evidence else _one_line(r["reason"])
            )
        rows.append(
            (
                r["file"],
                str(r["size"]),
                r["kind"] or "-",
                (r["code"] if refused else r["mime"]) or "-",
                evidence or "-",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)) + "  " + row[-1]
        for row in rows
    ]
    return "\n".join(lines) + "\n"


def _is_refusal(record: Mapping[str, Any]) -> bool:
    from ..limits import RULES

    code = record["code"]
    if code is None:
        return False
    rule = RULES.get(code)
    return rule is None or rule.severity is Severity.ERROR


def _cmd_sniff(args: argparse.Namespace, streams: _Streams) -> int:
    import json

    from ..limits import limits_for

    if args.files.count("-") > 1:
        raise _UsageError("standard input ('-') can be named only once")
    limits = limits_for(args.target)
    records, unreadable = [], []
    for name in args.files:
        try:
            records.append(_sniff_record(_sniff_one(name, streams, args.mime_type, limits)))
        except _UsageError as exc:
            unreadable.append(str(exc))
    for message in unreadable:
        streams.err.write(f"{PROG}: error: {message}\n")
    if args.format == "json":
        streams.out.write(json.dumps(records, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    elif records:
        streams.out.write(_sniff_table(records))
    if unreadable:
        return EXIT_USAGE
    return EXIT_PROBLEMS if any(_is_refusal(r) for r in records) else EXIT_OK


# --- rules -------------------------------------------------------------------------------------


def _limit_json(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _limit_json(v) for k, v in sorted(value.items())}
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, tuple):
        return [_limit_json(v) for v in value]
    return value


def _rules_doc(targets: Sequence[str]) -> list[dict[str, Any]]:
    from ..limits import RULES, limits_for

    tables = {t: limits_for(t) for t in targets}
    return [
        {
            "code": rule.code,
            "description": rule.description,
            "severity": rule.severity.value,
            "limits": {
                t: {name: _limit_json(getattr(table, name)) for name in rule.limits}
                for t, table in tables.items()
            },
        }
        for rule in sorted(RULES.values(), key=lambda r: r.code)
    ]


def _rules_markdown(target: str | None) -> str:
    """The Markdown table of the README (both targets), or its one-target variant."""
    from ..limits import RULES, describe_limit, limits_for, rules_markdown

    if target is None:
        return rules_markdown()
    table = limits_for(target)
    lines = [f"| code | severity | description | {target} |", "| --- | --- | --- | --- |"]
    for code in sorted(RULES):
        rule = RULES[code]
        shown = [f"`{name}` {describe_limit(getattr(table, name))}" for name in rule.limits]
        cell = "<br>".join(shown).replace("|", "\\|")
        description = rule.description.replace("|", "\\|")
        lines.append(f"| `{code}` | {rule.severity.value} | {description} | {cell} |")
    return "\n".join(lines) + "\n"


def _cmd_rules(args: argparse.Namespace, streams: _Streams) -> int:
    import json

    if args.format == "json":
        targets = [args.target] if args.target else list(TARGETS)
        doc = {"rules": _rules_doc(targets), "targets": targets}
        streams.out.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        streams.out.write(_rules_markdown(args.target))
    return EXIT_OK


# --- schemas lint ------------------------------------------------------------------------------

_YAML_SUFFIXES = frozenset({".yaml", ".yml"})


@dataclass(frozen=True, slots=True)
class _Document:
    value: Any
    place: Placer


def _syntax_finding(name: str, text: str, exc: ValueError) -> Finding:
    """Place a JSON syntax error with the library's own parser (the same on every Python)."""
    from ..jsontext import parse

    for problem in parse(text).problems:
        if problem.code in ("json.syntax", "json.trailing_data", "json.too_deep"):
            return _placed_by_message(Finding(name, 1, 1, problem))
    line, col = getattr(exc, "lineno", 1), getattr(exc, "colno", 1)
    problem = Problem((), "json.syntax", f"the file is not JSON: {exc.args[0]}")
    return Finding(name, line, col, problem)


def _first_repeated_member(name: str, text: str) -> Finding | None:
    """A ``json.duplicate_key`` finding for the first member name repeated in JSON text."""
    from ..jsontext import locate_all, parse

    for problem in parse(text).problems:
        if problem.code == "json.duplicate_key":
            places = locate_all(text, problem.path)
            line, col = (places[1][0], places[1][1]) if len(places) > 1 else (1, 1)
            return Finding(name, line, col, problem)
    return None


class _RepeatedKey(Exception):
    """Stands for YAML's constructor error on a repeated mapping key (see the loader)."""


@functools.cache
def _strict_yaml_loader() -> Any:
    """A YAML SafeLoader that refuses a mapping key given twice instead of keeping the last."""
    import yaml

    class RepeatedKey(_RepeatedKey, yaml.constructor.ConstructorError):
        pass

    class StrictLoader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                try:
                    repeated = key in seen
                    seen.add(key)
                except TypeError:  # an unhashable key; SafeLoader refuses it itself
                    continue
                if repeated:
                    raise RepeatedKey(
                        None,
                        None,
                        f"the member name {key!r} is given twice; YAML keeps only the last",
                        key_node.start_mark,
                    )
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


def _parse_document(name: str, text: str) -> _Document | Finding:
    """Parse JSON or YAML; a syntax error becomes a ``json.syntax`` finding at its place."""
    import json

    import yaml

    suffix = FsPath(name).suffix.lower()
    if suffix not in _YAML_SUFFIXES:
        try:
            value = json.loads(text)
        except ValueError as exc:
            if suffix == ".json":
                return _syntax_finding(name, text, exc)
        else:
            repeat = _first_repeated_member(name, text)
            if repeat is not None:
                return repeat
            return _Document(value, lambda problems: _json_findings(name, text, problems))
    try:
        value = yaml.load(text, Loader=_strict_yaml_loader())  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        reason = _one_line(getattr(exc, "problem", None) or str(exc))
        if isinstance(exc, _RepeatedKey):
            return Finding(name, line, col, Problem((), "json.duplicate_key", reason))
        problem = Problem((), "json.syntax", f"the file is neither JSON nor YAML: {reason}")
        return Finding(name, line, col, problem)
    return _Document(value, lambda problems: _findings(name, problems, _yaml_spots(text)))


def _lint_text(name: str, text: str) -> _Result:
    from ..schemas import lint

    doc = _parse_document(name, text)
    if isinstance(doc, Finding):
        return _Result(name, (doc,))
    if not isinstance(doc.value, Mapping):
        found = _type_name(doc.value)
        problem = Problem((), "schema.type", f"expected a mapping, found {found}")
        return _Result(name, (Finding(name, 1, 1, problem),))
    return _Result(name, tuple(doc.place(lint(doc.value))))


def _bundled_texts() -> list[tuple[str, str]]:
    import importlib.resources

    from ..schemas import DOCUMENTS

    out = []
    try:
        root = importlib.resources.files("decisions_input._schemas")
        for file in sorted(DOCUMENTS.values()):
            entry = root.joinpath(file)
            out.append((_resource_name(entry, file), entry.read_text(encoding="utf-8")))
    except (ImportError, OSError, UnicodeDecodeError) as exc:
        raise _UsageError(f"cannot read the bundled schemas: {_reason(exc)}") from exc
    return out


def _resource_name(entry: Any, file: str) -> str:
    try:
        path = FsPath(os.fspath(entry)).resolve()
    except TypeError:
        return file
    try:
        return path.relative_to(FsPath.cwd()).as_posix()
    except ValueError:
        return str(path)


def _cmd_schemas_lint(args: argparse.Namespace, streams: _Streams) -> int:
    if args.files:
        results = []
        for name in args.files:
            try:
                text = _read_bytes(name, streams).decode("utf-8")
            except (_UsageError, UnicodeDecodeError) as exc:
                results.append(_Result(_display(name), error=_reason(exc)))
                continue
            results.append(_lint_text(_display(name), text))
    else:
        results = [_lint_text(name, text) for name, text in _bundled_texts()]
    return _finish(results, args.format, streams)


# --- build -------------------------------------------------------------------------------------

_SPEC_MEMBERS = ("target", "model", "mode", "include_excerpts", "state", "input", "questions")
_MEDIA_KINDS = ("image", "audio", "video", "document", "media")
_BLOCK_KINDS = ("text", *_MEDIA_KINDS)
_MEDIA_OPTIONS = ("mime_type", "resolution")
_QUESTION_MEMBERS: Mapping[str, tuple[str, ...]] = {
    "noul": ("type", "instructions", "true_description", "false_description"),
    "choice": ("type", "instructions", "options"),
    "score": ("type", "instructions", "levels"),
}
_CRITERIA_NAME = {"choice": "options", "score": "levels"}
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+:")


@dataclass(frozen=True, slots=True)
class _Spec:
    name: str
    doc: _Document
    base: FsPath


def _read_spec(name: str, streams: _Streams) -> _Spec:
    data = _read_bytes(name, streams)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _UsageError(f"cannot read {name}: not UTF-8 text") from exc
    shown = _display(name)
    doc = _parse_document(shown, text)
    if isinstance(doc, Finding):
        raise _UsageError(f"{shown}:{doc.line}:{doc.column}: {doc.problem.message}")
    base = FsPath.cwd() if name == "-" else FsPath(name).resolve().parent
    return _Spec(shown, doc, base)


def _prefixed(prefix: Path, problems: Iterable[Problem]) -> list[Problem]:
    return [replace(p, path=(*prefix, *p.path)) for p in problems]


def _problem(path: Path, code: str, message: str) -> Problem:
    return Problem(path, code, message)


def _type_name(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def _unknown_members(value: Mapping[Any, Any], allowed: Sequence[str], at: Path) -> list[Problem]:
    return [
        _problem(
            (*at, str(k)),
            "schema.unknown_member",
            f"unknown member {str(k)!r}; expected " + ", ".join(allowed),
        )
        for k in value
        if k not in allowed
    ]


def _text_block(value: Any, limits: Limits) -> Any:
    from ..blocks import text

    return text(value, limits=limits)


def _media_block(kind: str, item: Mapping[str, Any], base: FsPath, limits: Limits) -> Any:
    import inspect

    from .. import blocks

    builder = getattr(blocks, kind, None)
    if not callable(builder):
        raise _UsageError(
            f"{kind} blocks cannot be built by this version: decisions_input.blocks has no "
            f"{kind}() builder"
        )
    where = item[kind]
    if not isinstance(where, str) or not where:
        raise InvalidInput([_problem((kind,), "schema.type", "expected a path or an https URL")])
    accepted = inspect.signature(builder).parameters
    taken = [k for k in item if k == kind or k in accepted]
    problems = _unknown_members(item, taken, ())  # e.g. a resolution for audio
    options = {k: item[k] for k in _MEDIA_OPTIONS if k in taken and item[k] is not None}
    if "limits" in accepted:
        options["limits"] = limits
    source = (None, {"uri": where}) if _URI.match(where) else (base / where, {})
    block = None
    try:
        block = builder(source[0], **source[1], **options)
    except InvalidInput as exc:
        problems += exc.problems
    if problems or block is None:
        raise InvalidInput(problems)
    return block


def _build_block(item: Any, base: FsPath, limits: Limits) -> Any:
    if isinstance(item, str):
        return _text_block(item, limits)
    if not isinstance(item, dict):
        found = _type_name(item)
        raise InvalidInput(
            [_problem((), "schema.type", f"expected text or a mapping, found {found}")]
        )
    kinds = [k for k in _BLOCK_KINDS if k in item]
    if len(kinds) != 1:
        message = "expected exactly one of " + ", ".join(_BLOCK_KINDS)
        found = " and ".join(kinds) if kinds else "none"
        raise InvalidInput([_problem((), "schema.required", f"{message}; found {found}")])
    kind = kinds[0]
    allowed = (kind,) if kind == "text" else (kind, *_MEDIA_OPTIONS)
    unknown = _unknown_members(item, allowed, ())
    if unknown:
        raise InvalidInput(unknown)
    if kind == "text":
        return _text_block(item["text"], limits)
    return _media_block(kind, item, base, limits)


def _build_input(value: Any, base: FsPath, limits: Limits) -> tuple[Any, list[Problem]]:
    """Build the input blocks; return them and every problem, errors and warnings alike."""
    if not isinstance(value, list):
        return value, []
    blocks: list[Any] = []
    problems: list[Problem] = []
    for index, item in enumerate(value):
        try:
            block = _build_block(item, base, limits)
        except InvalidInput as exc:
            problems.extend(_prefixed(("input", index), exc.problems))
            continue
        blocks.append(block)
        found = getattr(block, "warnings", ())
        problems.extend(_prefixed(("input", index), found if isinstance(found, tuple) else ()))
    return blocks, problems


def _instructions(value: Any, limits: Limits) -> Any:
    if not isinstance(value, list):
        return value
    blocks: list[Any] = []
    problems: list[Problem] = []
    for index, item in enumerate(value):
        text = item.get("text") if isinstance(item, dict) and item.get("type") == "text" else item
        try:
            blocks.append(_text_block(text, limits))
        except InvalidInput as exc:
            problems.extend(_prefixed((index,), exc.problems))
    if problems:
        raise InvalidInput(_prefixed(("instructions",), problems))
    return blocks


def _option_key_problems(options: Any) -> list[Problem]:
    if not isinstance(options, dict):
        return []
    return [
        _problem(
            ("options", str(k)),
            "schema.type",
            f"expected an option ID string, found {type(k).__name__} {k!r}; quote it in YAML",
        )
        for k in options
        if not isinstance(k, str)
    ]


def _build_question(value: Any, limits: Limits) -> Question:
    if not isinstance(value, dict):
        found = _type_name(value)
        raise InvalidInput([_problem((), "schema.type", f"expected a mapping, found {found}")])
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in _QUESTION_MEMBERS:
        expected = ", ".join(_QUESTION_MEMBERS)
        at: Path = ("type",) if "type" in value else ()
        code = "question.type" if "type" in value else "schema.required"
        raise InvalidInput([_problem(at, code, f"expected a type of {expected}, found {kind!r}")])
    problems = _unknown_members(value, _QUESTION_MEMBERS[kind], ())
    problems += _option_key_problems(value.get("options"))
    try:
        question = _question(kind, value, limits)
    except InvalidInput as exc:
        problems += exc.problems
    else:
        problems += question.warnings if problems else ()
    if problems:
        raise InvalidInput(problems)
    return question


def _question(kind: str, value: Mapping[str, Any], limits: Limits) -> Question:
    from .. import questions

    instructions = _instructions(value.get("instructions"), limits)
    if kind == "noul":
        return questions.noul(
            instructions,
            true_description=value.get("true_description"),
            false_description=value.get("false_description"),
            limits=limits,
        )
    if kind == "choice":
        options = value.get("options")
        if isinstance(options, dict):
            options = {k: v for k, v in options.items() if isinstance(k, str)}
        return questions.choice(instructions, _required(value, "options", options), limits=limits)
    return questions.score(
        instructions, _required(value, "levels", value.get("levels")), limits=limits
    )


def _required(value: Mapping[str, Any], name: str, member: Any) -> Any:
    if name not in value:
        raise InvalidInput([_problem((), "schema.required", f"member {name!r} is required")])
    return member


def _question_path(kind: str | None, rest: Path) -> Path:
    """Map a path below a request question to the spec's names for it."""
    if not rest or rest[0] != "criteria":
        return rest
    if kind == "noul":
        return rest[1:]
    return (_CRITERIA_NAME.get(kind or "", "criteria"), *rest[1:])


def _build_questions(value: Any, limits: Limits) -> tuple[Any, list[Problem]]:
    if not isinstance(value, dict):
        return value, []
    built: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, question in value.items():
        if not isinstance(key, str):
            message = f"expected a question key string, found {type(key).__name__} {key!r}"
            problems.append(_problem(("questions", str(key)), "schema.type", message))
            continue
        try:
            built[key] = _build_question(question, limits)
        except InvalidInput as exc:
            problems.extend(_prefixed(("questions", key), exc.problems))
    return built, problems


def _spec_path(spec: Mapping[str, Any], path: Path) -> Path:
    """Map a path in the built request to the place in the spec that produced it."""
    if len(path) >= 2 and path[0] == "questions":
        question = (spec.get("questions") or {}).get(path[1])
        kind = question.get("type") if isinstance(question, dict) else None
        return (*path[:2], *_question_path(kind, path[2:]))
    if len(path) >= 3 and path[0] == "input" and isinstance(path[1], int):
        items = spec.get("input")
        item = items[path[1]] if isinstance(items, list) and path[1] < len(items) else None
        if isinstance(item, str):
            return path[:2]
        kinds = [k for k in _BLOCK_KINDS if isinstance(item, dict) and k in item]
        if kinds and path[2] in ("data", "uri", "text"):
            return (*path[:2], kinds[0])
    return path


def _spec_target(spec: Mapping[str, Any], override: str | None) -> tuple[str, list[Problem]]:
    if override is not None:
        return override, []
    target = spec.get("target", "gemini")
    if target in TARGETS:
        return str(target), []
    message = f"expected target {' or '.join(map(repr, TARGETS))}, found {target!r}"
    return "gemini", [_problem(("target",), "target.unknown", message)]


def _assemble(
    spec: Any, base: FsPath, override: str | None
) -> tuple[Request | None, list[Problem]]:
    """Build the request a spec describes; return it (or None) and its problems.

    Problems come from the builders and from ``Request`` with paths in the request; each
    path is then mapped to the spec's names (``options``, ``levels``, the media key).
    """
    from ..limits import limits_for
    from ..request import Request

    if not isinstance(spec, dict):
        message = f"expected a mapping, found {_type_name(spec)}"
        return None, [_problem((), "schema.type", message)]
    target, problems = _spec_target(spec, override)
    limits = limits_for(target)
    problems += _unknown_members(spec, _SPEC_MEMBERS, ())
    blocks, found = _build_input(spec.get("input"), base, limits)
    problems += found
    questions, found = _build_questions(spec.get("questions"), limits)
    problems += found
    request = None
    if not any(p.severity is Severity.ERROR for p in problems):
        options = {k: spec[k] for k in ("model", "state", "mode", "include_excerpts") if k in spec}
        if "input" in spec:
            options["input"] = blocks
        try:
            request = Request(questions=questions, target=target, limits=limits, **options)
        except InvalidInput as exc:
            problems += exc.problems
        else:
            problems += request.warnings
    return request, [replace(p, path=_spec_path(spec, p.path)) for p in problems]


def _write_output(request: Request, target: str) -> None:
    """Write the request next to ``target`` and rename it into place: never half-written."""
    import tempfile

    path = FsPath(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fp:
            request.dump(fp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
        os.replace(tmp, path)
    except BaseException:
        FsPath(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_stdout(request: Request, out: TextIO) -> None:
    """Stream the request to a real standard output; a text-only stream gets the text."""
    binary = getattr(out, "buffer", None)
    if binary is None:
        out.write(request.dumps() + "\n")
        return
    out.flush()
    request.dump(binary)
    binary.write(b"\n")
    binary.flush()


def _dedupe(problems: Iterable[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))


def _cmd_build(args: argparse.Namespace, streams: _Streams) -> int:
    from ..limits import RULES

    spec = _read_spec(args.spec, streams)
    request, problems = _assemble(spec.doc.value, spec.base, args.target)
    problems = _dedupe(_strict(problems, args.strict))
    report = Report.of(spec.doc.place(problems), files=1)
    if request is None or report.errors:
        streams.out.write(render(report, args.format, RULES, version=__version__))
        return EXIT_PROBLEMS
    to_stdout = args.output in (None, "-")
    if to_stdout:
        _write_stdout(request, streams.out)
    else:
        try:
            _write_output(request, args.output)
        except OSError as exc:
            raise _UsageError(f"cannot write {args.output}: {_reason(exc)}") from exc
    if not to_stdout:
        streams.out.write(render(report, args.format, RULES, version=__version__))
    elif report.findings:
        streams.err.write(render_text(report))
    return EXIT_OK


# --- estimate ----------------------------------------------------------------------------------


def _is_spec(name: str, forced: bool) -> bool:
    return forced or FsPath(name).suffix.lower() in _YAML_SUFFIXES


def _estimate_request(name: str, target: str | None, streams: _Streams) -> Estimate | Report:
    """Estimate a JSON request body; a body that is not JSON gives its problems instead."""
    from ..budget import estimate
    from ..limits import limits_for
    from ..validate import to_json_value

    data = _read_bytes(name, streams)
    limits = limits_for(target or "gemini")
    value, problems = to_json_value(data, limits)
    if value is None and problems:
        text = data.decode("utf-8", "replace")
        return Report.of(_json_findings(_display(name), text, problems), files=1)
    try:
        return estimate(value, target=target)
    except InvalidInput as exc:
        return Report.of((Finding(_display(name), 1, 1, p) for p in exc.problems), files=1)


def _estimate_spec(name: str, target: str | None, streams: _Streams) -> Estimate | Report:
    """Build the request a spec describes (media sniffed, never decoded) and estimate it."""
    from ..budget import estimate

    spec = _read_spec(name, streams)
    request, problems = _assemble(spec.doc.value, spec.base, target)
    errors = [p for p in _dedupe(problems) if p.severity is Severity.ERROR]
    if request is None or errors:
        return Report.of(spec.doc.place(errors), files=1)
    return estimate(request)


def _cmd_estimate(args: argparse.Namespace, streams: _Streams) -> int:
    from ..limits import RULES

    if args.files.count("-") > 1:
        raise _UsageError("standard input ('-') can be named only once")
    found: list[tuple[str, Estimate]] = []
    refused: list[Finding] = []
    for name in args.files:
        if _is_spec(name, args.spec):
            result = _estimate_spec(name, args.target, streams)
        else:
            result = _estimate_request(name, args.target, streams)
        if isinstance(result, Report):
            refused.extend(result.findings)
        else:
            found.append((_display(name), result))
    if refused:
        report = Report.of(refused, files=len(args.files))
        streams.err.write(render(report, "text", RULES, version=__version__))
    streams.out.write(render_estimates(found, args.format))
    over = any(not e.fits or (args.strict and e.at_risk) for _name, e in found)
    return EXIT_PROBLEMS if over or refused else EXIT_OK


# --- the parser --------------------------------------------------------------------------------

_EPILOG = (
    "Exit status: 0 no errors (warnings allowed unless --strict), 1 errors found, "
    "2 usage error, unreadable file or internal failure."
)


def _add_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="output format: text (default), json, sarif (SARIF 2.1.0), github (annotations)",
    )


def _add_target(parser: argparse.ArgumentParser, *, default: str | None = "gemini") -> None:
    parser.add_argument(
        "--target",
        choices=TARGETS,
        default=default,
        help="the API the request is for (default: "
        + (default or "from the file: a spec's target; Parallel for JSON with state and no model")
        + ")",
    )


def _add_strict(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")


def _sub(
    subparsers: Any,
    name: str,
    streams: _Streams,
    help_text: str,
    run: Callable[[argparse.Namespace, _Streams], int] | None,
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help_text, description=help_text, epilog=_EPILOG, streams=streams
    )
    if run is not None:
        parser.set_defaults(run=run)
    return parser


def _add_validate(subparsers: Any, streams: _Streams) -> None:
    p = _sub(subparsers, "validate", streams, "check JSON request files", _cmd_validate)
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="request file, directory (its *.json files) or - for standard input",
    )
    _add_target(p)
    _add_strict(p)
    _add_format(p)
    p.add_argument(
        "--jobs",
        type=_non_negative,
        default=0,
        metavar="N",
        help="worker processes (default 0: one process unless there are many files)",
    )


def _add_check_response(subparsers: Any, streams: _Streams) -> None:
    p = _sub(
        subparsers,
        "check-response",
        streams,
        "check a JSON response file, against its request when given",
        _cmd_check_response,
    )
    p.add_argument("response", metavar="RESPONSE", help="response file or - for standard input")
    p.add_argument("--request", metavar="REQUEST", help="the request file the response answers")
    p.add_argument(
        "--target",
        choices=TARGETS,
        default=None,
        help="the API the response is from (default: Parallel when the request has state and "
        "no model, else gemini)",
    )
    _add_strict(p)
    _add_format(p)


def _add_build(subparsers: Any, streams: _Streams) -> None:
    p = _sub(
        subparsers,
        "build",
        streams,
        "build a validated, canonical request from a YAML or JSON spec",
        _cmd_build,
    )
    p.add_argument("spec", metavar="SPEC", help="spec file (YAML or JSON) or - for standard input")
    p.add_argument("-o", "--output", metavar="OUT", help="write the request here (default: stdout)")
    _add_target(p, default=None)
    _add_strict(p)
    _add_format(p)


def _add_sniff(subparsers: Any, streams: _Streams) -> None:
    p = _sub(subparsers, "sniff", streams, "show what the library sees in media files", _cmd_sniff)
    p.add_argument("files", nargs="+", metavar="FILE", help="file or - for standard input")
    p.add_argument("--mime-type", metavar="TYPE", help="the declared MIME type to compare with")
    _add_target(p)
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format")


def _add_estimate(subparsers: Any, streams: _Streams) -> None:
    p = _sub(
        subparsers,
        "estimate",
        streams,
        "estimate the input tokens of requests per block and in total, against the budget",
        _cmd_estimate,
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="JSON request file, YAML spec (.yaml, .yml), or - for standard input",
    )
    p.add_argument("--spec", action="store_true", help="read every file as a spec, JSON too")
    _add_target(p, default=None)
    p.add_argument("--strict", action="store_true", help="exit 1 also when it may not fit")
    p.add_argument("--format", choices=ESTIMATE_FORMATS, default="text", help="output format")


def _add_rules(subparsers: Any, streams: _Streams) -> None:
    p = _sub(
        subparsers, "rules", streams, "list every rule code with its limits per target", _cmd_rules
    )
    _add_target(p, default=None)
    p.add_argument("--format", choices=("markdown", "json"), default="markdown")


def _add_schemas(subparsers: Any, streams: _Streams) -> None:
    p = _sub(subparsers, "schemas", streams, "work with OpenAPI and JSON Schema documents", None)
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    lint = _sub(
        actions,
        "lint",
        streams,
        "check the bundled documents, or the given ones: dangling $ref, meta-schema, examples",
        _cmd_schemas_lint,
    )
    lint.add_argument("files", nargs="*", metavar="FILE", help="OpenAPI 3.x or JSON Schema file")
    _add_format(lint)


def _parser(streams: _Streams) -> _Parser:
    parser = _Parser(
        prog=PROG,
        description="Validate and build requests for Decisions APIs (Gemini and Parallel).",
        epilog=_EPILOG,
        streams=streams,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in (
        _add_validate,
        _add_check_response,
        _add_build,
        _add_sniff,
        _add_estimate,
        _add_rules,
        _add_schemas,
    ):
        add(subparsers, streams)
    return parser


# --- entry points ------------------------------------------------------------------------------


def _non_negative(text: str) -> int:
    """Parse a whole number of at least 0 for argparse."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, found {value}")
    return value


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    stdin: IO[Any] | None = None,
) -> int:
    """Run the command line and return its exit status; never raise, never exit.

    ``stdin`` is read for ``-`` arguments (text or binary; default ``sys.stdin``).

    .. versionadded:: 0.1
    """
    streams = _Streams(
        stdout if stdout is not None else sys.stdout,
        stderr if stderr is not None else sys.stderr,
        stdin,
    )
    try:
        args = _parser(streams).parse_args(list(argv) if argv is not None else None)
        status: int = args.run(args, streams)
        streams.out.flush()
        return status
    except _Exit as exc:
        return exc.status
    except KeyboardInterrupt:
        streams.err.write(f"{PROG}: interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_PROBLEMS
    except (DecisionsInputError, OSError) as exc:
        streams.err.write(f"{PROG}: error: {_failure(exc)}\n")
        return EXIT_USAGE
    except Exception as exc:  # the last line of defence: one line, never a traceback
        streams.err.write(f"{PROG}: internal error: {type(exc).__name__}: {_reason(exc)}\n")
        return EXIT_USAGE


def _failure(exc: BaseException) -> str:
    if isinstance(exc, InvalidInput) and exc.problems:
        first = exc.problems[0]
        return f"{first.code}: {_one_line(first.message)}"
    return _reason(exc)


def main_entry() -> None:
    """Console-script entry: run :func:`main` on ``sys.argv`` and exit with its status."""
    status = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (``| head``): end quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    sys.exit(status)
