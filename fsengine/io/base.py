"""What every reader shares: the parsed table, the reader interface and Arrow helpers.

A :class:`Reader` reads one file format into a :class:`Table`. It has two ways to
read: :meth:`Reader.stream` parses the common case (a table of numbers with a few
text columns) a chunk at a time into one float64 matrix and returns None for anything
else; :meth:`Reader.read` parses the whole file in memory and names the cell at fault.
Both give the same Dataset for any file the streaming way accepts
(tests/unit/io/test_data_streaming.py).
"""

from __future__ import annotations

import gzip
import io
import math
import os
import zlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow as pa

from fsengine.errors import FSEngineError

__all__ = [
    "HEAD",
    "MAX_DECOMPRESSED_BYTES",
    "MAX_TEXT_COLUMNS",
    "NULLS",
    "Reader",
    "Source",
    "Table",
    "as_number",
    "assemble",
    "brief_reason",
    "check_expanded_size",
    "compute",
    "is_number_cell",
    "is_numeric_type",
    "max_decompressed_bytes",
    "numbers",
    "plan",
    "python_stream",
    "read_bytes",
    "size_text",
]

Source = str | os.PathLike | bytes | BinaryIO

#: Cells read as missing values.
NULLS = ["", "NA", "N/A", "NaN", "nan", "NAN", "null", "NULL", "None", "#N/A", "?"]
HEAD = 65536  # bytes inspected for the format, encoding and delimiter
#: The most bytes a gzip-compressed file may expand to (2 GiB) unless the environment
#: variable ``FSENGINE_MAX_DECOMPRESSED_BYTES`` says otherwise: more is a decompression
#: bomb, or a table no text reader should parse (:func:`check_expanded_size`).
MAX_DECOMPRESSED_BYTES = 2**31
_INFLATE_STEP = 2**24  # bytes inflated at a time while counting (then discarded)
MAX_TEXT_COLUMNS = 8  # more: not a gene matrix; the whole-file reader says why


@dataclass
class Table:
    """A parsed file: the table, plus the numeric columns already in one float64 matrix.

    ``matrix`` (Fortran order) holds the integer and floating columns named
    ``matrix_columns``, in file order; the table's columns of those names are
    zero-copy views of it, so a file is held once, not twice (see :meth:`Reader.stream`).
    """

    table: pa.Table
    notes: list[str]
    line_numbers: bool  # data row + 1 is the file's line
    matrix: np.ndarray | None = None
    matrix_columns: tuple[str, ...] = ()
    sample_names: tuple[str, ...] | None = None  # set when genes in rows were turned
    #: Per-sample columns beside the matrix, one of which is the class (a GEO series
    #: matrix's sample lines, an AnnData file's obs): :mod:`fsengine.io.annotated`.
    annotations: dict[str, list] | None = None
    annotation_kind: str = ""  # what an annotation is called: "sample line", "obs column"

    @property
    def transposed(self) -> bool:
        """Genes in rows, already turned: the table's rows are the samples."""
        return self.sample_names is not None


class Reader(ABC):
    """One file format, recognised by its first bytes.

    Attributes
    ----------
    format : str
        The format's name, for display.
    """

    format: str = ""
    #: An FSEngineError from :meth:`stream` is the answer, not a hand-over to :meth:`read`
    #: (a format read from its path alone, whose :meth:`read` would only read it again).
    stream_errors_are_final: bool = False

    @abstractmethod
    def recognises(self, head: bytes) -> bool:
        """Whether the file that starts with ``head`` (its first ``HEAD`` bytes) is of
        this format."""

    def stream(self, source: bytes | Path, head: bytes, name: str, transpose: bool) -> Table | None:
        """The common case without holding the file twice, or None to hand over to
        :meth:`read`. ``source`` is the bytes or a path to a regular file; may raise
        any parse error (the caller then hands over too)."""
        return None

    @abstractmethod
    def read(self, data: bytes, name: str, transpose: bool) -> Table:
        """The whole file in memory; raises FSEngineError naming the problem.

        ``transpose``: the file has genes in rows (text columns stay text where the
        format allows, for the orientation code to type each row).
        """


def read_bytes(source: Source) -> bytes:
    """The bytes of a path, of bytes or of a binary file object."""
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    if hasattr(source, "read"):
        data = source.read()
        return data.encode() if isinstance(data, str) else data
    path = Path(source)
    if not path.exists():
        raise FSEngineError(f"file not found: {path}")
    if path.is_dir():
        raise FSEngineError(
            f"{path} is a directory, not an AnnData Zarr store; give a CSV, TSV, Parquet or "
            ".h5ad file, or a Zarr store"
        )
    return path.read_bytes()


