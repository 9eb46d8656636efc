"""Render located problems for people and for CI: text, JSON, SARIF 2.1.0, GitHub annotations.

Every renderer takes a :class:`Report` and returns the whole text; only ``cli`` writes it.
Output is deterministic: findings are sorted by file, line, column and code, JSON members
are sorted, and nothing depends on the clock or the machine.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from ..errors import Problem, Severity
from ..limits import Rule
from .common import ESTIMATE_FORMATS, FORMATS, STDIN_NAME, TOOL_NAME

if TYPE_CHECKING:
    from ..budget import Estimate

__all__ = [
    "ESTIMATE_FORMATS",
    "FORMATS",
    "SARIF_SCHEMA_URI",
    "STDIN_NAME",
    "TOOL_NAME",
    "Finding",
    "Report",
    "artifact_uri",
    "render",
    "render_github",
    "render_estimates",
    "render_json",
    "render_sarif",
    "render_text",
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
class Report:
    """The findings of one run over ``files`` files, sorted on creation."""

    findings: tuple[Finding, ...]
    files: int

    @classmethod
    def of(cls, findings: Iterable[Finding], *, files: int) -> Report:
        """Build a report with the findings in output order."""
        return cls(tuple(sorted(findings, key=lambda f: f.sort_key)), files)

    @property
    def errors(self) -> int:
        """How many findings are errors."""
        return sum(1 for f in self.findings if f.problem.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        """How many findings are warnings."""
        return len(self.findings) - self.errors


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def summary_line(report: Report) -> str:
    """Return ``2 files, 1 error, 1 warning``."""
    return ", ".join(
        (
            _count(report.files, "file"),
            _count(report.errors, "error"),
            _count(report.warnings, "warning"),
        )
    )


def render_text(report: Report) -> str:
    """One ``FILE:LINE:COL: SEVERITY CODE  MESSAGE (JSON_PATH)`` line each, then the summary."""
    lines = [
        f"{f.file}:{f.line}:{f.column}: {f.problem.severity.value} {f.problem.code}  "
        f"{_one_line(f.problem.message)} ({f.problem.json_path})"
        for f in report.findings
    ]
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


def render_json(report: Report) -> str:
    """A JSON document with the counts and one object per problem."""
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
    }
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report) -> str:
    """GitHub Actions workflow commands (``::error file=…,line=…,col=…::``), then the summary."""
    lines = []
    for f in report.findings:
        p = f.problem
        props = ",".join(
            (
                f"file={_escape_property(f.file)}",
                f"line={f.line}",
                f"col={f.column}",
                f"title={_escape_property(p.code)}",
            )
        )
        lines.append(
            f"::{p.severity.value} {props}::{_escape_data(f'{p.message} ({p.json_path})')}"
        )
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"


def artifact_uri(name: str) -> str:
    """Turn a file name as given into a SARIF artifact URI (relative stays relative)."""
    if name == STDIN_NAME:
        return "stdin"
    path = PurePath(name)
    if path.is_absolute():
        return path.as_uri()
    posix = name.replace(os.sep, "/") if os.sep != "/" else name
    if posix.startswith("./"):
        posix = posix[2:]
    return urllib.parse.quote(posix)


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
    results = [
        {
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
                    "logicalLocations": [
                        {"fullyQualifiedName": f.problem.json_path, "kind": "member"}
                    ],
                }
            ],
        }
        for f in report.findings
    ]
    log = {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


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
    lines = [f"{name} ({found.target})"]
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
        return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if fmt != "text":
        raise ValueError(f"expected a format of {', '.join(ESTIMATE_FORMATS)}, found {fmt!r}")
    blocks = ["\n".join(_estimate_table(name, found)) for name, found in items]
    return "\n\n".join(blocks) + "\n" if blocks else ""
