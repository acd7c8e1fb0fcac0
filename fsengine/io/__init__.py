"""Reading a data file into a table: one reader per format behind one interface.

:func:`read` is what :func:`fsengine.data.dataset.load_dataset` calls: the first reader in
:data:`READERS` that recognises the file's first bytes reads it, by streaming when it
can (:meth:`Reader.stream`) and else whole (:meth:`Reader.read`, which names the cell
at fault). The modules:

- ``base``: the :class:`Table` a reader returns, the :class:`Reader` interface, helpers
  shared by the readers;
- ``sniff``: format magic, encoding and delimiter;
- ``text``: CSV/TSV (also gzip-compressed); ``parquet``: Parquet; ``geo``: GEO series
  matrices; ``h5ad``: AnnData files and Zarr stores; ``backed``: their matrices read from
  disk a block of genes at a time; ``annotated``: the class chosen among a file's sample
  annotations;
- ``orientation``: genes in rows, row names, sample identifiers and the hint for a file
  that looks like genes in rows;
- ``columns``: the label column's choice and check, feature and label values.
"""

from __future__ import annotations

import csv
import io
import zlib
from pathlib import Path

import pyarrow as pa

from fsengine.errors import FSEngineError
from fsengine.io.backed import is_zarr_store
from fsengine.io.base import HEAD, Reader, Source, Table, check_expanded_size, read_bytes
from fsengine.io.geo import GeoSeriesMatrixReader
from fsengine.io.h5ad import H5adReader, read_backed, read_zarr, wants_backed
from fsengine.io.parquet import ParquetReader, check_decoded_size
from fsengine.io.sniff import GZIP_MAGIC, PARQUET_MAGIC
from fsengine.io.text import TextReader

__all__ = [
    "READERS",
    "Reader",
    "Source",
    "Table",
    "file_stem",
    "read",
    "reader_for",
    "refuse_a_bomb",
    "stream",
]

#: The readers, in the order they are asked; the last one (text) takes any file.
READERS: tuple[Reader, ...] = (
    ParquetReader(),
    H5adReader(),
    GeoSeriesMatrixReader(),
    TextReader(),
)

_PARSE_ERRORS = (
    pa.ArrowException,
    OSError,
    EOFError,
    ValueError,
    IndexError,
    zlib.error,
    csv.Error,
)


#: Compression suffixes a data file's name may end with, after its format's.
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zip")


def file_stem(name: str) -> str:
    """A data file's name without its compression and format suffixes: "Adeno.csv.gz"
    -> "Adeno", "SRBCT.parquet" -> "SRBCT" (a name without a suffix is kept)."""
    base = Path(name).name
    for suffix in COMPRESSION_SUFFIXES:
        if base.lower().endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
            break
    return Path(base).stem or base


def reader_for(head: bytes) -> Reader:
    """The reader of the file that starts with ``head``."""
    return next(reader for reader in READERS if reader.recognises(head))


def stream(source: Source, name: str, transpose: bool = False) -> Table | None:
    """The common case without holding the file twice, or None for the whole-file reader.

    A table of numbers with a few text columns (sample names, the label; at most
    ``base.MAX_TEXT_COLUMNS``) and no missing value is parsed a chunk of lines
    (CSV/TSV, also gzip) or a group of columns (Parquet) at a time into one float64
    matrix, reading a path from disk rather than into memory. Anything else, and any
    parse problem, returns None, and the reader's :meth:`Reader.read` reads the file
    whole and reports the exact cell at fault; both give the same Dataset for any file
    the streaming path accepts (tests/unit/io/test_data_streaming.py).
    """
    if isinstance(source, bytearray):
        source = bytes(source)
    if isinstance(source, bytes):
        head = source[:HEAD]
    else:
        source = Path(source)
        if not source.is_file():
            return None
        with open(source, "rb") as f:
            head = f.read(HEAD)
    reader = reader_for(head)
    try:
        return reader.stream(source, head, name, transpose)
    except _PARSE_ERRORS as exc:
        if reader.stream_errors_are_final and isinstance(exc, FSEngineError):
            raise
        return None


