"""The CSV/TSV reader (also gzip-compressed; comma, tab or semicolon delimited)."""

from __future__ import annotations

import gzip
import io
import warnings
import zlib
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from fsengine.errors import FSEngineError
from fsengine.io.base import (
    HEAD,
    NULLS,
    Reader,
    Table,
    assemble,
    is_number_cell,
    plan,
    python_stream,
)
from fsengine.io.parquet import damaged_parquet_bytes, read_parquet
from fsengine.io.sniff import (
    GZIP_MAGIC,
    UTF8_BOM,
    UTF16_BOMS,
    WORKBOOK_MAGIC,
    plain_text_head,
    sniff_delimiter,
    text_notes,
)

__all__ = ["TextReader"]

_CHUNK = 1 << 20  # bytes of text given to numpy's parser at a time


class TextReader(Reader):
    """Delimited text: whatever no other reader recognises."""

    format = "CSV/TSV"

    def recognises(self, head: bytes) -> bool:
        return True

    def stream(self, source: bytes | Path, head: bytes, name: str, transpose: bool) -> Table | None:
        """A numeric table parsed a chunk of lines at a time into one float64 matrix
        (:func:`_stream_samples_in_rows`, :func:`_stream_genes_in_rows`)."""
        if not head.strip():
            return None
        compressed = head[:2] == GZIP_MAGIC
        if compressed:
            with python_stream(source, True) as stream:
                head = stream.read(HEAD)
        if not plain_text_head(head):
            return None
        delimiter = sniff_delimiter(head.removeprefix(UTF8_BOM), name)
        parsed = (_stream_genes_in_rows if transpose else _stream_samples_in_rows)(
            source, compressed, delimiter
        )
        if parsed is not None:
            parsed.notes.extend(text_notes(name, compressed, delimiter))
        return parsed

    def read(self, data: bytes, name: str, transpose: bool) -> Table:
        """The whole text parsed by Arrow; with ``transpose`` every text column stays
        text (for genes in rows, whose columns mix the label row with the numbers; the
        orientation code types each row instead)."""
        if not data.strip():
            raise FSEngineError(f"{name} is empty")
        compressed = data[:2] == GZIP_MAGIC
        encoding = None
        if compressed:
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError, zlib.error) as exc:
                raise FSEngineError(
                    f"{name} is gzip-compressed but cannot be decompressed ({exc})"
                ) from None
            if not data.strip():
                raise FSEngineError(f"{name} is empty after decompression")
        if data.startswith(WORKBOOK_MAGIC):
            raise FSEngineError(
                f"{name} looks like an Excel workbook (or another zip/OLE file); "
                "save the sheet as CSV and load that"
            )
        if not compressed and damaged_parquet_bytes(name, data):  # not text at all
            return read_parquet(data, name, ("the file does not start like Parquet",))
        if data[:3] == UTF8_BOM:
            data = data[3:]
        elif data.startswith(UTF16_BOMS):
            try:
                data = data.decode("utf-16").encode("utf-8")
                encoding = "UTF-16 text converted to UTF-8"
            except UnicodeDecodeError:
                raise FSEngineError(
                    f"{name} starts like UTF-16 text but cannot be decoded"
                ) from None
        head = data[:HEAD]
        if b"\x00" in head:
            raise FSEngineError(
                f"{name} is not a text table (it contains binary data); "
                "give a CSV, TSV or Parquet file"
            )
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start < len(head) - 4 or len(head) == len(data):
                data = data.decode("latin-1").encode("utf-8")
                encoding = "not UTF-8; read as Latin-1"
        if not data.endswith((b"\n", b"\r")):
            data += b"\n"
        delimiter = sniff_delimiter(head, name)
        notes = text_notes(name, compressed, delimiter, encoding)
        try:
            parse = pacsv.ParseOptions(delimiter=delimiter)
            types = None
            if transpose:
                with pacsv.open_csv(io.BytesIO(data), parse_options=parse) as reader:
                    types = {n: pa.string() for n in reader.schema.names}
            table = pacsv.read_csv(
                io.BytesIO(data),
                read_options=pacsv.ReadOptions(block_size=1 << 24),
                parse_options=parse,
                convert_options=pacsv.ConvertOptions(
                    null_values=NULLS, strings_can_be_null=True, column_types=types
                ),
            )
        except pa.ArrowInvalid as exc:
            message = str(exc).replace("CSV parse error: ", "")
            raise FSEngineError(
                f"{name} cannot be parsed as a table: {message}; every row must "
                "have as many fields as the header"
            ) from None
        # File line = data row + 1 only without blank lines (pyarrow skips them).
        line_numbers = b"\n\n" not in data and b"\n\r\n" not in data
        return Table(table, notes, line_numbers)


