"""Load, validate, orient and binarise a gene-expression matrix.

One loader for the command line and the app: CSV, TSV, gzip-compressed CSV/TSV and
Parquet, read through pyarrow. Samples are in rows by default; ``transpose=True``
reads matrices with genes in rows and samples in columns. Every problem is raised
as :class:`~fsengine.errors.FSEngineError` with a message that names the column
and row and says what to do.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import os
import re
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Union

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from fsengine.errors import FSEngineError

Source = Union[str, os.PathLike, bytes, BinaryIO]

#: Column names recognised as the label column, compared case-insensitively.
LABEL_NAMES = ("label", "class", "target")
_NULLS = ["", "NA", "N/A", "NaN", "nan", "NAN", "null", "NULL", "None", "#N/A", "?"]


@dataclass(frozen=True)
class Dataset:
    """A validated matrix of samples x features with one class label per sample.

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Finite feature values (Fortran order: one feature is contiguous).
    labels : ndarray, shape (n_samples,)
        Class labels as given: int64 for integral numbers, float64 for other
        numbers, str otherwise.
    feature_names : tuple of str
        Column names as given in the file.
    label_column : str
        Name of the column the labels came from.
    source : str
        File name the data came from.
    sample_names : tuple of str or None
        Sample identifiers, when the file has them (transposed files, or a
        first column of unique non-numeric identifiers).
    constant_features : tuple of str
        Features with a single value over all samples (still in ``X`` unless
        dropped).
    dropped_features : tuple of str
        Constant features removed by ``drop_constant=True``.
    notes : tuple of str
        How the file was read (delimiter, label column choice, ...).
    """

    X: np.ndarray
    labels: np.ndarray
    feature_names: tuple[str, ...]
    label_column: str
    source: str = ""
    sample_names: tuple[str, ...] | None = None
    constant_features: tuple[str, ...] = ()
    dropped_features: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def n_samples(self) -> int:
        """Number of samples (rows of ``X``)."""
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return self.X.shape[1]

    def class_counts(self) -> dict:
        """Number of samples per class, largest class first (ties by label)."""
        values, counts = np.unique(self.labels, return_counts=True)
        pairs = sorted(zip(values.tolist(), counts.tolist()), key=lambda vc: -vc[1])
        return dict(pairs)                     # np.unique sorted the labels; sorted() is stable

    def resolve_class(self, value) -> object:
        """The class label that ``value`` names: ``"2"`` matches a numeric label 2.

        Parameters
        ----------
        value : str, int or float
            A class as typed by a user or taken from the labels.

        Returns
        -------
        The matching label, as stored in ``labels``.

        Raises
        ------
        FSEngineError
            When no class matches; the message lists the classes.
        """
        classes = list(self.class_counts())
        for c in classes:
            if not isinstance(value, (bool, np.bool_)) and type(c) is not str \
                    and not isinstance(value, str) and c == value:
                return c
            if isinstance(c, str) and c == value:
                return c
        text = str(value).strip()
        for c in classes:
            if str(c) == text:
                return c
        number = _as_number(text)
        if number is not None:
            for c in classes:
                if isinstance(c, (int, float)) and not isinstance(c, bool) and c == number:
                    return c
        raise FSEngineError(
            f"minority class {value!r} is not a class of column {self.label_column!r}; "
            f"the classes are {_format_counts(self.class_counts())}")

    def imbalance_ratio(self, minority=None) -> float:
        """Imbalance ratio: rest / minority for a chosen minority, else largest / smallest class.

        The K-OFSD paper's ratios are one-versus-rest (SRBCT, class BL: 72 / 11 = 6.55).
        """
        counts = self.class_counts()
        if minority is None:
            return max(counts.values()) / min(counts.values())
        label = self.resolve_class(minority)
        return (self.n_samples - counts[label]) / counts[label]

    def binarise(self, minority) -> np.ndarray:
        """One-versus-rest labels: 1 for the minority class, 0 for every other class.

        Parameters
        ----------
        minority : label or str
            The class to select for; resolved with :meth:`resolve_class`.

        Returns
        -------
        ndarray of int8, shape (n_samples,)

        Raises
        ------
        FSEngineError
            If the class is unknown, has fewer than 2 samples, or is every sample.
        """
        label = self.resolve_class(minority)
        count = self.class_counts()[label]
        if count < 2:
            raise FSEngineError(
                f"minority class {label!r} has only {count} sample; at least 2 are needed "
                "(a sample's neighbours must be able to include its own class)")
        if count == self.n_samples:
            raise FSEngineError(f"every sample is of class {label!r}; nothing to tell apart")
        return (self.labels == label).astype(np.int8)

    def summary(self) -> dict:
        """Shape, classes and preprocessing facts, for display."""
        return {
            "source": self.source,
            "samples": self.n_samples,
            "features": self.n_features,
            "label_column": self.label_column,
            "class_counts": self.class_counts(),
            "imbalance_ratio": self.imbalance_ratio(),
            "constant_features": len(self.constant_features),
            "dropped_features": len(self.dropped_features),
        }


def _as_number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _format_counts(counts: dict) -> str:
    return ", ".join(f"{c!s} (n={n})" for c, n in counts.items())


def _read_bytes(source: Source) -> bytes:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    if hasattr(source, "read"):
        data = source.read()
        return data.encode() if isinstance(data, str) else data
    path = Path(source)
    if not path.exists():
        raise FSEngineError(f"file not found: {path}")
    if path.is_dir():
        raise FSEngineError(f"{path} is a directory; give a CSV, TSV or Parquet file")
    return path.read_bytes()


_DELIMITER_NAMES = {",": "comma-separated", "\t": "tab-separated", ";": "semicolon-separated"}


def _sniff_delimiter(text_head: bytes, name: str) -> str:
    first_line = text_head.split(b"\n", 1)[0]
    lower = name.lower()
    if lower.endswith((".tsv", ".tsv.gz", ".tab", ".txt", ".txt.gz")) and b"\t" in first_line:
        return "\t"
    counts = {d: first_line.count(d.encode()) for d in (",", "\t", ";")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] > 0 else ","


_WORKBOOK_MAGIC = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")   # zip (xlsx), OLE (xls)
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _text_notes(name: str, compressed: bool, delimiter: str, encoding: str | None = None
                ) -> list[str]:
    """The notes on how a text file was read, in the order the reading happens."""
    return ((["the file is named .parquet but is not Parquet; reading it as text"]
             if name.lower().endswith(".parquet") else [])
            + (["gzip-compressed"] if compressed else [])
            + ([encoding] if encoding else []) + [_DELIMITER_NAMES[delimiter]])


def _read_table(data: bytes, name: str, as_text: bool = False
                ) -> tuple[pa.Table, list[str], bool]:
    """Parse bytes into an Arrow table; returns (table, notes, line_numbers_reliable).

    ``as_text``: every text column stays text (for genes in rows, whose columns mix
    the label row with the numbers; ``_transposed`` types each row instead).
    """
    if not data.strip():
        raise FSEngineError(f"{name} is empty")
    if data[:4] == b"PAR1":
        try:
            return _parquet().ParquetFile(io.BytesIO(data)).read(), ["format: Parquet"], False
        except (pa.ArrowException, OSError) as exc:
            raise FSEngineError(f"{name} looks like Parquet but cannot be read ({exc}); "
                                "is the file complete?") from None
    compressed = data[:2] == b"\x1f\x8b"
    encoding = None
    if compressed:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise FSEngineError(f"{name} is gzip-compressed but cannot be decompressed ({exc})") from None
        if not data.strip():
            raise FSEngineError(f"{name} is empty after decompression")
    if data.startswith(_WORKBOOK_MAGIC):
        raise FSEngineError(f"{name} looks like an Excel workbook (or another zip/OLE file); "
                            "save the sheet as CSV and load that")
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    elif data.startswith(_UTF16_BOMS):
        try:
            data = data.decode("utf-16").encode("utf-8")
            encoding = "UTF-16 text converted to UTF-8"
        except UnicodeDecodeError:
            raise FSEngineError(f"{name} starts like UTF-16 text but cannot be decoded") from None
    head = data[:_HEAD]
    if b"\x00" in head:
        raise FSEngineError(f"{name} is not a text table (it contains binary data); "
                            "give a CSV, TSV or Parquet file")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4 or len(head) == len(data):
            data = data.decode("latin-1").encode("utf-8")
            encoding = "not UTF-8; read as Latin-1"
    if not data.endswith((b"\n", b"\r")):
        data += b"\n"
    delimiter = _sniff_delimiter(head, name)
    notes = _text_notes(name, compressed, delimiter, encoding)
    try:
        parse = pacsv.ParseOptions(delimiter=delimiter)
        types = None
        if as_text:
            with pacsv.open_csv(io.BytesIO(data), parse_options=parse) as reader:
                types = {n: pa.string() for n in reader.schema.names}
        table = pacsv.read_csv(
            io.BytesIO(data),
            read_options=pacsv.ReadOptions(block_size=1 << 24),
            parse_options=parse,
            convert_options=pacsv.ConvertOptions(null_values=_NULLS, strings_can_be_null=True,
                                                 column_types=types))
    except pa.ArrowInvalid as exc:
        message = str(exc).replace("CSV parse error: ", "")
        raise FSEngineError(f"{name} cannot be parsed as a table: {message}; every row must have "
                            "as many fields as the header") from None
    # File line = data row + 1 only without blank lines (pyarrow skips them).
    line_numbers = b"\n\n" not in data and b"\n\r\n" not in data
    return table, notes, line_numbers


@dataclass
class _Parsed:
    """A parsed file: the table, plus the numeric columns already in one float64 matrix.

    ``matrix`` (Fortran order) holds the integer and floating columns named
    ``matrix_columns``, in file order; the table's columns of those names are
    zero-copy views of it, so a file is held once, not twice (see ``_read_fast``).
    """

    table: pa.Table
    notes: list[str]
    line_numbers: bool
    matrix: np.ndarray | None = None
    matrix_columns: tuple[str, ...] = ()
    sample_names: tuple[str, ...] | None = None    # set when genes in rows were turned

    @property
    def transposed(self) -> bool:
        """Genes in rows, already turned: the table's rows are the samples."""
        return self.sample_names is not None


