"""The Parquet reader."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pyarrow as pa

from fsengine.errors import FSEngineError
from fsengine.io.base import Reader, Table, assemble, numbers, plan
from fsengine.io.sniff import PARQUET_MAGIC

_GROUP = 1024  # Parquet columns read at a time
_NOTES = ["format: Parquet"]


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
            part = file.read(columns=[names[j] for j in numeric[start : start + _GROUP]])
            for k, column in enumerate(part.columns, start=start):
                if column.null_count:
                    return None
                matrix[:, k] = numbers(column)
            del part
        kept = file.read(columns=[names[j] for j in kept_positions])
        kept = {j: kept.column(i) for i, j in enumerate(kept_positions)}
        return Table(
            _index_first(assemble(names, numeric, matrix, kept), index),
            list(_NOTES),
            False,
            matrix,
            tuple(names[j] for j in numeric),
        )

    def read(self, data: bytes, name: str, transpose: bool) -> Table:
        try:
            table = _parquet().ParquetFile(io.BytesIO(data)).read()
            return Table(
                _index_first(table, pandas_index_columns(table.schema)), list(_NOTES), False
            )
        except (pa.ArrowException, OSError) as exc:
            raise FSEngineError(
                f"{name} looks like Parquet but cannot be read ({exc}); is the file complete?"
            ) from None
