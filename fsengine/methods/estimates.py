"""How long a run will take, said before it starts: per-method cost models and the runs
built on them (a selection, a stream, a comparison, a sweep).

Each method's selection time is modelled as a power law fitted on measured runs
(``benchmarks/bench_estimates.py`` re-measures it and rewrites
:mod:`fsengine.methods._estimates_fit`), one per kind of data::

    log t = b0 + bn log n + bp log p + bk log(K / K0)

with n samples, p features and K the method's neighbourhood size where it has one
(:data:`PARAMETER_TERMS`, K0 its default). The kind of data is what its values make the
methods do (:func:`data_kind`): "dense" (continuous values, most non-zero: microarrays),
"sparse" (mostly zeros: normalised single-cell data) or "counts" (non-negative integers,
:func:`is_counts`: ties everywhere, which cost the neighbourhood selectors dearly).

The time also depends on what the data make the method do (how many features it selects
and tests against each other), which no size measure knows: an estimate is a range,
:class:`Estimate`, whose width is the largest misfit of the kind's measured runs, times
:data:`MACHINE_FACTOR` for another or a busier machine, widened further by
``(size / largest measured size) ** EXTRAPOLATION_EXPONENT`` in each dimension when the
data are larger than anything measured. A fitted exponent of n or p below 0 (noise on runs
of milliseconds) counts as 0: more data never cost less.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fsengine._compute.parallel import resolve_jobs
from fsengine._compute.sparse import is_backed
from fsengine.errors import FSEngineError
from fsengine.methods._estimates_fit import COST_MODELS
from fsengine.methods.registry import get_method

__all__ = [
    "EXTRAPOLATION_EXPONENT",
    "LONG_SECONDS",
    "MACHINE_FACTOR",
    "PARAMETER_TERMS",
    "ZERO",
    "Estimate",
    "data_kind",
    "density_of",
    "duration_text",
    "evaluate_seconds",
    "is_counts",
    "model_key",
    "selection_seconds",
    "stream_seconds",
    "sweep_k_seconds",
    "sweep_top_seconds",
    "sweep_values_seconds",
]

#: A run whose estimate is longer than this many seconds is said to be long: the pages ask
#: before starting it, the command line says it on standard error.
LONG_SECONDS = 60.0
#: The factor a run's time may be off by on another machine, or on this one under load.
MACHINE_FACTOR = 2.0
#: How fast the range widens beyond the measured sizes: per dimension, the ratio of the
#: size to the largest measured one to this power.
EXTRAPOLATION_EXPONENT = 0.25
#: Parameters in the cost model: method -> (parameter, the default it is measured around).
PARAMETER_TERMS: dict[str, tuple[str, int]] = {
    "kofsd": ("k", 7),
    "sfsf": ("k", 7),
    "osfs-et": ("k", 9),
    "relieff": ("n_neighbors", 7),
}


@dataclass(frozen=True)
class Estimate:
    """A duration with its uncertainty, in seconds.

    Attributes
    ----------
    seconds : float
        The model's value.
    low, high : float
        The range the time is expected in (``low <= seconds <= high``).
    """

    seconds: float
    low: float
    high: float

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(self.seconds + other.seconds, self.low + other.low, self.high + other.high)

    def __mul__(self, factor: float) -> Estimate:
        return Estimate(self.seconds * factor, self.low * factor, self.high * factor)

    __rmul__ = __mul__

    @property
    def long(self) -> bool:
        """Whether the run is expected to take longer than :data:`LONG_SECONDS`."""
        return self.seconds > LONG_SECONDS

    def text(self) -> str:
        """ "about 40 s (15 s to 2 min)", "under a second (up to 3 s)", "under a second"."""
        if self.high < 1:
            return "under a second"
        point = "under a second" if self.seconds < 1 else f"about {duration_text(self.seconds)}"
        if self.low < 1:
            return f"{point} (up to {duration_text(self.high)})"
        return f"{point} ({duration_text(self.low)} to {duration_text(self.high)})"


ZERO = Estimate(0.0, 0.0, 0.0)


def duration_text(seconds: float) -> str:
    """A duration in words: "under a second", "8 s", "2 min 10 s", "1 h 5 min", "3 days"."""
    if seconds < 1:
        return "under a second"
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        minutes, rest = divmod(seconds, 60)
        return f"{minutes} min" + (f" {rest} s" if rest and minutes < 10 else "")
    if seconds < 2 * 86400:
        hours, rest = divmod(seconds, 3600)
        return f"{hours} h" + (f" {rest // 60} min" if rest // 60 else "")
    return f"{seconds / 86400:.0f} days"


def density_of(X) -> float:
    """The share of non-zero values of a matrix (dense, scipy sparse or on disk: from its
    profile), at least 1e-3."""
    size = X.shape[0] * X.shape[1]
    if not size:
        return 1.0
    if is_backed(X):
        nonzero = int(X.profile().nonzero.sum())
    else:
        nonzero = X.nnz if hasattr(X, "nnz") else np.count_nonzero(X)
    return max(1e-3, min(1.0, nonzero / size))


def is_counts(X, most: int = 100_000) -> bool:
    """Whether a matrix (dense or scipy sparse) holds non-negative integers (raw counts),
    judged on up to ``most`` of its stored values, evenly spaced; on disk, on all of them
    (its profile)."""
    if is_backed(X):
        profile = X.profile()
        return bool(profile.integers and profile.low.size and profile.low.min() >= 0)
    values = np.asarray(X.data if hasattr(X, "nnz") else X).ravel()
    if not values.size:
        return False
    values = values[:: max(1, values.size // most)]
    return bool(np.all(values >= 0) and np.all(values == np.round(values)))


#: Below this share of non-zero values, data that are not counts are "sparse".
SPARSE_BELOW = 0.5


def data_kind(density: float, counts: bool) -> str:
    """The kind of data of the cost models: "counts", "sparse" or "dense"."""
    if counts:
        return "counts"
    return "sparse" if density < SPARSE_BELOW else "dense"


def model_key(method: str, params: Mapping | None = None) -> str:
    """The cost model of ``method`` with ``params``: its own, or its order-invariant tie
    rule's (``"kofsd:ties=average"``), which costs differently, when it has one."""
    if params and params.get("ties") == "average" and f"{method}:ties=average" in COST_MODELS:
        return f"{method}:ties=average"
    return method


