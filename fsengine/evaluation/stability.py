"""Stability of a selector to the order in which features arrive.

The CIE-OSFS and OFS-FPD papers claim their selections do not depend on the order
of the stream. :func:`order_stability` runs a selector over R random feature
orders and measures how alike the selected sets are: the mean pairwise Jaccard
index and the mean pairwise Kuncheva index (Kuncheva 2007), which corrects the
overlap for the overlap expected by chance.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fsengine.data.dataset import Dataset
from fsengine.data.task import Task, as_task
from fsengine.errors import FSEngineError, is_integer_in
from fsengine.methods.runs import run_selection

__all__ = ["StabilityResult", "jaccard", "kuncheva", "order_stability", "pairwise_stability"]


def jaccard(a, b) -> float:
    """|A and B| / |A or B|; 1 for two empty sets."""
    a, b = set(a), set(b)
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def kuncheva(a, b, n_features: int) -> float:
    """Kuncheva's consistency index of two subsets of ``n_features`` features.

    ``(r - k_a k_b / n) / (min(k_a, k_b) - k_a k_b / n)`` with r = |A and B|: the
    observed overlap less the overlap expected by chance, over its largest possible
    value. For equal sizes k this is Kuncheva's ``(r n - k^2) / (k (n - k))``; for
    unequal sizes it is the same ratio (observed minus expected over maximum minus
    expected). 1 for identical sets, about 0 for independent random sets; NaN when
    undefined (an empty set, or a set of all n features).
    """
    a, b = set(a), set(b)
    ka, kb, n = len(a), len(b), n_features
    expected = ka * kb / n
    denominator = min(ka, kb) - expected
    if ka == 0 or kb == 0 or denominator <= 0:
        return math.nan
    return (len(a & b) - expected) / denominator


@dataclass(frozen=True)
class StabilityResult:
    """Selections over several feature orders and how alike they are.

    Attributes
    ----------
    method : str
    seeds : tuple of int
        Seed of each random order (see :func:`fsengine.methods.online.feature_order`).
    selections : tuple of tuple of str
        The features each order selected.
    mean_jaccard : float
        Mean over all pairs of orders.
    mean_kuncheva : float
        Mean over the pairs where the index is defined (NaN if none is).
    """

    #: The tag of a stability result in JSON (:mod:`fsengine.export.codec`).
    json_tag = "stability"

    method: str
    seeds: tuple[int, ...]
    selections: tuple[tuple[str, ...], ...]
    mean_jaccard: float
    mean_kuncheva: float

    def to_dict(self) -> dict:
        """The fields; :meth:`from_dict` takes them back (NaN stays a float)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> StabilityResult:
        """The result of :meth:`to_dict`'s fields (after a JSON round trip)."""
        return cls(
            data["method"],
            tuple(data["seeds"]),
            tuple(tuple(s) for s in data["selections"]),
            float(data["mean_jaccard"]),
            float(data["mean_kuncheva"]),
        )

    @property
    def sizes(self) -> tuple[int, ...]:
        """Number of features selected in each order."""
        return tuple(len(s) for s in self.selections)


def pairwise_stability(selections, n_features: int) -> tuple[float, float]:
    """Mean pairwise Jaccard and Kuncheva indices of a list of selected sets.

    Parameters
    ----------
    selections : sequence of sequences
        Each a selected set (names or indices).
    n_features : int
        Number of features the sets were chosen from.

    Returns
    -------
    (mean Jaccard, mean Kuncheva)
    """
    if len(selections) < 2:
        raise FSEngineError("stability needs at least 2 selections to compare")
    pairs = list(itertools.combinations(selections, 2))
    jaccards = [jaccard(a, b) for a, b in pairs]
    kunchevas = [k for a, b in pairs if not math.isnan(k := kuncheva(a, b, n_features))]
    return float(np.mean(jaccards)), float(np.mean(kunchevas)) if kunchevas else math.nan


def order_stability(
    data: Task | Dataset,
    minority=None,
    method: str = "kofsd",
    *,
    orders: int = 10,
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
    **params,
) -> StabilityResult:
    """Run ``method`` over ``orders`` random feature orders and compare the selections.

    Parameters
    ----------
    data : Task or Dataset
        The task (:class:`fsengine.data.task.Task`), or a data set to build it from.
    minority : label or str, optional
        With a data set: the class to select for (one versus rest; default
        :meth:`Dataset.default_minority`). With a task: None or its own class.
    method : str
        An online method of :data:`fsengine.methods.runs.ONLINE_METHODS`.
    orders : int
        Number of random orders R (>= 2); order r uses seed ``seed + r``.
    seed : int
        Seed of the first order.
    progress : callable, optional
        Called as ``progress(done, total, message)`` after each order.
    **params
        The method's parameters.

    Returns
    -------
    StabilityResult
    """
    if not is_integer_in(orders, 2):
        raise FSEngineError(f"the number of orders must be an integer >= 2, got {orders!r}")
    task = as_task(data, minority)
    seeds = tuple(seed + r for r in range(orders))
    selections = []
    for done, s in enumerate(seeds, 1):
        result = run_selection(task, method=method, order="random", seed=s, events=False, **params)
        selections.append(tuple(result.selection.features))
        if progress is not None:
            progress(done, orders, f"order {done}/{orders} (seed {s})")
    selections = tuple(selections)
    mean_j, mean_k = pairwise_stability(selections, task.n_features)
    return StabilityResult(method, seeds, selections, mean_j, mean_k)
