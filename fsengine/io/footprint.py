"""The memory a data file will take once read, and at the peak of its reading, known before
it is read: from an AnnData file's or a Parquet file's header, and from a text table's
first line and its count of lines (the file is scanned, never parsed).

The dashboard's Data page states it before it opens a file of the data directory, and
refuses a file whose reading would not fit (:func:`check_fits`); the figures are the
readers' own, measured by ``make bench`` (``benchmarks/bench_memory.py``,
``benchmarks/bench_dashboard_memory.py``).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from fsengine._compute.sparse import BLOCK_ELEMENTS, MEMORY_SHARE, available_memory
from fsengine.errors import FSEngineError
from fsengine.io.backed import is_zarr_store, matrix_layout, matrix_node, stored_layout
from fsengine.io.base import HEAD, Source, check_expanded_size, python_stream, size_text
from fsengine.io.h5ad import backed_by_size, layout_bytes
from fsengine.io.hdf5_probe import HDF5_MAGIC, probe
from fsengine.io.sniff import GZIP_MAGIC, PARQUET_MAGIC, plain_text_head, sniff_delimiter

__all__ = ["Footprint", "available_memory", "check_fits", "footprint"]

#: The peak of reading a text table, as a multiple of its float64 matrix (the streaming
#: reader: 1.20x to 1.25x measured; the README's "Reading files" table).
TEXT_PEAK = 1.25
#: The same for Parquet (1.66x to 1.78x measured).
PARQUET_PEAK = 1.8
#: The same for an AnnData file read into memory: the file's matrix and the column copy
#: side by side while it is converted (2.05x measured on a 50,000 x 20,000 atlas).
ANNDATA_PEAK = 2.1
#: Bytes the readers use beside the matrix whatever its size (chunks of lines, buffers):
#: up to 16 MB measured by tracemalloc on a 9 MB gzip table.
READER_BUFFERS = 2**25
#: Bytes scanned at a time while counting a text table's lines.
_SCAN_STEP = 2**24


@dataclass(frozen=True)
class Footprint:
    """What reading a file takes.

    Attributes
    ----------
    shape : tuple of int
        The matrix as the file stores it (lines x fields of a table, header and text
        columns included; cells x genes of an AnnData file).
    form : str
        "dense" (float64), "sparse" (values with their row numbers) or "backed" (left on
        disk, read a block of genes at a time).
    held : int
        Bytes of the matrix once read (a backed matrix: one block).
    peak : int
        Bytes at the peak of reading (estimated from the readers' measured peaks: a
        multiple of ``held`` plus :data:`READER_BUFFERS`).
    """

    shape: tuple[int, int]
    form: str
    held: int
    peak: int

    def text(self) -> str:
        """A sentence for the page: "about 458.0 MB in memory (a dense 20,000 x 3,000
        matrix), 572.5 MB at the peak of reading"."""
        rows, columns = self.shape
        what = {
            "dense": f"a dense {rows:,} x {columns:,} matrix",
            "sparse": f"a sparse {rows:,} x {columns:,} matrix",
            "backed": f"a {rows:,} x {columns:,} matrix left on disk, read a block of genes "
            "at a time",
        }[self.form]
        at_a_time = " at a time" if self.form == "backed" else ""
        return (
            f"about {size_text(self.held)} in memory{at_a_time} ({what}), "
            f"{size_text(self.peak)} at the peak of reading"
        )


def footprint(
    source: Source,
    name: str,
    *,
    layer: str | None = None,
    backed: bool | None = False,
    budget: int | None = None,
) -> Footprint | None:
    """The memory reading ``source`` takes, without reading its values.

    Parameters
    ----------
    source : path or bytes
        The file (or an AnnData Zarr store's folder).
    name : str
        Its name, for messages.
    layer : str, optional
        An AnnData file's layer read instead of X.
    backed : bool or None
        As :func:`fsengine.io.read` takes it: True leaves an AnnData matrix on disk, None
        when it is large (:func:`fsengine.io.h5ad.wants_backed`).
    budget : int, optional
        The memory (bytes) that rule measures against; default: the memory available.

    Returns
    -------
    Footprint or None
        None when the size is not known before reading: a workbook, a file that is not
        text, a file damaged or unreadable in a way the reader will name.

    Raises
    ------
    FSEngineError
        For an AnnData file the readers cannot open, or a gzip bomb (the same messages as
        the readers').
    """
    try:
        return _footprint(source, name, layer, backed, budget)
    except FSEngineError:
        raise
    except Exception:  # noqa: BLE001 - h5py, zarr, pyarrow, OS errors: the reader names them
        return None


def _footprint(source, name: str, layer, backed, budget) -> Footprint | None:
    if isinstance(source, bytearray):
        source = bytes(source)
    if not isinstance(source, bytes) and is_zarr_store(source):
        return _anndata(source, name, layer, backed, budget)
    if isinstance(source, bytes):
        head = source[:HEAD]
    else:
        path = Path(source)
        if not path.is_file():
            return None
        with open(path, "rb") as f:
            head = f.read(HEAD)
    if head.startswith(HDF5_MAGIC):
        return _anndata(source, name, layer, backed, budget)
    if head.startswith(PARQUET_MAGIC):
        return _parquet_footprint(source)
    return _text(source, name, compressed=head.startswith(GZIP_MAGIC))


