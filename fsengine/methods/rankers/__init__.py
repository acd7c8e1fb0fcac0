"""Filter rankers: score every feature against the class, keep the best.

Each ranker is a function ``score(X, y, **params) -> ndarray`` (one score per
feature, higher is better, never NaN) with its specification beside it in its module;
:data:`RANKER_TABLE` pairs them for the registry (:mod:`fsengine.methods.registry`), and
:class:`fsengine.sklearn.RankerSelector` wraps any of them as a scikit-learn selector.
"""

from __future__ import annotations

import numpy as np

from fsengine._compute.cluster import map_column_blocks
from fsengine._compute.sparse import (
    as_columns,
    by_column_blocks,
    by_columns,
    by_stored_blocks,
    densified,
    is_backed,
)
from fsengine.errors import FSEngineError
from fsengine.methods.rankers._basic import (
    FISHER,
    HELLINGER,
    PCC,
    S2N,
    fisher_score,
    hellinger_score,
    pcc_score,
    s2n_score,
)
from fsengine.methods.rankers._decomposition import (
    decomposed,
    decomposed_spec,
    default_clusters,
    pseudo_labels,
)
from fsengine.methods.rankers._markers import (
    WELCH,
    WILCOXON,
    marker_table,
    welch_score,
    wilcoxon_score,
)
from fsengine.methods.rankers._mi import ESTIMATORS, MI, mi_score
from fsengine.methods.rankers._relieff import RELIEFF, relieff_score

d_fisher_score = decomposed(fisher_score, "Fisher")
d_mi_score = decomposed(mi_score, "MI")
d_pcc_score = decomposed(pcc_score, "PCC")
d_s2n_score = decomposed(s2n_score, "S2N")

#: Every ranker: its specification and its score function ``score(X, y, **params)``.
RANKER_TABLE = [
    (FISHER, fisher_score),
    (S2N, s2n_score),
    (PCC, pcc_score),
    (MI, mi_score),
    (RELIEFF, relieff_score),
    (HELLINGER, hellinger_score),
    (WELCH, welch_score),
    (WILCOXON, wilcoxon_score),
    (decomposed_spec(FISHER), d_fisher_score),
    (decomposed_spec(MI), d_mi_score),
    (decomposed_spec(PCC), d_pcc_score),
    (decomposed_spec(S2N), d_s2n_score),
]
#: The rankers whose score function also takes a CSC block: a sparse matrix is scored as
#: it is stored, its non-zeros only (:func:`fsengine._compute.sparse.by_stored_blocks`;
#: Fisher with more than two classes makes dense blocks of it itself).
STORED_BLOCK_RANKERS = ("welch", "wilcoxon", "fisher", "s2n")
#: The rankers that read a CSR file on disk a band of rows at a time (no column copy).
ROW_BAND_RANKERS = ("welch",)
#: Rankers by their command-line name: their score functions and their specifications.
RANKERS = {spec.name: function for spec, function in RANKER_TABLE}
RANKER_SPECS = {spec.name: spec for spec, _ in RANKER_TABLE}


def rank_features(scores: np.ndarray) -> np.ndarray:
    """Feature indices by descending score, ties to the lower index."""
    return np.argsort(-np.asarray(scores, dtype=float), kind="stable")


def _block_scores(block: np.ndarray, method: str, y: np.ndarray, values: dict) -> np.ndarray:
    """On a Dask worker: the ranker ``method``'s scores of the columns of ``block``."""
    return RANKERS[method](block, y, **values)


def _columnwise_names() -> str:
    return ", ".join(name for name, spec in RANKER_SPECS.items() if spec.columnwise)


def score_matrix(method: str, X, y, values: dict, client=None) -> np.ndarray:
    """The ranker ``method``'s scores of the columns of ``X`` (dense, scipy sparse, or on
    disk), with its checked parameters ``values``.

    A sparse matrix, or one on disk, is scored a block of columns at a time by a columnwise
    ranker
    (:attr:`fsengine.spec.MethodSpec.columnwise`: the same scores as on the dense matrix,
    without it), and made dense for the others when it fits in memory. With a Dask
    ``client``, a columnwise ranker scores the blocks on its workers
    (:func:`fsengine._compute.cluster.map_column_blocks`: they read a matrix on disk themselves):
    the same scores.

    Raises
    ------
    FSEngineError
        For a sparse matrix whose dense copy a non-columnwise ranker would need and that
        does not fit in memory, or a non-columnwise ranker with a ``client``.
    """
    function = RANKERS[method]
    if client is not None:
        if not RANKER_SPECS[method].columnwise:
            raise FSEngineError(
                f"{method} scores a gene with the others' values, so it does not run over "
                f"gene blocks on Dask; rankers that do: {_columnwise_names()}"
            )
        X = as_columns(X) if by_columns(X) else np.asarray(X, dtype=float)
        tasks = map_column_blocks(client, _block_scores, X, method, np.asarray(y), values)
        return np.concatenate(client.gather(tasks.futures))
    if not by_columns(X):
        return function(X, y, **values)
    if method in ROW_BAND_RANKERS and is_backed(X) and X.reads_rows():
        return function(X, y, **values)  # a CSR file by bands of rows: no column copy
    if method in STORED_BLOCK_RANKERS:
        return by_stored_blocks(lambda block: function(block, y, **values), X)
    X = as_columns(X)
    if RANKER_SPECS[method].columnwise:
        return by_column_blocks(lambda block: function(block, y, **values), X)
    try:
        dense = densified(X, "the matrix on disk" if is_backed(X) else "the sparse matrix")
    except FSEngineError as exc:
        raise FSEngineError(
            f"{exc.describe()}; {method} scores a gene with the others' values and needs "
            f"it dense: use a ranker that scores each gene alone ({_columnwise_names()}) or an "
            "online selector"
        ) from None
    return function(dense, y, **values)


def score_features(method: str, X, y, **params) -> np.ndarray:
    """The ranker ``method``'s score of every column of X for binary labels y, its
    parameters checked by its specification first (as the registry's
    :meth:`fsengine.methods.registry.Method.scores`, which the pages and commands use).

    Raises
    ------
    FSEngineError
        For an unknown ranker, or a parameter it does not take or out of its range.
    """
    if method not in RANKERS:
        raise FSEngineError(f"unknown ranker {method!r}; choose one of {', '.join(RANKERS)}")
    values = RANKER_SPECS[method].check(params, n_samples=len(y))
    return score_matrix(method, X, y, values)


__all__ = [
    "ESTIMATORS",
    "RANKERS",
    "RANKER_SPECS",
    "RANKER_TABLE",
    "d_fisher_score",
    "d_mi_score",
    "d_pcc_score",
    "d_s2n_score",
    "default_clusters",
    "fisher_score",
    "hellinger_score",
    "marker_table",
    "mi_score",
    "pcc_score",
    "pseudo_labels",
    "rank_features",
    "relieff_score",
    "s2n_score",
    "score_features",
    "score_matrix",
    "welch_score",
    "wilcoxon_score",
]
