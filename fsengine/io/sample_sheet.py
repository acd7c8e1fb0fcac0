"""An expression table and a separate sample sheet: the class is a column of the sheet,
matched to the table's samples by their identifiers, in any order.

The table holds numbers only, with the samples' identifiers as its first column (samples
in rows) or as its header (genes in rows, the first column the genes' names); when the
sheet holds the identifiers of one of the two only, that is the orientation read
(:func:`sheet_orientation`). The sheet is
any table the readers take (CSV, TSV, Parquet), one row per sample: the column whose values
are the table's sample identifiers matches them, the other columns are the annotations the
class is chosen from (:mod:`fsengine.io.annotated`).
"""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa

from fsengine.errors import FSEngineError
from fsengine.io.base import HEAD, Table
from fsengine.io.columns import feature_values
from fsengine.io.orientation import raise_duplicates
from fsengine.io.sniff import GZIP_MAGIC, PARQUET_MAGIC, sniff_delimiter

__all__ = [
    "MAX_SHEET_COLUMNS",
    "attach_sheet",
    "check_sheet_width",
    "expression_table",
    "sheet_orientation",
]

#: The most columns a sample sheet may have: a few annotations per sample are tens of
#: columns; a sheet of a million (a table given as the sheet, or a hostile file) would
#: take minutes and gigabytes to parse (10^6 columns: 150 s, 8 GB) before any message.
MAX_SHEET_COLUMNS = 10_000


def check_sheet_width(source, name: str) -> None:
    """Refuse a sample sheet of more than :data:`MAX_SHEET_COLUMNS` columns from its first
    bytes (a text file's header line, a Parquet file's footer), before it is parsed.

    Parameters
    ----------
    source : path or bytes
    name : str
        The sheet's name, for the message.

    Raises
    ------
    FSEngineError
        The sheet has more columns than that.
    """
    if isinstance(source, (bytes, bytearray)):
        head = bytes(source[:HEAD])
    elif Path(source).is_file():
        with open(source, "rb") as f:
            head = f.read(HEAD)
    else:
        return  # the reader's message for a missing file
    if head[:4] == PARQUET_MAGIC:
        import pyarrow.parquet as pq

        try:
            width = pq.ParquetFile(
                pa.BufferReader(source) if isinstance(source, bytes) else str(source)
            ).metadata.num_columns
        except (pa.ArrowException, OSError, ValueError):
            return  # the reader says the file is damaged
    else:
        if head[:2] == GZIP_MAGIC:
            try:
                head = zlib.decompressobj(wbits=31).decompress(head, HEAD)
            except zlib.error:
                return
        first = head.split(b"\n", 1)[0]
        width = first.count(sniff_delimiter(first, name).encode()) + 1
    if width > MAX_SHEET_COLUMNS:
        at_least = "" if b"\n" in head else "at least "  # a header longer than the head
        raise FSEngineError(
            f"{name} has {at_least}{width:,} columns; a "
            f"sample sheet holds a few annotations per sample (at most "
            f"{MAX_SHEET_COLUMNS:,} columns): give the expression table as the data and "
            "the sheet of sample annotations as the sample sheet",
            parameter="samples",
        )


def _ids(values) -> list[str]:
    return ["" if v is None else str(v).strip() for v in values]


def _shown(ids, limit: int = 5) -> str:
    listed = ", ".join(repr(i) for i in ids[:limit])
    return listed + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def _best_column(sheet: pa.Table, wanted: set[str]) -> tuple[str | None, int]:
    """The sheet column holding the most of ``wanted`` (ties: the first), and how many."""
    best, best_hits = None, 0
    for column in sheet.column_names:
        hits = len(wanted & set(_ids(sheet.column(column).to_pylist())))
        if hits > best_hits:
            best, best_hits = column, hits
    return best, best_hits


def sheet_orientation(
    parsed: Table, sheet: pa.Table, transpose: bool, sheet_name: str
) -> tuple[bool, str | None]:
    """Whether the table has genes in rows, as the sheet names it: the sheet's identifiers
    are either the table's first column's values (samples in rows) or its column headers
    (genes in rows).

    Parameters
    ----------
    parsed : Table
        The expression table as read (its first column and its header).
    sheet : pyarrow.Table
    transpose : bool
        The orientation given (genes in rows).
    sheet_name : str

    Returns
    -------
    (bool, str or None)
        The orientation to read, and a note when it is not the one given: when the sheet
        holds identifiers of one orientation only, that one; when it holds some of both,
        the one given.

    Raises
    ------
    FSEngineError
        When the sheet holds neither the first column's values nor the headers, showing
        both.
    """
    table = parsed.table
    if table.num_columns < 2:
        return transpose, None  # expression_table names the problem
    rows = _ids(table.column(0).to_pylist())
    headers = [str(c).strip() for c in table.column_names[1:]]
    in_rows = _best_column(sheet, set(rows))[1] > 0
    in_headers = _best_column(sheet, set(headers))[1] > 0
    if not in_rows and not in_headers:
        raise FSEngineError(
            f"no column of {sheet_name} holds the expression table's sample identifiers, "
            f"neither its first column's values ({_shown(rows, 3)}) nor its column headers "
            f"({_shown(headers, 3)}); the sheet needs one row per sample with its identifier"
        )
    if in_rows == in_headers or in_headers == transpose:
        return transpose, None
    if in_headers:
        return True, (
            f"read with genes in rows: the sample sheet {sheet_name} holds the table's column "
            f"headers ({_shown(headers, 3)}) as sample identifiers, not its first column's values"
        )
    return False, (
        f"read with samples in rows: the sample sheet {sheet_name} holds the table's first "
        f"column's values ({_shown(rows, 3)}) as sample identifiers, not its column headers"
    )


