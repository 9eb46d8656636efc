"""Render located problems for people and for CI: text, JSON, SARIF 2.1.0, GitHub annotations.

Every renderer takes a :class:`Report` and returns the whole text; only the command line
writes it. Output is deterministic: findings are sorted by file, line, column and code,
JSON members are sorted, and nothing depends on the clock or the machine.

Any string can be written, whatever a file name, a member name or a message holds: the
text formats escape control characters and lone surrogates (``\\x1b``, ``\\udc80``, and
``\\xff`` for a byte of a file name that is not UTF-8); the JSON formats write lone
surrogates as ``\\ud800`` escapes, which JSON allows. A report also says what it leaves
out: files that could not be read, and per file the problems past the cap on problems
shown, counted in the summary by severity.
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from ..errors import Problem, Severity
from ..limits import Rule
from .common import ESTIMATE_FORMATS, FORMATS, STDIN_NAME, TOOL_NAME

if TYPE_CHECKING:
    from ..budget import Estimate
    from ..reported_usage import UsageComparison, UsageRow

__all__ = [
    "ESTIMATE_FORMATS",
    "FORMATS",
    "SARIF_SCHEMA_URI",
    "STDIN_NAME",
    "TOOL_NAME",
    "Finding",
    "NotChecked",
    "NotShown",
    "Report",
    "UsagePair",
    "artifact_uri",
    "json_text",
    "printable",
    "render",
    "render_github",
    "render_estimates",
    "render_json",
    "render_sarif",
    "render_text",
    "render_usage",
    "summary_line",
]

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem placed in one file: 1-based line and column (in code points)."""

    file: str
    line: int
    column: int
    problem: Problem

    @property
    def sort_key(self) -> tuple[str, int, int, str, str, str]:
        """The order of the output: file, line, column, code, then path and message."""
        p = self.problem
        return (self.file, self.line, self.column, p.code, p.json_path, p.message)


@dataclass(frozen=True, slots=True)
class NotShown:
    """Problems of one file past the cap on problems shown: counted, not listed."""

    file: str
    errors: int
    warnings: int

    @property
    def problems(self) -> int:
        """How many problems were left out."""
        return self.errors + self.warnings


@dataclass(frozen=True, slots=True)
class NotChecked:
    """A file that could not be read or checked, and why."""

    file: str
    message: str


@dataclass(frozen=True, slots=True)
class Report:
    """The findings of one run over ``files`` files, sorted on creation.

    ``not_shown`` counts the problems left out per file (``cap`` is the most shown per
    file), ``not_checked`` lists the files that could not be read or checked. The counts
    of errors and warnings include the problems left out.
    """

    findings: tuple[Finding, ...]
    files: int
    not_shown: tuple[NotShown, ...] = ()
    not_checked: tuple[NotChecked, ...] = ()
    cap: int = 0

    @classmethod
    def of(
        cls,
        findings: Iterable[Finding],
        *,
        files: int,
        not_shown: Iterable[NotShown] = (),
        not_checked: Iterable[NotChecked] = (),
        cap: int = 0,
    ) -> Report:
        """Build a report with the findings in output order."""
        return cls(
            tuple(sorted(findings, key=lambda f: f.sort_key)),
            files,
            tuple(sorted((n for n in not_shown if n.problems), key=lambda n: n.file)),
            tuple(sorted(not_checked, key=lambda n: (n.file, n.message))),
            cap,
        )

    @property
    def errors(self) -> int:
        """How many errors there are, shown or not."""
        shown = sum(1 for f in self.findings if f.problem.severity is Severity.ERROR)
        return shown + sum(n.errors for n in self.not_shown)

    @property
    def warnings(self) -> int:
        """How many warnings there are, shown or not."""
        shown = sum(1 for f in self.findings if f.problem.severity is not Severity.ERROR)
        return shown + sum(n.warnings for n in self.not_shown)

    @property
    def left_out(self) -> int:
        """How many problems were counted but not shown."""
        return sum(n.problems for n in self.not_shown)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def summary_line(report: Report) -> str:
    """Return ``2 files, 1 error, 1 warning``, and what was not checked or not shown."""
    parts = [
        _count(report.files, "file"),
        _count(report.errors, "error"),
        _count(report.warnings, "warning"),
    ]
    if report.not_checked:
        parts.append(f"{len(report.not_checked)} not checked")
    line = ", ".join(parts)
    if report.left_out:
        line += (
            f"; {_count(report.left_out, 'problem')} not shown "
            f"(at most {report.cap} a file; --max-problems 0 shows all)"
        )
    return line