def _unquote(field: bytes) -> bytes | None:
    """A field without its enclosing quotes (``""`` inside is one quote); None if malformed."""
    if len(field) >= 2 and field[:1] == field[-1:] == b'"':
        inner = field[1:-1]
        return inner.replace(b'""', b'"') if b'"' not in inner.replace(b'""', b"") else None
    return None if b'"' in field else field


def _header_fields(stream: BinaryIO, sep: bytes) -> list[bytes] | None:
    """The header line's raw fields (BOM and line end removed); None with a CR inside,
    which Arrow would read as a line end."""
    header = stream.readline().removeprefix(UTF8_BOM).removesuffix(b"\n")
    header = header.removesuffix(b"\r")
    return None if b"\r" in header else header.split(sep)


def _is_record(line: bytes, sep: bytes, n_fields: int) -> bool:
    """A data line (CR already removed from its end) as Arrow reads it: one row of
    ``n_fields`` fields, no other line end, not whitespace only."""
    return b"\r" not in line and bool(line.strip()) and line.count(sep) == n_fields - 1


def _line_blocks(stream: BinaryIO):
    """The rest of ``stream`` as blocks of about ``_CHUNK`` bytes ending at a line end."""
    rest = b""
    while chunk := stream.read(_CHUNK):
        data = rest + chunk
        cut = data.rfind(b"\n") + 1
        block, rest = data[:cut], data[cut:]
        if block:
            yield block
    if rest:
        yield rest


def _stream_samples_in_rows(source, compressed: bool, delimiter: str) -> Table | None:
    """A numeric CSV parsed a chunk of lines at a time into one float64 matrix.

    Arrow's CSV reader holds the whole table and costs kilobytes per column per
    block, several times the matrix on wide files; so here only the first, the last
    and the text columns (sample names, the label) are read by Arrow, with the
    options of :meth:`TextReader.read`, and the numbers by ``numpy.loadtxt``
    (correctly rounded, like Arrow) into a preallocated matrix. Columns are typed by
    the first data line. Lines with a delimiter inside quotes, a field count other
    than the header's, whitespace-only lines, or a number that is missing, NaN or
    text in a later line make it return None.
    """
    sep = delimiter.encode()
    with python_stream(source, compressed) as stream:
        raw_names = _header_fields(stream, sep)
        names = None if raw_names is None else [_unquote(f) for f in raw_names]
        if names is None or len(names) < 2 or None in names:
            return None
        p = len(names)
        names = [n.decode("utf-8") for n in names]
        kept_cells, kept, lines = [], None, 0
        for block in _line_blocks(stream):
            for line in block.split(b"\n"):
                line = line.removesuffix(b"\r")
                lines += 1
                if not line:
                    continue  # a blank line, skipped as Arrow does
                if not _is_record(line, sep, p):
                    return None
                if kept is None:
                    cells = [_unquote(f) for f in line.split(sep)]
                    numeric = [
                        j
                        for j, c in enumerate(cells)
                        if c is not None and is_number_cell(c.decode("utf-8"))
                    ]
                    kept = plan(names, numeric)
                    if kept is None:
                        return None
                if kept == [0, p - 1]:  # no split of the whole line
                    first, _, rest = line.partition(sep)
                    kept_cells.append(first + sep + rest.rpartition(sep)[2])
                else:
                    fields = line.split(sep)
                    kept_cells.append(sep.join([fields[j] for j in kept]))
            lines -= block.endswith(b"\n")  # split() leaves an empty tail
    if kept is None:
        return None
    n = len(kept_cells)
    kept_table = pacsv.read_csv(
        pa.BufferReader(b"\n".join([sep.join([raw_names[j] for j in kept])] + kept_cells) + b"\n"),
        parse_options=pacsv.ParseOptions(delimiter=delimiter),
        convert_options=pacsv.ConvertOptions(null_values=NULLS, strings_can_be_null=True),
    )
    if (
        kept_table.num_rows != n
        or kept_table.column_names != [names[j] for j in kept]
        or any(pa.types.is_binary(t) for t in kept_table.schema.types)
    ):
        return None  # binary: text that is not UTF-8
    matrix = np.empty((n, len(numeric)), dtype=np.float64, order="F")
    rows = 0
    with python_stream(source, compressed) as stream:
        stream.readline()
        for block in _line_blocks(stream):
            if not block.strip():
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "input contained no data"
                values = np.loadtxt(
                    io.BytesIO(block),
                    dtype=np.float64,
                    delimiter=delimiter,
                    usecols=numeric,
                    ndmin=2,
                    quotechar='"',
                    comments=None,
                    encoding="utf-8",
                )
            if rows + len(values) > n or np.isnan(values).any():
                return None  # NaN: TextReader.read names the cell
            matrix[rows : rows + len(values)] = values
            rows += len(values)
    if rows != n:
        return None
    kept = {j: kept_table.column(i) for i, j in enumerate(kept)}
    return Table(
        assemble(names, numeric, matrix, kept),
        [],
        lines == n,
        matrix,
        tuple(names[j] for j in numeric),
    )