def check_fits(
    found: Footprint | None,
    name: str,
    budget: int | None = None,
    way_out: str = "use a smaller file (fewer genes or samples)",
) -> None:
    """Refuse a file whose reading would take more than :data:`MEMORY_SHARE` of the memory
    available (``budget`` bytes, default: measured now), naming both.

    Parameters
    ----------
    found : Footprint or None
        From :func:`footprint` (None: not known, nothing refused).
    name : str
        The file's name, for the message.
    budget : int, optional
        Bytes of memory to measure against; default :func:`available_memory`.
    way_out : str
        What the message tells the user to do instead.

    Raises
    ------
    FSEngineError
        The file does not fit.
    """
    if found is None:
        return
    budget = available_memory() if budget is None else budget
    if budget is None or found.peak <= MEMORY_SHARE * budget:
        return
    raise FSEngineError(
        f"{name} would take {found.text()}; a data set may take "
        f"{size_text(int(MEMORY_SHARE * budget))} here (half the {size_text(budget)} of "
        f"memory available to it): {way_out}"
    )


def _anndata(
    source, name: str, layer: str | None, backed: bool | None, budget: int | None
) -> Footprint:
    """From the matrix node's metadata (:func:`fsengine.io.backed.stored_layout`)."""
    if isinstance(source, bytes):
        import h5py

        probe(source, name)
        try:
            root = h5py.File(io.BytesIO(source), "r")
        except OSError as exc:
            raise FSEngineError(f"{name} is not a readable HDF5 file ({exc})") from None
        backed = False  # bytes are read into memory
        try:
            layout, shape, stored = stored_layout(matrix_node(root, name, layer), name)
        finally:
            root.close()
    else:
        layout, shape, stored = matrix_layout(source, name, layer)
    shape = (int(shape[0]), int(shape[1]))
    in_memory = layout_bytes(layout, shape, int(stored))  # the reader's size rule's measure
    if backed is True or (backed is None and backed_by_size(in_memory, budget)):
        block = 8 * min(BLOCK_ELEMENTS, shape[0] * shape[1])
        return Footprint(shape, "backed", block, 2 * block + READER_BUFFERS)
    if layout == "dense":
        held = 8 * shape[0] * shape[1]
        return Footprint(shape, "dense", held, int(ANNDATA_PEAK * held) + READER_BUFFERS)
    index = 4 if max(shape[0], int(stored)) < 2**31 else 8  # scipy's index type
    held = (8 + index) * int(stored) + 8 * (shape[1] + 1)
    return Footprint(shape, "sparse", held, int(ANNDATA_PEAK * held) + READER_BUFFERS)


def _parquet_footprint(source) -> Footprint | None:
    """From the footer: rows x columns as float64."""
    try:
        import pyarrow.parquet as pq  # as the Parquet reader: loaded when needed

        meta = pq.ParquetFile(
            pa.BufferReader(source) if isinstance(source, bytes) else str(source)
        ).metadata
    except (pa.ArrowException, OSError, ValueError):
        return None  # the reader says what is wrong
    shape = (int(meta.num_rows), int(meta.num_columns))
    held = 8 * shape[0] * shape[1]
    return Footprint(shape, "dense", held, int(PARQUET_PEAK * held) + READER_BUFFERS)


def _text(source, name: str, compressed: bool) -> Footprint | None:
    """Lines (those of a GEO series matrix's metadata, starting with "!", and empty ones
    left out) x the fields of the first table line (counted however long it is), as
    float64. A gzip bomb is refused first (:func:`~fsengine.io.base.check_expanded_size`),
    so the scans are bounded."""
    if compressed:
        check_expanded_size(source, name)
    lines = skipped = 0
    previous = b"\n"
    with python_stream(source, compressed) as stream:
        head = stream.read(HEAD)
        if not plain_text_head(head):
            return None
        chunk = head
        while chunk:
            lines += chunk.count(b"\n")
            skipped += chunk.count(b"\n!") + chunk.count(b"\n\n")
            skipped += previous == b"\n" and chunk[:1] in (b"!", b"\n")
            previous = chunk[-1:]
            chunk = stream.read(_SCAN_STEP)
    lines += previous != b"\n"  # a last line without its line break
    fields = _first_table_line_fields(source, name, compressed)
    if fields is None:
        return None
    rows = max(lines - skipped - 1, 0)  # the header line
    held = 8 * rows * fields
    return Footprint((rows, fields), "dense", held, int(TEXT_PEAK * held) + READER_BUFFERS)


def _first_table_line_fields(source, name: str, compressed: bool) -> int | None:
    """The fields of the first line that is neither empty nor metadata ("!"), read a piece
    at a time (a header of 10^6 genes is one long line), its delimiter counted."""
    with python_stream(source, compressed) as stream:
        while piece := stream.readline(_SCAN_STEP):
            table = piece.strip() and not piece.startswith(b"!")
            delimiter = sniff_delimiter(piece[:HEAD], name).encode() if table else b""
            count = piece.count(delimiter) if table else 0
            while not piece.endswith(b"\n"):  # the rest of a long line
                piece = stream.readline(_SCAN_STEP)
                if not piece:
                    break
                count += piece.count(delimiter) if table else 0
            if table:
                return count + 1
    return None