# --- escaping ----------------------------------------------------------------------------------

# Control characters (C0, DEL, C1) and lone surrogates: what text output escapes.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# The same but line breaks, which GitHub's workflow commands hold as %0A and %0D.
_UNPRINTABLE_BUT_LINES = re.compile("[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match[0])
    if code < 0x100:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (a file name, surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def printable(text: str) -> str:
    """Text on one line with control characters and lone surrogates escaped."""
    return _UNPRINTABLE.sub(_escape_char, _one_line(text))


def json_text(value: Any, *, indent: int | None = 2) -> str:
    """JSON text of ``value`` (sorted members, UTF-8); lone surrogates as ``\\u`` escapes."""
    text = json.dumps(value, indent=indent, sort_keys=True, ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


# --- text, JSON, GitHub ------------------------------------------------------------------------


def _not_shown_line(n: NotShown, cap: int) -> str:
    return (
        f"{printable(n.file)}: {_count(n.problems, 'more problem')} not shown "
        f"({_count(n.errors, 'error')}, {_count(n.warnings, 'warning')}; at most {cap} a file)"
    )


def render_text(report: Report) -> str:
    """One ``FILE:LINE:COL: SEVERITY CODE  MESSAGE (JSON_PATH)`` line each, then the summary."""
    lines = [
        f"{printable(f.file)}:{f.line}:{f.column}: {f.problem.severity.value} {f.problem.code}  "
        f"{printable(f.problem.message)} ({printable(f.problem.json_path)})"
        for f in report.findings
    ]
    lines += [_not_shown_line(n, report.cap) for n in report.not_shown]
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


def render_json(report: Report) -> str:
    """A JSON document with the counts, one object per problem, and what was left out."""
    doc = {
        "files": report.files,
        "errors": report.errors,
        "warnings": report.warnings,
        "problems": [
            {
                "file": f.file,
                "line": f.line,
                "column": f.column,
                "severity": f.problem.severity.value,
                "code": f.problem.code,
                "message": f.problem.message,
                "json_path": f.problem.json_path,
                "path": list(f.problem.path),
            }
            for f in report.findings
        ],
        "not_shown": [
            {"file": n.file, "errors": n.errors, "warnings": n.warnings} for n in report.not_shown
        ],
        "not_checked": [{"file": n.file, "message": n.message} for n in report.not_checked],
        "max_problems_per_file": report.cap,
    }
    return json_text(doc) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(level: str, message: str, file: str, *place: tuple[str, object]) -> str:
    props = ",".join((f"file={_escape_property(printable(file))}", *(f"{k}={v}" for k, v in place)))
    return f"::{level} {props}::{_escape_data(_UNPRINTABLE_BUT_LINES.sub(_escape_char, message))}"


def render_github(report: Report) -> str:
    """GitHub Actions workflow commands (``::error file=…,line=…,col=…::``), then the summary."""
    lines = []
    for f in report.findings:
        p = f.problem
        title = ("title", _escape_property(p.code))
        place = (("line", f.line), ("col", f.column), title)
        lines.append(_command(p.severity.value, f"{p.message} ({p.json_path})", f.file, *place))
    lines += [_command("error", n.message, n.file) for n in report.not_checked]
    lines += [_command("warning", _not_shown_line(n, report.cap), n.file) for n in report.not_shown]
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


# --- SARIF -------------------------------------------------------------------------------------


def _uri_bytes(name: str) -> bytes:
    try:
        return os.fsencode(name)
    except UnicodeError:  # a lone surrogate that no file name decodes to
        return name.encode("utf-8", "surrogatepass")


def artifact_uri(name: str) -> str:
    """Turn a file name as given into a SARIF artifact URI (relative stays relative).

    Standard input is ``<stdin>`` as in every format, percent-encoded as a URI must be.
    """
    if name != STDIN_NAME and PurePath(name).is_absolute():
        path = PurePath(name)
        prefix = "file://" + ("/" if not path.as_posix().startswith("/") else "")
        return prefix + urllib.parse.quote(_uri_bytes(path.as_posix()))
    posix = name.replace(os.sep, "/") if os.sep != "/" else name
    if posix.startswith("./"):
        posix = posix[2:]
    return urllib.parse.quote(_uri_bytes(posix))


def _rule_entry(code: str, rules: Mapping[str, Rule]) -> dict[str, Any]:
    rule = rules.get(code)
    description = rule.description if rule is not None else code
    severity = rule.severity if rule is not None else Severity.ERROR
    return {
        "id": code,
        "shortDescription": {"text": description},
        "fullDescription": {"text": description},
        "defaultConfiguration": {"level": severity.value},
        "properties": {"tags": [code.split(".", 1)[0]]},
    }


def _sarif_result(f: Finding, index: Mapping[str, int]) -> dict[str, Any]:
    return {
        "ruleId": f.problem.code,
        "ruleIndex": index[f.problem.code],
        "level": f.problem.severity.value,
        "message": {"text": f"{f.problem.message} ({f.problem.json_path})"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(f.file)},
                    "region": {"startLine": f.line, "startColumn": f.column},
                },
                "logicalLocations": [{"fullyQualifiedName": f.problem.json_path, "kind": "member"}],
            }
        ],
    }


