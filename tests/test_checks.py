"""Unicode tables and the rule list stay true to their sources."""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

import decisions_input as di
from decisions_input import checks
from decisions_input.limits import rules_markdown

README = Path(__file__).parent.parent / "README.md"


def test_format_chars_cover_the_unicode_database() -> None:
    table = re.compile(f"[{checks.FORMAT_CHARS}]")
    missing = [
        hex(c)
        for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c)) == "Cf" and not table.match(chr(c))
    ]
    assert missing == []


def test_white_space_is_unicode_white_space() -> None:
    # PropList.txt White_Space: these 25 code points, no more.
    assert len(checks.WHITE_SPACE) == 25
    assert all(c.isspace() for c in checks.WHITE_SPACE)
    assert "\x1c" not in checks.WHITE_SPACE


def test_every_rule_code_is_dotted_and_described() -> None:
    for code, rule in di.RULES.items():
        assert re.fullmatch(r"[a-z0-9_]+\.[a-z0-9_]+", code), code
        assert rule.code == code
        assert rule.description.endswith(".")
        for name in rule.limits:
            assert hasattr(di.GEMINI, name), (code, name)


def test_codes_used_in_the_package_are_listed() -> None:
    package = Path(checks.__file__).parent
    used = set()
    for path in package.glob("*.py"):
        used |= set(re.findall(r'"([a-z0-9_]+\.[a-z0-9_]+)"', path.read_text()))
    candidates = {c for c in used if c.split(".")[0] in {r.split(".")[0] for r in di.RULES}}
    candidates -= {"decisions_input.cli", "decisions_input._schemas"}
    unlisted = sorted(
        c for c in candidates if c not in di.RULES and not c.endswith((".json", ".py"))
    )
    assert unlisted == []


def test_readme_rules_table_is_generated() -> None:
    text = README.read_text()
    start = text.index("<!-- rules:start -->") + len("<!-- rules:start -->\n")
    end = text.index("<!-- rules:end -->")
    assert text[start:end] == rules_markdown(), (
        "run: python -m decisions_input rules --format markdown"
    )
