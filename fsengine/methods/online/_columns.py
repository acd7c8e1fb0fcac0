"""Per-column statistics whose floating-point result does not depend on the block.

A selector must decide the same whether it receives features one at a time or in
blocks; numpy's reductions change their summation order with the array's shape, so
these helpers sum strictly over the samples, one row at a time.
"""

from __future__ import annotations

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.budget import use_compiled

#: From this many rows a 2-D sum runs compiled (the same additions in the same order).
COMPILED_MIN_ROWS = 16
#: From this many elements the per-column weights run compiled.
COMPILED_MIN_SIZE = 4096
#: The compiled column statistics every selector shares.
COLUMN_KERNELS = "methods.online._column_kernels"


def sequential_sum(a: np.ndarray) -> np.ndarray | float:
    """Sum over axis 0 strictly in order, as Octave's ``sum`` does.

    numpy's ``sum`` uses pairwise summation, which rounds differently and differently
    for different shapes; K-OFSD's reference decisions depend on the exact rounding.
    """
    if (
        a.ndim > 1
        and a.dtype == np.float64
        and a.shape[0] >= COMPILED_MIN_ROWS
        and use_compiled(a.size, COLUMN_KERNELS)
    ):
        return kernels.load(COLUMN_KERNELS).column_sums(a)
    total = a[0].copy() if a.ndim > 1 else float(a[0])
    for row in a[1:]:
        total += row
    return total


def pearson_with(block: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pearson correlation of every column of ``block`` with ``y``, and the unit centred columns.

    Parameters
    ----------
    block : ndarray, shape (n, b)
    y : ndarray, shape (n,)

    Returns
    -------
    corr : ndarray, shape (b,)
        NaN for a constant column (zero range): its correlation is undefined, even
        though rounding in its mean would otherwise leave a tiny non-zero value.
    units : ndarray, shape (n, b)
        Centred columns scaled to unit length (NaN for constant columns).
    """
    n = block.shape[0]
    # Two arrays of the block's size, made once (on 20,000 cells a block is 8 MB, and a
    # server's heap keeps what a temporary of that size leaves: docs/MEMORY.md).
    centred = block - sequential_sum(block) / n
    scratch = np.square(centred)
    norms = np.sqrt(sequential_sum(scratch))
    constant = block.max(axis=0) == block.min(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        units = np.divide(centred, norms, out=centred)
    units[:, constant] = np.nan
    yc = y - float(np.sum(y)) / n
    y_unit = yc / np.sqrt(sequential_sum(yc**2))
    return sequential_sum(np.multiply(units, y_unit[:, None], out=scratch)), units


#: Scores closer than this are tied: an exact tie in arithmetic (e.g. a feature and an
#: affine copy of it) must not be decided by rounding, but by arrival order.
TIE_TOLERANCE = 1e-12


def tie_key(scores) -> np.ndarray:
    """Sort key of ``scores`` that treats values within :data:`TIE_TOLERANCE` as equal."""
    return np.round(np.asarray(scores, dtype=float) / TIE_TOLERANCE)