def brief_reason(exc: Exception, limit: int = 200) -> str:
    """An error's first line (its type's name when it has no text), at most ``limit``
    characters: the reason a message quotes from a library."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def size_text(size: int) -> str:
    """Bytes as a person reads them: "512 B", "3.4 MB", "1.2 GB"."""
    for unit, scale in (("GB", 2**30), ("MB", 2**20), ("kB", 2**10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


def max_decompressed_bytes() -> int:
    """:data:`MAX_DECOMPRESSED_BYTES`, or the environment's
    ``FSENGINE_MAX_DECOMPRESSED_BYTES`` (a positive whole number of bytes) when set."""
    given = os.environ.get("FSENGINE_MAX_DECOMPRESSED_BYTES", "").strip()
    if not given:
        return MAX_DECOMPRESSED_BYTES
    if not given.isdigit() or int(given) <= 0:
        raise FSEngineError(
            f"FSENGINE_MAX_DECOMPRESSED_BYTES must be a positive whole number of bytes, got "
            f"{given!r}"
        )
    return int(given)


def check_expanded_size(source, name: str, limit: int | None = None) -> None:
    """Refuse a gzip-compressed file that expands to more than ``limit`` bytes, before
    anything reads it: its members are inflated a step at a time and only counted, so a
    bomb (a few MB of zeros that expand to gigabytes) is refused in the time it takes to
    inflate ``limit`` bytes, in bounded memory. A damaged stream is left to the reader,
    which says where it breaks.

    Parameters
    ----------
    source : path or bytes
        A gzip-compressed file (its first bytes are gzip's magic).
    name : str
        The file's name, for the message.
    limit : int, optional
        Bytes; default :func:`max_decompressed_bytes`.

    Raises
    ------
    FSEngineError
        The file expands to more than ``limit``.
    """
    limit = max_decompressed_bytes() if limit is None else limit
    with io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb") as raw:
        inflater = zlib.decompressobj(wbits=31)
        expanded = compressed = 0
        try:
            while block := raw.read(_INFLATE_STEP):
                compressed += len(block)
                while block:
                    expanded += len(inflater.decompress(block, _INFLATE_STEP))
                    if expanded > limit:
                        raise FSEngineError(
                            f"{name} expands to more than {size_text(limit)} when "
                            f"decompressed (from {size_text(compressed)} read of it): a "
                            "decompression bomb, or a table too large to read as text; give "
                            "it as .h5ad or Parquet, or allow more with the environment "
                            "variable FSENGINE_MAX_DECOMPRESSED_BYTES"
                        )
                    if not inflater.eof:
                        block = inflater.unconsumed_tail
                        continue
                    block = inflater.unused_data  # the next member of a multi-member file
                    inflater = zlib.decompressobj(wbits=31)
                    if block and block[:2] != b"\x1f\x8b":
                        return  # trailing bytes after the last member: gzip ignores them
        except zlib.error:
            return


def python_stream(source, compressed: bool) -> BinaryIO:
    """The (decompressed) bytes of a path or of bytes in memory, as a binary stream."""
    if isinstance(source, bytes):
        stream = io.BytesIO(source)  # shares the bytes, no copy
        return gzip.GzipFile(fileobj=stream) if compressed else stream
    return gzip.open(source, "rb") if compressed else open(source, "rb")


def as_number(text: str) -> float | None:
    """The finite number that ``text`` spells, else None."""
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def is_number_cell(cell: str) -> bool:
    """Whether Arrow reads the text as a number (Python's float also takes 1_0 and ١)."""
    try:
        float(cell)
    except ValueError:
        return False
    return "_" not in cell and cell.isascii()


def is_numeric_type(t: pa.DataType) -> bool:
    """Whether an Arrow type holds numbers: integer, floating point or decimal."""
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)


def plan(names: list[str], numeric: list[int]) -> list[int] | None:
    """Positions kept as Arrow columns (the first, the last and the non-numeric ones), or
    None when the streaming path does not apply: no numeric column, more than
    ``MAX_TEXT_COLUMNS`` others, duplicate names."""
    p = len(names)
    text = set(range(p)) - set(numeric)
    if p < 2 or not numeric or len(text) > MAX_TEXT_COLUMNS or len(set(names)) != p:
        return None
    return sorted(text | {0, p - 1})


def compute():
    """pyarrow.compute, imported when a cell needs checking (it loads in about 50 ms)."""
    import pyarrow.compute

    return pyarrow.compute


#: numpy's name of each Arrow number type whose name differs.
_NUMPY_NAMES = {"double": "float64", "float": "float32", "halffloat": "float16"}


def numbers(column: pa.ChunkedArray) -> np.ndarray:
    """The values of a numeric column without nulls as a numpy array, read from the Arrow
    buffers (``to_numpy`` would also import pandas)."""
    if pa.types.is_decimal(column.type):
        return np.array(column.to_pylist(), dtype=np.float64)
    name = str(column.type)
    parts = [
        np.frombuffer(
            chunk.buffers()[1],
            dtype=_NUMPY_NAMES.get(name, name),
            count=len(chunk),
            offset=chunk.offset * chunk.type.bit_width // 8,
        )
        for chunk in column.chunks
    ]
    if not parts:
        return np.empty(0, dtype=_NUMPY_NAMES.get(name, name))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _float_array(values: np.ndarray) -> pa.Array:
    """A float64 Arrow array over a numpy column, without a copy when it is contiguous
    (``pa.array`` would also import pandas to check the input's type)."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    return pa.Array.from_buffers(pa.float64(), len(values), [None, pa.py_buffer(values)])


def assemble(names: list[str], numeric: list[int], matrix: np.ndarray, kept: dict) -> pa.Table:
    """The table in file order: kept columns as read, the others as views of ``matrix``."""
    columns = {j: _float_array(matrix[:, k]) for k, j in enumerate(numeric) if j not in kept}
    columns.update(kept)
    return pa.Table.from_arrays([columns[j] for j in range(len(names))], names=names)