def _notification(level: str, text: str, file: str) -> dict[str, Any]:
    location = {"physicalLocation": {"artifactLocation": {"uri": artifact_uri(file)}}}
    return {"level": level, "message": {"text": text}, "locations": [location]}


def _invocation(report: Report) -> dict[str, Any]:
    """What the run could not do: files not checked (errors), problems not shown (warnings)."""
    notes = [_notification("error", n.message, n.file) for n in report.not_checked]
    notes += [
        _notification("warning", _not_shown_line(n, report.cap), n.file) for n in report.not_shown
    ]
    failed = bool(report.not_checked) or any(
        f.problem.code == "internal.error" for f in report.findings
    )
    return {"executionSuccessful": not failed, "toolExecutionNotifications": notes}


def render_sarif(report: Report, rules: Mapping[str, Rule], *, version: str = "") -> str:
    """A SARIF 2.1.0 log with one run, one rule entry per code that occurs."""
    codes = sorted({f.problem.code for f in report.findings})
    index = {code: i for i, code in enumerate(codes)}
    driver: dict[str, Any] = {
        "name": TOOL_NAME,
        "rules": [_rule_entry(code, rules) for code in codes],
    }
    if version:
        driver["version"] = version
    log = {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "invocations": [_invocation(report)],
                "columnKind": "unicodeCodePoints",
                "results": [_sarif_result(f, index) for f in report.findings],
            }
        ],
    }
    return json_text(log) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.splitlines()) if "\n" in text or "\r" in text else text


def render(report: Report, fmt: str, rules: Mapping[str, Rule], *, version: str = "") -> str:
    """Render a report in one of :data:`FORMATS`; ``rules`` and ``version`` serve SARIF."""
    if fmt == "text":
        return render_text(report)
    if fmt == "json":
        return render_json(report)
    if fmt == "github":
        return render_github(report)
    if fmt == "sarif":
        return render_sarif(report, rules, version=version)
    raise ValueError(f"expected a format of {', '.join(FORMATS)}, found {fmt!r}")


# --- token estimates ---------------------------------------------------------------------------


def _verdict(found: Estimate) -> str:
    if found.budget is None:
        return "no budget for this target"
    budget = f"the budget of {found.budget:,} tokens ({found.budget_limit})"
    if not found.fits:
        return f"does not fit: even the low estimate is over {budget}"
    if found.at_risk:
        return f"may not fit: only the high estimate is over {budget}"
    return f"fits: the high estimate is within {budget}"


