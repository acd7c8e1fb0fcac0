"""AnnData files (``.h5ad``: scanpy's format and that of most single-cell atlases) and
AnnData Zarr stores (a folder), read through the ``anndata`` package.

The matrix is ``X``, or a named entry of ``layers`` (raw counts are often kept there),
with the cells or samples in rows (``obs_names``) and the genes in columns
(``var_names``, or a named ``var`` column such as gene symbols); the class is an ``obs``
column (:mod:`fsengine.io.annotated`). A dense matrix is read as float64; a sparse one
(CSR or CSC) is kept sparse, as CSC: :func:`fsengine.data.dataset.load_dataset` makes it dense
unless asked to keep it (``sparse=True``), for the methods that read it a block of columns
at a time (:mod:`fsengine._compute.sparse`). The file's header gives the matrix's shape
and storage before anything is read: a matrix that would not fit in memory is refused
with its size, instead of exhausting the machine.

Read backed (:func:`read_backed`, ``load_dataset(..., backed=True)``), the matrix stays
on disk and is read a block of genes at a time (:mod:`fsengine.io.backed`); only obs and
var are read into memory. :func:`wants_backed` is the rule of ``backed=None``: backed
when the in-memory copy would take more than :data:`BACKED_FROM_BYTES` or a quarter of
the available memory.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa

from fsengine._compute.sparse import as_columns, available_memory, check_dense_fits
from fsengine.errors import FSEngineError
from fsengine.io.backed import (
    BackedColumns,
    is_zarr_store,
    matrix_layout,
    matrix_node,
    open_root,
    read_frames,
    stored_layout,
)
from fsengine.io.base import Reader, Table, brief_reason
from fsengine.io.hdf5_probe import HDF5_MAGIC, probe
from fsengine.io.orientation import raise_duplicates

__all__ = [
    "BACKED_FROM_BYTES",
    "H5adReader",
    "backed_by_size",
    "check_size",
    "layout_bytes",
    "matrix_choices",
    "read_backed",
    "read_zarr",
    "table_from_anndata",
    "wants_backed",
]

#: Bytes per stored value of a sparse matrix read as CSC: float64 data, an int64 index.
SPARSE_BYTES_PER_VALUE = 16
#: ``backed=None`` reads a matrix backed when its in-memory copy would take more than this
#: (1 GiB), or more than a quarter of the available memory.
BACKED_FROM_BYTES = 2**30
#: What to do with a file too large for this machine.
SUBSET_FIRST = (
    "subset the file first (for instance the cells of interest and the highly variable "
    "genes, with scanpy) and load that"
)


def check_size(shape: tuple[int, int], name: str, budget: int | None = None) -> None:
    """Refuse a dense matrix whose float64 copy would take more than half the available
    memory (``budget`` bytes, default: measured), naming its size and what to do."""
    try:
        check_dense_fits(shape, name, budget)
    except FSEngineError as exc:
        raise FSEngineError(f"{exc.describe()}; {SUBSET_FIRST}") from None


def check_sparse_size(shape, stored: int, name: str, budget: int | None = None) -> None:
    """Refuse a sparse matrix whose ``stored`` values (as CSC, float64) would take more
    than half the available memory."""
    budget = budget if budget is not None else available_memory()
    needed = SPARSE_BYTES_PER_VALUE * stored
    if budget is not None and needed > 0.5 * budget:
        raise FSEngineError(
            f"{name} holds a sparse matrix of {shape[0]:,} x {shape[1]:,} with {stored:,} "
            f"stored values: {needed / 2**30:.1f} GB in memory, more than half of this "
            f"machine's available memory ({budget / 2**30:.1f} GB); {SUBSET_FIRST}"
        )


class H5adReader(Reader):
    """An AnnData file: ``X`` (or a layer) as the matrix, ``obs`` as the annotations."""

    format = "AnnData (.h5ad)"
    stream_errors_are_final = True

    def recognises(self, head: bytes) -> bool:
        return any(head[k : k + 8] == HDF5_MAGIC for k in (0, 512, 1024, 2048))

    def stream(self, source: bytes | Path, head: bytes, name: str, transpose: bool) -> Table:
        return self.read_from(source if isinstance(source, Path) else io.BytesIO(source), name)

    def read(self, data: bytes, name: str, transpose: bool) -> Table:
        return self.read_from(io.BytesIO(data), name)

    def read_from(
        self, source, name: str, layer: str | None = None, gene_names: str | None = None
    ) -> Table:
        """The AnnData file at ``source`` (a path or a binary file object).

        Parameters
        ----------
        source : path or binary file object
        name : str
            How messages name the file.
        layer : str, optional
            The ``layers`` entry to read instead of ``X``.
        gene_names : str, optional
            The ``var`` column to name the genes by instead of ``var_names``.
        """
        import anndata
        import h5py

        probe(source.getbuffer() if isinstance(source, io.BytesIO) else source, name)
        try:
            with h5py.File(source, "r") as f:
                _check_stored(f, name, layer)
        except FSEngineError:
            raise
        except OSError as exc:
            raise FSEngineError(f"{name} is not a readable HDF5 file ({exc})") from None
        except Exception as exc:  # a damaged header: h5py's RuntimeError, KeyError, ...
            raise FSEngineError(f"{name} is a damaged HDF5 file ({brief_reason(exc)})") from None
        if hasattr(source, "seek"):
            source.seek(0)
        try:
            with warnings.catch_warnings():  # an older layout's notices: not the user's concern
                warnings.simplefilter("ignore")
                adata = anndata.read_h5ad(source)
        except Exception as exc:  # h5py's and anndata's errors have no common base
            raise FSEngineError(
                f"{name} is an HDF5 file that anndata cannot read as AnnData: {brief_reason(exc)}"
            ) from None
        return table_from_anndata(adata, layer, gene_names, name)


def table_from_anndata(
    adata, layer: str | None = None, gene_names: str | None = None, name: str = "AnnData"
) -> Table:
    """An AnnData object's matrix (X or ``layers[layer]``: dense as float64, sparse as
    CSC; an object opened backed, ``anndata.read_h5ad(path, backed="r")``, keeps X on
    disk, read a block of genes at a time: :class:`fsengine.io.backed.BackedColumns`)
    with its names (``var_names`` or ``var[gene_names]``), and its class-like obs columns
    as the annotations the class is chosen from (:mod:`fsengine.io.annotated`).

    Raises
    ------
    FSEngineError
        For a layer or var column the object does not have (listing those it has), or
        repeated gene names.
    """
    if layer is None:
        matrix, where = adata.X, "X"
    else:
        if layer not in adata.layers:
            have = ", ".join(repr(k) for k in adata.layers) or "none"
            raise FSEngineError(
                f"{name} has no layer {layer!r}; its layers: {have}", parameter="layer"
            )
        matrix, where = adata.layers[layer], f"layers[{layer!r}]"
    if matrix is None:
        raise FSEngineError(f"{name} has no matrix X; name one of its layers (--layer)")
    if getattr(adata, "isbacked", False) and layer is None:
        X = BackedColumns.from_anndata(adata, name)
        matrix_notes = backed_notes(X)
    else:
        sparse_kind = type(matrix).__name__ if hasattr(matrix, "tocsc") else None
        X = as_columns(matrix, f"{name}'s {where}") if sparse_kind else _dense(matrix)
        matrix_notes = [f"sparse ({sparse_kind}, {X.nnz:,} stored values)"] if sparse_kind else []
    return annotated_table(X, where, adata.obs, adata.var, gene_names, name, matrix_notes)


def annotated_table(
    X, where: str, obs, var, gene_names: str | None, name: str, matrix_notes=()
) -> Table:
    """The :class:`Table` of a matrix ``X`` (cells x genes; ``where``: "X" or the layer it
    came from) and its AnnData ``obs`` and ``var`` data frames: the genes named by
    ``var``'s index or its column ``gene_names``, the class-like obs columns as
    annotations; the notes say where the matrix came from, then ``matrix_notes``."""
    if gene_names is None:
        genes = [str(g) for g in var.index]
        what = "gene names (var_names)"
    else:
        if gene_names not in var.columns:
            have = ", ".join(repr(str(c)) for c in var.columns) or "none"
            raise FSEngineError(
                f"{name} has no var column {gene_names!r}; its var columns: {have}",
                parameter="gene_names",
            )
        genes = [str(g) for g in var[gene_names].tolist()]
        what = f"gene names (var column {gene_names!r})"
    samples = [str(s) for s in obs.index]
    if len(set(genes)) != len(genes):
        raise_duplicates(genes, what)
    annotations = {
        str(column): [None if _missing(v) else v for v in obs[column].tolist()]
        for column in obs.columns
        if _is_class_like(obs[column])
    }
    notes = [H5adReader.format, f"matrix: {where}"]
    if gene_names is not None:
        notes.append(f"genes named by var column {gene_names!r}")
    notes += list(matrix_notes)
    return Table(
        pa.table({}), notes, False, X, tuple(genes), tuple(samples), annotations, "obs column"
    )


def in_memory_bytes(path, layer: str | None = None) -> int:
    """Bytes the in-memory reader's copy of the file's matrix would take (float64 values;
    a sparse matrix's values with their int64 row indices), from the header alone.

    Raises
    ------
    FSEngineError
        As :func:`read_backed` does for a store it cannot read.
    """
    return layout_bytes(*matrix_layout(path, Path(path).name, layer))


def layout_bytes(layout: str, shape: tuple[int, int], stored: int) -> int:
    """:func:`in_memory_bytes` from a matrix's :func:`~fsengine.io.backed.stored_layout`."""
    return 8 * shape[0] * shape[1] if layout == "dense" else SPARSE_BYTES_PER_VALUE * stored


def wants_backed(path, layer: str | None = None, budget: int | None = None) -> bool:
    """Whether ``backed=None`` reads this AnnData file (or Zarr store) backed: when its
    matrix in memory (:func:`in_memory_bytes`) would take more than
    :data:`BACKED_FROM_BYTES` or more than a quarter of the available memory (``budget``
    bytes, default: measured)."""
    return backed_by_size(in_memory_bytes(path, layer), budget)


def backed_by_size(needed: int, budget: int | None = None) -> bool:
    """:func:`wants_backed`'s rule on a matrix that takes ``needed`` bytes in memory."""
    budget = budget if budget is not None else available_memory()
    return needed > BACKED_FROM_BYTES or (budget is not None and needed > budget / 4)


def backed_notes(X: BackedColumns) -> list[str]:
    """What the notes say of a matrix read from disk: its layout and, for CSR, the
    column copy."""
    kind = {"csr": "CSR", "csc": "CSC", "dense": "dense"}[X.layout]
    notes = [
        f"read from disk a block of genes at a time (backed; stored as {kind}, "
        f"{X.stored:,} stored values)"
    ]
    if X.layout == "csr":
        notes.append(
            "stored by cells (CSR): copied gene by gene to a temporary folder (as CSC) "
            "before the first block is read; deleted when the matrix is closed"
        )
    return notes


def read_backed(path, name: str, layer: str | None = None, gene_names: str | None = None) -> Table:
    """The AnnData file or Zarr store at ``path`` with its matrix left on disk
    (:class:`fsengine.io.backed.BackedColumns`): obs and var are read, the matrix's
    layout from its metadata; its values when a method reads them.

    Raises
    ------
    FSEngineError
        For a path that is not an AnnData file or store, a missing X or layer (naming
        the layers it has), or a missing var column.
    """
    try:
        X = BackedColumns.open(path, layer, name)
    except FSEngineError:
        raise
    except Exception as exc:  # a damaged header: h5py's, zarr's and anndata's errors
        raise FSEngineError(f"{name} is a damaged AnnData file ({brief_reason(exc)})") from None
    try:
        obs, var = read_frames(X.root, name)
    except FSEngineError:
        X.close()
        raise
    except Exception as exc:
        X.close()
        raise FSEngineError(
            f"{name} is a damaged AnnData file: its obs or var cannot be read ({brief_reason(exc)})"
        ) from None
    except BaseException:
        X.close()
        raise
    where = "X" if layer is None else f"layers[{layer!r}]"
    if (len(obs), len(var)) != X.shape:
        X.close()
        raise FSEngineError(
            f"{name}'s {where} has shape {X.shape[0]:,} x {X.shape[1]:,}, but its obs and var "
            f"name {len(obs):,} cells and {len(var):,} genes"
        )
    table = annotated_table(X, where, obs, var, gene_names, name, backed_notes(X))
    if is_zarr_store(path):
        table.notes[0] = ZARR_FORMAT
    return table


#: A Zarr store's format, as notes name it.
ZARR_FORMAT = "AnnData (Zarr store)"


def read_zarr(path, name: str, layer: str | None = None, gene_names: str | None = None) -> Table:
    """An AnnData Zarr store (a folder) read into memory (``anndata.read_zarr``), as an
    ``.h5ad`` file is; the header's size check first.

    Raises
    ------
    FSEngineError
        As :func:`read_backed`, or for a matrix too large for memory.
    """
    import anndata

    root = open_root(path, name)
    _check_stored(root, name, layer)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            adata = anndata.read_zarr(str(path))
    except Exception as exc:  # zarr's and anndata's errors have no common base
        raise FSEngineError(f"{name} is a Zarr store that anndata cannot read: {exc}") from None
    table = table_from_anndata(adata, layer, gene_names, name)
    table.notes[0] = ZARR_FORMAT
    return table


def matrix_choices(source) -> dict[str, tuple[str, ...]] | None:
    """What an AnnData file offers to read, from its header (h5py, no matrix read): its
    ``layers`` entries and its ``var`` columns of text (gene symbols, say); None for a
    file that is not HDF5.

    Parameters
    ----------
    source : bytes or path

    Returns
    -------
    dict or None
        ``{"layers": (...), "var_columns": (...)}``.
    """
    if isinstance(source, (bytes, bytearray)):
        head = source[:2056]
    elif Path(source).is_dir():  # a Zarr store: no HDF5 header
        return None
    else:
        with open(source, "rb") as f:  # the header only, not a file of gigabytes
            head = f.read(2056)
    if not H5adReader().recognises(bytes(head)):
        return None
    import h5py

    try:
        probe(source, "the file")
    except FSEngineError:
        return None  # loading it says so
    try:
        with h5py.File(io.BytesIO(source) if isinstance(source, bytes) else source, "r") as f:
            layers = tuple(str(k) for k in f["layers"]) if "layers" in f else ()
            var = f["var"] if "var" in f else None
            columns = ()
            if isinstance(var, h5py.Group):
                index = var.attrs.get("_index", "_index")
                columns = tuple(
                    str(k)
                    for k in var
                    if k != index and k != "__categories" and _is_text_column(var[k])
                )
    except (OSError, KeyError, TypeError):
        return None
    return {"layers": layers, "var_columns": columns}


def _is_text_column(node) -> bool:
    """A var column of strings or categories (names), as anndata stores them."""
    encoding = node.attrs.get("encoding-type", "")
    if encoding in ("string-array", "categorical"):
        return True
    return hasattr(node, "dtype") and node.dtype.kind in "OSU"


def _dense(matrix) -> np.ndarray:
    return np.asfortranarray(np.asarray(matrix), dtype=np.float64)


def _check_stored(f, name: str, layer: str | None) -> None:
    """Refuse, from the file's header, a matrix that does not fit in memory."""
    node = matrix_node(f, name, layer)
    layout, shape, stored = stored_layout(node, name)
    if layout == "dense":
        check_size(shape, name)
    else:
        check_sparse_size(shape, stored, name)


def _is_class_like(column) -> bool:
    """Categorical, text, boolean or integer: an obs column that can hold classes."""
    kind = getattr(column.dtype, "kind", "O")
    return str(column.dtype) == "category" or kind in "OUSbiu"


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))
