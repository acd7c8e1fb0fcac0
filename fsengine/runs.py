"""One entry point that runs a selection method on a data set.

The command line and the app both call :func:`run_selection`, so the numbers they
show and export come from the same code path.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass

import numpy as np

from fsengine.data import Dataset
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.rankers import RANKERS, default_clusters, rank_features, score_features
from fsengine.online import (CIEOSFS, KOFSD, OFSFPD, Selection, StreamEvent, feature_order,
                             stream_events, stream_selection)

#: Online methods and their selector classes; later methods register here.
ONLINE_METHODS = {"kofsd": KOFSD, "ofs-fpd": OFSFPD, "cie-osfs": CIEOSFS}
#: Every method name: online selectors, then rankers.
METHODS = (*ONLINE_METHODS, *RANKERS)


@dataclass(frozen=True)
class RunResult:
    """A finished run: the selection, every step's event and what produced them.

    Attributes
    ----------
    selection : Selection
    events : list of StreamEvent
    params : dict
        Method, data set, minority class and every parameter, as strings and
        numbers (JSON-ready): enough to repeat the run.
    seconds : float
        Wall-clock time of the stream or the ranking.
    scores : ndarray or None
        Every feature's score, for rankers (None for online selectors).
    """

    selection: Selection
    events: list[StreamEvent]
    params: dict
    seconds: float
    scores: np.ndarray | None = None


def make_online_selector(method: str, y, **params):
    """Build the online selector ``method`` for binary labels ``y`` (1 = minority)."""
    try:
        cls = ONLINE_METHODS[method]
    except KeyError:
        raise FSEngineError(f"unknown method {method!r}; choose one of "
                            f"{', '.join(METHODS)}") from None
    try:
        return cls(y, **params)
    except TypeError as exc:                     # a parameter this selector does not take
        raise FSEngineError(f"{method}: {exc}") from None


def ranker_defaults(method: str) -> dict:
    """The parameters a ranker takes and their defaults (decomposition ones included)."""
    function = RANKERS[method]
    defaults = {}
    for fn in (getattr(function, "base", None), function):
        if fn is None:
            continue
        for name, parameter in inspect.signature(fn).parameters.items():
            if parameter.default is not inspect.Parameter.empty:
                defaults[name] = parameter.default
    return defaults


def run_ranking(dataset: Dataset, minority, method: str, *, top: int | None = None,
                seed: int | None = None, **params) -> RunResult:
    """Score every feature of ``dataset`` with the ranker ``method`` and keep the top ones.

    Parameters
    ----------
    dataset : Dataset
    minority : label or str
        The class to select for (one versus rest).
    method : str
        A key of :data:`fsengine.rankers.RANKERS`.
    top : int, optional
        Number of features in the selection (default: all, in rank order).
    seed : int, optional
        Seed of k-means for the decomposition rankers (default 0).
    **params
        The ranker's parameters.

    Returns
    -------
    RunResult
        ``events`` is empty; ``scores`` holds every feature's score.
    """
    label = dataset.resolve_class(minority)
    y = dataset.binarise(label)
    if top is not None and not is_integer_in(top, 1, dataset.n_features):
        raise FSEngineError(f"--top must be an integer from 1 to {dataset.n_features} (the "
                            f"number of features), got {top!r}")
    defaults = ranker_defaults(method)
    if seed is not None:
        if "seed" not in defaults:
            raise FSEngineError(f"{method} takes no seed (only the decomposition rankers, "
                                "d-*, use one, for k-means)")
        params["seed"] = seed
    unknown = set(params) - set(defaults)
    if unknown:
        raise FSEngineError(f"{method} takes no parameter {', '.join(sorted(unknown))}")
    start = time.perf_counter()
    scores = score_features(method, dataset.X, y, **params)
    seconds = time.perf_counter() - start
    ranking = rank_features(scores)[:top]
    effective = {**defaults, **params}
    if effective.get("n_clusters", 0) is None:
        effective["n_clusters"] = default_clusters(y)
    selection = Selection(method, tuple(dataset.feature_names[j] for j in ranking),
                          tuple(int(j) for j in ranking), tuple(float(scores[j]) for j in ranking),
                          "ranked by descending score")
    record = {"method": method, "data": dataset.source, "label_column": dataset.label_column,
              "minority": label, "top": top, **effective}
    return RunResult(selection, [], record, seconds, scores)


def run_selection(dataset: Dataset, minority, method: str = "kofsd", *, order: str = "natural",
                  seed: int | None = None, top: int | None = None, events: bool = True,
                  **params) -> RunResult:
    """Binarise ``dataset`` for ``minority`` and select features with ``method``.

    Online methods stream the features (``order``, ``seed``); rankers score them all
    and keep the ``top`` (see :func:`run_ranking`; ``seed`` seeds their k-means).

    Parameters
    ----------
    dataset : Dataset
    minority : label or str
        The class to select for (one versus rest).
    method : str
        A key of :data:`ONLINE_METHODS` or of :data:`fsengine.rankers.RANKERS`.
    order : {"natural", "random"}
        Feature arrival order.
    seed : int, optional
        Seed of the random order.
    events : bool, default True
        Keep the online method's events (a trace). False returns no events and lets the
        selector skip work only events need (:func:`fsengine.online.stream_selection`):
        the same selection, sooner.
    **params
        The method's parameters (for K-OFSD: k, alpha, card, variant, metric,
        gamma, gamma1, gamma2).

    Returns
    -------
    RunResult
    """
    if method in RANKERS:
        if order != "natural":
            raise FSEngineError(f"{method} is a ranker: it scores all features at once, so a "
                                "feature order does not apply")
        return run_ranking(dataset, minority, method, top=top, seed=seed, **params)
    if top is not None:
        raise FSEngineError(f"--top applies to rankers; {method} decides how many features to keep")
    label = dataset.resolve_class(minority)
    y = dataset.binarise(label)
    selector = make_online_selector(method, y, **params)
    arrival = feature_order(dataset.n_features, order, seed)
    start = time.perf_counter()
    if events:
        kept = list(stream_events(selector, dataset.X, dataset.feature_names, arrival))
        selection = selector.finish()
    else:
        kept = []
        selection = stream_selection(selector, dataset.X, dataset.feature_names, arrival)
    seconds = time.perf_counter() - start
    record = {"method": method, "data": dataset.source, "label_column": dataset.label_column,
              "minority": label, "order": order, "seed": seed, **selector.params}
    return RunResult(selection, kept, record, seconds)
