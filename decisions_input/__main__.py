"""``python -m decisions_input``: the same command line as ``decisions-input``."""

from __future__ import annotations

from decisions_input.cli import main_entry

__all__: list[str] = []

if __name__ == "__main__":
    main_entry()
