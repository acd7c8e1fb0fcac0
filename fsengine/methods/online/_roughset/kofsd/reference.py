"""The K-nearest-neighbour relation of K-OFSD by its definition, as the authors' code
computes it: the per-feature weights, the distance terms, the relation on a matrix, and
the per-sample statistics every path returns (:class:`NeighbourStats`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsengine._compute import kernels
from fsengine._compute.budget import use_compiled
from fsengine.methods.online._columns import COLUMN_KERNELS, COMPILED_MIN_SIZE, sequential_sum

#: The kernel families of the neighbour paths (:func:`fsengine._compute.kernels.load`).
KNN_KERNELS, SET_KERNELS = (
    "methods.online._roughset.kofsd._knn_kernels",
    "methods.online._roughset.kofsd._set_kernels",
)


VARIANTS = ("reference", "paper")


METRICS = ("seuclidean", "euclidean")


@dataclass(frozen=True)
class NeighbourStats:
    """Per-sample summary of the K nearest neighbours.

    Attributes
    ----------
    same_count : ndarray of int, shape (..., n)
        Number of the K neighbours whose label equals the sample's label.
    same_distance : ndarray of float or None
        Sum of distances to those same-label neighbours (only when requested).
    other_distance : ndarray of float or None
        Sum of distances to the other-label neighbours (only when requested).
    """

    same_count: np.ndarray
    same_distance: np.ndarray | None = None
    other_distance: np.ndarray | None = None


def feature_weights(block: np.ndarray, metric: str = "seuclidean") -> np.ndarray:
    """Per-feature weights of the distance: ``1 / var`` (n - 1) or 1.

    Parameters
    ----------
    block : ndarray, shape (n, b)
        One column per feature, one row per sample.
    metric : {"seuclidean", "euclidean"}
        Standardised Euclidean (the authors' code) or plain Euclidean (the
        paper's worked example).

    Returns
    -------
    ndarray, shape (b,)
        The weight ``w_f``; ``inf`` for a constant feature under "seuclidean"
        (the reference's ``inv(diag(var))``), which makes its distances NaN.
    """
    n, b = block.shape
    if metric == "euclidean":
        return np.ones(b)
    if n * b >= COMPILED_MIN_SIZE and use_compiled(n * b, COLUMN_KERNELS):
        return kernels.load(COLUMN_KERNELS).seuclidean_weights(block)
    mean = sequential_sum(block) / n
    var = sequential_sum((block - mean) ** 2) / (n - 1)
    with np.errstate(divide="ignore"):
        return 1.0 / var


def distance_terms(values: np.ndarray, weight: float) -> np.ndarray:
    """One feature's contribution ``(w * d) * d`` to every squared pair distance.

    Returns an (n, n) matrix with ``d = x_i - x_j``; the diagonal is 0 (NaN for a
    constant feature under "seuclidean", as in the reference).
    """
    diff = values[:, None] - values[None, :]
    with np.errstate(invalid="ignore"):
        return (weight * diff) * diff


def _exact_row_neighbours(
    dist_rows: np.ndarray, row_samples: np.ndarray, k: int, variant: str
) -> np.ndarray:
    """Neighbour indices by the definition: stable sort of each distance row.

    Parameters
    ----------
    dist_rows : ndarray, shape (m, n)
        Distances from each of m samples to all n samples (self distance 0).
    row_samples : ndarray of int, shape (m,)
        The sample each row belongs to.
    k : int
        Number of neighbours.
    variant : {"reference", "paper"}
        "reference" skips the first sorted element; "paper" skips the sample.

    Returns
    -------
    ndarray of int, shape (m, k)
    """
    order = np.argsort(dist_rows, axis=1, kind="stable")  # NaN sort last
    if variant == "reference":
        return order[:, 1 : k + 1]
    first = order[:, : k + 1]
    is_self = first == row_samples[:, None]
    has_self = is_self.any(axis=1)
    # Drop the sample itself; where it is not among the first k+1, drop the last.
    drop = np.where(has_self, is_self.argmax(axis=1), k)
    keep = np.ones_like(first, dtype=bool)
    keep[np.arange(len(first)), drop] = False
    return first[keep].reshape(len(first), k)


def pairwise_distances(X_S, metric: str = "seuclidean") -> np.ndarray:
    """Distance matrix of the samples on the feature set ``X_S``, as the reference computes it.

    Parameters
    ----------
    X_S : array, shape (n, |S|)
        The samples' values on the set's features, columns in summation order.
    metric : {"seuclidean", "euclidean"}

    Returns
    -------
    ndarray, shape (n, n)
        Zero diagonal; NaN off the diagonal if a column is constant under
        "seuclidean".
    """
    X_S = np.asarray(X_S, dtype=float)
    if X_S.ndim == 1:
        X_S = X_S[:, None]
    weights = feature_weights(X_S, metric)
    sq = np.zeros((X_S.shape[0], X_S.shape[0]))
    for j in range(X_S.shape[1]):
        sq = sq + distance_terms(X_S[:, j], weights[j])
    with np.errstate(invalid="ignore"):
        dist = np.sqrt(sq)
    np.fill_diagonal(dist, 0.0)
    return dist


def nearest_neighbours(
    X_S, k: int, variant: str = "reference", metric: str = "seuclidean"
) -> np.ndarray:
    """The K nearest neighbours of every sample on the feature set ``X_S`` (Definition 1).

    Parameters
    ----------
    X_S : array, shape (n, |S|)
    k : int
    variant : {"reference", "paper"}
        "reference": sorted positions 2..K+1 of each sample's stable distance
        sort; "paper": the K nearest samples other than x_i.
    metric : {"seuclidean", "euclidean"}

    Returns
    -------
    ndarray of int, shape (n, k)
        Neighbour indices, nearest first (ties to the lower index).
    """
    dist = pairwise_distances(X_S, metric)
    return _exact_row_neighbours(dist, np.arange(len(dist)), k, variant)
