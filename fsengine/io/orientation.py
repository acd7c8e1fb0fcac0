"""Which way round a table is: genes in rows turned into samples in rows, row names and
sample identifiers told apart from features, and the hint for a file that looks like
genes in rows but was loaded without ``transpose``."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pyarrow as pa

from fsengine.errors import FSEngineError, library_words
from fsengine.io.base import as_number, is_number_cell, is_numeric_type, numbers
from fsengine.io.columns import LABEL_NAMES

__all__ = [
    "HintedError",
    "genes_in_rows_hint",
    "raise_duplicates",
    "sample_id_column",
    "transposed",
    "unnamed_columns",
]

_UNNAMED = re.compile(r"^(Unnamed: \d+|__index_level_\d+__)$")


def transposed(table: pa.Table) -> tuple[pa.Table, tuple[str, ...]]:
    """Genes in rows -> samples in rows: the first column names the features."""
    if table.num_columns < 2:
        raise FSEngineError(
            "a genes-in-rows file needs a first column of gene names and one column per sample"
        )
    names = table.column(0).to_pylist()
    if None in names:
        row = names.index(None) + 1
        raise FSEngineError(
            f"row {row} of the first column has no gene name; "
            "a genes-in-rows file needs a gene name in every row",
            row=row,
            column=str(table.column_names[0]),
        )
    names = [str(v) for v in names]
    samples = tuple(table.column_names[1:])
    cells = np.empty((table.num_rows, table.num_columns - 1), dtype=object)
    for j in range(1, table.num_columns):
        col = table.column(j)
        if is_numeric_type(col.type) and not col.null_count:  # to_numpy: null -> NaN
            cells[:, j - 1] = numbers(col)
        else:
            cells[:, j - 1] = col.to_pylist()
    arrays = {}
    for i, name in enumerate(names):
        row = cells[i]
        # A row is numbers when every cell is, also where the sample column is text
        # (the label row makes every sample column text).
        if all(
            (isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool))
            or (isinstance(v, str) and is_number_cell(v.strip()))
            for v in row
        ):
            arrays[name] = pa.array(np.array([float(v) for v in row], dtype=np.float64))
        else:
            arrays[name] = pa.array([None if v is None else str(v) for v in row], type=pa.string())
    if len(arrays) != len(names):
        raise_duplicates(names, "gene names in the first column")
    return pa.table(arrays), samples


def raise_duplicates(names, what: str):
    """Raise the error naming the first repeated names among ``names``."""
    seen, dups = set(), []
    for n in names:
        if n in seen and n not in dups:
            dups.append(n)
        seen.add(n)
    shown = ", ".join(repr(d) for d in dups[:5]) + (" ..." if len(dups) > 5 else "")
    raise FSEngineError(f"duplicate {what}: {shown}; every column needs a unique name")


def sample_id_column(table: pa.Table) -> str | None:
    """The first column, when it holds sample identifiers, else None.

    Identifiers are text, unique, never missing and never a number: a column of
    numbers with one non-numeric cell is a feature with a bad cell, not identifiers.
    """
    first = table.column_names[0]
    ids = table.column(first)
    if table.num_columns < 2 or is_numeric_type(ids.type) or ids.null_count:
        return None
    values = [str(v).strip() for v in ids.to_pylist()]
    if len(set(values)) != len(values) or any(
        as_number(v) is not None or as_number(v.replace(",", ".")) is not None for v in values
    ):
        return None  # numbers (also with a decimal comma) are not identifiers
    return first


def _is_unnamed(name: str) -> bool:
    return not name.strip() or bool(_UNNAMED.match(name))


def unnamed_columns(table: pa.Table, label: str | None, notes: list[str]):
    """Drop an unnamed first column (row index / row names); error on other unnamed ones.

    Returns the table and the row names (None when the first column is named)."""
    names = [str(n) for n in table.column_names]
    for j, n in enumerate(names[1:], start=1):
        if _is_unnamed(n):
            after = f" (after {names[j - 1]!r})" if not _is_unnamed(names[j - 1]) else ""
            raise FSEngineError(
                f"column {j + 1}{after} has no name (an empty header cell); "
                "give every column a name in the header, or delete the column",
                column=n,
            )
    if not names or not _is_unnamed(names[0]) or table.num_columns < 2:
        return table, None
    if label is not None and label == names[0]:
        return table, None  # asked for as the label: checked as a label below
    column = table.column(0)
    if column.null_count:
        raise FSEngineError(
            "column 1 has no name (an empty header cell) and missing values; "
            "give it a name in the header, or delete the column",
            column=names[0],
        )
    values = [str(v).strip() for v in column.to_pylist()]
    if len(set(values)) != len(values):
        raise FSEngineError(
            "column 1 has no name (an empty header cell) and repeated values, "
            "so it is not row names; give it a name in the header",
            column=names[0],
        )
    notes.append("unnamed first column taken as row names (the row index), not a feature")
    return table.drop_columns([table.column_names[0]]), tuple(values)


#: The remedy for a file that looks like genes in rows, and the option it names.
_TRANSPOSE = {"remedy": "load it with", "remedy_option": "transpose"}


def genes_in_rows_hint(table: pa.Table, id_column, label, source_name) -> FSEngineError | None:
    """Raise for a clear genes-in-rows file (a row of the first column, text, is named
    label/class/target); return a hint for a likely one (to add to any error the file
    then gives, see :class:`HintedError`), else None."""
    first = table.column(0)
    if label is not None or is_numeric_type(first.type) or table.num_columns < 2:
        return None
    ids = ["" if v is None else str(v).strip() for v in first.to_pylist()]
    shape = f"{table.num_rows} rows x {table.num_columns} columns"
    named = [v for v in ids if v.lower() in LABEL_NAMES]
    has_label_column = any(str(n).strip().lower() in LABEL_NAMES for n in table.column_names)
    if named and not has_label_column:
        row = ids.index(named[0]) + 1
        raise FSEngineError(
            f"{source_name} looks like genes in rows and samples in columns "
            f"(row {row} of the first column is named {named[0]!r}; {shape})",
            row=row,
            column=str(table.column_names[0]),
            **_TRANSPOSE,
        )
    if id_column is not None and table.num_rows > 5 * table.num_columns and not has_label_column:
        return FSEngineError(f"the file looks like genes in rows ({shape})", **_TRANSPOSE)
    return None


class HintedError(FSEngineError):
    """An error with a hint after it: a second problem and remedy (the file looks like
    genes in rows: load it with ``transpose``) that may be the real cause.

    The fields are the error's own (``problem``, ``column``, ``row``, ``remedy`` ...);
    ``hint`` is the hint, an :class:`FSEngineError` with its own fields. ``describe``
    words both with the same ``words``.
    """

    def __init__(self, error: FSEngineError, hint: FSEngineError):
        self.hint = hint
        super().__init__(error.problem, **_fields(error))

    def describe(self, words: Callable[[str], str] = library_words) -> str:
        return f"{super().describe(words)}; {self.hint.describe(words)}"

    def __reduce__(self):
        """Pickle with the error's fields and the hint."""
        return HintedError, (FSEngineError(self.problem, **_fields(self)), self.hint)


def _fields(error: FSEngineError) -> dict:
    """An error's fields besides ``problem``, as keywords of FSEngineError."""
    return {
        "parameter": error.parameter,
        "method": error.method,
        "row": error.row,
        "column": error.column,
        "remedy": error.remedy,
        "remedy_option": error.remedy_option,
    }
