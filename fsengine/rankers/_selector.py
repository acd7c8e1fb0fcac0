"""scikit-learn selector over any ranker (imported on first use: scikit-learn loads in
about 1 s)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from fsengine.errors import FSEngineError, is_integer_in
from fsengine.labels import one_versus_rest
from fsengine.rankers import rank_features


class RankerSelector(SelectorMixin, BaseEstimator):
    """scikit-learn selector keeping the top ``k`` features of a ranker.

    Parameters
    ----------
    method : str, default "fisher"
        A ranker (``python -m fsengine methods``).
    k : int, default 10
        Number of features to keep.
    params : dict, optional
        The ranker's own parameters (e.g. ``{"n_neighbors": 7}`` for ReliefF).
    minority : label, optional
        The class to select for; default: the rarer class of a binary ``y``.

    Attributes
    ----------
    scores_ : ndarray, shape (n_features,)
    ranking_ : ndarray of int
        All features by descending score.
    """

    def __init__(self, method="fisher", k=10, params=None, minority=None):
        self.method = method
        self.k = k
        self.params = params
        self.minority = minority

    def fit(self, X, y):
        """Score every column of X against y (binarised one versus rest)."""
        X, y = validate_data(self, X, y, dtype=float)
        if not is_integer_in(self.k, 1, X.shape[1]):
            raise FSEngineError(
                f"k must be an integer from 1 to {X.shape[1]} (the number of "
                f"features), got {self.k!r}"
            )
        y01 = one_versus_rest(y, self.minority)
        from fsengine.methods import get_method  # the registry imports this package

        ranker = get_method(self.method)
        if ranker.online:
            raise FSEngineError(
                f"{self.method} is an online selector: use OnlineSelector", parameter="method"
            )
        self.scores_ = ranker.scores(X, y01, **(self.params or {}))
        self.ranking_ = rank_features(self.scores_)
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "scores_")
        mask = np.zeros(len(self.scores_), dtype=bool)
        mask[self.ranking_[: self.k]] = True
        return mask