def _estimate_table(name: str, found: Estimate) -> list[str]:
    header = ("PART", "MODALITY", "LOW", "HIGH", "BASIS")
    rows = [header]
    rows += [
        (r.json_path, r.modality, f"{r.low:,}", f"{r.high:,}", _one_line(r.basis))
        for r in found.parts
    ]
    rows.append(("total", "", f"{found.total.low:,}", f"{found.total.high:,}", found.counted))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [f"{printable(name)} ({found.target})"]
    for row in rows:
        cells = [
            row[0].ljust(widths[0]),
            row[1].ljust(widths[1]),
            row[2].rjust(widths[2]),
            row[3].rjust(widths[3]),
        ]
        lines.append("  ".join([*cells, row[4]]).rstrip())
    lines.append(_verdict(found))
    return lines


def _estimate_record(name: str, found: Estimate) -> dict[str, Any]:
    def row(r: Any) -> dict[str, Any]:
        return {
            "path": list(r.path),
            "json_path": r.json_path,
            "modality": r.modality,
            "low": r.low,
            "high": r.high,
            "measured": r.measured,
            "basis": r.basis,
        }

    return {
        "file": name,
        "target": found.target,
        "blocks": [row(r) for r in found.blocks],
        "questions": [row(r) for r in found.questions],
        "total": {"low": found.total.low, "high": found.total.high},
        "counted": found.counted,
        "budget": found.budget,
        "budget_limit": found.budget_limit,
        "fits": found.fits,
        "at_risk": found.at_risk,
    }


def render_estimates(items: Iterable[tuple[str, Estimate]], fmt: str) -> str:
    """Render token estimates per file: a table with the total and verdict, or JSON."""
    items = list(items)
    if fmt == "json":
        doc = [_estimate_record(name, found) for name, found in items]
        return json_text(doc) + "\n"
    if fmt != "text":
        raise ValueError(f"expected a format of {', '.join(ESTIMATE_FORMATS)}, found {fmt!r}")
    blocks = ["\n".join(_estimate_table(name, found)) for name, found in items]
    return "\n\n".join(blocks) + "\n" if blocks else ""


# --- estimates against reported usage ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UsagePair:
    """A request file, the response it received, and how its estimate did against the usage.

    ``comparison`` is None when the pair was not compared; ``reason`` then says why.
    """

    request: str
    response: str
    target: str | None = None
    comparison: UsageComparison | None = None
    reason: str = ""

    @property
    def verdict(self) -> str:
        """``inside``, ``outside`` (a figure below or above its bounds) or ``not_compared``."""
        if self.comparison is None:
            return "not_compared"
        return "outside" if self.comparison.outside else "inside"


@dataclass(frozen=True, slots=True)
class _Tally:
    """How the rows of one modality did over every compared pair."""

    modality: str
    pairs: int = 0
    inside: int = 0
    below: int = 0
    above: int = 0
    worst_below: float | None = None
    worst_above: float | None = None


def _worst(current: float | None, factor: float | None) -> float | None:
    if factor is None:
        return current
    return factor if current is None else max(current, factor)


def _tallies(pairs: Iterable[UsagePair]) -> list[_Tally]:
    """One tally per modality (``total`` last), over the rows of every compared pair."""
    found: dict[str, _Tally] = {}
    for pair in pairs:
        for row in pair.comparison.rows if pair.comparison is not None else ():
            t = found.get(row.modality, _Tally(row.modality))
            found[row.modality] = _Tally(
                t.modality,
                t.pairs + 1,
                t.inside + (row.verdict == "inside"),
                t.below + (row.verdict == "below"),
                t.above + (row.verdict == "above"),
                _worst(t.worst_below, row.factor if row.verdict == "below" else None),
                _worst(t.worst_above, row.factor if row.verdict == "above" else None),
            )
    return sorted(found.values(), key=lambda t: (t.modality == "total", t.modality))