_CHUNK = 1 << 20            # bytes of text given to numpy's parser at a time
_HEAD = 65536               # bytes inspected for the format, encoding and delimiter
_GROUP = 1024               # Parquet columns read at a time
_MAX_TEXT_COLUMNS = 8       # more: not a gene matrix; the whole-file reader says why
_PARSE_ERRORS = (pa.ArrowException, OSError, EOFError, ValueError, IndexError, zlib.error,
                 csv.Error)


def _python_stream(source, compressed: bool) -> BinaryIO:
    """The (decompressed) bytes of a path or of bytes in memory, as a binary stream."""
    if isinstance(source, bytes):
        stream = io.BytesIO(source)                  # shares the bytes, no copy
        return gzip.GzipFile(fileobj=stream) if compressed else stream
    return gzip.open(source, "rb") if compressed else open(source, "rb")


def _is_number_cell(cell: str) -> bool:
    """Whether Arrow reads the text as a number (Python's float also takes 1_0 and ١)."""
    try:
        float(cell)
    except ValueError:
        return False
    return "_" not in cell and cell.isascii()


def _plan(names: list[str], numeric: list[int]) -> list[int] | None:
    """Positions kept as Arrow columns (the first, the last and the non-numeric ones), or
    None when the streaming path does not apply: no numeric column, more than
    ``_MAX_TEXT_COLUMNS`` others, duplicate names."""
    p = len(names)
    text = set(range(p)) - set(numeric)
    if p < 2 or not numeric or len(text) > _MAX_TEXT_COLUMNS or len(set(names)) != p:
        return None
    return sorted(text | {0, p - 1})


