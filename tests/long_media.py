"""Long files of each family, made from the committed fixtures by repeating their parts.

The fixtures are short (a second, a page); files whose structure grows with their length
(10,000 fragments, 100,000 Ogg pages, an hour of MP3 frames, 300,000 PDF objects) are
made here, at test and benchmark time, so nothing large is committed. Each function
returns the bytes; :func:`long_files` lists one long file per family.
"""

from __future__ import annotations

from pathlib import Path

MEDIA = Path(__file__).resolve().parent.parent / "testdata" / "media"

__all__ = ["long_files", "long_pdf_objects"]


def _media(name: str) -> bytes:
    return (MEDIA / name).read_bytes()


def long_pdf_objects(count: int, *, pages: int = 1) -> bytes:
    """A PDF of ``pages`` pages padded with ``count`` filler objects (a correct xref table)."""
    kids = " ".join(f"{3 + i} 0 R" for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode(),
        *[b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>"] * pages,
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    first_filler = len(objects) + 1
    filler = b"<< /Filler true >>"
    for number in range(first_filler, first_filler + count):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, filler)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(offsets) + 1)
    return bytes(out + b"startxref\n%d\n%%%%EOF\n" % xref)


def long_files() -> list[tuple[str, bytes]]:
    """One long file per family, for the fuzzer and the benchmark."""
    return [("pdf-300000-objects", long_pdf_objects(300_000, pages=0))]
