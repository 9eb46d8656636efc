"""PDF: the header window, the end of the file, encryption, and the pages.

Decisions, each checked against poppler (``pdfinfo``, ``pdftoppm``), qpdf and pypdf on real
files (``testdata/MANIFEST.json`` lists them):

* **Header.** ``%PDF-`` belongs in the first 1024 bytes, where all readers look for it;
  bytes before it are allowed, and offsets count from the header. A header further in
  (within ``SNIFF_BYTES``), in bytes no other format claims, is found by poppler, qpdf
  and pypdf, which open the file: accepted with ``pdf.damaged``. The polyglot check looks
  at the first 1024 bytes only.
* **End.** ``%%EOF`` belongs in the last 1024 bytes. A PDF padded past that (NUL bytes,
  spaces, junk) or without ``%%EOF`` but with its ``startxref`` and cross-reference data
  whole is opened by poppler and qpdf (pypdf opens the padded ones): accepted with the
  warning ``pdf.damaged``. A PDF cut before its cross-reference data opens nowhere:
  ``media.truncated``. Another format's signature after ``%%EOF`` is a polyglot.
* **Encryption.** A PDF whose user password is empty (an owner password sets
  restrictions only) opens in poppler, qpdf and pypdf without a password, restricted or
  not, RC4 or AES: accepted, ``evidence["encrypted"]`` says so. A PDF that needs a user
  password opens nowhere without it: ``pdf.encrypted``.
* **Pages.** Pages are counted at the page leaves of the tree (``/Type /Page``, or a node
  without ``/Type`` and without ``/Kids``, as pypdf counts them), up to
  ``Limits.MAX_PDF_PAGE_NODES`` nodes; past that the root's ``/Count`` stands
  (``evidence["pages_exact"]`` is False) once a leaf was found. A tree without a leaf (no
  ``/Kids``, a ``/Pages`` that is not a dictionary or points at nothing) is
  ``pdf.no_pages``: pypdf finds no page there, and poppler and qpdf at most a blank one
  made up from ``/Count``. A ``/Count`` that differs from the leaves is ``pdf.damaged``.
  A node reached twice is ``media.corrupt``.

The structure is read by :mod:`.pdf_objects` (the trailer, the catalog and the first
page-tree nodes, a few reads wherever they are); pypdf is the slow path for what that
reader does not follow (encryption, filters, cross-reference data to rebuild), with a
bounded allowance of reads and of byte-by-byte repair of a damaged stream
(``Limits.MAX_PDF_RECOVERY_BYTES``). pypdf walks back through the lines after the last
``%%EOF`` byte by byte: a file with no ``%%EOF`` anywhere, which it refuses, is refused
from one search in C instead, and bytes after a marker that hold nothing pypdf would look
at are not shown to it, so that neither costs its whole allowance.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import SourceError
from .base import (
    Broken,
    Detected,
    Format,
    OutOfBudget,
    Source,
    buffered,
    damaged,
    decoder_warnings,
    earliest_polyglot_end,
    foreign,
    found,
    polyglot,
    quiet_logger,
)
from .pdf_objects import Document, Ref, RefArray, Unreadable

__all__ = ["FORMATS", "PDF", "PDF_FAR", "PDF_WINDOW", "pdf_start"]


PDF_WINDOW = 1024
_STARTXREF = re.compile(rb"startxref[\x00\t\n\x0c\r ]+(\d{1,15})")


def pdf_start(head: bytes) -> int:
    """Return where a ``%PDF-`` header starting in the first 1024 bytes is, or -1."""
    return head.find(b"%PDF-", 0, PDF_WINDOW + 4)


@dataclass(slots=True)
class _Pages:
    count: int
    exact: bool
    encrypted: bool = False
    notes: tuple[str, ...] = ()


def _pdf(src: Source) -> Detected:
    return _pdf_at(src, pdf_start(src.head))


def _pdf_far(src: Source) -> Detected | None:
    """A PDF whose header starts past the first 1024 bytes, yet in the head.

    poppler, qpdf (rebuilding its index) and pypdf find such a header and open the file;
    other readers look at the first 1024 bytes only.
    """
    begin = src.head.find(b"%PDF-", PDF_WINDOW)
    det = _pdf_at(src, begin)
    note = f"expected %PDF- in the first {PDF_WINDOW} bytes, found it at offset {begin}"
    return damaged(det, "pdf.damaged", note)


def _pdf_at(src: Source, begin: int) -> Detected:
    version = src.head[begin + 5 : begin + 8].decode("latin-1")
    if src.partial:
        return found("application/pdf", "PDF", f"PDF {version}", pdf_version=version, partial=True)
    start, tail = src.tail()
    notes: tuple[str, ...] = ()
    if tail.find(b"%%EOF", len(tail) - PDF_WINDOW) < 0:
        end = earliest_polyglot_end(tail, start, b"%%EOF", 0, "PDF")
        if end:
            other = foreign(src.at(end, 64), "PDF") or "another format"
            det = found("application/pdf", "PDF", "PDF")
            return polyglot(det, other, f"{other} bytes after %%EOF at offset {end}")
        notes = ("expected %%EOF in the last 1024 bytes, found none; PDF readers look further",)
    pages = _pages(src.view(begin) if begin else src, tail)
    det = found(
        "application/pdf",
        "PDF",
        f"PDF {version}, {pages.count} page(s)",
        pages=pages.count,
        pages_exact=pages.exact,
        pdf_version=version,
        offset=begin or None,
        encrypted=pages.encrypted or None,
    )
    for note in (*notes, *pages.notes):
        det = damaged(det, "pdf.damaged", note)
    return det


def _pages(src: Source, tail: bytes) -> _Pages:
    """Count the pages: the own reader first, pypdf when it cannot follow the structure."""
    at = tail.rfind(b"startxref")
    found_at = _STARTXREF.match(tail, at) if at >= 0 else None
    matches = [found_at] if found_at is not None else []
    trouble = "expected startxref near the end, found none; PDF readers rebuild the index"
    if matches:
        try:
            return _own_pages(src, int(matches[-1].group(1)))
        except Unreadable:
            trouble = ""
        except Broken as exc:
            if exc.code != "media.corrupt":
                raise
            trouble = f"{exc.reason}; PDF readers rebuild the cross-reference data"
    try:
        pages = _pypdf_pages(src)
    except Broken as exc:
        if matches or exc.code != "media.corrupt":
            raise
        raise Broken(
            "media.truncated", "expected startxref and %%EOF near the end, found neither"
        ) from exc
    if trouble:
        pages.notes = (*pages.notes, trouble)
    return pages


# --------------------------------------------------------------------------------------
# The page tree, walked the same way over the own reader and over pypdf
# --------------------------------------------------------------------------------------


@dataclass(slots=True)  # not frozen: made once per node, never changed
class _Node:
    """One page-tree node: what it is, its kids (None: no /Kids array), its /Count."""

    kind: str | None  # "Pages", "Page", another /Type, or None without one
    kids: Sequence[object] | None
    count: int | None
    is_dict: bool = True


def _walk(
    root: object, open_node: Callable[[object], _Node], key: Callable[[object], object], limit: int
) -> _Pages:
    """Count page leaves depth first; past ``limit`` nodes, the root's /Count stands.

    Once the tree has more nodes than are left to read, the walk only goes on to the
    first leaf, which shows that the tree has pages.
    """
    stack, seen, leaves, unfinished = [root], set(), 0, False
    first = open_node(root)
    if not first.is_dict:
        raise Broken("pdf.no_pages", "expected a page tree at the catalog's /Pages, found none")
    if first.kids is not None and first.count is not None and 1 < len(first.kids) == first.count:
        # A flat tree with a kid per counted page: the first kid shows that they are pages.
        unfinished = True
    for done in range(limit):
        if not stack:
            return _settle_pages(leaves, first.count)
        if unfinished and leaves:
            break
        item = stack.pop()
        if isinstance(item, _Later):  # never empty: see _push
            stack.extend(reversed(list(item.kids[1 : item.limit])))
            item = stack.pop()
        ident = key(item)
        if ident is not None:
            if ident in seen:
                raise Broken("media.corrupt", "expected a page tree, found a node twice in /Kids")
            seen.add(ident)
        node = first if item is root else open_node(item)
        if node.kind == "Pages" or (node.kind is None and node.kids is not None):
            kids = node.kids or []
            unfinished = unfinished or len(stack) + len(kids) >= limit - done
            _push(stack, kids, limit, unfinished)
        elif node.is_dict and (node.kind == "Page" or node.kind is None):
            leaves += 1
    if not leaves:
        raise Broken("media.too_complex", f"expected a page leaf within {limit} page-tree nodes")
    count = first.count if first.count is not None and first.count > leaves else leaves
    return _Pages(count, False)


@dataclass(slots=True)
class _Later:
    """A node's kids after its first, on the stack of a walk that only looks for a first
    leaf: made into references only if the walk gets to them."""

    kids: Sequence[object]
    limit: int


def _push(stack: list[object], kids: Sequence[object], limit: int, unfinished: bool) -> None:
    """Put the first ``limit`` kids on the stack, the first on top.

    Once the walk only looks for a first leaf (``unfinished``), the second kid on are put
    as one :class:`_Later`, and only when there is a second kid, so that the stack is
    empty exactly when it would be with every kid on it.
    """
    if unfinished and limit > 1 and len(first := kids[:2]) == 2:
        stack.append(_Later(kids, limit))
        stack.append(first[0])
    else:
        stack.extend(reversed(list(kids[:limit])))


def _settle_pages(leaves: int, count: int | None) -> _Pages:
    if leaves == 0:
        raise Broken("pdf.no_pages", "expected at least 1 page leaf in the page tree, found 0")
    notes: tuple[str, ...] = ()
    if count is not None and count != leaves:
        notes = (f"expected /Count {count} to count the {leaves} page leaves",)
    return _Pages(leaves, True, notes=notes)


_CATALOG_KEYS = frozenset({"Pages"})
_NODE_KEYS = frozenset({"Type", "Kids", "Count"})


def _own_pages(src: Source, startxref: int) -> _Pages:
    doc = Document.open(src, startxref)
    if "Encrypt" in doc.trailer:
        raise Unreadable("an encrypted PDF")
    catalog = doc.get(doc.trailer.get("Root"), _CATALOG_KEYS)
    if not isinstance(catalog, dict):
        raise Broken("media.corrupt", "expected a catalog dictionary at the trailer's /Root")

    def open_node(item: object) -> _Node:
        node = doc.get(item, _NODE_KEYS)  # type: ignore[arg-type]
        if not isinstance(node, dict):
            return _Node(None, None, None, is_dict=False)
        kids, count = node.get("Kids"), node.get("Count")
        if isinstance(kids, Ref):
            kids = doc.get(kids)
        if isinstance(count, Ref):
            count = doc.get(count)
        kind = node.get("Type")
        return _Node(
            str(kind) if isinstance(kind, str) else None,
            kids if isinstance(kids, (list, RefArray)) else None,
            count if isinstance(count, int) and not isinstance(count, bool) else None,
        )

    def key(item: object) -> object:
        return item if isinstance(item, Ref) else None

    return _walk(catalog.get("Pages"), open_node, key, src.limits.MAX_PDF_PAGE_NODES)


# --------------------------------------------------------------------------------------
# pypdf, the slow path
# --------------------------------------------------------------------------------------


def _pypdf_pages(src: Source) -> _Pages:
    """Count pages with pypdf, which rebuilds broken cross-reference data and decrypts."""
    try:
        import pypdf
    except ImportError as exc:
        raise Broken("media.corrupt", "expected a PDF the own reader follows") from exc
    quiet_logger("pypdf")
    local = src.allowance(src.limits.MAX_SNIFF_READ_BYTES // 2)
    with decoder_warnings(), _recovery_bound(pypdf, src.limits.MAX_PDF_RECOVERY_BYTES):
        try:
            length = _pypdf_length(local)
            if length is None:
                raise Broken("media.corrupt", "expected %%EOF in the file, found none")
            reader = pypdf.PdfReader(buffered(local.prefix(length)), strict=False)
            encrypted = _open_encrypted(reader) if reader.is_encrypted else False
            root: Any = reader.trailer["/Root"]
            pages = _walk(
                root.get("/Pages"), _pypdf_node, _pypdf_key, src.limits.MAX_PDF_PAGE_NODES
            )
        except (Broken, SourceError):
            raise
        except OutOfBudget as exc:
            raise Broken(
                "media.too_complex", f"pypdf needed more than its allowance: {exc}"
            ) from exc
        except _limit_reached(pypdf) as exc:
            raise Broken(
                "media.too_complex", f"pypdf needed more repair than its allowance: {exc}"
            ) from exc
        except Exception as exc:  # pypdf raises many kinds on hostile files
            if local.exhausted:
                raise Broken("media.too_complex", "pypdf needed more than its allowance") from exc
            raise Broken("media.corrupt", f"expected a PDF that pypdf can read: {exc}") from exc
    pages.encrypted = encrypted
    return pages


# pypdf looks for %%EOF backwards from the end, a line at a time, byte by byte in Python:
# through a long stretch after the marker, or a file with none, that costs its whole
# allowance. Where it will stop is found here by searches in C. With no "%%EOF" anywhere it
# refuses the file. After a marker that starts a line, bytes that hold no object, table or
# trailer are nothing to it (its rebuilding of the index looks for those words), so it is
# shown the file up to that line. Anything else is left to pypdf as it is.
_CUT_MARKERS = (b"%%EO", b"%%E", b"%%", b"%")
_STRUCTURE_WORDS = (b"obj", b"xref", b"trailer")
_EOF_SEARCH_CHUNK = 1 << 20
_OVERLAP = 8  # chunks overlap, so that no word or marker falls between two


def _pypdf_length(src: Source) -> int | None:
    """How much of the file to show pypdf, or None when it cannot find an end-of-file
    marker: "%%EOF" stands nowhere, and the last line does not end in a cut marker, from
    which pypdf reads on."""
    start = max(0, src.size - _EOF_SEARCH_CHUNK)
    chunk = src.at(start, src.size - start)
    line = chunk.rstrip(b"\r\n")
    last = line[max(line.rfind(b"\r"), line.rfind(b"\n")) + 1 :]
    if not line or b"%%EOF" in last or last.strip().endswith(_CUT_MARKERS):
        return src.size  # pypdf stops at the last line, or at nothing this can tell
    seen = whole = False
    while True:
        seen = seen or b"%%EOF" in chunk
        marker = max(chunk.rfind(b"\n%%EOF"), chunk.rfind(b"\r%%EOF"))
        # rebuilding the index would look at such words: then pypdf sees the whole file
        whole = whole or any(word in chunk[max(marker, 0) :] for word in _STRUCTURE_WORDS)
        if marker >= 0:
            end = _after_line(chunk, marker + 1)
            return src.size if whole or end is None else start + end
        if start == 0:
            return src.size if seen else None
        end = start + _OVERLAP
        start = max(0, end - _EOF_SEARCH_CHUNK)
        chunk = src.at(start, end - start)


def _after_line(data: bytes, pos: int) -> int | None:
    """Where the line at ``pos`` ends, after its line break; None when ``data`` ends first."""
    breaks = [i for i in (data.find(b"\r", pos), data.find(b"\n", pos)) if i >= 0]
    if not breaks:
        return None
    at = min(breaks)
    return at + 2 if data[at : at + 2] == b"\r\n" else at + 1


def _recovery_bound(pypdf: Any, nbytes: int) -> contextlib.AbstractContextManager[object]:
    """Bound pypdf's byte-by-byte repair of a damaged FlateDecode stream to ``nbytes``
    (pypdf 7 and later; earlier versions have no such setting and repair unbounded)."""
    apply = getattr(pypdf, "apply_configuration", None)
    if apply is None:
        return contextlib.nullcontext()
    return apply(zlib_maximum_recovery_input_length=nbytes)  # type: ignore[no-any-return]


def _limit_reached(pypdf: Any) -> type[Exception] | tuple[()]:
    """pypdf's error for a bound reached (none before pypdf 5)."""
    found = getattr(pypdf.errors, "LimitReachedError", None)
    return found if isinstance(found, type) and issubclass(found, Exception) else ()