def _parquet():
    """pyarrow.parquet, imported when a Parquet file is read (it loads in about 20 ms)."""
    import pyarrow.parquet
    return pyarrow.parquet


def _compute():
    """pyarrow.compute, imported when a cell needs checking (it loads in about 50 ms)."""
    import pyarrow.compute
    return pyarrow.compute


#: numpy's name of each Arrow number type whose name differs.
_NUMPY_NAMES = {"double": "float64", "float": "float32", "halffloat": "float16"}


def _numbers(column: pa.ChunkedArray) -> np.ndarray:
    """The values of a numeric column without nulls as a numpy array, read from the Arrow
    buffers (``to_numpy`` would also import pandas)."""
    if pa.types.is_decimal(column.type):
        return np.array(column.to_pylist(), dtype=np.float64)
    name = str(column.type)
    parts = [np.frombuffer(chunk.buffers()[1], dtype=_NUMPY_NAMES.get(name, name),
                           count=len(chunk), offset=chunk.offset * chunk.type.bit_width // 8)
             for chunk in column.chunks]
    if not parts:
        return np.empty(0, dtype=_NUMPY_NAMES.get(name, name))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _float_array(values: np.ndarray) -> pa.Array:
    """A float64 Arrow array over a numpy column, without a copy when it is contiguous
    (``pa.array`` would also import pandas to check the input's type)."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    return pa.Array.from_buffers(pa.float64(), len(values), [None, pa.py_buffer(values)])


def _assemble(names: list[str], numeric: list[int], matrix: np.ndarray, kept: dict) -> pa.Table:
    """The table in file order: kept columns as read, the others as views of ``matrix``."""
    columns = {j: _float_array(matrix[:, k]) for k, j in enumerate(numeric) if j not in kept}
    columns.update(kept)
    return pa.Table.from_arrays([columns[j] for j in range(len(names))], names=names)


def _read_parquet_fast(source) -> _Parsed | None:
    """Parquet read a group of columns at a time into one float64 matrix."""
    file = _parquet().ParquetFile(pa.BufferReader(source) if isinstance(source, bytes) else str(source))
    schema = file.schema_arrow
    names = schema.names
    numeric = [j for j, f in enumerate(schema)
               if pa.types.is_integer(f.type) or pa.types.is_floating(f.type)]
    kept_positions = _plan(names, numeric)
    if kept_positions is None or any(pa.types.is_binary(schema.field(j).type)
                                     for j in kept_positions):
        return None
    matrix = np.empty((file.metadata.num_rows, len(numeric)), dtype=np.float64, order="F")
    for start in range(0, len(numeric), _GROUP):
        part = file.read(columns=[names[j] for j in numeric[start:start + _GROUP]])
        for k, column in enumerate(part.columns, start=start):
            if column.null_count:
                return None
            matrix[:, k] = _numbers(column)
        del part
    kept = file.read(columns=[names[j] for j in kept_positions])
    kept = {j: kept.column(i) for i, j in enumerate(kept_positions)}
    return _Parsed(_assemble(names, numeric, matrix, kept), ["format: Parquet"], False, matrix,
                   tuple(names[j] for j in numeric))


def _unquote(field: bytes) -> bytes | None:
    """A field without its enclosing quotes (``""`` inside is one quote); None if malformed."""
    if len(field) >= 2 and field[:1] == field[-1:] == b'"':
        inner = field[1:-1]
        return inner.replace(b'""', b'"') if b'"' not in inner.replace(b'""', b"") else None
    return None if b'"' in field else field


def _header_fields(stream: BinaryIO, sep: bytes) -> list[bytes] | None:
    """The header line's raw fields (BOM and line end removed); None with a CR inside,
    which Arrow would read as a line end."""
    header = stream.readline().removeprefix(b"\xef\xbb\xbf").removesuffix(b"\n")
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


def _read_csv_fast(source, compressed: bool, delimiter: str) -> _Parsed | None:
    """A numeric CSV parsed a chunk of lines at a time into one float64 matrix.

    Arrow's CSV reader holds the whole table and costs kilobytes per column per
    block, several times the matrix on wide files; so here only the first, the last
    and the text columns (sample names, the label) are read by Arrow, with the
    options of ``_read_table``, and the numbers by ``numpy.loadtxt`` (correctly
    rounded, like Arrow) into a preallocated matrix. Columns are typed by the first
    data line. Lines with a delimiter inside quotes, a field count other than the
    header's, whitespace-only lines, or a number that is missing, NaN or text in a
    later line make it return None.
    """
    sep = delimiter.encode()
    with _python_stream(source, compressed) as stream:
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
                    continue                         # a blank line, skipped as Arrow does
                if not _is_record(line, sep, p):
                    return None
                if kept is None:
                    cells = [_unquote(f) for f in line.split(sep)]
                    numeric = [j for j, c in enumerate(cells)
                               if c is not None and _is_number_cell(c.decode("utf-8"))]
                    kept = _plan(names, numeric)
                    if kept is None:
                        return None
                if kept == [0, p - 1]:               # no split of the whole line
                    first, _, rest = line.partition(sep)
                    kept_cells.append(first + sep + rest.rpartition(sep)[2])
                else:
                    fields = line.split(sep)
                    kept_cells.append(sep.join([fields[j] for j in kept]))
            lines -= block.endswith(b"\n")           # split() leaves an empty tail
    if kept is None:
        return None
    n = len(kept_cells)
    kept_table = pacsv.read_csv(
        pa.BufferReader(b"\n".join([sep.join([raw_names[j] for j in kept])] + kept_cells)
                        + b"\n"),
        parse_options=pacsv.ParseOptions(delimiter=delimiter),
        convert_options=pacsv.ConvertOptions(null_values=_NULLS, strings_can_be_null=True))
    if (kept_table.num_rows != n or kept_table.column_names != [names[j] for j in kept]
            or any(pa.types.is_binary(t) for t in kept_table.schema.types)):
        return None                                  # binary: text that is not UTF-8
    matrix = np.empty((n, len(numeric)), dtype=np.float64, order="F")
    rows = 0
    with _python_stream(source, compressed) as stream:
        stream.readline()
        for block in _line_blocks(stream):
            if not block.strip():
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")      # "input contained no data"
                values = np.loadtxt(io.BytesIO(block), dtype=np.float64, delimiter=delimiter,
                                    usecols=numeric, ndmin=2, quotechar='"', comments=None,
                                    encoding="utf-8")
            if rows + len(values) > n or np.isnan(values).any():
                return None                          # NaN: _read_table names the cell
            matrix[rows:rows + len(values)] = values
            rows += len(values)
    if rows != n:
        return None
    kept = {j: kept_table.column(i) for i, j in enumerate(kept)}
    return _Parsed(_assemble(names, numeric, matrix, kept), [], lines == n, matrix,
                   tuple(names[j] for j in numeric))


def _count_lines(source, compressed: bool) -> int:
    """Lines in the (decompressed) text, a last line without a newline included."""
    count, last = 0, b"\n"
    with _python_stream(source, compressed) as stream:
        while chunk := stream.read(_CHUNK):
            count, last = count + chunk.count(b"\n"), chunk[-1:]
    return count + (last != b"\n")


def _read_transposed_fast(source, compressed: bool, delimiter: str) -> _Parsed | None:
    """Genes in rows, one line per gene: each line is one column of the Fortran-order
    matrix, filled a chunk of lines at a time by ``numpy.loadtxt``.

    Returns the table already transposed (``_Parsed.transposed``). Lines with a text
    cell (the label row) are kept as text columns, as ``_transposed`` makes them; it
    returns None (for the whole-file reader) on more than two such lines, a missing
    gene name, duplicate names, a field count other than the header's, or a missing
    or NaN number.
    """
    sep = delimiter.encode()
    bound = _count_lines(source, compressed) - 1
    genes, kept, used = [], {}, 0
    with _python_stream(source, compressed) as stream:
        fields = _header_fields(stream, sep)
        fields = None if fields is None else [_unquote(f) for f in fields]
        if (fields is None or len(fields) < 2 or None in fields
                or len(set(fields)) != len(fields) or bound < 1):
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
                if name in _NULLS:
                    return None                      # no name: the whole-file reader says so
                names.append(name)
                values.append(cells)
            rows = _numbers_by_line(values, delimiter)
            for name, cells, numbers in zip(names, values, rows):
                if numbers is None:
                    text = [_unquote(c) for c in cells.split(sep)]
                    if len(kept) == 2 or None in text:
                        return None
                    text = [t.decode("utf-8") for t in text]
                    kept[len(genes)] = pa.array([None if t in _NULLS else t for t in text],
                                                type=pa.string())
                else:
                    if used == bound or np.isnan(numbers).any():
                        return None
                    matrix[:, used] = numbers
                    used += 1
                genes.append(name)
    if used == 0 or len(set(genes)) != len(genes):
        return None
    matrix = matrix[:, :used]                        # a view: the columns are contiguous
    numeric = [j for j in range(len(genes)) if j not in kept]
    return _Parsed(_assemble(genes, numeric, matrix, kept), [], False, matrix,
                   tuple(genes[j] for j in numeric), sample_names=samples)


def _numbers_by_line(lines: list[bytes], delimiter: str) -> list:
    """Each line's cells as float64, or None for a line with a cell that is not a number."""
    options = dict(dtype=np.float64, delimiter=delimiter, ndmin=2, quotechar='"',
                   comments=None, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")              # "input contained no data"
        try:
            values = np.loadtxt(io.BytesIO(b"\n".join(lines)), **options)
            if len(values) == len(lines):
                return list(values)
        except ValueError:
            pass                                     # a text line among them: one by one
        rows = []
        for line in lines:
            try:
                values = np.loadtxt(io.BytesIO(line), **options)
            except ValueError:
                values = ()
            rows.append(values[0] if len(values) == 1 else None)
    return rows


def _read_fast(source: Source, name: str, transpose: bool = False) -> _Parsed | None:
    """The common case without holding the file twice, or None for the whole-file reader.

    A table of numbers with a few text columns (sample names, the label; at most
    ``_MAX_TEXT_COLUMNS``) and no missing value is parsed a chunk of lines
    (CSV/TSV, also gzip) or a group of columns (Parquet) at a time into one float64
    matrix, reading a path from disk rather than into memory. Anything else, and any
    parse problem, returns None, and ``_read_table`` reads the file whole and reports
    the exact cell at fault; both give the same Dataset for any file the streaming
    path accepts (tests/unit/test_data_streaming.py).
    """
    if isinstance(source, bytearray):
        source = bytes(source)
    if isinstance(source, bytes):
        raw_head = source[:_HEAD]
    else:
        path = Path(source)
        if not path.is_file():
            return None
        with open(path, "rb") as f:
            raw_head = f.read(_HEAD)
    if not raw_head.strip():
        return None
    compressed = raw_head[:2] == b"\x1f\x8b"
    try:
        if raw_head[:4] == b"PAR1":
            return None if transpose else _read_parquet_fast(source)
        head = raw_head
        if compressed:
            with _python_stream(source, True) as stream:
                head = stream.read(_HEAD)
        if head.startswith(_WORKBOOK_MAGIC + _UTF16_BOMS) or b"\x00" in head \
                or not head.strip():
            return None
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start < len(head) - 4:
                return None
        delimiter = _sniff_delimiter(head.removeprefix(b"\xef\xbb\xbf"), name)
        parsed = (_read_transposed_fast if transpose else _read_csv_fast)(
            source, compressed, delimiter)
    except _PARSE_ERRORS:
        return None
    if parsed is not None:
        parsed.notes.extend(_text_notes(name, compressed, delimiter))
    return parsed


def _is_numeric_type(t: pa.DataType) -> bool:
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)


def _where(row: int, sample_names, line_numbers: bool) -> str:
    """Where a cell is: 1-based data row, plus the sample name or the file line when known."""
    where = f"row {row + 1}"
    if sample_names is not None:
        return f"{where} (sample {sample_names[row]!r})"
    return where + (f" (line {row + 2} of the file)" if line_numbers else "")


def _feature_values(name: str, column: pa.ChunkedArray, sample_names, is_text: bool) -> np.ndarray:
    """One feature column as finite float64, or an error naming the first bad cell."""
    t = column.type
    if pa.types.is_null(t):
        raise FSEngineError(f"feature column {name!r} is empty (every value is missing)")
    if pa.types.is_boolean(t):
        raise FSEngineError(f"feature column {name!r} holds true/false values, not numbers")
    if not _is_numeric_type(t):
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            try:
                column = _compute().cast(_compute().utf8_trim_whitespace(column), pa.float64())
            except pa.ArrowInvalid:
                values = column.to_pylist()
                for row, value in enumerate(values):
                    if value is not None and _as_number(value.strip()) is None \
                            and value.strip().lower() not in ("inf", "-inf", "+inf", "nan"):
                        hint = ""
                        if "," in value and _as_number(value.replace(",", ".")) is not None:
                            hint = " (a comma decimal separator? write 1.5, not 1,5)"
                        raise FSEngineError(
                            f"feature column {name!r}, {_where(row, sample_names, is_text)}: "
                            f"{value!r} is not a number{hint}")
                raise FSEngineError(f"feature column {name!r} holds values that are not numbers")
        else:
            raise FSEngineError(f"feature column {name!r} has type {t}, not numbers")
    if column.null_count:
        row = int(np.flatnonzero(_compute().is_null(column).to_numpy(zero_copy_only=False))[0])
        raise FSEngineError(f"feature column {name!r}, {_where(row, sample_names, is_text)}: "
                            "missing value; fill or remove it (K-OFSD needs every value)")
    return _finite(name, _numbers(column).astype(np.float64, copy=False), sample_names, is_text)


def _finite(name: str, values: np.ndarray, sample_names, is_text: bool) -> np.ndarray:
    """``values``, or an error naming the first missing or infinite cell."""
    if not np.isfinite(values).all():
        row = int(np.flatnonzero(~np.isfinite(values))[0])
        kind = "missing value (NaN)" if np.isnan(values[row]) else "infinite value"
        raise FSEngineError(f"feature column {name!r}, {_where(row, sample_names, is_text)}: {kind}")
    return values


def _label_values(name: str, column: pa.ChunkedArray, sample_names, is_text: bool) -> np.ndarray:
    """Class labels: int64 for integral numbers, float64 for other numbers, else str."""
    if column.null_count:
        row = int(np.flatnonzero(_compute().is_null(column).to_numpy(zero_copy_only=False))[0])
        raise FSEngineError(f"label column {name!r}, {_where(row, sample_names, is_text)}: "
                            "missing class label")
    t = column.type
    if _is_numeric_type(t) or pa.types.is_boolean(t):
        values = np.array(column.to_pylist())
    else:
        text = np.array([str(v).strip() for v in column.to_pylist()], dtype=object)
        numbers = [_as_number(v) for v in text]
        if all(x is not None for x in numbers):
            values = np.array(numbers, dtype=np.float64)
        else:
            return text.astype(str)
    values = np.asarray(values)
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise FSEngineError(f"label column {name!r}, {_where(row, sample_names, is_text)}: "
                                "missing or infinite class label")
        if np.all(values == np.round(values)) and np.all(np.abs(values) < 2.0 ** 53):
            values = values.astype(np.int64)       # integral and exactly representable
    elif values.dtype.kind in "biu":
        values = values.astype(np.int64)
    return values


def _transposed(table: pa.Table) -> tuple[pa.Table, tuple[str, ...]]:
    """Genes in rows -> samples in rows: the first column names the features."""
    if table.num_columns < 2:
        raise FSEngineError("a genes-in-rows file needs a first column of gene names and one "
                            "column per sample")
    names = table.column(0).to_pylist()
    if None in names:
        raise FSEngineError(f"row {names.index(None) + 1} of the first column has no gene name; "
                            "a genes-in-rows file needs a gene name in every row")
    names = [str(v) for v in names]
    samples = tuple(table.column_names[1:])
    cells = np.empty((table.num_rows, table.num_columns - 1), dtype=object)
    for j in range(1, table.num_columns):
        col = table.column(j)
        if _is_numeric_type(col.type) and not col.null_count:   # to_numpy: null -> NaN
            cells[:, j - 1] = _numbers(col)
        else:
            cells[:, j - 1] = col.to_pylist()
    arrays = {}
    for i, name in enumerate(names):
        row = cells[i]
        # A row is numbers when every cell is, also where the sample column is text
        # (the label row makes every sample column text).
        if all((isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool))
               or (isinstance(v, str) and _is_number_cell(v.strip())) for v in row):
            arrays[name] = pa.array(np.array([float(v) for v in row], dtype=np.float64))
        else:
            arrays[name] = pa.array([None if v is None else str(v) for v in row], type=pa.string())
    if len(arrays) != len(names):
        _raise_duplicates(names, "gene names in the first column")
    return pa.table(arrays), samples