def read(
    source: Source,
    name: str,
    transpose: bool = False,
    *,
    layer: str | None = None,
    gene_names: str | None = None,
    backed: bool | None = False,
) -> Table:
    """The streaming reader's result, else the whole-file reader's.

    ``layer`` and ``gene_names`` choose an AnnData file's matrix and gene names
    (:meth:`fsengine.io.h5ad.H5adReader.read_from`). An AnnData Zarr store (a folder) is
    read too. ``backed=True`` leaves an AnnData file's (or store's) matrix on disk, read
    a block of genes at a time (:func:`fsengine.io.h5ad.read_backed`); ``None`` does so
    when the matrix is large (:func:`fsengine.io.h5ad.wants_backed`) and reads other
    formats as usual.

    Raises FSEngineError for a missing file, a directory that is not a Zarr store, a file
    that its reader cannot read, or ``layer``, ``gene_names`` or ``backed=True`` for a
    file that is not AnnData.
    """
    if hasattr(source, "read"):
        source = read_bytes(source)
    if not isinstance(source, (bytes, bytearray)) and is_zarr_store(source):
        if backed is True or (backed is None and wants_backed(source, layer)):
            return read_backed(source, name, layer, gene_names)
        return read_zarr(source, name, layer, gene_names)
    if backed is not False:
        anndata_path = _anndata_path(source, name, backed)
        if anndata_path is not None and (backed is True or wants_backed(anndata_path, layer)):
            return read_backed(anndata_path, name, layer, gene_names)
    if layer is not None or gene_names is not None:
        return _read_anndata(source, name, layer, gene_names)
    refuse_a_bomb(source, name)
    parsed = stream(source, name, transpose)
    if parsed is None:
        data = read_bytes(source)
        parsed = reader_for(data[:HEAD]).read(data, name, transpose)
    return parsed


def refuse_a_bomb(source: Source, name: str) -> None:
    """Refuse a file that expands past the limit before anything reads it:
    :func:`~fsengine.io.base.check_expanded_size` for a gzip-compressed file,
    :func:`~fsengine.io.parquet.check_decoded_size` for Parquet (:func:`read` calls it).

    Raises
    ------
    FSEngineError
        The file expands past :func:`~fsengine.io.base.max_decompressed_bytes`.
    """
    if isinstance(source, bytearray):
        source = bytes(source)
    if isinstance(source, bytes):
        head = source[:4]
    else:
        path = Path(source)
        if not path.is_file():
            return  # the readers' message for a missing file or a folder
        with open(path, "rb") as f:
            head = f.read(4)
    if head[:2] == GZIP_MAGIC:
        check_expanded_size(source, name)
    elif head == PARQUET_MAGIC:
        check_decoded_size(source, name)


def _anndata_path(source: Source, name: str, backed: bool | None) -> Path | None:
    """The path of an AnnData file to read backed, or None for another format (an error
    when ``backed`` is True: it applies to AnnData files only, on disk)."""
    if isinstance(source, (bytes, bytearray)):
        if backed:
            raise FSEngineError(
                f"needs the file on disk; {name} was given as bytes", parameter="backed"
            )
        return None
    path = Path(source)
    if not path.is_file():
        if backed:
            read_bytes(source)  # the loader's message for a missing file or a folder
        return None
    with open(path, "rb") as f:
        head = f.read(HEAD)
    reader = reader_for(head)
    if isinstance(reader, H5adReader):
        return path
    if backed:
        raise FSEngineError(
            f"applies to AnnData files (.h5ad) and Zarr stores; {name} is read as {reader.format}",
            parameter="backed",
        )
    return None


def _read_anndata(source: Source, name: str, layer, gene_names) -> Table:
    data = read_bytes(source) if isinstance(source, (bytes, bytearray)) else None
    if data is None:
        path = Path(source)
        if not path.is_file():
            read_bytes(source)  # the loader's message for a missing file or a folder
        with open(path, "rb") as f:
            head = f.read(HEAD)
    else:
        head = data[:HEAD]
    reader = reader_for(head)
    if not isinstance(reader, H5adReader):
        option = "layer" if layer is not None else "gene_names"
        raise FSEngineError(
            f"{option} applies to AnnData (.h5ad) files; {name} is read as {reader.format}",
            parameter=option,
        )
    return reader.read_from(io.BytesIO(data) if data is not None else path, name, layer, gene_names)
