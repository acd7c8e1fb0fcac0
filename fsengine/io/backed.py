"""AnnData matrices read from disk a block of genes at a time, never whole.

An atlas of 10^5 to 10^6 cells does not fit in memory, or leaves no room for the work;
the online selectors and the rankers that score each gene on its own need only a block of
genes (columns) at a time. :class:`BackedColumns` is such a matrix, opened from the
``X`` (or a ``layers`` entry) of an ``.h5ad`` file (h5py), of a Zarr AnnData store
(zarr), or of an AnnData object opened with ``anndata.read_h5ad(path, backed="r")``:

- stored as CSC (genes contiguous) or dense: a block of columns is read straight from
  the file (a dense matrix stored row by row costs one read per row and block);
- stored as CSR (cells contiguous, anndata's default): columns cannot be sliced without
  reading every row, so the matrix is first copied column by column to a temporary
  folder, in one pass over bands of rows (:func:`column_copy`): a band's entries are
  sorted by column and appended, then each group of columns' parts are joined in column
  order. Memory holds one band or one group (about a dense block of values each, or one
  gene's stored values when it holds more), never a CSR and a CSC copy of the matrix;
  the folder goes when the matrix is closed or garbage-collected. What can be computed
  row by row needs no copy: the first pass (:meth:`BackedColumns.profile`) and Welch's
  moments read a CSR file a band of rows at a time (:meth:`BackedColumns.row_bands`).

Every value read is the one the in-memory reader gives (the stored values as float64),
checked finite in the first pass over them (:meth:`BackedColumns.profile`), which also
gives each column's extremes (its constant columns), the share of zeros (counts) and each
cell's total (counts per million). Preprocessing makes a view that transforms each block
as it is read (:meth:`BackedColumns.transformed`), with the operations of the in-memory
path, value by value, so that the results are the same bit for bit; dropping genes makes
a view of the others (:meth:`BackedColumns.take`).
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import threading
import warnings
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fsengine._compute import kernels
from fsengine._compute import sparse as sparse_blocks
from fsengine._compute.sparse import BackedMatrix, ValueProfile, block_width
from fsengine.errors import FSEngineError
from fsengine.io.hdf5_probe import probe

__all__ = [
    "BackedColumns",
    "Transform",
    "column_copy",
    "is_zarr_store",
    "matrix_layout",
    "matrix_node",
    "open_root",
    "read_frames",
    "stored_layout",
]

#: Stored values of a band of rows of a CSR matrix copied column by column, as a share of
#: a dense block's values (:data:`fsengine._compute.sparse.BLOCK_ELEMENTS`): a band's
#: entries (some 30 bytes each while sorted) take about what a dense block (8 bytes a
#: value) does.
BAND_SHARE = 0.25
#: Stored values of a group of columns joined at a time, as a share of a dense block's:
#: some 40 bytes each while sorted, about two dense blocks in all.
GROUP_SHARE = 0.5
#: The kernel family of the first pass over a CSR file by bands of rows.
BAND_KERNELS = "io._band_kernels"
#: The files of a Zarr store that mark its root (Zarr format 2 and 3).
ZARR_MARKERS = (".zgroup", ".zattrs", "zarr.json")


def is_zarr_store(path) -> bool:
    """Whether ``path`` is a folder that holds a Zarr store (its root's metadata file)."""
    path = Path(path)
    return path.is_dir() and any((path / marker).is_file() for marker in ZARR_MARKERS)


def open_root(path, name: str):
    """The root group of an AnnData file (``.h5ad``, h5py) or Zarr store (a folder, zarr),
    open for reading.

    Raises
    ------
    FSEngineError
        For a missing path, a folder that is not a Zarr store, or a file HDF5 cannot open.
    """
    path = Path(path)
    if not path.exists():
        raise FSEngineError(f"file not found: {path}")
    if path.is_dir():
        if not is_zarr_store(path):
            raise FSEngineError(
                f"{name} is a folder but not a Zarr store (no .zgroup or zarr.json in it); "
                "give an .h5ad file or an AnnData Zarr store"
            )
        import zarr

        try:
            return zarr.open_group(str(path), mode="r")
        except Exception as exc:  # zarr's errors have no common base
            raise FSEngineError(f"{name} is not a readable Zarr store ({exc})") from None
    import h5py

    probe(path, name)
    try:
        return h5py.File(path, "r")
    except OSError as exc:
        raise FSEngineError(f"{name} is not a readable HDF5 file ({exc})") from None


def store_kind(root) -> str:
    """ "a Zarr store" or "an HDF5 file", for messages."""
    return "an HDF5 file" if type(root).__module__.startswith("h5py") else "a Zarr store"


def matrix_node(root, name: str, layer: str | None = None):
    """The node (a dense array, or a sparse matrix's group) of ``X`` or ``layers[layer]``.

    Raises
    ------
    FSEngineError
        For a store without X, or without that layer (naming those it has).
    """
    if layer is None:
        if "X" not in root:
            kind = store_kind(root)
            raise FSEngineError(f"{name} has no matrix X ({kind}, but not AnnData?)")
        return root["X"]
    layers = root["layers"] if "layers" in root else None
    if layers is None or layer not in layers:
        have = ", ".join(repr(str(k)) for k in layers) if layers is not None else ""
        raise FSEngineError(
            f"{name} has no layer {layer!r}; its layers: {have or 'none'}", parameter="layer"
        )
    return layers[layer]


def matrix_layout(path, name: str, layer: str | None = None) -> tuple[str, tuple[int, int], int]:
    """:func:`stored_layout` of the X (or ``layer``) of the AnnData file or Zarr store at
    ``path``, opened (:func:`open_root`) and closed again."""
    root = open_root(path, name)
    try:
        return stored_layout(matrix_node(root, name, layer), name)
    finally:
        if hasattr(root, "close"):
            root.close()


def _attribute(node, key: str, default=None):
    value = node.attrs.get(key, default)
    return value.decode() if isinstance(value, bytes) else value


def stored_layout(node, what: str) -> tuple[str, tuple[int, int], int]:
    """(``"csr"``, ``"csc"`` or ``"dense"``, shape, stored values) of a matrix node, from
    its metadata alone (anndata's encoding, or the older h5sparse attributes).

    Raises
    ------
    FSEngineError
        For a node that is not a two-dimensional matrix anndata writes.
    """
    if hasattr(node, "shape") and hasattr(node, "dtype"):  # an array: dense
        shape = tuple(int(n) for n in node.shape)
        if len(shape) != 2:
            raise FSEngineError(f"{what} must be two-dimensional, got shape {shape}")
        return "dense", shape, shape[0] * shape[1]
    encoding = _attribute(node, "encoding-type") or (
        f"{_attribute(node, 'h5sparse_format')}_matrix"
        if _attribute(node, "h5sparse_format")
        else None
    )
    if encoding not in ("csr_matrix", "csc_matrix") or not all(
        part in node for part in ("data", "indices", "indptr")
    ):
        raise FSEngineError(
            f"{what} is stored as {encoding or 'an unknown encoding'}, not as a dense, CSR "
            "or CSC matrix"
        )
    shape = _attribute(node, "shape", _attribute(node, "h5sparse_shape"))
    shape = tuple(int(n) for n in shape)
    return encoding[:3], shape, int(node["data"].shape[0])


def read_frames(root, name: str):
    """The ``obs`` and ``var`` data frames of an AnnData store, read without its matrices
    (``anndata.io.read_elem``); for an older layout, anndata's own reader opened backed.

    Returns
    -------
    (obs, var) : pandas.DataFrame
    """
    import anndata
    import pandas as pd

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frames = anndata.io.read_elem(root["obs"]), anndata.io.read_elem(root["var"])
        if all(isinstance(frame, pd.DataFrame) for frame in frames):
            return frames
    except Exception:  # anndata's and zarr's errors have no common base
        pass
    # an older layout (obs as a table of codes, its categories in uns): anndata's reader
    path = getattr(root, "filename", None)
    if path is None or "obs" not in root or "var" not in root:
        raise FSEngineError(
            f"{name} has no obs and var that anndata can read: not an AnnData store?"
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            adata = anndata.read_h5ad(path, backed="r")
        obs, var = adata.obs.copy(), adata.var.copy()
        adata.file.close()
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise FSEngineError(
            f"{name} is an HDF5 file that anndata cannot read as AnnData: {exc}"
        ) from None
    return obs, var


@dataclass(frozen=True)
class Transform:
    """The preprocessing of :mod:`fsengine.data.preprocess` as a view applies it to each block
    read: thresholds, then ``log2(x + offset)`` or counts per million and a log
    (``factor``: 10^6 over each row's total).

    The operations are those of the in-memory path, value by value: on a sparse matrix's
    stored values when every step keeps a zero at zero (:meth:`keeps_zeros`), as the
    in-memory path treats a sparse matrix, else on the dense block."""

    low: float = -math.inf
    high: float = math.inf
    kind: str = "none"
    offset: float = 0.0
    factor: np.ndarray | None = None

    def keeps_zeros(self) -> bool:
        """Whether every step maps 0 to 0 (a sparse matrix stays sparse)."""
        return self.low <= 0 <= self.high and self.kind in ("none", "log-cpm", "log1p-cpm")

    def _log(self):
        return np.log2 if self.kind == "log-cpm" else np.log

    def on_stored(self, data: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The stored values ``data`` of rows ``rows`` transformed (a new array)."""
        data = np.array(data, dtype=np.float64)
        if self.low > -math.inf or self.high < math.inf:
            np.clip(data, self.low, self.high, out=data)
        if self.kind in ("log-cpm", "log1p-cpm"):
            data = self._log()(data * self.factor[rows] + 1)
        return data

    def on_dense(self, block: np.ndarray) -> np.ndarray:
        """A dense block transformed (Fortran order)."""
        block = np.array(block, dtype=np.float64, order="F")
        if self.low > -math.inf or self.high < math.inf:
            np.clip(block, self.low, self.high, out=block)
        if self.kind == "log2":
            block = np.asfortranarray(np.log2(block + self.offset))
        elif self.kind in ("log-cpm", "log1p-cpm"):
            block = np.asfortranarray(self._log()(block * self.factor[:, None] + 1))
        return block


class _Store:
    """An open matrix on disk: its layout and how to read a run of columns. Shared by the
    views made from it; closed (and its column copy deleted) by :meth:`close` or when no
    view holds it any more."""

    def __init__(self, root, node, layout, shape, stored, description, owns_root, elements):
        self.reopen: tuple | None = None  # (path, layer, name): where a copy opens it again
        self.root = root
        self.node = node
        self.layout = layout
        self.shape = shape
        self.stored = stored
        self.description = description
        self.sparse = layout != "dense"
        self.copy_bytes = 0
        self.elements = elements
        self.indptr: np.ndarray | None = None
        self.row_pointers: np.ndarray | None = None  # a CSR matrix's, once read
        self._files: dict = {}
        self._folder: list = [None]
        self._preparing = threading.Lock()
        self._finalizer = weakref.finalize(
            self, _release, root if owns_root else None, self._files, self._folder
        )
        if layout == "csc":
            self.indptr = _checked_pointers(node, shape[1], description)
            self.data, self.indices = node["data"], node["indices"]
        elif layout == "csr":
            self.row_pointers = _checked_pointers(node, shape[0], description)
        elif layout == "dense":
            self.values = node

    def prepare(self) -> None:
        """The column copy of a CSR matrix, made once (:func:`column_copy`), also when
        several threads read the store at once (two sessions of the dashboard sharing a
        file)."""
        if self.layout != "csr" or self.indptr is not None:
            return
        with self._preparing:
            if self.indptr is None:
                self._copy_columns()

    def _copy_columns(self) -> None:
        folder = Path(tempfile.mkdtemp(prefix="fsengine-columns-"))
        try:
            indptr, data_path, indices_path, dtypes = column_copy(
                self.node, self.shape, folder, self.elements, self.description
            )
        except BaseException:  # a damaged file, a full disk: no folder left behind
            shutil.rmtree(folder, ignore_errors=True)
            raise
        self._folder[0] = folder
        self._files["data"] = (open(data_path, "rb"), dtypes[0])
        self._files["indices"] = (open(indices_path, "rb"), dtypes[1])
        self.copy_bytes = data_path.stat().st_size + indices_path.stat().st_size
        self.indptr = indptr

    def close(self) -> None:
        self._finalizer()

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def read_sparse(self, lo: int, hi: int):
        """(data, row indices, pointers from 0) of columns ``lo:hi`` of a sparse matrix."""
        self.prepare()
        start, stop = int(self.indptr[lo]), int(self.indptr[hi])
        pointers = self.indptr[lo : hi + 1] - start
        if self.layout == "csc":
            indices = _checked_indices(self.indices[start:stop], self.shape[0], self.description)
            return self.data[start:stop], indices, pointers
        return (
            _pread(self._files["data"], start, stop),
            _pread(self._files["indices"], start, stop),
            pointers,
        )

    def row_bands(self, budget: int):
        """``(first_row, data, indices, pointers)`` of a CSR matrix, one band of rows of
        about ``budget`` stored values at a time (a row alone when it holds more), as
        stored (pointers from 0)."""
        data_node, index_node = self.node["data"], self.node["indices"]
        bands = _bands(self.row_pointers, budget)
        for k in range(len(bands) - 1):
            row, stop = int(bands[k]), int(bands[k + 1])
            start, end = int(self.row_pointers[row]), int(self.row_pointers[stop])
            indices = _checked_indices(index_node[start:end], self.shape[1], self.description)
            if indices.dtype not in (np.int32, np.int64):
                indices = indices.astype(np.int64)
            yield (
                row,
                np.asarray(data_node[start:end]),
                indices,
                (self.row_pointers[row : stop + 1] - start),
            )

    def read_dense(self, runs) -> np.ndarray:
        """Columns of a dense matrix: the runs ``[(lo, hi), ...]`` (ascending) joined, as
        stored. Several runs are one selection (h5py's list of columns, zarr's orthogonal
        selection): stored row by row, the file is then read once, not once per run."""
        if len(runs) == 1:
            return self.values[:, runs[0][0] : runs[0][1]]
        columns = np.concatenate([np.arange(lo, hi) for lo, hi in runs])
        if hasattr(self.values, "get_orthogonal_selection"):  # zarr
            return self.values.get_orthogonal_selection((slice(None), columns))
        return self.values[:, columns]


def _release(root, files: dict, folder: list) -> None:
    for handle, _ in files.values():
        handle.close()
    files.clear()
    if root is not None and hasattr(root, "close"):
        try:
            root.close()
        except Exception:  # already closed with its file
            pass
    if folder[0] is not None:
        shutil.rmtree(folder[0], ignore_errors=True)


def _pread(file, start: int, stop: int) -> np.ndarray:
    handle, dtype = file
    size = np.dtype(dtype).itemsize
    raw = os.pread(handle.fileno(), (stop - start) * size, start * size)
    return np.frombuffer(raw, dtype=dtype)


def column_copy(
    node, shape, folder: Path, elements: int | None = None, description: str = "the matrix"
):
    """A CSR matrix on disk copied column by column (as CSC) into ``folder``, in bounded
    memory: one band of rows, then one group of columns, at a time.

    Pass 1 counts each column's stored values (the CSC pointers) and cuts the columns into
    groups of consecutive columns holding about :data:`GROUP_SHARE` of a dense block's
    values each (a column alone when it holds more). Pass 2 reads bands of rows of about
    :data:`BAND_SHARE` of a dense block's values, sorts a band's entries by column
    (stably: rows stay ascending) and appends them to a file of pieces, noting where each
    group's part starts. Pass 3 reads each group's parts (one per band, in band order),
    sorts them by column, stably, and appends them to the copy's data and row-index files:
    the CSC layout, each column's rows ascending.

    Parameters
    ----------
    node : h5py or zarr group
        With ``data``, ``indices`` and ``indptr`` (CSR).
    shape : (int, int)
    folder : Path
        Where the files go.
    elements : int, optional
        Values of a dense block (default:
        :data:`fsengine._compute.sparse.BLOCK_ELEMENTS`).
    description : str, optional
        How a message names the matrix.

    Returns
    -------
    indptr : ndarray of int64, shape (n_features + 1,)
    data_path, indices_path : Path
    dtypes : (numpy dtype, numpy dtype)
        Of the stored values (as in the file) and of the row indices.

    Raises
    ------
    FSEngineError
        The matrix's structure is damaged (pointers, or row or column numbers).
    """
    n, p = shape
    elements = elements or sparse_blocks.BLOCK_ELEMENTS
    row_pointers = _checked_pointers(node, n, description)
    value_type = np.dtype(node["data"].dtype)
    index_type = np.dtype(np.int32 if max(n, p) < 2**31 else np.int64)
    band = max(1024, int(BAND_SHARE * elements))
    indptr = _column_pointers(node["indices"], int(row_pointers[-1]), p, band, description)
    edges = _groups(indptr, max(1024, int(GROUP_SHARE * elements)))
    bands = _bands(row_pointers, band)
    pieces_path = folder / "pieces.bin"
    types = (value_type, index_type)
    starts, cuts = _write_band_pieces(node, row_pointers, bands, edges, p, types, pieces_path)
    data_path, indices_path = folder / "data.bin", folder / "indices.bin"
    _gather_groups(pieces_path, starts, cuts, edges, types, data_path, indices_path)
    pieces_path.unlink()
    return indptr, data_path, indices_path, types


def _column_pointers(index_node, stored: int, p: int, band: int, description: str) -> np.ndarray:
    """Pass 1 of :func:`column_copy`: the CSC pointers (each column's stored values,
    cumulated), the column numbers read ``band`` at a time and checked."""
    counts = np.zeros(p, dtype=np.int64)
    for lo in range(0, stored, band):
        columns = _checked_indices(index_node[lo : lo + band], p, description)
        counts += np.bincount(columns, minlength=p)
    return np.concatenate([[0], np.cumsum(counts)])


def _write_band_pieces(node, row_pointers, bands, edges, p: int, types, pieces_path: Path):
    """Pass 2 of :func:`column_copy`: each band of rows' entries sorted by column (stably)
    and written to ``pieces_path`` as its rows, columns and values one after the other.
    Returns where each band starts in the file (bytes) and, per band, where each group of
    columns starts among its entries (its last cut is the band's number of entries)."""
    value_type, index_type = types
    data_node, index_node = node["data"], node["indices"]
    starts = np.zeros(len(bands) - 1, dtype=np.int64)
    cuts = np.zeros((len(bands) - 1, len(edges)), dtype=np.int64)
    with open(pieces_path, "wb") as out:
        for k in range(len(bands) - 1):
            row, stop = int(bands[k]), int(bands[k + 1])
            start, end = int(row_pointers[row]), int(row_pointers[stop])
            starts[k] = out.tell()
            if end == start:
                continue
            columns = np.asarray(index_node[start:end], dtype=index_type)
            order = _stable_order(columns, p)
            columns = columns[order]
            cuts[k] = np.searchsorted(columns, edges)
            rows = np.repeat(
                np.arange(row, stop, dtype=index_type), np.diff(row_pointers[row : stop + 1])
            )
            rows[order].tofile(out)
            del rows
            columns.tofile(out)
            del columns
            np.asarray(data_node[start:end], dtype=value_type)[order].tofile(out)
            del order
    return starts, cuts


def _gather_groups(pieces_path: Path, starts, cuts, edges, types, data_path, indices_path):
    """Pass 3 of :func:`column_copy`: each group of columns' parts read from every band's
    piece (in band order), sorted by column (stably: rows stay ascending) and appended to
    the copy's values (``data_path``) and row numbers (``indices_path``)."""
    value_type, index_type = types
    index_size, value_size = index_type.itemsize, value_type.itemsize
    with (
        open(pieces_path, "rb") as source,
        open(data_path, "wb") as data_out,
        open(indices_path, "wb") as index_out,
    ):
        fd = source.fileno()
        for g in range(len(edges) - 1):
            rows, columns, values = [], [], []
            for k in range(len(starts)):
                a, z = int(cuts[k, g]), int(cuts[k, g + 1])
                if z == a:
                    continue
                size = int(cuts[k, -1])  # the band's entries
                base = int(starts[k])
                rows.append(_read_at(fd, index_type, base + a * index_size, z - a))
                base += size * index_size
                columns.append(_read_at(fd, index_type, base + a * index_size, z - a))
                base += size * index_size
                values.append(_read_at(fd, value_type, base + a * value_size, z - a))
            if not rows:
                continue
            rows, columns, values = (np.concatenate(part) for part in (rows, columns, values))
            first = int(edges[g])
            order = _stable_order(columns - first, int(edges[g + 1]) - first)
            del columns
            rows[order].tofile(index_out)
            values[order].tofile(data_out)
            del rows, values, order


def _stable_order(keys: np.ndarray, span: int) -> np.ndarray:
    """The stable ascending order of integer ``keys`` in ``[0, span)``: numpy's radix sort
    on 16-bit keys when they fit (several times faster than its merge sort on 32 bits)."""
    if span <= 2**16:
        keys = keys.astype(np.uint16)
    return np.argsort(keys, kind="stable")


def _read_at(fd: int, dtype, offset: int, count: int) -> np.ndarray:
    return np.frombuffer(os.pread(fd, count * np.dtype(dtype).itemsize, offset), dtype=dtype)


def _checked_pointers(node, length: int, description: str) -> np.ndarray:
    """A sparse matrix's pointers (``indptr``), read and checked: ``length + 1`` of them
    from 0, never going back, the last the number of stored values and of row (or
    column) numbers. A file whose structure is damaged is refused here: the blocks read
    later trust it."""
    pointers = np.asarray(node["indptr"][:], dtype=np.int64)
    stored = (node["data"].shape[0], node["indices"].shape[0])
    if (
        pointers.shape != (length + 1,)
        or pointers[0] != 0
        or (np.diff(pointers) < 0).any()
        or stored != (pointers[-1], pointers[-1])
    ):
        raise FSEngineError(
            f"{description} is a damaged sparse matrix: its pointers (indptr) do not run "
            f"from 0 to its {stored[0]:,} stored values over {length:,} rows or columns; "
            "save it again from its source"
        )
    return pointers


def _checked_indices(indices, bound: int, description: str) -> np.ndarray:
    """Row (or column) numbers read from a sparse matrix, as int32 or int64, each checked
    to lie in ``[0, bound)``."""
    indices = np.asarray(indices)
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(np.int64)
    if len(indices) and (indices.min() < 0 or indices.max() >= bound):
        raise FSEngineError(
            f"{description} is a damaged sparse matrix: a stored value's row or column "
            f"number is outside 0 to {bound - 1:,}; save it again from its source"
        )
    return indices


def _groups(indptr: np.ndarray, budget: int) -> np.ndarray:
    """Edges of groups of consecutive columns of about ``budget`` stored values each (a
    column alone when it holds more), from the CSC pointers."""
    edges, at, p = [0], 0, len(indptr) - 1
    while at < p:
        stop = int(np.searchsorted(indptr, indptr[at] + budget, side="right")) - 1
        at = min(max(stop, at + 1), p)
        edges.append(at)
    return np.asarray(edges, dtype=np.int64)


def _bands(row_pointers: np.ndarray, budget: int) -> np.ndarray:
    """Edges of bands of consecutive rows of about ``budget`` stored values each (a row
    alone when it holds more)."""
    return _groups(row_pointers, budget)


class BackedColumns(BackedMatrix):
    """A matrix on disk (an AnnData ``X`` or layer), read a block of columns at a time.

    Open one with :meth:`open` (a path and an element), :meth:`from_anndata` (an object
    opened backed) or :meth:`from_node`. :meth:`columns` gives a dense float64 block of
    columns, the values the in-memory reader gives; :meth:`take` and
    :meth:`transformed` give views (some columns; preprocessed values) that read the same
    file. :meth:`close` closes the file for every view (and deletes a CSR matrix's column
    copy); so does the garbage collector once no view is left.

    Attributes
    ----------
    shape : (int, int)
    sparse : bool
        Stored sparse, and zeros stay zeros under the view's transform.
    layout : {"csr", "csc", "dense"}
        How the file stores the matrix.
    stored : int
        Values stored in the file (non-zeros of a sparse matrix, all of a dense one).
    description : str
        The file and element, for messages ("atlas.h5ad's X").
    """

    def __init__(self, store: _Store, columns=None, transform: Transform | None = None, rows=None):
        self._store = store
        self._map = None if columns is None else np.asarray(columns, dtype=np.int64)
        self._transform = transform
        self._rows = None if rows is None else np.asarray(rows, dtype=np.int64)
        self._profile: ValueProfile | None = None
        width = store.shape[1] if self._map is None else len(self._map)
        height = store.shape[0] if self._rows is None else len(self._rows)
        self.shape = (height, width)
        self.sparse = store.sparse and (transform is None or transform.keeps_zeros())
        self.layout = store.layout
        self.stored = store.stored
        self.description = store.description

    # -- opening ------------------------------------------------------------------------

    @classmethod
    def open(
        cls, path, layer: str | None = None, name: str | None = None, elements: int | None = None
    ) -> BackedColumns:
        """``X`` (or ``layers[layer]``) of the ``.h5ad`` file or Zarr store at ``path``.

        Parameters
        ----------
        path : str or Path
        layer : str, optional
        name : str, optional
            How messages name the file (default: its name).
        elements : int, optional
            Values of a dense block, for a CSR matrix's column copy (default:
            :data:`fsengine._compute.sparse.BLOCK_ELEMENTS`).

        Raises
        ------
        FSEngineError
            For a path that is not an AnnData store, a missing matrix or layer, or a
            matrix stored otherwise than dense, CSR or CSC.
        """
        name = name or Path(path).name
        root = open_root(path, name)
        try:
            node = matrix_node(root, name, layer)
            matrix = cls.from_node(node, name, layer, root=root, elements=elements)
        except BaseException:
            if hasattr(root, "close"):
                root.close()
            raise
        matrix._store.reopen = (str(path), layer, name)
        return matrix

    @classmethod
    def from_node(
        cls, node, name: str, layer: str | None = None, root=None, elements: int | None = None
    ) -> BackedColumns:
        """The matrix of an h5py or zarr node (a dense array or a sparse group); ``root``,
        when given, is closed with the matrix."""
        where = "X" if layer is None else f"layers[{layer!r}]"
        description = f"{name}'s {where}"
        layout, shape, stored = stored_layout(node, description)
        store = _Store(root, node, layout, shape, stored, description, root is not None, elements)
        return cls(store)

    @classmethod
    def from_anndata(cls, adata, name: str = "AnnData") -> BackedColumns:
        """X of an AnnData object opened backed (``anndata.read_h5ad(path, backed="r")``),
        read from its open file (the object keeps it open; its layers are in memory)."""
        X = adata.X
        node = getattr(X, "group", X)  # a sparse dataset's group, or the dense dataset
        matrix = cls.from_node(node, name)
        matrix._store.reopen = (str(adata.filename), None, name)
        return matrix

    # -- the matrix -----------------------------------------------------------------------

    @property
    def root(self):
        """The open file's (or store's) root group, None when opened from a node alone."""
        return self._store.root

    @property
    def copy_bytes(self) -> int:
        """Bytes of the column copy on disk (a CSR matrix's), 0 for none."""
        return self._store.copy_bytes

    def close(self) -> None:
        """Close the file (every view of it) and delete a column copy."""
        self._store.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        n, p = self.shape
        return f"BackedColumns({self.description}, {n} x {p}, stored as {self.layout})"

    def __reduce__(self):
        # A copy in another process opens the file again (a CSR matrix is copied column by
        # column again there): the file handles and the column copy stay with this one.
        if self._store.reopen is None:
            raise TypeError(f"{self.description} has no path to open it again from")
        reopen = (*self._store.reopen, self._store.elements, self._map, self._transform)
        return (_reopened, (*reopen, self._rows))

    def take(self, columns) -> BackedColumns:
        """The view of columns ``columns`` (of this view) only."""
        columns = np.asarray(columns, dtype=np.int64)
        mapped = columns if self._map is None else self._map[columns]
        view = BackedColumns(self._store, mapped, self._transform, self._rows)
        if self._profile is not None:
            view._profile = _restricted(self._profile, columns)
        return view

    def take_rows(self, rows) -> BackedColumns:
        """The view of rows ``rows`` (of this view; distinct, in the order given) only, as
        ``X[rows]`` of the matrix in memory: a training half, read a block of columns at a
        time like the whole. The transform applies to the file's rows first.

        Raises
        ------
        FSEngineError
            For a row out of range or given twice.
        """
        rows = np.asarray(rows).reshape(-1)
        n = self.shape[0]
        if rows.dtype == bool:
            if len(rows) != n:
                raise FSEngineError(f"a row mask of {len(rows)} values for {n} rows")
            rows = np.flatnonzero(rows)
        rows = rows.astype(np.int64)
        if rows.size and (rows.min() < -n or rows.max() >= n):
            raise FSEngineError(f"a row index out of range for {n} rows")
        rows = np.where(rows < 0, rows + n, rows)
        if len(np.unique(rows)) != len(rows):
            raise FSEngineError("a view of the matrix on disk takes each row once")
        source = rows if self._rows is None else self._rows[rows]
        return BackedColumns(self._store, self._map, self._transform, source)

    def __getitem__(self, rows) -> BackedColumns:
        """``X[rows]``: :meth:`take_rows` (rows only: an int array, a mask or a slice)."""
        if isinstance(rows, tuple):
            raise TypeError(
                "a matrix on disk is indexed by rows only (X[rows]); read columns with "
                ".columns(...)"
            )
        if isinstance(rows, slice):
            rows = np.arange(self.shape[0])[rows]
        return self.take_rows(rows)

    def transformed(self, transform: Transform) -> BackedColumns:
        """The view of these columns with ``transform`` applied to every value read (on a
        view of every row, without a transform)."""
        if self._transform is not None:
            raise FSEngineError("the matrix is preprocessed already")
        if self._rows is not None:
            raise FSEngineError("preprocess the whole matrix, then take its rows")
        return BackedColumns(self._store, self._map, transform)

    def _source_runs(self, columns):
        """(source columns as runs ``[(lo, hi), ...]``, where each of ``columns`` is in the
        runs' concatenation, or None for "in order")."""
        n_columns = self.shape[1]
        if isinstance(columns, slice):
            positions = np.arange(n_columns)[columns]
        else:
            positions = np.asarray(columns, dtype=np.int64).reshape(-1)
            if positions.size and (positions.min() < -n_columns or positions.max() >= n_columns):
                raise IndexError(f"column index out of range for {n_columns} columns")
            positions = np.where(positions < 0, positions + n_columns, positions)
        source = positions if self._map is None else self._map[positions]
        if source.size == 0:
            return [], None, 0
        if np.all(np.diff(source) == 1):
            return [(int(source[0]), int(source[-1]) + 1)], None, len(source)
        unique, where = np.unique(source, return_inverse=True)
        breaks = np.flatnonzero(np.diff(unique) != 1) + 1
        runs = [(int(r[0]), int(r[-1]) + 1) for r in np.split(unique, breaks)]
        return runs, where, len(source)

    def _read(self, columns):
        """The columns as stored: ("sparse", data, rows, pointers) with the transform
        applied to the stored values when it keeps zeros, else ("dense", block)."""
        if self._store.closed:
            raise FSEngineError(f"{self.description} is closed: open the file again")
        runs, where, count = self._source_runs(columns)
        n = self._store.shape[0]
        if self._store.sparse:
            parts = [self._store.read_sparse(lo, hi) for lo, hi in runs]
            data = np.concatenate([np.asarray(p[0]) for p in parts]) if parts else np.zeros(0)
            rows = (
                np.concatenate([np.asarray(p[1], dtype=np.int64) for p in parts])
                if parts
                else np.zeros(0, dtype=np.int64)
            )
            pointers = _joined_pointers([p[2] for p in parts])
            if where is not None:
                data, rows, pointers = _pick(data, rows, pointers, where)
            data, rows, pointers = _canonical(data, rows, pointers, n)
            if self.sparse:
                data = (
                    self._transform.on_stored(data, rows)
                    if self._transform is not None
                    else np.asarray(data, dtype=np.float64)
                )
                if self._rows is not None:
                    data, rows, pointers = _rows_taken(data, rows, pointers, self._rows, n)
                return "sparse", data, rows, pointers
            block = _densify(np.asarray(data, dtype=np.float64), rows, pointers, n)
        else:
            block = np.empty((n, sum(hi - lo for lo, hi in runs)), dtype=np.float64, order="F")
            if runs:
                block[:] = self._store.read_dense(runs)
            if where is not None:
                block = np.asfortranarray(block[:, where])
        if self._transform is not None:
            block = self._transform.on_dense(block)
        if self._rows is not None:
            block = np.asfortranarray(block[self._rows])
        return "dense", block

    def columns(self, columns) -> np.ndarray:
        """Columns ``columns`` (a slice or a sequence of int) as a dense float64 block in
        Fortran order: the values of the in-memory matrix's columns, bit for bit."""
        found = self._read(columns)
        if found[0] == "dense":
            return found[1]
        _, data, rows, pointers = found
        return _densify(data, rows, pointers, self.shape[0])

    def stored_columns(self, columns):
        """Columns ``columns`` as stored: a CSC array (float64, canonical, the transform
        applied) when X is stored sparse and the transform keeps zeros, else the dense
        block of :meth:`columns`."""
        from scipy import sparse

        found = self._read(columns)
        if found[0] == "dense":
            return found[1]
        _, data, rows, pointers = found
        return sparse.csc_array((data, rows, pointers), shape=(self.shape[0], len(pointers) - 1))

    # -- a CSR file, a band of rows at a time --------------------------------------------

    def reads_rows(self) -> bool:
        """Whether this view can be read a band of rows at a time (:meth:`row_bands`), with
        no column copy: the file stores the matrix by rows (CSR), and the view takes every
        row and stays sparse under its transform."""
        return self._store.layout == "csr" and self._rows is None and self.sparse

    def column_positions(self) -> np.ndarray | None:
        """Each of the file's columns' column in this view (-1 for one it leaves out), or
        None when the view takes a column twice."""
        p = self._store.shape[1]
        if self._map is None:
            return np.arange(p, dtype=np.int64)
        if len(np.unique(self._map)) != len(self._map):
            return None
        position = np.full(p, -1, dtype=np.int64)
        position[self._map] = np.arange(len(self._map))
        return position

    def row_bands(self, elements: int | None = None):
        """A CSR file's bands of rows, each of about ``elements`` stored values (default:
        a dense block's), as ``(first_row, data, indices, pointers)``: the stored values as
        float64 with the view's transform applied, the file's column of each
        (:meth:`column_positions` maps them to this view's), pointers from 0. Each row's
        columns are as stored (ascending in a canonical file; the caller checks).

        Raises
        ------
        FSEngineError
            For a view that is not read by rows (:meth:`reads_rows`), or a closed file.
        """
        if self._store.closed:
            raise FSEngineError(f"{self.description} is closed: open the file again")
        if not self.reads_rows():
            raise FSEngineError(f"{self.description} is not read a band of rows at a time")
        budget = elements or self._store.elements or sparse_blocks.BLOCK_ELEMENTS
        for row, data, indices, pointers in self._store.row_bands(budget):
            if self._transform is not None:
                rows = np.repeat(np.arange(row, row + len(pointers) - 1), np.diff(pointers))
                data = self._transform.on_stored(data, rows)
            else:
                data = np.asarray(data, dtype=np.float64)
            yield row, data, indices, pointers

    # -- one pass over the values --------------------------------------------------------

    def profile(self, variances: bool = False) -> ValueProfile:
        """The :class:`ValueProfile` of the values (one pass over the file, kept; another
        when ``variances`` are asked for and not yet known).

        Raises
        ------
        FSEngineError
            For a missing or infinite value, naming its row and column (1-based).
        """
        if self._profile is None or (variances and self._profile.variances is None):
            self._profile = self._pass(variances)
        return self._profile

    def row_totals(self) -> np.ndarray:
        """Each row's sum over these columns, added in column order, as the in-memory
        path adds them (a sparse matrix's stored values as ``np.bincount`` does, a dense
        one's columns one after the other)."""
        if self._profile is None or self._profile.row_totals is None:
            # a view of some columns profiled by its parent: its own pass
            keep = self._profile is not None and self._profile.variances is not None
            self._profile = self._pass(keep)
        return self._profile.row_totals

    def _pass(self, variances: bool) -> ValueProfile:
        if not variances and self._map is None and self._transform is None and self.reads_rows():
            found = self._pass_by_rows()
            if found is not None:
                return found
        n, p = self.shape
        low, high = np.empty(p), np.empty(p)
        nonzero = np.zeros(p, dtype=np.int64)
        positive = np.full(p, np.inf)
        integer = np.ones(p, dtype=bool)
        spread = np.empty(p) if variances else None
        totals = np.zeros(n)
        width = block_width(n)
        for lo in range(0, p, width):
            hi = min(lo + width, p)
            found = self._read(slice(lo, hi))
            stats = _sparse_stats if found[0] == "sparse" else _dense_stats
            parts = found[1:] if found[0] == "sparse" else found[1]
            block = stats(parts, n, lo, variances, totals, self.description)
            for out, values in zip((low, high, nonzero, positive, integer), block):
                out[lo:hi] = values
            if variances:
                spread[lo:hi] = block[-1]
        return ValueProfile(
            low,
            high,
            nonzero,
            float(positive.min()) if p else math.inf,
            bool(integer.all()),
            totals,
            spread,
            positive,
            integer,
        )

    def _pass_by_rows(self) -> ValueProfile | None:
        """:meth:`_pass` of a whole CSR file, a band of rows at a time (no column copy):
        the same profile bit for bit; None for a file with a value that is not finite or
        a row whose columns are not strictly ascending (the pass by columns then names
        the value, or sorts and sums duplicates)."""
        n, p = self.shape
        low, high = np.full(p, np.inf), np.full(p, -np.inf)
        stored = np.zeros(p, dtype=np.int64)
        nonzero = np.zeros(p, dtype=np.int64)
        positive = np.full(p, np.inf)
        integer = np.ones(p, dtype=bool)
        totals = np.zeros(n)
        band_profile = kernels.load(BAND_KERNELS).band_profile
        for row, data, indices, pointers in self.row_bands():
            rows = slice(row, row + len(pointers) - 1)
            if not band_profile(
                data, indices, pointers, low, high, stored, nonzero, positive, integer, totals[rows]
            ):
                return None
        zero_present = stored < n
        return ValueProfile(
            np.where(zero_present, np.minimum(low, 0.0), low),
            np.where(zero_present, np.maximum(high, 0.0), high),
            nonzero,
            float(positive.min()) if p else math.inf,
            bool(integer.all()),
            totals,
            None,
            positive,
            integer,
        )


def _reopened(path, layer, name, elements, columns, transform, rows=None) -> BackedColumns:
    """:meth:`BackedColumns.__reduce__`'s other half: the view, on the file opened again."""
    opened = BackedColumns.open(path, layer, name, elements)
    return BackedColumns(opened._store, columns, transform, rows)


def _rows_taken(data, rows, pointers, taken: np.ndarray, n: int):
    """A CSC block's rows ``taken`` (source rows, distinct) only, renumbered 0.. in that
    order, each column's rows ascending again."""
    number = np.full(n, -1, dtype=np.int64)
    number[taken] = np.arange(len(taken))
    renumbered = number[rows]
    kept = renumbered >= 0
    width = len(pointers) - 1
    column = np.repeat(np.arange(width), np.diff(pointers))
    counts = np.bincount(column[kept], minlength=width)
    pointers = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return _canonical(data[kept], renumbered[kept], pointers, len(taken))


def _restricted(profile: ValueProfile, columns: np.ndarray) -> ValueProfile:
    """A profile of some columns only (row totals unknown: they sum every column)."""
    positive = profile.column_positive[columns]
    integer = profile.column_integers[columns]
    return ValueProfile(
        profile.low[columns],
        profile.high[columns],
        profile.nonzero[columns],
        float(positive.min()) if len(positive) else math.inf,
        bool(integer.all()),
        None,
        None if profile.variances is None else profile.variances[columns],
        positive,
        integer,
    )


def _raise_not_finite(what: str, row: int, column: int, value: float) -> None:
    kind = "a missing value (NaN)" if np.isnan(value) else "an infinite value"
    raise FSEngineError(f"{what} has {kind} at row {row + 1}, column {column + 1}", row=row + 1)


def _sparse_stats(parts, n, lo, variances, totals, what):
    """A CSC block's columns: (low, high, non-zeros, least positive value, integer,
    variance or None), its values added to the cells' ``totals``; a value that is not
    finite is named by row and column."""
    data, rows, pointers = parts
    width = len(pointers) - 1
    stored = np.diff(pointers)
    bad = ~np.isfinite(data)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        column = int(np.searchsorted(pointers, k, side="right")) - 1
        _raise_not_finite(what, int(rows[k]), lo + column, float(data[k]))
    column_of = np.repeat(np.arange(width), stored)
    has = stored > 0
    starts = pointers[:-1][has]
    lows, highs = np.full(width, np.inf), np.full(width, -np.inf)
    smallest = np.full(width, np.inf)
    integer = np.ones(width, dtype=bool)
    nonzero = np.zeros(width, dtype=np.int64)
    if data.size:
        lows[has] = np.minimum.reduceat(data, starts)
        highs[has] = np.maximum.reduceat(data, starts)
        smallest[has] = np.minimum.reduceat(np.where(data > 0, data, np.inf), starts)
        whole = data == np.round(data)
        integer = np.bincount(column_of, weights=~whole, minlength=width) == 0
        nonzero = np.bincount(column_of, weights=data != 0, minlength=width).astype(np.int64)
        np.add.at(totals, rows, data)  # in order: the bits of np.bincount over the whole
    zero_present = stored < n
    spread = None
    if variances:  # fsengine.data.preprocess's formula for a sparse matrix
        means = np.bincount(column_of, weights=data, minlength=width) / n
        deviations = data - means[column_of]
        squares = np.bincount(column_of, weights=deviations**2, minlength=width)
        spread = (squares + (n - stored) * means**2) / n
    return (
        np.where(zero_present, np.minimum(lows, 0.0), lows),
        np.where(zero_present, np.maximum(highs, 0.0), highs),
        nonzero,
        smallest,
        integer,
        spread,
    )


def _dense_stats(block, n, lo, variances, totals, what):
    """:func:`_sparse_stats` for a dense block."""
    finite = np.isfinite(block)
    if not finite.all():
        column = int(np.flatnonzero(~finite.all(axis=0))[0])
        row = int(np.flatnonzero(~finite[:, column])[0])
        _raise_not_finite(what, row, lo + column, float(block[row, column]))
    for j in range(block.shape[1]):  # column after column, as X.sum(axis=1) adds them
        totals += block[:, j]
    return (
        block.min(axis=0),
        block.max(axis=0),
        np.count_nonzero(block, axis=0),
        np.where(block > 0, block, np.inf).min(axis=0),
        (block == np.round(block)).all(axis=0),
        block.var(axis=0) if variances else None,
    )


def _joined_pointers(pointer_list) -> np.ndarray:
    if not pointer_list:
        return np.zeros(1, dtype=np.int64)
    joined, at = [np.zeros(1, dtype=np.int64)], 0
    for pointers in pointer_list:
        joined.append(np.asarray(pointers[1:], dtype=np.int64) + at)
        at += int(pointers[-1])
    return np.concatenate(joined)


def _pick(data, rows, pointers, where):
    """The columns ``where`` (positions among those read) of a CSC block, in that order."""
    starts, counts = pointers[where], np.diff(pointers)[where]
    take = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
    take = take + np.arange(int(counts.sum()))
    return data[take], rows[take], np.concatenate([[0], np.cumsum(counts)])


def _canonical(data, rows, pointers, n):
    """A CSC block with each column's rows ascending and no row twice (duplicates summed,
    as scipy's ``sum_duplicates`` does for the in-memory reader)."""
    if len(rows) < 2:
        return data, rows, pointers
    steps = np.diff(rows)
    starts = pointers[1:-1]
    inside = np.ones(len(steps), dtype=bool)
    inside[starts[(starts > 0) & (starts < len(rows))] - 1] = False
    if np.all(steps[inside] > 0):
        return data, rows, pointers
    from scipy import sparse

    block = sparse.csc_array(
        (np.asarray(data, dtype=np.float64), rows, pointers), shape=(n, len(pointers) - 1)
    )
    block.sum_duplicates()
    return block.data, block.indices.astype(np.int64), block.indptr.astype(np.int64)


def _densify(data, rows, pointers, n) -> np.ndarray:
    width = len(pointers) - 1
    block = np.zeros((n, width), dtype=np.float64, order="F")
    if len(data):
        columns = np.repeat(np.arange(width), np.diff(pointers))
        block[rows, columns] = data
    return block