def _raise_duplicates(names, what: str):
    seen, dups = set(), []
    for n in names:
        if n in seen and n not in dups:
            dups.append(n)
        seen.add(n)
    shown = ", ".join(repr(d) for d in dups[:5]) + (" ..." if len(dups) > 5 else "")
    raise FSEngineError(f"duplicate {what}: {shown}; every column needs a unique name")


def _sample_id_column(table: pa.Table) -> str | None:
    """The first column, when it holds sample identifiers, else None.

    Identifiers are text, unique, never missing and never a number: a column of
    numbers with one non-numeric cell is a feature with a bad cell, not identifiers.
    """
    first = table.column_names[0]
    ids = table.column(first)
    if table.num_columns < 2 or _is_numeric_type(ids.type) or ids.null_count:
        return None
    values = [str(v).strip() for v in ids.to_pylist()]
    if len(set(values)) != len(values) or any(
            _as_number(v) is not None or _as_number(v.replace(",", ".")) is not None
            for v in values):
        return None                   # numbers (also with a decimal comma) are not identifiers
    return first


_UNNAMED = re.compile(r"^(Unnamed: \d+|__index_level_\d+__)$")
_CHOOSE_LABEL = "choose the class column with --label / the Label column box"


def _is_unnamed(name: str) -> bool:
    return not name.strip() or bool(_UNNAMED.match(name))


