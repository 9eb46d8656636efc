"""PDF: the header window, the ``%%EOF`` window, encryption, and the page count (pypdf)."""

from __future__ import annotations

import warnings
from typing import Any

from ..errors import SourceError
from .base import (
    Broken,
    Detected,
    Format,
    OutOfBudget,
    Source,
    buffered,
    earliest_polyglot_end,
    foreign,
    found,
    polyglot,
    quiet_logger,
)

__all__ = ["FORMATS", "PDF", "PDF_WINDOW", "pdf_start"]


PDF_WINDOW = 1024


def pdf_start(head: bytes) -> int:
    """Return where a ``%PDF-`` header starting in the first 1024 bytes is, or -1."""
    return head.find(b"%PDF-", 0, PDF_WINDOW + 4)


def _pdf(src: Source) -> Detected:
    begin = pdf_start(src.head)
    version = src.head[begin + 5 : begin + 8].decode("latin-1")
    if src.partial:
        return found("application/pdf", "PDF", f"PDF {version}", pdf_version=version, partial=True)
    start, tail = src.tail()
    if b"%%EOF" not in tail[-PDF_WINDOW:]:
        end = earliest_polyglot_end(tail, start, b"%%EOF", 0, "PDF")
        if end:
            other = foreign(src.at(end, 64), "PDF") or "another format"
            det = found("application/pdf", "PDF", "PDF")
            return polyglot(det, other, f"{other} bytes after %%EOF at offset {end}")
        raise Broken("media.truncated", "expected %%EOF in the last 1024 bytes, found none")
    pages, counted = _pdf_pages(src.view(begin) if begin else src)
    if pages == 0:
        raise Broken("pdf.no_pages", "expected at least 1 page, found 0")
    return found(
        "application/pdf",
        "PDF",
        f"PDF {version}, {pages if pages is not None else 'uncounted'} page(s)",
        pages=pages,
        pages_exact=counted if pages is not None else None,
        pdf_version=version,
        offset=begin or None,
    )


_PDF_PAGE_NODES = 2000  # page-tree nodes walked before the document's own /Count is taken


def _pdf_pages(src: Source) -> tuple[int | None, bool]:
    """Count pages with pypdf: (pages, whether they were counted leaf by leaf).

    Up to ``_PDF_PAGE_NODES`` nodes of the page tree are walked; past that the root's
    ``/Count`` is taken. ``(None, False)`` when pypdf is absent or the bytes bound is hit.
    """
    try:
        import pypdf
    except ImportError:
        return None, False
    quiet_logger("pypdf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            reader = pypdf.PdfReader(buffered(src), strict=False)
            if reader.is_encrypted:
                raise Broken("pdf.encrypted", "expected an unencrypted PDF, found encryption")
            root: Any = reader.trailer["/Root"]
            return _page_tree(root["/Pages"])
        except (Broken, SourceError):
            raise
        except OutOfBudget:
            return None, False
        except Exception as exc:  # pypdf raises many kinds on hostile files
            raise Broken("media.corrupt", f"expected a PDF that pypdf can read: {exc}") from exc


def _page_tree(root: Any) -> tuple[int, bool]:
    """Walk a pypdf page tree without recursion, resolving each node when it is visited."""
    stack: list[Any] = [root]
    seen: set[tuple[int, int]] = set()
    leaves = 0
    for _ in range(_PDF_PAGE_NODES):
        if not stack:
            return leaves, True
        item = stack.pop()
        idnum = getattr(item, "idnum", None)
        if idnum is not None:
            key = (int(idnum), int(getattr(item, "generation", 0)))
            if key in seen:
                raise Broken("media.corrupt", "expected a page tree, found a node twice in /Kids")
            seen.add(key)
        node = item.get_object() if hasattr(item, "get_object") else item
        kids: Any = node.get("/Kids") if isinstance(node, dict) else None
        if hasattr(kids, "get_object"):
            kids = kids.get_object()
        if isinstance(kids, list):
            stack.extend(reversed(kids))
        else:
            leaves += 1
    count = root.get("/Count") if isinstance(root, dict) else None
    return (max(int(count), leaves) if isinstance(count, int) else leaves), False


PDF = Format("PDF", "document", lambda h: pdf_start(h) >= 0, _pdf)
FORMATS = (PDF,)
