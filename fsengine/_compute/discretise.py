"""Discretisation of continuous features, shared by CIE-OSFS and the binned MI estimator."""

from __future__ import annotations

import numpy as np

from fsengine.errors import FSEngineError

BINNINGS = ("quantile", "uniform")


def discretise(block: np.ndarray, bins: int = 3, binning: str = "quantile") -> np.ndarray:
    """Discretise each column of ``block`` into at most ``bins`` integer codes.

    Parameters
    ----------
    block : ndarray, shape (n, b)
    bins : int
        Number of bins (>= 2).
    binning : {"quantile", "uniform"}
        "quantile": equal-frequency bins, cut at the column's 1/bins, 2/bins, ...
        quantiles (numpy's linear interpolation); "uniform": equal-width bins over
        the column's range. A value equal to a cut point goes to the lower bin, so
        equal values always share a bin; a constant column is a single bin.

    Returns
    -------
    ndarray of int, shape (n, b), codes in 0 .. bins - 1
    """
    if binning == "quantile":
        cuts = np.quantile(block, np.arange(1, bins) / bins, axis=0)
    elif binning == "uniform":
        low, high = block.min(axis=0), block.max(axis=0)
        cuts = low + (high - low) * (np.arange(1, bins) / bins)[:, None]
    else:
        raise FSEngineError(f"unknown binning {binning!r}; choose one of {', '.join(BINNINGS)}")
    codes = np.zeros(block.shape, dtype=np.int64)
    for cut in cuts:
        codes += block > cut
    return codes