def _unnamed_columns(table: pa.Table, label: str | None, notes: list[str]):
    """Drop an unnamed first column (row index / row names); error on other unnamed ones."""
    names = [str(n) for n in table.column_names]
    for j, n in enumerate(names[1:], start=1):
        if _is_unnamed(n):
            after = f" (after {names[j - 1]!r})" if not _is_unnamed(names[j - 1]) else ""
            raise FSEngineError(f"column {j + 1}{after} has no name (an empty header cell); "
                                "give every column a name in the header, or delete the column")
    if not names or not _is_unnamed(names[0]) or table.num_columns < 2:
        return table, None
    if label is not None and label == names[0]:
        return table, None               # asked for as the label: checked as a label below
    column = table.column(0)
    if column.null_count:
        raise FSEngineError("column 1 has no name (an empty header cell) and missing values; "
                            "give it a name in the header, or delete the column")
    values = [str(v).strip() for v in column.to_pylist()]
    if len(set(values)) != len(values):
        raise FSEngineError("column 1 has no name (an empty header cell) and repeated values, "
                            "so it is not row names; give it a name in the header")
    notes.append("unnamed first column taken as row names (the row index), not a feature")
    return table.drop_columns([table.column_names[0]]), tuple(values)


def _genes_in_rows_hint(table: pa.Table, id_column, label, source_name) -> str:
    """Raise for a clear genes-in-rows file (a row of the first column, text, is named
    label/class/target); return a hint for a likely one, else ''."""
    first = table.column(0)
    if label is not None or _is_numeric_type(first.type) or table.num_columns < 2:
        return ""
    ids = ["" if v is None else str(v).strip() for v in first.to_pylist()]
    shape = f"{table.num_rows} rows x {table.num_columns} columns"
    fix = "load it with --transpose / the 'Genes in rows' toggle"
    named = [v for v in ids if v.lower() in LABEL_NAMES]
    has_label_column = any(str(n).strip().lower() in LABEL_NAMES for n in table.column_names)
    if named and not has_label_column:
        raise FSEngineError(f"{source_name} looks like genes in rows and samples in columns "
                            f"(row {ids.index(named[0]) + 1} of the first column is named "
                            f"{named[0]!r}; {shape}); {fix}")
    if id_column is not None and table.num_rows > 5 * table.num_columns \
            and not has_label_column:
        return f"the file looks like genes in rows ({shape}): {fix}"
    return ""


