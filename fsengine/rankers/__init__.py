"""Filter rankers: score every feature against the class, keep the best.

Each ranker is a function ``score(X, y, **params) -> ndarray`` (one score per
feature, higher is better, never NaN) registered in :data:`RANKERS`, and
:class:`fsengine.sklearn.RankerSelector` wraps any of them as a scikit-learn selector.
"""

from __future__ import annotations

import numpy as np

from fsengine.errors import FSEngineError
from fsengine.rankers._basic import fisher_score, hellinger_score, pcc_score, s2n_score
from fsengine.rankers._decomposition import decomposed, default_clusters, pseudo_labels
from fsengine.rankers._mi import ESTIMATORS, mi_score
from fsengine.rankers._relieff import relieff_score
from fsengine.spec import RANKER, Bool, Choice, Int, MethodSpec

d_fisher_score = decomposed(fisher_score, "Fisher")
d_mi_score = decomposed(mi_score, "MI")
d_pcc_score = decomposed(pcc_score, "PCC")
d_s2n_score = decomposed(s2n_score, "S2N")

_YIN = (
    "Yin, Ge, Xiao, Wang, Quan. Feature selection for high-dimensional imbalanced "
    "data. Neurocomputing 105 (2013)"
)
_SECTION_44 = "; as compared in the K-OFSD paper, section 4.4"
_BINS = Int(
    10,
    "bins per feature",
    label="Bins",
    low=2,
    ui_high=30,
    source="ours (the paper does not give the number)",
)
_MI_PARAMETERS = {
    "estimator": Choice(
        "knn",
        "MI estimator",
        label="Estimator",
        source="ours (the paper does not say)",
        choices={
            "knn": "Ross's nearest-neighbour estimator (scikit-learn's)",
            "binned": "plug-in estimate on binned values",
        },
    ),
    "n_neighbors": Int(
        3,
        "neighbours of the kNN estimator",
        label="Neighbours",
        low=1,
        flag="neighbors",
        ui_high=15,
        source="scikit-learn's default",
    ),
    "bins": _BINS,
    "binning": Choice(
        "quantile",
        "bins of the binned estimator",
        label="Binning",
        source="ours",
        choices={"quantile": "equal-frequency bins", "uniform": "equal-width bins"},
    ),
    "tie_noise": Bool(
        True,
        "add scikit-learn's tiny noise to break ties (kNN estimator)",
        label="Tie noise",
        source="scikit-learn mutual_info_classif",
    ),
}

FISHER = MethodSpec(
    "fisher",
    "Fisher",
    _YIN + ", eqs. 5-9" + _SECTION_44,
    RANKER,
    "Fisher score: between-class over within-class scatter",
)
S2N = MethodSpec(
    "s2n",
    "S2N",
    "Golub et al. Molecular classification of cancer. Science 286 (1999)" + _SECTION_44,
    RANKER,
    "signal-to-noise ratio |mean_1 - mean_0| / (sd_1 + sd_0)",
)
PCC = MethodSpec(
    "pcc",
    "PCC",
    _YIN + ", eq. 2" + _SECTION_44,
    RANKER,
    "|Pearson correlation| of the feature with the class",
)
MI = MethodSpec(
    "mi",
    "MI",
    _YIN + ", section 2" + _SECTION_44,
    RANKER,
    "mutual information of the feature and the class, nats",
    parameters=_MI_PARAMETERS,
)
RELIEFF = MethodSpec(
    "relieff",
    "ReliefF",
    "Kononenko 1994; Robnik-Sikonja and Kononenko, Machine Learning 53 (2003)" + _SECTION_44,
    RANKER,
    "ReliefF weight: nearer hits than misses score higher",
    parameters={
        "n_neighbors": Int(
            7,
            "nearest hits and misses per sample",
            label="Neighbours",
            low=1,
            flag="neighbors",
            ui_high=15,
            source="the K-OFSD paper's setting",
        )
    },
)
HELLINGER = MethodSpec(
    "hellinger",
    "Hellinger",
    _YIN + ", eq. 12",
    RANKER,
    "Hellinger distance between the two classes' histograms",
    parameters={"bins": _BINS},
)


def _decomposed_spec(base: MethodSpec) -> MethodSpec:
    """The decomposition-based variant of a ranker (Yin et al. 2013, section 4)."""
    return MethodSpec(
        "d-" + base.name,
        "D-" + base.label,
        _YIN + ", section 4" + _SECTION_44,
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
    )


#: Every ranker: its specification and its score function ``score(X, y, **params)``.
RANKER_TABLE = [
    (FISHER, fisher_score),
    (S2N, s2n_score),
    (PCC, pcc_score),
    (MI, mi_score),
    (RELIEFF, relieff_score),
    (HELLINGER, hellinger_score),
    (_decomposed_spec(FISHER), d_fisher_score),
    (_decomposed_spec(MI), d_mi_score),
    (_decomposed_spec(PCC), d_pcc_score),
    (_decomposed_spec(S2N), d_s2n_score),
]
#: Rankers by their command-line name.
RANKERS = {spec.name: function for spec, function in RANKER_TABLE}


def rank_features(scores: np.ndarray) -> np.ndarray:
    """Feature indices by descending score, ties to the lower index."""
    return np.argsort(-np.asarray(scores, dtype=float), kind="stable")


def score_features(method: str, X, y, **params) -> np.ndarray:
    """Run the ranker ``method`` of :data:`RANKERS` on X and binary labels y."""
    try:
        function = RANKERS[method]
    except KeyError:
        raise FSEngineError(
            f"unknown ranker {method!r}; choose one of {', '.join(RANKERS)}"
        ) from None
    try:
        return function(X, y, **params)
    except TypeError as exc:  # an option this ranker does not take
        raise FSEngineError(f"{method}: {exc}") from None


def __getattr__(name):
    """``fsengine.rankers.RankerSelector``, a deprecated alias of
    :class:`fsengine.sklearn.RankerSelector` (also ``fsengine.RankerSelector``): 0.1's
    import path, removed in 0.3; an import upwards that the layer test allows by name."""
    if name == "RankerSelector":
        import warnings

        warnings.warn(
            "fsengine.rankers.RankerSelector moved to fsengine.sklearn.RankerSelector (also "
            "fsengine.RankerSelector); the old path goes in fsengine 0.3",
            DeprecationWarning,
            stacklevel=2,
        )
        from fsengine.sklearn import RankerSelector

        globals()[name] = RankerSelector  # warned once
        return RankerSelector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ESTIMATORS",
    "RANKERS",
    "RANKER_TABLE",
    "d_fisher_score",
    "d_mi_score",
    "d_pcc_score",
    "d_s2n_score",
    "default_clusters",
    "fisher_score",
    "hellinger_score",
    "mi_score",
    "pcc_score",
    "pseudo_labels",
    "rank_features",
    "relieff_score",
    "s2n_score",
    "score_features",
]