def _count_lines(source, compressed: bool) -> int:
    """Lines in the (decompressed) text, a last line without a newline included."""
    count, last = 0, b"\n"
    with python_stream(source, compressed) as stream:
        while chunk := stream.read(_CHUNK):
            count, last = count + chunk.count(b"\n"), chunk[-1:]
    return count + (last != b"\n")


def _stream_genes_in_rows(source, compressed: bool, delimiter: str) -> Table | None:
    """Genes in rows, one line per gene: each line is one column of the Fortran-order
    matrix, filled a chunk of lines at a time by ``numpy.loadtxt``.

    Returns the table already transposed (``Table.transposed``). Lines with a text
    cell (the label row) are kept as text columns, as the orientation code makes them;
    it returns None (for the whole-file reader) on more than two such lines, a missing
    gene name, duplicate names, a field count other than the header's, or a missing
    or NaN number.
    """
    sep = delimiter.encode()
    bound = _count_lines(source, compressed) - 1
    genes, kept, used = [], {}, 0
    with python_stream(source, compressed) as stream:
        fields = _header_fields(stream, sep)
        fields = None if fields is None else [_unquote(f) for f in fields]
        if (
            fields is None
            or len(fields) < 2
            or None in fields
            or len(set(fields)) != len(fields)
            or bound < 1
        ):
            return None
        samples = tuple(s.decode("utf-8") for s in fields[1:])
        n = len(samples)
        matrix = np.empty((n, bound), dtype=np.float64, order="F")
        for block in _line_blocks(stream):
            names, values = [], []
            for line in block.split(b"\n"):
                line = line.removesuffix(b"\r")
                if not line:
                    continue
                if not _is_record(line, sep, n + 1):
                    return None
                name, _, cells = line.partition(sep)
                name = _unquote(name)
                if name is None:
                    return None
                name = name.decode("utf-8")
                if name in NULLS:
                    return None  # no name: the whole-file reader says so
                names.append(name)
                values.append(cells)
            rows = _numbers_by_line(values, delimiter)
            for name, cells, numbers in zip(names, values, rows):
                if numbers is None:
                    text = [_unquote(c) for c in cells.split(sep)]
                    if len(kept) == 2 or None in text:
                        return None
                    text = [t.decode("utf-8") for t in text]
                    kept[len(genes)] = pa.array(
                        [None if t in NULLS else t for t in text], type=pa.string()
                    )
                else:
                    if used == bound or np.isnan(numbers).any():
                        return None
                    matrix[:, used] = numbers
                    used += 1
                genes.append(name)
    if used == 0 or len(set(genes)) != len(genes):
        return None
    matrix = matrix[:, :used]  # a view: the columns are contiguous
    numeric = [j for j in range(len(genes)) if j not in kept]
    return Table(
        assemble(genes, numeric, matrix, kept),
        [],
        False,
        matrix,
        tuple(genes[j] for j in numeric),
        sample_names=samples,
    )


def _numbers_by_line(lines: list[bytes], delimiter: str) -> list:
    """Each line's cells as float64, or None for a line with a cell that is not a number."""
    options = {
        "dtype": np.float64,
        "delimiter": delimiter,
        "ndmin": 2,
        "quotechar": '"',
        "comments": None,
        "encoding": "utf-8",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "input contained no data"
        try:
            values = np.loadtxt(io.BytesIO(b"\n".join(lines)), **options)
            if len(values) == len(lines):
                return list(values)
        except ValueError:
            pass  # a text line among them: one by one
        rows = []
        for line in lines:
            try:
                values = np.loadtxt(io.BytesIO(line), **options)
            except ValueError:
                values = ()
            rows.append(values[0] if len(values) == 1 else None)
    return rows