def _check_label_is_a_class(name: str, labels: np.ndarray) -> None:
    """Errors for a label column that is the row index, sample ids or a measurement."""
    n = len(labels)
    distinct = len(np.unique(labels))
    if labels.dtype.kind in "iuf" and n >= 10:
        for start in (0, 1):
            if np.array_equal(labels, np.arange(start, start + n)):
                raise FSEngineError(
                    f"label column {name!r} holds {start}..{start + n - 1}, one number per row: "
                    f"it is the row index, not a class; {_CHOOSE_LABEL}")
    if labels.dtype.kind in "iuf" and distinct > 20 and distinct > n / 2:
        raise FSEngineError(
            f"label column {name!r} has {distinct} distinct numeric values: it looks like a "
            f"measurement, not a class; {_CHOOSE_LABEL}")
    if n >= 10 and distinct == n:
        raise FSEngineError(
            f"label column {name!r} has a different value in every row ({n}): it looks like "
            f"sample identifiers, not a class; {_CHOOSE_LABEL}")


def _choose_label(table: pa.Table, label: str | None, notes: list[str],
                  sample_ids: str | None = None) -> str:
    names = table.column_names
    if label is not None:
        if label in names:
            return label
        matches = [n for n in names if n.lower() == str(label).lower()]
        if len(matches) == 1:
            return matches[0]
        shown = ", ".join(repr(n) for n in names[:8]) + (" ..." if len(names) > 8 else "")
        raise FSEngineError(f"label column {label!r} not found; the columns are {shown}")
    for n in names:
        if n.strip().lower() in LABEL_NAMES:
            notes.append(f"label column {n!r} (by its name)")
            return n
    non_numeric = [n for n in names
                   if n != sample_ids and not _is_numeric_type(table.column(n).type)]
    if non_numeric:
        notes.append(f"label column {non_numeric[-1]!r} (the last non-numeric column)")
        return non_numeric[-1]
    notes.append(f"label column {names[-1]!r} (the last column)")
    return names[-1]


