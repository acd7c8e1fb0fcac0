"""The Parquet reader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from fsengine.errors import FSEngineError
from fsengine.io.base import (
    HEAD,
    Reader,
    Table,
    assemble,
    brief_reason,
    max_decompressed_bytes,
    numbers,
    plan,
    size_text,
)
from fsengine.io.sniff import PARQUET_MAGIC

__all__ = ["ParquetReader", "check_decoded_size", "damaged_parquet_bytes", "read_parquet"]

_GROUP = 1024  # Parquet columns read at a time
_NOTES = ["format: Parquet"]
#: pyarrow decodes in one thread: with its thread pool, a damaged file (a column chunk's
#: page header overwritten) ended the process with "terminate called without an active
#: exception" (exit 134) in about 1 run of 5 after the error was raised (pyarrow 26.0.1), which
#: on the dashboard ends the server. One thread read the microarray sets as fast or faster
#: (GLIOMA 0.41 s against 0.45 s, ALLAML 0.64 against 0.71 s, on 2 busy cores).
_THREADS = False


def _parquet():
    """pyarrow.parquet, imported when a Parquet file is read (it loads in about 20 ms)."""
    import pyarrow.parquet

    return pyarrow.parquet


def pandas_index_columns(schema: pa.Schema) -> list[str]:
    """The columns that hold a pandas DataFrame's index (``df.to_parquet`` stores an index
    of sample names as ``__index_level_0__``, or under the index's name), from the
    schema's pandas metadata; [] for other files and for a RangeIndex (stored as
    metadata only)."""
    try:
        meta = schema.pandas_metadata or {}
    except ValueError:  # metadata that is not JSON
        return []
    return [c for c in meta.get("index_columns", ()) if isinstance(c, str) and c in schema.names]


def _index_first(table: pa.Table, index: list[str]) -> pa.Table:
    """``table`` with the pandas index columns first: the loader then takes them as row
    names or sample identifiers, as it does a CSV's first column."""
    if not index:
        return table
    return table.select(index + [n for n in table.column_names if n not in index])


class ParquetReader(Reader):
    """Parquet files, recognised by their magic bytes (whatever the file's name)."""

    format = "Parquet"

    def recognises(self, head: bytes) -> bool:
        return head[:4] == PARQUET_MAGIC

    def stream(self, source: bytes | Path, head: bytes, name: str, transpose: bool) -> Table | None:
        """A group of columns at a time into one float64 matrix; genes in rows are
        handed over (the orientation code turns the whole table)."""
        if transpose:
            return None
        file = _parquet().ParquetFile(
            pa.BufferReader(source) if isinstance(source, bytes) else str(source)
        )
        schema = file.schema_arrow
        names = schema.names
        index = pandas_index_columns(schema)
        numeric = [
            j
            for j, f in enumerate(schema)
            if (pa.types.is_integer(f.type) or pa.types.is_floating(f.type))
            and names[j] not in index
        ]
        kept_positions = plan(names, numeric)
        if kept_positions is None or any(
            pa.types.is_binary(schema.field(j).type) for j in kept_positions
        ):
            return None
        matrix = np.empty((file.metadata.num_rows, len(numeric)), dtype=np.float64, order="F")
        for start in range(0, len(numeric), _GROUP):
            part = file.read(
                columns=[names[j] for j in numeric[start : start + _GROUP]], use_threads=_THREADS
            )
            for k, column in enumerate(part.columns, start=start):
                if column.null_count:
                    return None
                matrix[:, k] = numbers(column)
            del part
        kept = file.read(columns=[names[j] for j in kept_positions], use_threads=_THREADS)
        kept = {j: kept.column(i) for i, j in enumerate(kept_positions)}
        return Table(
            _index_first(assemble(names, numeric, matrix, kept), index),
            list(_NOTES),
            False,
            matrix,
            tuple(names[j] for j in numeric),
        )

    def read(self, data: bytes, name: str, transpose: bool) -> Table:
        return read_parquet(data, name)


def read_parquet(data: bytes, name: str, notes: tuple[str, ...] = ()) -> Table:
    """A Parquet file's bytes as a Table, or FSEngineError saying the file is damaged, with
    pyarrow's reason in brief (:func:`damaged_parquet`). pyarrow reads a file by its
    footer, so one whose first bytes were overwritten may still be read."""
    try:
        table = _parquet().ParquetFile(pa.BufferReader(data)).read(use_threads=_THREADS)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise damaged_parquet(name, exc) from None
    return Table(_index_first(table, pandas_index_columns(table.schema)), [*notes, *_NOTES], False)


def check_decoded_size(source: bytes | Path, name: str) -> None:
    """Refuse a Parquet file whose values, decoded, take more than
    :func:`~fsengine.io.base.max_decompressed_bytes`: its footer's rows x columns x 8
    bytes (each value as float64), read before any page is. Run-length and dictionary
    encoding let a few kB of pages hold billions of values, as gzip does zeros. A footer
    pyarrow cannot read is left to the reader, which says so.

    Raises
    ------
    FSEngineError
        The file's values would take more than the limit.
    """
    try:
        meta = (
            _parquet()
            .ParquetFile(pa.BufferReader(source) if isinstance(source, bytes) else str(source))
            .metadata
        )
    except (pa.ArrowException, OSError, ValueError):
        return
    decoded = 8 * meta.num_rows * meta.num_columns
    limit = max_decompressed_bytes()
    if decoded > limit:
        raise FSEngineError(
            f"{name} holds {meta.num_rows:,} rows x {meta.num_columns:,} columns, "
            f"{size_text(decoded)} as float64 once decoded: more than the "
            f"{size_text(limit)} a compressed file may expand to (a bomb, or a table to "
            "give as .h5ad); allow more with the environment variable "
            "FSENGINE_MAX_DECOMPRESSED_BYTES"
        )


def damaged_parquet(name: str, exc: Exception) -> FSEngineError:
    """The error for a Parquet file pyarrow cannot read: damaged or incomplete, with the
    first sentence of pyarrow's message ("Parquet magic bytes not found in footer")."""
    reason = brief_reason(exc, limit=len(str(exc)) + 1).split(". ")[0].rstrip(".")
    reason = reason if len(reason) <= 120 else reason[:119] + "\u2026"
    return FSEngineError(
        f"{name} is a damaged or unreadable Parquet file (pyarrow: {reason}); save it again "
        "from its source, or give a CSV or TSV file"
    )


def damaged_parquet_bytes(name: str, data: bytes) -> bool:
    """Whether a file that does not start like Parquet is one whose start is damaged,
    rather than a text table: it ends with Parquet's footer magic, or it is named
    ``.parquet`` and holds binary data (a NUL byte in its head, which text never has)."""
    return data[-4:] == PARQUET_MAGIC or (
        name.lower().endswith(".parquet") and b"\x00" in data[:HEAD]
    )
