"""``decisions-input rules``: every rule code with its description, severity and limits."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import Any

from .common import EXIT_OK, Streams, targets

__all__ = ["run"]


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


def run(args: argparse.Namespace, streams: Streams) -> int:
    import json

    if args.format == "json":
        names = [args.target] if args.target else list(targets())
        doc = {"rules": _rules_doc(names), "targets": names}
        streams.out.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        streams.out.write(_rules_markdown(args.target))
    return EXIT_OK
