"""scikit-learn selectors over the registry's methods: :class:`OnlineSelector` (any online
method), :class:`KOFSDSelector` (K-OFSD with its parameters as arguments) and
:class:`RankerSelector` (the top k of any ranker).

They sit above the registry (:mod:`fsengine.methods.registry`), which they use to run a method by
name; ``import fsengine`` imports them on first use (scikit-learn loads in about 1 s).
"""

from __future__ import annotations

import inspect
from abc import ABCMeta, abstractmethod

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from fsengine.data.labels import one_versus_rest
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.methods.rankers import rank_features
from fsengine.methods.registry import get_method

__all__ = ["KOFSDSelector", "OnlineSelector", "RankerSelector"]


class _StreamSelectorBase(SelectorMixin, BaseEstimator, metaclass=ABCMeta):
    """fit, the support mask and the fitted attributes shared by the online wrappers."""

    @abstractmethod
    def _method_and_params(self) -> tuple[str, dict]:
        """The online method to run and its parameters, from the constructor's arguments."""

    def fit(self, X, y):
        """Stream the columns of X into the selector; y holds the class labels
        (binarised one versus rest for ``minority``)."""
        X, y = validate_data(self, X, y, dtype=float, accept_sparse=("csr", "csc"))
        method, params = self._method_and_params()
        y01 = one_versus_rest(y, self.minority)
        names = (
            [str(c) for c in self.feature_names_in_]
            if hasattr(self, "feature_names_in_")
            else [str(j) for j in range(X.shape[1])]
        )
        outcome = get_method(method).select(
            X, y01, names, params=params, order=self.order, seed=self.seed, events=True
        )
        self.selection_ = outcome.selection
        self.events_ = outcome.events
        self.selected_indices_ = np.array(outcome.selection.columns, dtype=int)
        scores = np.empty(X.shape[1])
        for event in outcome.events:
            scores[event.column] = event.score
        self.scores_ = scores
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "selected_indices_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_indices_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True  # streamed a block of columns at a time
        return tags


class OnlineSelector(_StreamSelectorBase):
    """scikit-learn selector running any online method over the columns of X.

    Parameters
    ----------
    method : str, default "kofsd"
        An online method (``python -m fsengine methods``).
    params : dict, optional
        Its parameters (the rest take their defaults), e.g. ``{"k": 5}``.
    minority : label, optional
        The class to select for; default: :func:`fsengine.data.labels.default_minority` (the
        smallest class the 50/50 comparison can use, ties to the first in label order).
    order : {"natural", "random"}, default "natural"
        Arrival order of the columns.
    seed : int, optional
        Seed of the random order.

    Attributes
    ----------
    selection_ : Selection
    selected_indices_ : ndarray of int
        Selected columns, in the selector's order.
    scores_ : ndarray, shape (n_features,)
        Every column's score as its event reported it (K-OFSD: its dependency alone).
    events_ : list of StreamEvent
    """

    def __init__(self, method="kofsd", params=None, minority=None, order="natural", seed=None):
        self.method = method
        self.params = params
        self.minority = minority
        self.order = order
        self.seed = seed

    def _method_and_params(self):
        if not get_method(self.method).online:
            raise FSEngineError(
                f"{self.method} is a ranker: use RankerSelector", parameter="method"
            )
        return self.method, dict(self.params or {})


def _spec_selector(method: str, name: str) -> type:
    """A scikit-learn selector class for ``method`` whose constructor takes the method's
    parameters directly (their defaults from its spec), plus minority, order and seed."""
    spec = get_method(method).spec
    own = dict(spec.defaults())
    run = {"minority": None, "order": "natural", "seed": None}

    def __init__(self, **kwargs):
        for key, default in {**own, **run}.items():
            setattr(self, key, kwargs.pop(key, default))
        if kwargs:
            raise TypeError(f"{name} got unexpected parameters {sorted(kwargs)}")

    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [
            inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=v)
            for k, v in {**own, **run}.items()
        ]
    )

    def _method_and_params(self):
        return method, {key: getattr(self, key) for key in own}

    doc = (
        f"scikit-learn selector running {spec.label} over the columns of X: "
        f":class:`OnlineSelector` with ``method={method!r}`` and the method's parameters "
        f"as constructor arguments ({', '.join(own)}), plus minority, order and seed."
    )
    return type(
        name,
        (_StreamSelectorBase,),
        {
            "__init__": __init__,
            "_method_and_params": _method_and_params,
            "__doc__": doc,
            "__module__": __name__,
            "__qualname__": name,
        },
    )


#: K-OFSD as a scikit-learn selector with its parameters as arguments (``KOFSDSelector(k=5)``).
KOFSDSelector = _spec_selector("kofsd", "KOFSDSelector")


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
        X, y = validate_data(self, X, y, dtype=float, accept_sparse=("csr", "csc"))
        if not is_integer_in(self.k, 1, X.shape[1]):
            raise FSEngineError(
                f"k must be an integer from 1 to {X.shape[1]} (the number of "
                f"features), got {self.k!r}"
            )
        y01 = one_versus_rest(y, self.minority)
        ranker = get_method(self.method)
        if ranker.online:
            raise FSEngineError(
                f"{self.method} is an online selector: use OnlineSelector", parameter="method"
            )
        self.scores_ = ranker.scores(X, y01, **(self.params or {}))
        self.ranking_ = rank_features(self.scores_)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # columnwise rankers: a block of columns at a time
        return tags

    def _get_support_mask(self):
        check_is_fitted(self, "scores_")
        mask = np.zeros(len(self.scores_), dtype=bool)
        mask[self.ranking_[: self.k]] = True
        return mask