def _open_encrypted(reader: Any) -> bool:
    """Open an encrypted PDF with the empty user password, as readers do without asking."""
    from pypdf.errors import DependencyError

    try:
        opened = reader.decrypt("")
    except DependencyError as exc:
        raise Broken(
            "pdf.encrypted", f"expected a PDF that opens without a password, cannot tell: {exc}"
        ) from exc
    if not opened:
        raise Broken("pdf.encrypted", "expected a PDF that opens without a password, found one")
    return True


def _pypdf_node(item: object) -> _Node:
    node: Any = item.get_object() if hasattr(item, "get_object") else item
    if not isinstance(node, dict):
        return _Node(None, None, None, is_dict=False)
    kids: Any = node.get("/Kids")
    kids = kids.get_object() if hasattr(kids, "get_object") else kids
    count: Any = node.get("/Count")
    count = count.get_object() if hasattr(count, "get_object") else count
    kind = node.get("/Type")
    return _Node(
        str(kind)[1:] if isinstance(kind, str) else None,
        list(kids) if isinstance(kids, list) else None,
        int(count) if isinstance(count, int) and not isinstance(count, bool) else None,
    )


def _pypdf_key(item: object) -> object:
    idnum = getattr(item, "idnum", None)
    return None if idnum is None else (int(idnum), int(getattr(item, "generation", 0)))


PDF = Format("PDF", "document", lambda h: pdf_start(h) >= 0, _pdf)
PDF_FAR = Format("PDF", "document", lambda h: h.find(b"%PDF-", PDF_WINDOW) >= 0, _pdf_far)
FORMATS = (PDF, PDF_FAR)
