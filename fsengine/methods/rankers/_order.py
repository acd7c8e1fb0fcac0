"""Orders of the samples that depend on the data alone, so that no ranker's score depends on
the order of the rows (issue 40).

A score that sums over samples in row order changes in its last bits when the rows are
permuted (floating-point addition is not associative), and a rule that takes "the first"
of equal values or distances changes outright. Where a ranker needs an order of the
samples it takes one of these two, functions of the data alone (the column rankers that
only sum use :mod:`fsengine.methods.rankers._sums` instead, which needs no order).

* The kNN mutual information, which scores each feature on its own column, sees the
  classes one after the other, in sorted order of their labels, and within each class the
  column's values in ascending order (:func:`sorted_within_classes`). Samples of equal
  value and label are interchangeable there, so its tie noise and its sums go the same way
  whatever the rows' order, and a feature's score still depends on its own column alone.
* A ranker that compares whole samples (ReliefF, the decomposition's k-means) takes the rows
  sorted by their label, then by their bytes (:func:`canonical_row_order`): rows that tie
  are identical, label included, so exchanging them changes nothing.
"""

from __future__ import annotations

import numpy as np


def sorted_within_classes(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The samples grouped by class (labels ascending) and, in every column separately,
    each class's values in ascending order.

    Column j of the result holds the same (value, label) pairs as column j of ``X``, so
    any score computed from each column and the labels alone is unchanged, while its
    sums over samples run in an order that a permutation of the rows cannot change.

    Parameters
    ----------
    X : float array (n_samples, n_features)
    y : array (n_samples,)

    Returns
    -------
    X_sorted : float array (n_samples, n_features), C-contiguous
    y_sorted : array (n_samples,), ascending
    """
    by_class = np.argsort(y, kind="stable")
    X_sorted = np.ascontiguousarray(X[by_class])
    y_sorted = y[by_class]
    bounds = np.flatnonzero(y_sorted[1:] != y_sorted[:-1]) + 1
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(y_sorted)]):
        X_sorted[lo:hi].sort(axis=0)
    return X_sorted, y_sorted


def canonical_row_order(X: np.ndarray, y: np.ndarray | None = None) -> np.ndarray:
    """The rows' indices sorted by label (when given), then by the bytes of the row.

    Any order of the same rows gives the same sorted rows: two rows keep an order decided by
    the row order only when they are byte for byte equal (and of one label), and then
    exchanging them changes nothing. The byte order is not numeric; it only needs to be a
    fixed total order.

    Parameters
    ----------
    X : float array (n_samples, n_features)
    y : array (n_samples,), optional

    Returns
    -------
    int array (n_samples,)
    """
    rows = np.ascontiguousarray(X, dtype=float)
    if rows.shape[1] == 0:
        order = np.arange(len(rows))
    else:
        as_bytes = rows.view(np.dtype((np.void, rows.itemsize * rows.shape[1])))
        order = np.argsort(as_bytes.ravel(), kind="stable")
    if y is not None:
        order = order[np.argsort(np.asarray(y)[order], kind="stable")]
    return order
