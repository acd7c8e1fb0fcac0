"""What a file is, from its first bytes: the format's magic, the encoding, the delimiter."""

from __future__ import annotations

__all__ = [
    "GZIP_MAGIC",
    "PARQUET_MAGIC",
    "UTF8_BOM",
    "UTF16_BOMS",
    "WORKBOOK_MAGIC",
    "plain_text_head",
    "sniff_delimiter",
    "text_notes",
]

PARQUET_MAGIC = b"PAR1"
GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
WORKBOOK_MAGIC = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")  # zip (xlsx), OLE (xls)
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")

DELIMITER_NAMES = {",": "comma-separated", "\t": "tab-separated", ";": "semicolon-separated"}


def sniff_delimiter(text_head: bytes, name: str) -> str:
    """The delimiter of a text table: a tab in the header of a .tsv/.tab/.txt file, else
    the most frequent of comma, tab and semicolon in the header line (comma if none)."""
    first_line = text_head.split(b"\n", 1)[0]
    lower = name.lower()
    if lower.endswith((".tsv", ".tsv.gz", ".tab", ".txt", ".txt.gz")) and b"\t" in first_line:
        return "\t"
    counts = {d: first_line.count(d.encode()) for d in (",", "\t", ";")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] > 0 else ","


def plain_text_head(head: bytes) -> bool:
    """Whether the (decompressed) head is UTF-8 text without a workbook's magic, a UTF-16
    byte order mark or a NUL byte: what the streaming text reader takes."""
    if head.startswith(WORKBOOK_MAGIC + UTF16_BOMS) or b"\x00" in head or not head.strip():
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:
            return False
    return True


def text_notes(
    name: str, compressed: bool, delimiter: str, encoding: str | None = None
) -> list[str]:
    """The notes on how a text file was read, in the order the reading happens."""
    return (
        (
            ["the file is named .parquet but is not Parquet; reading it as text"]
            if name.lower().endswith(".parquet")
            else []
        )
        + (["gzip-compressed"] if compressed else [])
        + ([encoding] if encoding else [])
        + [DELIMITER_NAMES[delimiter]]
    )
