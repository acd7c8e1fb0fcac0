"""AnnData files (``.h5ad``: scanpy's format and that of most single-cell atlases), read
through the ``anndata`` package.

The matrix is ``X`` (dense, CSR or CSC, made dense), with the cells or samples in rows
(``obs_names``) and the genes in columns (``var_names``); the class is an ``obs`` column
(:mod:`fsengine.io.annotated`). The file's header gives the matrix's shape before anything
is read: a matrix that would not fit in memory as float64 is refused with its size,
instead of exhausting the machine.
"""

from __future__ import annotations

import io
import os
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa

from fsengine.errors import FSEngineError
from fsengine.io.base import Reader, Table
from fsengine.io.orientation import raise_duplicates

#: HDF5's signature; a file may start with a user block of 512, 1024, ... bytes.
HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
#: The share of the available memory a dense float64 copy of the matrix may take.
MEMORY_SHARE = 0.5


def available_memory() -> int | None:
    """Bytes of memory available to this process now (Linux), or None when unknown."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.1f} GB"


def check_size(shape: tuple[int, int], name: str, budget: int | None = None) -> None:
    """Refuse a matrix whose float64 copy would take more than :data:`MEMORY_SHARE` of
    the available memory (``budget`` bytes, default: measured), naming its size."""
    budget = budget if budget is not None else available_memory()
    needed = 8 * shape[0] * shape[1]
    if budget is not None and needed > MEMORY_SHARE * budget:
        raise FSEngineError(
            f"{name} holds a matrix of {shape[0]:,} x {shape[1]:,}: {_gib(needed)} as the dense "
            f"float64 matrix every method reads, more than half of this machine's available "
            f"memory ({_gib(budget)}); subset the file first (for instance the cells of "
            "interest and the highly variable genes, with scanpy) and load that"
        )


class H5adReader(Reader):
    """An AnnData file: ``X`` as the matrix, ``obs`` as the annotations."""

    format = "AnnData (.h5ad)"
    stream_errors_are_final = True

    def recognises(self, head: bytes) -> bool:
        return any(head[k : k + 8] == HDF5_MAGIC for k in (0, 512, 1024, 2048))

    def stream(self, source: bytes | Path, head: bytes, name: str, transpose: bool) -> Table:
        return self.read_from(source if isinstance(source, Path) else io.BytesIO(source), name)

    def read(self, data: bytes, name: str, transpose: bool) -> Table:
        return self.read_from(io.BytesIO(data), name)

    def read_from(self, source, name: str) -> Table:
        """The AnnData file at ``source`` (a path or a binary file object)."""
        import anndata
        import h5py

        try:
            with h5py.File(source, "r") as f:
                shape = _stored_shape(f, name)
        except OSError as exc:
            raise FSEngineError(f"{name} is not a readable HDF5 file ({exc})") from None
        check_size(shape, name)
        if hasattr(source, "seek"):
            source.seek(0)
        try:
            with warnings.catch_warnings():  # an older layout's notices: not the user's concern
                warnings.simplefilter("ignore")
                adata = anndata.read_h5ad(source)
        except (OSError, KeyError, ValueError, TypeError) as exc:
            raise FSEngineError(
                f"{name} is an HDF5 file that anndata cannot read as AnnData: {exc}"
            ) from None
        return table_from_anndata(adata)


def table_from_anndata(adata) -> Table:
    """An AnnData object's X (made dense, float64) with its names, and its class-like obs
    columns as the annotations the class is chosen from (:mod:`fsengine.io.annotated`)."""
    matrix = adata.X
    values = matrix.toarray() if hasattr(matrix, "toarray") else np.asarray(matrix)
    X = np.asfortranarray(values, dtype=np.float64)
    genes = [str(g) for g in adata.var_names]
    samples = [str(s) for s in adata.obs_names]
    if len(set(genes)) != len(genes):
        raise_duplicates(genes, "gene names (var_names)")
    annotations = {
        str(column): [None if _missing(v) else v for v in adata.obs[column].tolist()]
        for column in adata.obs.columns
        if _is_class_like(adata.obs[column])
    }
    notes = [H5adReader.format, "matrix: X"]
    if hasattr(matrix, "toarray"):
        notes.append(f"sparse ({type(matrix).__name__}) made dense")
    return Table(
        pa.table({}), notes, False, X, tuple(genes), tuple(samples), annotations, "obs column"
    )


def _stored_shape(f, name: str) -> tuple[int, int]:
    """X's shape from the file's header (a dense dataset or a sparse group)."""
    if "X" not in f:
        raise FSEngineError(f"{name} has no matrix X (an HDF5 file, but not AnnData?)")
    node = f["X"]
    if hasattr(node, "shape"):
        return tuple(int(n) for n in node.shape)
    return tuple(int(n) for n in node.attrs["shape"])


def _is_class_like(column) -> bool:
    """Categorical, text, boolean or integer: an obs column that can hold classes."""
    kind = getattr(column.dtype, "kind", "O")
    return str(column.dtype) == "category" or kind in "OUSbiu"


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))
