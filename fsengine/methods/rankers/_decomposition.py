"""Decomposition-based feature selection (Yin et al. 2013, section 4).

The majority class is split by k-means into pseudo-subclasses of about the
minority's size; features are scored against the multi-class pseudo-labels with
any measure; then the pseudo-labels are released (the ranking is all that is kept).
"""

from __future__ import annotations

import hashlib

import numpy as np

from fsengine.errors import FSEngineError, is_integer_in
from fsengine.methods.rankers._basic import check_scoring_input
from fsengine.methods.rankers._common import SECTION_44, YIN
from fsengine.methods.rankers._order import canonical_row_order
from fsengine.spec import RANKER, Int, MethodSpec


def default_clusters(y01: np.ndarray) -> int:
    """``n_majority / n_minority`` rounded half up, at least 1 (the paper's K(i) from the
    size ratio)."""
    minority = int(np.sum(y01 == 1))
    return max(1, int(np.floor((len(y01) - minority) / minority + 0.5)))


_CACHE: dict = {}
_CACHE_SIZE = 8


def pseudo_labels(X, y, n_clusters: int | None = None, seed: int = 0) -> np.ndarray:
    """Pseudo-labels for the decomposition (see :func:`compute_pseudo_labels`), cached.

    The four D-rankers of one data set share one k-means run: results are kept for
    the last few (X, y, n_clusters, seed), identified by a digest of their bytes.
    """
    X = np.ascontiguousarray(X, dtype=float)
    y = np.ascontiguousarray(y)
    key = (
        hashlib.blake2b(X.tobytes(), digest_size=16).hexdigest(),
        X.shape,
        y.tobytes(),
        y.dtype.str,
        n_clusters,
        seed,
    )
    if key not in _CACHE:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = compute_pseudo_labels(X, y, n_clusters, seed)
    return _CACHE[key].copy()


def compute_pseudo_labels(X, y, n_clusters: int | None = None, seed: int = 0) -> np.ndarray:
    """Minority = 0, majority split by k-means into pseudo-subclasses 1..k.

    Parameters
    ----------
    X : array, shape (n_samples, n_features)
    y : array of {0, 1}
        1 = the minority class (kept whole), 0 = the majority class (decomposed).
    n_clusters : int, optional
        k; default ``n_majority / n_minority`` rounded half up.
    seed : int
        Seed of k-means (3 k-means++ initialisations, the best kept).

    Returns
    -------
    ndarray of int, shape (n_samples,)

    Notes
    -----
    For high-dimensional data Yin et al. cluster with cosine similarity; here the
    majority rows are scaled to unit Euclidean length first, so that k-means' squared
    Euclidean distance is ``2 - 2 cos`` (all-zero rows are left as they are).

    k-means sees the majority rows sorted by their bytes
    (:func:`fsengine.methods.rankers._order.canonical_row_order`), not in the order they come:
    its initialisation picks rows by position, so in row order a permutation of the
    samples would change the clusters (issue 40).
    """
    X, y, classes = check_scoring_input(X, y)
    if set(classes.tolist()) != {0, 1}:
        raise FSEngineError("decomposition needs binary labels: 1 = minority, 0 = majority")
    majority = np.flatnonzero(y == 0)
    k = default_clusters(y) if n_clusters is None else n_clusters
    if not is_integer_in(k, 1, len(majority)):
        raise FSEngineError(
            f"the number of clusters must be an integer from 1 to the majority "
            f"class size ({len(majority)}), got {k!r}"
        )
    labels = np.zeros(len(y), dtype=np.int64)
    if k == 1:
        labels[majority] = 1
        return labels
    # k-means++ draws its first centres by position: the rows go in an order of their
    # own (by their bytes), so that the clusters do not depend on the order of the samples
    majority = majority[canonical_row_order(X[majority])]
    rows = X[majority]
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    unit = rows / np.where(norms > 0, norms, 1.0)
    from sklearn.cluster import KMeans

    km = KMeans(n_clusters=int(k), n_init=3, random_state=seed).fit(unit)
    labels[majority] = km.labels_ + 1
    return labels


def decomposed(score_function, name: str):
    """The decomposition-based variant of a multi-class scorer ("D-" + its name)."""

    def score(X, y, n_clusters: int | None = None, seed: int = 0, **params) -> np.ndarray:
        return score_function(X, pseudo_labels(X, y, n_clusters, seed), **params)

    score.base = score_function
    score.__name__ = f"d_{name}_score"
    score.__doc__ = (
        f"Decomposition-based {name} (Yin et al. 2013, section 4): the {name} "
        "score against pseudo-labels from :func:`pseudo_labels` (minority whole, "
        "majority split by k-means; ``n_clusters``, ``seed``)."
    )
    return score


def decomposed_spec(base: MethodSpec) -> MethodSpec:
    """The decomposition-based variant of a ranker (Yin et al. 2013, section 4)."""
    return MethodSpec(
        "d-" + base.name,
        "D-" + base.label,
        YIN + ", section 4" + SECTION_44,
        RANKER,
        base.score + ", against the majority's k-means pseudo-classes",
        parameters={
            **base.parameters,
            "n_clusters": Int(
                None,
                "k-means clusters of the majority class",
                label="Clusters",
                low=1,
                none=True,
                flag="clusters",
                none_text="majority / minority, rounded half up",
                source="Yin et al. 2013, section 4",
            ),
            "seed": Int(0, "seed of k-means", label="k-means seed", low=0, source="ours"),
        },
        parametric=base.parametric,
    )
