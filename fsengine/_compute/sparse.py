"""Sparse matrices (scipy's CSR and CSC), and matrices on disk, read a block of columns
at a time.

Single-cell and RNA-seq counts come sparse: a 50,000 x 20,000 matrix at 7 % non-zeros
takes 0.8 GB as CSC and 8 GB dense. The rankers that score each column on its own and the
online selectors, which receive one feature at a time, read such a matrix through
:func:`dense_columns`: one block of columns made dense at a time, in column order
(Fortran), so a block's values are exactly those of the dense matrix's columns.

A matrix that stays on disk (an AnnData file read backed, :mod:`fsengine.io.backed`) is a
:class:`BackedMatrix`: the same functions read it a block of columns at a time, from the
file; :func:`by_columns` says whether a matrix is read that way (sparse or backed).

scipy is imported only when a sparse matrix is given.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.budget import use_compiled
from fsengine.errors import FSEngineError

#: The kernel family of :func:`stable_order`.
ORDER_KERNELS = "_compute._order_kernels"
#: Values in one dense block read from a sparse matrix (8 MB of float64).
BLOCK_ELEMENTS = 1_000_000
#: The share of the available memory a dense float64 copy of a matrix may take.
MEMORY_SHARE = 0.5


def is_sparse(X) -> bool:
    """Whether ``X`` is a scipy sparse matrix or array (without importing scipy)."""
    return type(X).__module__.startswith("scipy.sparse") and hasattr(X, "tocsc")


@dataclass(frozen=True)
class ValueProfile:
    """What one pass over a matrix's values finds, a block of columns at a time: enough to
    check it, to find its constant columns and to say whether it looks like counts,
    without holding it.

    Attributes
    ----------
    low, high : ndarray of float64, shape (n_features,)
        Each column's smallest and largest value (an unstored value is a zero).
    nonzero : ndarray of int64, shape (n_features,)
        Each column's number of values other than 0.
    smallest_positive : float
        The smallest value above 0 (inf when there is none).
    integers : bool
        Whether every value is an integer.
    row_totals : ndarray of float64, shape (n_samples,) or None
        Each row's sum, added in column order (as ``np.bincount`` adds a CSC matrix's
        stored values), when asked for.
    variances : ndarray of float64, shape (n_features,) or None
        Each column's variance (ddof = 0), when asked for.
    column_positive : ndarray of float64, shape (n_features,) or None
        Each column's smallest value above 0 (inf for none).
    column_integers : ndarray of bool, shape (n_features,) or None
        Whether each column's values are all integers.
    """

    low: np.ndarray
    high: np.ndarray
    nonzero: np.ndarray
    smallest_positive: float
    integers: bool
    row_totals: np.ndarray | None = None
    variances: np.ndarray | None = None
    column_positive: np.ndarray | None = None
    column_integers: np.ndarray | None = None

    def zeros(self, n_samples: int) -> int:
        """How many values are 0."""
        return n_samples * len(self.nonzero) - int(self.nonzero.sum())


class BackedMatrix(ABC):
    """A matrix that stays on disk, read a block of columns at a time (an AnnData file
    read backed: :class:`fsengine.io.backed.BackedColumns`).

    The functions of this module (:func:`dense_columns`, :func:`dense_block`,
    :func:`column_constant`, :func:`by_column_blocks`, :func:`densified`) read it as they
    read a sparse matrix: a dense float64 block of columns at a time, never whole.

    Attributes
    ----------
    shape : tuple of int
        (n_samples, n_features).
    sparse : bool
        Whether its values are stored sparse (zeros not stored).
    """

    shape: tuple[int, int]
    sparse: bool = False
    ndim = 2
    dtype = np.dtype(np.float64)

    @abstractmethod
    def columns(self, columns) -> np.ndarray:
        """Columns ``columns`` (a slice or a sequence of int) as a dense float64 block in
        Fortran order, of shape (n_samples, number of columns)."""

    def stored_columns(self, columns):
        """Columns ``columns`` as they are stored: a scipy CSC array (float64, canonical) when
        the values are stored sparse, else the dense block of :meth:`columns`."""
        return self.columns(columns)

    def reads_rows(self) -> bool:
        """Whether it can also be read a band of rows at a time (``row_bands``, a CSR
        file's), which the row-wise kernels prefer to a copy by columns."""
        return False

    @abstractmethod
    def profile(self) -> ValueProfile:
        """The :class:`ValueProfile` of its values (one pass over the file, kept)."""

    @abstractmethod
    def take(self, columns) -> BackedMatrix:
        """The matrix of columns ``columns`` (a sequence of int) only: a view, no copy."""

    @property
    def nbytes(self) -> int:
        """Bytes held in memory for the matrix's values: none (they stay on disk)."""
        return 0

    def blocks(self, elements: int | None = None):
        """``(lo, hi, block)``: columns ``lo:hi`` as a dense float64 block, in column
        order, about ``elements`` values (:func:`block_width`) at a time."""
        width = block_width(self.shape[0], elements)
        for lo in range(0, self.shape[1], width):
            hi = min(lo + width, self.shape[1])
            yield lo, hi, self.columns(slice(lo, hi))


def is_backed(X) -> bool:
    """Whether ``X`` is a matrix on disk (:class:`BackedMatrix`)."""
    return isinstance(X, BackedMatrix)


def by_columns(X) -> bool:
    """Whether ``X`` is read a block of columns at a time, never whole: a scipy sparse
    matrix or a matrix on disk."""
    return is_sparse(X) or is_backed(X)


def as_columns(X, what: str = "X"):
    """``X`` as a CSC matrix of float64 with sorted indices, checked finite.

    Parameters
    ----------
    X : scipy sparse matrix or array, shape (n_samples, n_features)
        CSR is converted (a copy of its non-zeros, never a dense copy).
    what : str
        How an error names the matrix.

    Returns
    -------
    scipy.sparse.csc_array
        Columns are contiguous: one column's values are a slice of its data.

    Raises
    ------
    FSEngineError
        For a matrix that is not two-dimensional, a CSR or CSC matrix whose structure is
        damaged (row numbers out of range, pointers that go back), or a missing or
        infinite stored value (naming its row and column, 1-based).
    """
    if is_backed(X):  # on disk, read by columns already (checked when opened)
        return X
    from scipy import sparse

    if X.ndim != 2:
        raise FSEngineError(f"{what} must be two-dimensional, got shape {X.shape}")
    if getattr(X, "format", None) in ("csr", "csc"):
        try:  # scipy's conversions trust the structure: bad row numbers crash them
            X.check_format(full_check=True)
        except ValueError as exc:
            raise FSEngineError(
                f"{what} is a damaged sparse matrix ({exc}); save it again from its source"
            ) from None
    csc = sparse.csc_array(X, dtype=np.float64)
    if not csc.has_canonical_format:
        csc = csc.copy()
        csc.sum_duplicates()  # sorts the indices too
    bad = ~np.isfinite(csc.data)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        column = int(np.searchsorted(csc.indptr, k, side="right")) - 1
        row = int(csc.indices[k])
        kind = "a missing value (NaN)" if np.isnan(csc.data[k]) else "an infinite value"
        raise FSEngineError(f"{what} has {kind} at row {row + 1}, column {column + 1}", row=row + 1)
    return csc


def dense_columns(X, columns) -> np.ndarray:
    """Columns ``columns`` of the sparse matrix ``X`` (CSC) as a dense float64 block in
    Fortran order: the values the dense matrix's columns hold, bit for bit.

    Parameters
    ----------
    X : scipy sparse CSC matrix or array
    columns : slice or sequence of int

    Returns
    -------
    ndarray, shape (n_samples, len(columns))
    """
    if is_backed(X):
        return X.columns(columns)
    return np.asarray(X[:, columns].toarray(order="F"), dtype=np.float64)


class BlockBuffer:
    """The memory of a stream's dense blocks, made once and filled again for each block.

    A stream over a sparse matrix makes a dense block of columns at every step (8 MB on
    20,000 cells); made anew each time, they are carved out of the heap of whichever
    thread computes, and a server's heaps keep them long after (docs/MEMORY.md). One
    buffer a stream, as wide as its widest block, holds them all instead. A block taken
    from it is valid until the next one: whoever receives it (an online selector's
    ``step_many``) copies what it keeps (:func:`fsengine.checks.check_block_not_kept`).
    """

    def __init__(self) -> None:
        self._memory: np.ndarray | None = None

    def take(self, shape: tuple[int, int]) -> np.ndarray:
        """A float64 array of ``shape`` in Fortran order, a view of the buffer (made, or
        made larger, when it cannot hold the shape); its values are left as they were."""
        rows, width = shape
        memory = self._memory
        if memory is None or memory.shape[0] != rows or memory.shape[1] < width:
            memory = self._memory = np.empty((rows, width), dtype=np.float64, order="F")
        return memory[:, :width]

    def release(self) -> None:
        """Let the memory go (a stream that is done); a later :meth:`take` makes it anew."""
        self._memory = None


def dense_block(X, columns, rows=None, out: BlockBuffer | None = None) -> np.ndarray:
    """Columns ``columns`` of ``X`` (dense, or scipy sparse), on ``rows`` only if given, as
    a dense float64 array: what a driver hands a classifier, a figure or a selector (a
    block of columns), never the whole of a sparse matrix.

    Parameters
    ----------
    X : ndarray or scipy sparse matrix, shape (n_samples, n_features)
    columns : slice or sequence of int
    rows : sequence of int, optional
        Default: every row.
    out : BlockBuffer, optional
        Where a sparse matrix's block is made (the same memory for every block of a
        stream, overwritten by the next: the caller keeps nothing of it). Default: a new
        array each time. Not used for a dense matrix or one on disk.

    Returns
    -------
    ndarray, shape (n_rows, n_columns)
        The values of the dense matrix's ``X[np.ix_(rows, columns)]``, bit for bit.
    """
    if is_backed(X):
        block = X.columns(columns)
        return block if rows is None else block[np.asarray(rows)]
    if is_sparse(X):
        picked = X[:, columns]
        if rows is not None:
            picked = picked[np.asarray(rows)]
        if out is not None and picked.dtype == np.float64:
            return picked.toarray(out=out.take(picked.shape))  # (zeroed, then filled)
        return np.asarray(picked.toarray(order="F"), dtype=np.float64)
    if rows is None:
        return X[:, columns]
    if isinstance(columns, slice):
        return X[np.asarray(rows)][:, columns]
    return X[np.ix_(np.asarray(rows), np.asarray(columns))]


def stable_order(values: np.ndarray, axis: int = 0) -> np.ndarray:
    """Each line's ascending order, ties by position: ``np.argsort(values, axis=axis,
    kind="stable")``, in O(n + z log z) a line of n values with z non-zero (a gene of
    counts: its zeros are one run, already in order).

    Parameters
    ----------
    values : ndarray, shape (n, b) or (b, n), finite
    axis : {0, 1}
        Along which the lines run.

    Returns
    -------
    ndarray of int64, the shape of ``values``
    """
    lines = np.asarray(values, dtype=float)
    lines = lines.T if axis == 0 else lines
    order = np.empty(lines.shape, dtype=np.int64)
    n = lines.shape[1]
    if use_compiled(lines.size, ORDER_KERNELS):
        family = kernels.load(ORDER_KERNELS)
        values, rows, counts, by_value = nonzero_order(lines, axis=1)
        family.orders_from_argsort(values, rows, by_value, counts, order)  # ties in order
        return order.T if axis == 0 else order
    for r in range(lines.shape[0]):
        line = lines[r]
        zero = line == 0
        nonzero = np.flatnonzero(~zero)  # (numpy's nonzero on floats is several times slower)
        if 2 * len(nonzero) > n:  # mostly non-zero: one sort
            order[r] = np.argsort(line, kind="stable")
            continue
        by_value = nonzero[np.argsort(line[nonzero], kind="stable")]
        negative = int(np.searchsorted(line[by_value], 0.0))
        zeros = np.flatnonzero(zero)
        order[r, :negative] = by_value[:negative]
        order[r, negative : negative + len(zeros)] = zeros
        order[r, negative + len(zeros) :] = by_value[negative:]
    return order.T if axis == 0 else order


def nonzero_order(
    values: np.ndarray, axis: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each line's non-zero values (:func:`nonzero_lines`) and an argsort of them (numpy's
    vectorised sort; ties in any order): one pass and one sort a line.

    Parameters
    ----------
    values : ndarray, shape (n, b) or (b, n), finite
    axis : {0, 1}
        Along which the lines run (0: the columns of a block of samples x genes).

    Returns
    -------
    values, rows, counts
        As :func:`nonzero_lines`, shape (b, n), (b, n), (b,).
    by_value : ndarray of int64, shape (b, n)
        Line r's first ``counts[r]``: an argsort of its non-zero values.
    """
    lines = np.asarray(values, dtype=float)
    lines = np.ascontiguousarray(lines.T if axis == 0 else lines)
    found, rows, counts = nonzero_lines(lines)
    full = counts == lines.shape[1]  # lines without a zero (a microarray's): one call
    if full.all():
        return found, rows, counts, found.argsort(axis=1)
    by_value = np.empty(lines.shape, dtype=np.int64)
    if full.any():
        by_value[full] = found[full].argsort(axis=1)
    for r in np.flatnonzero(~full).tolist():
        z = int(counts[r])
        by_value[r, :z] = found[r, :z].argsort()
    return found, rows, counts, by_value


def nonzero_lines(lines: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each line's non-zero values and their positions, in order (a compiled pass).

    Parameters
    ----------
    lines : ndarray of float64, shape (b, n), C-contiguous

    Returns
    -------
    values : ndarray of float64, shape (b, n)
        Line r's ``counts[r]`` non-zero values first (the rest unset).
    rows : ndarray of int64, shape (b, n)
        Their positions.
    counts : ndarray of int64, shape (b,)
    """
    values = np.empty(lines.shape)
    rows = np.empty(lines.shape, dtype=np.int64)
    counts = np.empty(lines.shape[0], dtype=np.int64)
    kernels.load(ORDER_KERNELS).nonzero_lines(lines, values, rows, counts)
    return values, rows, counts


def block_width(n_samples: int, elements: int | None = None) -> int:
    """Columns per block so that a dense block holds about ``elements`` values (default:
    :data:`BLOCK_ELEMENTS`), at least one column."""
    return max(1, (elements or BLOCK_ELEMENTS) // max(n_samples, 1))


def column_constant(X) -> np.ndarray:
    """Whether each column of the CSC matrix ``X`` (or of a matrix on disk, from its
    :class:`ValueProfile`) holds one value over all rows.

    Returns
    -------
    ndarray of bool, shape (n_features,)
    """
    if is_backed(X):
        profile = X.profile()
        return profile.low == profile.high
    n = X.shape[0]
    stored = np.diff(X.indptr)
    lo = np.full(X.shape[1], np.inf)
    hi = np.full(X.shape[1], -np.inf)
    has = stored > 0
    if X.nnz:
        starts = X.indptr[:-1][has]
        lo[has] = np.minimum.reduceat(X.data, starts)
        hi[has] = np.maximum.reduceat(X.data, starts)
    zero_present = stored < n  # an unstored cell is a zero
    lo = np.where(zero_present, np.minimum(lo, 0.0), lo)
    hi = np.where(zero_present, np.maximum(hi, 0.0), hi)
    return lo == hi


def available_memory() -> int | None:
    """Bytes of memory available to this process now, or None when unknown.

    Linux's estimate of the memory a new allocation can take without swapping
    (``MemAvailable`` in /proc/meminfo: free pages plus the page cache it can drop; the
    free pages alone, which a server's file cache soon fills, would refuse files that
    fit), lowered to what the process's control group (cgroup v2, a container's limit)
    still allows. Elsewhere, the free physical pages.
    """
    import os

    available = None
    try:
        with open("/proc/meminfo", "rb") as meminfo:
            for line in meminfo:
                if line.startswith(b"MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            return None
    left = _cgroup_memory_left()
    return available if left is None else min(available, left)


def _cgroup_memory_left() -> int | None:
    """Bytes the process's control group may still take under its limit (cgroup v2's
    ``memory.max``, v1's ``memory.limit_in_bytes``), or None (no limit, or none found).
    The group's usage counts the page cache; its inactive part, which the kernel drops
    before it refuses memory, is not counted as used (as container tools measure it)."""
    try:
        with open("/proc/self/cgroup") as groups:
            lines = [line.strip().split(":", 2) for line in groups]
    except OSError:
        return None
    places = []
    for _, controllers, path in (line for line in lines if len(line) == 3):
        if controllers == "":  # v2
            for folder in (f"/sys/fs/cgroup{path}", "/sys/fs/cgroup"):
                places.append((folder, "memory.max", "memory.current", "inactive_file"))
        elif "memory" in controllers.split(","):  # v1
            for folder in (f"/sys/fs/cgroup/memory{path}", "/sys/fs/cgroup/memory"):
                places.append(
                    (
                        folder,
                        "memory.limit_in_bytes",
                        "memory.usage_in_bytes",
                        "total_inactive_file",
                    )
                )
    for folder, limit_name, usage_name, inactive_name in places:
        try:
            with open(f"{folder}/{limit_name}") as limit_file:
                limit = limit_file.read().strip()
            with open(f"{folder}/{usage_name}") as usage_file:
                usage = int(usage_file.read().strip())
        except (OSError, ValueError):
            continue
        if limit == "max" or int(limit) >= 2**60:  # no limit
            return None
        inactive = 0
        try:
            with open(f"{folder}/memory.stat") as stat_file:
                for line in stat_file:
                    key, _, value = line.partition(" ")
                    if key == inactive_name:
                        inactive = int(value)
                        break
        except (OSError, ValueError):
            pass
        return max(int(limit) - max(usage - inactive, 0), 0)
    return None


def gigabytes(n_bytes: float) -> str:
    """``n_bytes`` as messages state a size: "74.5 GB" (GiB, one decimal)."""
    return f"{n_bytes / 2**30:.1f} GB"


def memory_exceeded(needed: int, budget: int | None = None) -> int | None:
    """The available memory (``budget`` bytes, default: measured) when ``needed`` bytes
    are more than :data:`MEMORY_SHARE` of it, else None (it fits, or it is unknown)."""
    budget = budget if budget is not None else available_memory()
    return budget if budget is not None and needed > MEMORY_SHARE * budget else None


def check_dense_fits(shape: tuple[int, int], what: str, budget: int | None = None) -> None:
    """Refuse a dense float64 copy of a ``shape`` matrix larger than :data:`MEMORY_SHARE`
    of the available memory (``budget`` bytes, default: measured), naming its size.

    Raises
    ------
    FSEngineError
        Naming the matrix, its shape, the copy's size and the memory available.
    """
    needed = 8 * shape[0] * shape[1]
    if (available := memory_exceeded(needed, budget)) is not None:
        raise FSEngineError(
            f"{what} holds a matrix of {shape[0]:,} x {shape[1]:,}: {gigabytes(needed)} as a "
            f"dense float64 matrix, more than half of this machine's available memory "
            f"({gigabytes(available)})"
        )


def densified(X, what: str = "X") -> np.ndarray:
    """A sparse ``X`` (or one on disk, read a block of columns at a time) as a dense
    float64 matrix in Fortran order, when it fits in memory (:func:`check_dense_fits`); a
    dense ``X`` as it is."""
    if is_backed(X):
        check_dense_fits(X.shape, what)
        dense = np.empty(X.shape, dtype=np.float64, order="F")
        for lo, hi, block in X.blocks():
            dense[:, lo:hi] = block
        return dense
    if not is_sparse(X):
        return X
    check_dense_fits(X.shape, what)
    return np.asfortranarray(X.toarray(), dtype=np.float64)


def by_column_blocks(function, X, elements: int | None = None):
    """``function(block)`` over dense blocks of the columns of a sparse ``X`` (or of one on
    disk), joined:
    the result ``function(X.toarray())`` would give for a ``function`` that treats each
    column on its own, without the dense matrix.

    Parameters
    ----------
    function : callable
        Takes a dense block (n_samples, b) and returns an array of b values, or a dict of
        such arrays.
    X : scipy sparse matrix (CSC), or a :class:`BackedMatrix`
    elements : int, optional
        Values per dense block (:func:`block_width`).

    Returns
    -------
    ndarray or dict of ndarray, one value per column
    """
    width = block_width(X.shape[0], elements)
    parts = [
        function(dense_columns(X, slice(lo, min(lo + width, X.shape[1]))))
        for lo in range(0, X.shape[1], width)
    ]
    return _joined(parts)


def _joined(parts: list):
    """Per-column results of blocks, concatenated (arrays, or dicts of arrays)."""
    if parts and isinstance(parts[0], dict):
        return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    return np.concatenate(parts)


def by_stored_blocks(function, X, elements: int | None = None):
    """:func:`by_column_blocks` for a ``function`` that also takes a CSC block: a sparse
    ``X`` is handed over whole as CSC (no dense block at all), one on disk a block of
    columns at a time as it is stored (CSC when stored sparse, else dense).

    Parameters
    ----------
    function : callable
        Takes a block (n_samples, b), dense or scipy CSC, and returns b values or a dict of
        such arrays, each column's on its own.
    X : scipy sparse matrix, or a :class:`BackedMatrix`
    elements : int, optional
        Values per block read from disk (:func:`block_width`).

    Returns
    -------
    ndarray or dict of ndarray, one value per column
    """
    if not is_backed(X):
        return function(as_columns(X))
    width = block_width(X.shape[0], elements)
    return _joined(
        [
            function(X.stored_columns(slice(lo, min(lo + width, X.shape[1]))))
            for lo in range(0, X.shape[1], width)
        ]
    )