def expression_table(parsed: Table, transpose: bool, name: str) -> Table:
    """The table's samples x genes matrix with its sample identifiers, no class yet.

    Raises FSEngineError naming a repeated identifier or a cell that is not a number.
    """
    table = parsed.table
    if table.num_columns < 2:
        raise FSEngineError(f"{name} needs an identifier column and at least one more column")
    first = table.column_names[0]
    if transpose:  # genes in rows: the header holds the samples
        genes = _ids(table.column(0).to_pylist())
        samples = [str(c).strip() for c in table.column_names[1:]]
        columns = [(str(c), table.column(c)) for c in table.column_names[1:]]
        matrix = np.empty((len(samples), len(genes)), dtype=np.float64, order="F")
        for i, (sample, column) in enumerate(columns):
            matrix[i, :] = feature_values(sample, column, None, parsed.line_numbers)
    else:
        samples = _ids(table.column(0).to_pylist())
        genes = [str(c) for c in table.column_names[1:]]
        matrix = np.empty((len(samples), len(genes)), dtype=np.float64, order="F")
        for j, gene in enumerate(genes):
            matrix[:, j] = feature_values(gene, table.column(gene), samples, False)
    if len(set(samples)) != len(samples):
        raise_duplicates(samples, f"sample identifiers in {name} (column {first!r})")
    if len(set(genes)) != len(genes):
        raise_duplicates(genes, f"gene names in {name}")
    notes = [*parsed.notes, "genes in rows, turned" if transpose else "samples in rows"]
    return Table(pa.table({}), notes, False, matrix, tuple(genes), tuple(samples))


def attach_sheet(expression: Table, sheet: pa.Table, sheet_name: str) -> Table:
    """``expression`` with the sheet's columns as its annotations, matched by identifier.

    Parameters
    ----------
    expression : Table
        :func:`expression_table`'s result.
    sheet : pyarrow.Table
        One row per sample; the column holding the most of the expression table's sample
        identifiers matches the rows (ties: the first such column).
    sheet_name : str

    Raises
    ------
    FSEngineError
        When no sheet column holds the identifiers, when an identifier repeats in that
        column, or when samples of the table are missing from the sheet (named).
    """
    samples = list(expression.sample_names)
    wanted = set(samples)
    best, _ = _best_column(sheet, wanted)
    if best is None:
        raise FSEngineError(
            f"no column of {sheet_name} holds the expression table's sample identifiers "
            f"({_shown(samples, 3)}); the sheet needs one row per sample with its identifier"
        )
    ids = _ids(sheet.column(best).to_pylist())
    if len(set(ids)) != len(ids):
        raise_duplicates(ids, f"sample identifiers in {sheet_name} (column {best!r})")
    missing = [s for s in samples if s not in set(ids)]
    if missing:
        unmatched = [i for i in ids if i not in wanted]
        hint = (
            f"; its identifiers that match no sample of the table: {_shown(unmatched)}"
            if unmatched
            else ""
        )
        raise FSEngineError(
            f"{len(missing)} of the {len(samples)} samples of the expression table are not in "
            f"{sheet_name} (column {best!r}): {_shown(missing)}{hint}; add them to the sheet "
            "or remove them from the table",
            column=str(best),
        )
    row = {sample: k for k, sample in enumerate(ids)}
    order = [row[s] for s in samples]
    annotations = {
        str(column): [sheet.column(column)[k].as_py() for k in order]
        for column in sheet.column_names
        if column != best
    }
    extra = len(ids) - len(samples)
    notes = [
        *expression.notes,
        f"classes from the sample sheet {sheet_name}, matched by its column {best!r}",
    ]
    if extra:
        notes.append(f"{extra} samples of the sheet are not in the expression table")
    return Table(
        expression.table,
        notes,
        False,
        expression.matrix,
        expression.matrix_columns,
        expression.sample_names,
        annotations,
        "sample sheet column",
    )