def load_dataset(source: Source, *, label: str | None = None, transpose: bool = False,
                 drop_constant: bool = False, name: str | None = None) -> Dataset:
    """Read and validate a matrix of samples x genes with a class label column.

    Parameters
    ----------
    source : path, bytes or binary file object
        CSV, TSV, gzip-compressed CSV/TSV or Parquet; the format is recognised
        from the content (Parquet and gzip magic bytes; the delimiter from the
        header line).
    label : str, optional
        Name of the label column. Default: a column named label/class/target
        (any case), else the last non-numeric column, else the last column.
    transpose : bool
        The file has genes in rows and samples in columns: its first column
        holds the gene names and one row holds the labels.
    drop_constant : bool
        Remove features with one value over all samples (they carry no
        information; under the standardised distance their distances are NaN).
    name : str, optional
        Name to report for the data (default: the file name).

    Returns
    -------
    Dataset

    Raises
    ------
    FSEngineError
        For any problem with the file, naming the column and row.

    Notes
    -----
    Unnamed columns (an empty header cell, or pandas' ``Unnamed: 0``): an unnamed
    *first* column is the row index or the row names that pandas and R write; its
    values become the sample names and it is not a feature (a note says so). An
    unnamed column anywhere else is an error naming its position.

    The label column is checked for mistakes: a column that is the row index
    (0..n-1 or 1..n), a column with a different value in every row, and a numeric
    column with many distinct values (more than 20 and more than half the samples:
    a measurement, not a class) are errors asking for the class column.

    A file that looks like genes in rows (a first column of unique names containing
    label/class/target, or far more rows than columns with a first column of names)
    loaded without ``transpose`` is an error, or has the hint added to the error,
    suggesting ``--transpose`` / the 'Genes in rows' toggle.

    A file whose features are all constant is an error, with or without
    ``drop_constant``: no feature can tell the classes apart.
    """
    try:
        return _load(source, label=label, transpose=transpose, drop_constant=drop_constant,
                     name=name)
    except FSEngineError:                      # a ValueError too: let it through as it is
        raise
    except (pa.ArrowException, ValueError, TypeError, OverflowError, UnicodeError,
            OSError, IndexError, KeyError) as exc:   # a bug or an unforeseen input: still one type
        raise FSEngineError(f"cannot read {name or 'the data'}: {type(exc).__name__}: {exc}") \
            from exc