def _columns(rows: Sequence[Sequence[str]], right: frozenset[int]) -> list[str]:
    """Align the cells of a table: the columns in ``right`` to the right, the rest left."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ).rstrip()
        for row in rows
    ]


def _times(factor: float | None) -> str:
    return "-" if factor is None else f"{factor:.2f}x"


def _usage_verdict(row: UsageRow) -> str:
    text: str = row.verdict
    if row.verdict == "below":
        text += " (none reported)" if row.factor is None else f" by {_times(row.factor)}"
    elif row.verdict == "above":
        text += " (none estimated)" if row.factor is None else f" by {_times(row.factor)}"
    return text if row.measured else text + ", not measured"


def _usage_table(pair: UsagePair) -> list[str]:
    title = f"{printable(pair.request)} against {printable(pair.response)}"
    lines = [title + (f" ({pair.target})" if pair.target else "")]
    if pair.comparison is None:
        return [*lines, f"not compared: {printable(pair.reason)}"]
    rows = [("MODALITY", "LOW", "HIGH", "REPORTED", "VERDICT")]
    rows += [
        (
            printable(r.modality),
            f"{r.low:,}",
            "-" if r.high is None else f"{r.high:,}",
            f"{r.reported:,}",
            _usage_verdict(r),
        )
        for r in pair.comparison.rows
    ]
    lines += _columns(rows, frozenset({1, 2, 3}))
    return lines + [printable(note) for note in pair.comparison.notes]


def _usage_summary(pairs: list[UsagePair]) -> list[str]:
    compared = sum(1 for p in pairs if p.comparison is not None)
    left = len(pairs) - compared
    head = f"{_count(len(pairs), 'pair')}: {compared} compared, {left} not compared"
    tallies = _tallies(pairs)
    if not tallies:
        return [head]
    rows = [("MODALITY", "PAIRS", "INSIDE", "BELOW", "ABOVE", "WORST BELOW", "WORST ABOVE")]
    rows += [
        (
            printable(t.modality),
            str(t.pairs),
            str(t.inside),
            str(t.below),
            str(t.above),
            _times(t.worst_below),
            _times(t.worst_above),
        )
        for t in tallies
    ]
    return [head, *_columns(rows, frozenset(range(1, 7)))]


def _usage_record(pair: UsagePair) -> dict[str, Any]:
    c = pair.comparison
    rows = [
        {
            "modality": r.modality,
            "low": r.low,
            "high": r.high,
            "reported": r.reported,
            "verdict": r.verdict,
            "factor": r.factor,
            "measured": r.measured,
        }
        for r in (c.rows if c is not None else ())
    ]
    return {
        "request": pair.request,
        "response": pair.response,
        "target": pair.target,
        "verdict": pair.verdict,
        "reason": pair.reason or None,
        "floor": c.floor if c is not None else None,
        "notes": list(c.notes) if c is not None else [],
        "rows": rows,
    }


def _tally_record(t: _Tally) -> dict[str, Any]:
    return {
        "modality": t.modality,
        "pairs": t.pairs,
        "inside": t.inside,
        "below": t.below,
        "above": t.above,
        "worst_below": t.worst_below,
        "worst_above": t.worst_above,
    }


def render_usage(pairs: Iterable[UsagePair], fmt: str) -> str:
    """Render estimates against reported usage: a table per pair and a summary, or JSON."""
    pairs = list(pairs)
    if fmt == "json":
        compared = sum(1 for p in pairs if p.comparison is not None)
        doc = {
            "pairs": [_usage_record(p) for p in pairs],
            "summary": [_tally_record(t) for t in _tallies(pairs)],
            "compared": compared,
            "not_compared": len(pairs) - compared,
        }
        return json_text(doc) + "\n"
    if fmt != "text":
        raise ValueError(f"expected a format of {', '.join(ESTIMATE_FORMATS)}, found {fmt!r}")
    blocks = ["\n".join(_usage_table(p)) for p in pairs]
    blocks.append("\n".join(_usage_summary(pairs)))
    return "\n\n".join(blocks) + "\n"
