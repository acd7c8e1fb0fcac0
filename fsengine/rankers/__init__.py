"""Filter rankers: score every feature against the class, keep the best.

Each ranker is a function ``score(X, y, **params) -> ndarray`` (one score per
feature, higher is better, never NaN) registered in :data:`RANKERS`, and
:class:`RankerSelector` wraps any of them as a scikit-learn selector.
"""

from __future__ import annotations

import numpy as np
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.rankers._basic import fisher_score, hellinger_score, pcc_score, s2n_score
from fsengine.rankers._decomposition import decomposed, default_clusters, pseudo_labels
from fsengine.rankers._mi import ESTIMATORS, mi_score
from fsengine.rankers._relieff import relieff_score

d_fisher_score = decomposed(fisher_score, "Fisher")
d_mi_score = decomposed(mi_score, "MI")
d_pcc_score = decomposed(pcc_score, "PCC")
d_s2n_score = decomposed(s2n_score, "S2N")

#: Rankers by their command-line name.
RANKERS = {
    "fisher": fisher_score, "s2n": s2n_score, "pcc": pcc_score, "mi": mi_score,
    "relieff": relieff_score, "hellinger": hellinger_score, "d-fisher": d_fisher_score,
    "d-mi": d_mi_score, "d-pcc": d_pcc_score, "d-s2n": d_s2n_score,
}


def rank_features(scores: np.ndarray) -> np.ndarray:
    """Feature indices by descending score, ties to the lower index."""
    return np.argsort(-np.asarray(scores, dtype=float), kind="stable")


def score_features(method: str, X, y, **params) -> np.ndarray:
    """Run the ranker ``method`` of :data:`RANKERS` on X and binary labels y."""
    try:
        function = RANKERS[method]
    except KeyError:
        raise FSEngineError(f"unknown ranker {method!r}; choose one of {', '.join(RANKERS)}") from None
    try:
        return function(X, y, **params)
    except TypeError as exc:                     # an option this ranker does not take
        raise FSEngineError(f"{method}: {exc}") from None


def __getattr__(name):
    """RankerSelector is imported on first use (it needs scikit-learn)."""
    if name == "RankerSelector":
        from fsengine.rankers._selector import RankerSelector
        return RankerSelector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