def _source_name(source: Source) -> str:
    if isinstance(source, (bytes, bytearray)):
        return "uploaded data"
    if hasattr(source, "read"):
        return os.path.basename(str(getattr(source, "name", "uploaded file")))
    return Path(source).name


def _parse(source: Source, source_name: str, transpose: bool) -> _Parsed:
    """The streaming reader's result, else the whole-file reader's."""
    if hasattr(source, "read"):
        source = _read_bytes(source)
    parsed = _read_fast(source, source_name, transpose)
    if parsed is None:
        parsed = _Parsed(*_read_table(_read_bytes(source), source_name, as_text=transpose))
    return parsed


def _load(source: Source, *, label, transpose, drop_constant, name) -> Dataset:
    source_name = name or _source_name(source)
    parsed = _parse(source, source_name, transpose)
    table, notes, is_text = parsed.table, parsed.notes, parsed.line_numbers
    if table.num_columns == 0:
        raise FSEngineError(f"{source_name} has no columns")
    sample_names = parsed.sample_names
    if not transpose:
        table, sample_names = _unnamed_columns(table, label, notes)
    names = [str(n) for n in table.column_names]
    if len(set(names)) != len(names):
        _raise_duplicates(names, "column names")
    if transpose:
        if not parsed.transposed:
            table, sample_names = _transposed(table)
        notes.append("transposed: genes in rows, samples in columns")
    if table.num_rows == 0:
        raise FSEngineError(f"{source_name} has a header but no data rows")
    if table.num_columns == 0:
        raise FSEngineError(f"{source_name} has no columns besides its row names")
    id_column = None
    if not transpose and sample_names is None:
        id_column = _sample_id_column(table)
    hint = "" if transpose else _genes_in_rows_hint(table, id_column, label, source_name)
    matrix = (parsed.matrix, parsed.matrix_columns) if parsed.matrix is not None else None
    try:
        return _build(table, label, drop_constant, notes, is_text, source_name, sample_names,
                      id_column, matrix)
    except FSEngineError as exc:
        if hint and "--transpose" not in str(exc):
            raise FSEngineError(f"{exc}; {hint}") from None
        raise


def _matrix_view(matrix, feature_columns) -> np.ndarray | None:
    """The features as columns ``a:b`` of the parsed matrix (no copy), when they are."""
    if matrix is None:
        return None
    values, names = matrix
    position = {n: k for k, n in enumerate(names)}
    if len(position) != len(names) or any(c not in position for c in feature_columns):
        return None
    first = position[feature_columns[0]]
    if [position[c] for c in feature_columns] != list(range(first, first + len(feature_columns))):
        return None
    return values[:, first:first + len(feature_columns)]


def _build(table, label, drop_constant, notes, is_text, source_name, sample_names,
           id_column, matrix=None) -> Dataset:
    label_column = _choose_label(table, label, notes, id_column)
    feature_columns = [n for n in table.column_names if n != label_column]
    if id_column is not None and id_column != label_column:
        sample_names = tuple(str(v) for v in table.column(id_column).to_pylist())
        feature_columns.remove(id_column)
        notes.append(f"column {id_column!r} holds sample identifiers")
    if not feature_columns:
        raise FSEngineError(f"{source_name} has no feature columns besides the label column "
                            f"{label_column!r}; a file needs one column per gene and a label "
                            "column (samples in rows), separated by commas, tabs or semicolons")
    labels = _label_values(label_column, table.column(label_column), sample_names, is_text)
    _check_label_is_a_class(label_column, labels)
    X = _matrix_view(matrix, feature_columns)
    parsed_into_matrix = X is not None
    if not parsed_into_matrix:
        X = np.empty((table.num_rows, len(feature_columns)), dtype=np.float64, order="F")
    constant_mask = np.empty(len(feature_columns), dtype=bool)
    for j, col in enumerate(feature_columns):
        if parsed_into_matrix:
            values = _finite(col, X[:, j], sample_names, is_text)
        else:
            values = _feature_values(col, table.column(col), sample_names, is_text)
            X[:, j] = values
        constant_mask[j] = (values == values[0]).all()     # no n x p temporary
    if len(np.unique(labels)) < 2:
        raise FSEngineError(f"label column {label_column!r} has a single class "
                            f"({labels[0].item()!r}); at least two classes are needed")
    constant = tuple(feature_columns[j] for j in np.flatnonzero(constant_mask))
    dropped: tuple[str, ...] = ()
    if len(constant) == len(feature_columns):
        raise FSEngineError(f"every feature is constant ({len(constant)} of {len(constant)} have "
                            f"one value over all {X.shape[0]} samples): "
                            "nothing can tell the classes apart; check that the right file "
                            "and columns were loaded")
    if drop_constant and constant:
        keep = ~constant_mask
        X = np.asfortranarray(X[:, keep])
        feature_columns = [c for c, k in zip(feature_columns, keep) if k]
        dropped, constant = constant, ()
    return Dataset(X=X, labels=labels, feature_names=tuple(feature_columns),
                   label_column=label_column, source=source_name, sample_names=sample_names,
                   constant_features=constant, dropped_features=dropped, notes=tuple(notes))