def _model(method: str) -> dict:
    try:
        return COST_MODELS[method]
    except KeyError:
        raise FSEngineError(f"no cost model for the method {method!r}") from None


def selection_seconds(
    method: str,
    n_samples: int,
    n_features: int,
    density: float = 1.0,
    params: Mapping | None = None,
    counts: bool = False,
) -> Estimate:
    """The time of one selection by ``method`` (a whole stream without events, or a
    ranking) on an ``n_samples`` x ``n_features`` matrix.

    Parameters
    ----------
    method : str
        A registered method.
    n_samples, n_features : int
    density : float
        The share of non-zero values (1: dense); with ``counts``, the kind of data
        (:func:`data_kind`).
    params : mapping, optional
        The method's parameters; its :data:`PARAMETER_TERMS` one enters the model, and
        ``ties="average"`` selects that rule's model (:func:`model_key`).
    counts : bool
        The matrix holds counts (:func:`is_counts`).

    Returns
    -------
    Estimate
    """
    model = _model(model_key(method, params))
    kinds = model["kinds"]
    kind = data_kind(density, counts)
    fitted = kinds.get(kind) or kinds.get("dense") or next(iter(kinds.values()))
    b0, bn, bp = fitted["coef"]
    bn, bp = max(bn, 0.0), max(bp, 0.0)  # a noisy fit never makes more data cheaper
    n, p = max(2, int(n_samples)), max(1, int(n_features))
    k_ratio = 1.0
    term = PARAMETER_TERMS.get(method)
    if term is not None and params and params.get(term[0]) is not None:
        k_ratio = max(1e-3, float(params[term[0]]) / term[1])
    log_t = b0 + bn * math.log(n) + bp * math.log(p) + model["bk"] * math.log(k_ratio)
    seconds = math.exp(log_t)
    widen = (max(1.0, n / fitted["max_samples"]) * max(1.0, p / fitted["max_features"])) ** (
        EXTRAPOLATION_EXPONENT
    )
    factor = math.exp(fitted["spread"]) * MACHINE_FACTOR * widen
    return Estimate(seconds, seconds / factor, seconds * factor)


def _ranker(method: str) -> bool:
    return not get_method(method).online


