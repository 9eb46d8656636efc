"""``python -m fuzz``: run the fuzz harness (see :mod:`fuzz.run`)."""

from __future__ import annotations

import sys

from fuzz.run import main

__all__: list[str] = []

if __name__ == "__main__":
    sys.exit(main())
