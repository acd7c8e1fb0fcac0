"""scikit-learn selector over K-OFSD (imported on first use: scikit-learn loads in about 1 s)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from fsengine.labels import one_versus_rest
from fsengine.online._kofsd import run_kofsd


class KOFSDSelector(SelectorMixin, BaseEstimator):
    """scikit-learn selector running K-OFSD over the columns of X.

    Parameters
    ----------
    k, alpha, card, variant, metric, gamma, gamma1, gamma2
        As in :class:`KOFSD`.
    minority : label, optional
        The minority class in ``y``; default: the rarer class of a binary ``y``.
    order : {"natural", "random"}, default "natural"
    seed : int, optional

    Attributes
    ----------
    selection_ : Selection
    selected_indices_ : ndarray of int
        Selected columns, in the selector's order.
    dependencies_ : ndarray, shape (n_features,)
        Single-feature dependency of every column.
    events_ : list of KOFSDEvent
    """

    def __init__(self, k=7, alpha=0.5, card="imbalanced", variant="reference",
                 metric="seuclidean", gamma=0.5, gamma1=0.75, gamma2=0.25, minority=None,
                 order="natural", seed=None):
        self.k = k
        self.alpha = alpha
        self.card = card
        self.variant = variant
        self.metric = metric
        self.gamma = gamma
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.minority = minority
        self.order = order
        self.seed = seed

    def fit(self, X, y):
        """Run K-OFSD over the columns of X; y holds the class labels."""
        X, y = validate_data(self, X, y, dtype=float)
        y01 = one_versus_rest(y, self.minority)
        names = ([str(c) for c in self.feature_names_in_] if hasattr(self, "feature_names_in_")
                 else [str(j) for j in range(X.shape[1])])
        selection, events = run_kofsd(
            X, y01, names, order=self.order, seed=self.seed, k=self.k, alpha=self.alpha,
            card=self.card, variant=self.variant, metric=self.metric, gamma=self.gamma,
            gamma1=self.gamma1, gamma2=self.gamma2)
        self.selection_ = selection
        self.events_ = events
        self.selected_indices_ = np.array(selection.columns, dtype=int)
        deps = np.empty(X.shape[1])
        for event in events:
            deps[event.column] = event.score
        self.dependencies_ = deps
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "selected_indices_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_indices_] = True
        return mask