def stream_seconds(
    method: str,
    n_samples: int,
    n_features: int,
    density: float = 1.0,
    params: Mapping | None = None,
    counts: bool = False,
) -> Estimate:
    """The computing time of a dashboard stream: the selector on all samples and its copy
    on a training half (the hold-out G-mean), feature by feature."""
    return selection_seconds(
        method, n_samples, n_features, density, params, counts=counts
    ) + selection_seconds(
        method, max(2, n_samples // 2), n_features, density, params, counts=counts
    )


def _workers(n_jobs: int | None, n_tasks: int) -> int:
    return max(1, min(resolve_jobs(n_jobs), n_tasks))


def evaluate_seconds(
    n_samples: int,
    n_features: int,
    methods: Sequence[str],
    *,
    density: float = 1.0,
    counts: bool = False,
    params: Mapping | None = None,
    n_splits: int = 20,
    top: int | None = None,
    count_from: str = "kofsd",
    n_jobs: int | None = None,
    whole_data: bool = True,
) -> Estimate:
    """The time of :func:`fsengine.evaluation.evaluate` (and, with ``whole_data``, of
    :func:`fsengine.evaluation.whole_data_runs` after it, as the Compare page runs them).

    Each of ``n_splits`` splits runs every method on a training half and scores it on the
    test half; the splits share ``n_jobs`` processes (default: every core). The rankers'
    count comes from ``count_from`` when ``top`` is None (run for it if not compared).
    """
    params = params or {}
    n_train = max(2, n_samples // 2)
    methods = list(methods)
    rankers = [m for m in methods if _ranker(m)]
    counted = list(methods)
    if rankers and top is None and count_from not in methods:
        counted.append(count_from)
    split = ZERO
    for method in counted:
        split = split + selection_seconds(
            method, n_train, n_features, density, params.get(method), counts=counts
        )
    split = split + len(methods) * selection_seconds("_scoring", n_samples, 10)
    total = split * (n_splits / _workers(n_jobs, n_splits))
    if whole_data:
        for method in counted:
            total = total + selection_seconds(
                method, n_samples, n_features, density, params.get(method), counts=counts
            )
    return total


def sweep_values_seconds(
    n_samples: int,
    n_features: int,
    method: str,
    parameter: str,
    values: Sequence,
    *,
    density: float = 1.0,
    counts: bool = False,
    params: Mapping | None = None,
    n_splits: int = 20,
    n_jobs: int | None = None,
) -> Estimate:
    """The time of :func:`fsengine.evaluation.sweep_values`: ``method`` with each of
    ``values`` of ``parameter`` on every split, each selection scored."""
    n_train = max(2, n_samples // 2)
    split = ZERO
    for value in values:
        split = split + selection_seconds(
            method,
            n_train,
            n_features,
            density,
            {**(params or {}), parameter: value},
            counts=counts,
        )
        split = split + selection_seconds("_scoring", n_samples, 10)
    return split * (n_splits / _workers(n_jobs, n_splits))


def sweep_top_seconds(
    n_samples: int,
    n_features: int,
    methods: Sequence[str],
    tops: Sequence[int],
    *,
    density: float = 1.0,
    counts: bool = False,
    params: Mapping | None = None,
    n_splits: int = 20,
    n_jobs: int | None = None,
) -> Estimate:
    """The time of :func:`fsengine.evaluation.sweep_top`: every ranker once per split,
    scored at each of ``tops``."""
    params = params or {}
    n_train = max(2, n_samples // 2)
    split = ZERO
    for method in methods:
        split = split + selection_seconds(
            method, n_train, n_features, density, params.get(method), counts=counts
        )
        split = split + len(tops) * selection_seconds("_scoring", n_samples, 10)
    return split * (n_splits / _workers(n_jobs, n_splits))


def sweep_k_seconds(
    n_samples: int,
    n_features: int,
    ks: Sequence[int],
    *,
    density: float = 1.0,
    counts: bool = False,
    params: Mapping | None = None,
    n_splits: int = 20,
    n_jobs: int | None = None,
) -> Estimate:
    """The time of :func:`fsengine.evaluation.sweep_k`: one K-OFSD pass per split serves
    every K (its neighbourhoods sorted once), at the cost of the largest K; each K's
    selection is scored."""
    n_train = max(2, n_samples // 2)
    params = {**(params or {}), "k": max(ks)}
    split = selection_seconds("kofsd", n_train, n_features, density, params, counts=counts) + len(
        ks
    ) * selection_seconds("_scoring", n_samples, 10)
    return split * (n_splits / _workers(n_jobs, n_splits))
