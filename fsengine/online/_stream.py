"""The streaming interface shared by every online selector.

An online selector receives one feature at a time (its values and name) through
``step`` and returns an event: what it decided and the state after the step. A
run over a matrix is a loop over steps in some feature order; the CLI, the tests,
the benchmark and the dashboard's animation all consume the same events.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Protocol, Sequence

import numpy as np

from fsengine.errors import FSEngineError

ORDERS = ("natural", "random")


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """What one step of an online selector decided.

    Attributes
    ----------
    step : int
        0-based position of the feature in the stream.
    feature : str
        The feature's name.
    column : int
        The feature's 0-based column index in the source matrix.
    score : float
        The method's score of the feature alone (K-OFSD: its dependency).
    action : str
        What the step did (method-specific vocabulary, e.g. "added").
    selected : tuple of str
        The selected set after the step, in selection order.
    selected_columns : tuple of int
        Column indices of ``selected``.
    selected_score : float
        The selected set's own score after the step (K-OFSD: its dependency).
    """

    step: int
    feature: str
    column: int
    score: float
    action: str
    selected: tuple[str, ...]
    selected_columns: tuple[int, ...]
    selected_score: float


@dataclass(frozen=True)
class Selection:
    """The final result of a selector: features in the selector's order.

    Attributes
    ----------
    method : str
        The method's name as used on the command line (e.g. "kofsd").
    features : tuple of str
        Selected feature names, rank 1 first.
    columns : tuple of int
        Their 0-based column indices among the feature columns.
    scores : tuple of float
        The method's score of each feature (K-OFSD: single-feature dependency).
    note : str
        How the order arose, e.g. "stream order" or the reference's fallback.
    """

    method: str
    features: tuple[str, ...]
    columns: tuple[int, ...]
    scores: tuple[float, ...]
    note: str = ""

    def __len__(self) -> int:
        return len(self.features)


class OnlineSelector(Protocol):
    """What every online selector provides."""

    def step(self, values: np.ndarray, name: str | None = None,
             column: int | None = None) -> StreamEvent: ...

    def step_many(self, block: np.ndarray, names: Sequence[str],
                  columns: Sequence[int]) -> list[StreamEvent]: ...

    def finish(self) -> Selection: ...


def feature_order(n_features: int, order: str = "natural", seed: int | None = None) -> np.ndarray:
    """The order in which the columns of a matrix arrive.

    Parameters
    ----------
    n_features : int
        Number of feature columns.
    order : {"natural", "random"}
        Column order, or a random permutation.
    seed : int, optional
        Seed of the permutation (numpy ``default_rng``); the same seed gives the
        same order.

    Returns
    -------
    ndarray of int
        A permutation of ``range(n_features)``.
    """
    if n_features < 1:
        raise FSEngineError("there are no features to stream")
    if order == "natural":
        return np.arange(n_features)
    if order == "random":
        return np.random.default_rng(seed).permutation(n_features)
    raise FSEngineError(f"unknown feature order {order!r}; choose one of {', '.join(ORDERS)}")


def stream_events(selector: OnlineSelector, X: np.ndarray, names: Sequence[str],
                  order: np.ndarray | None = None, chunk: int = 256) -> Iterator[StreamEvent]:
    """Stream the columns of ``X`` into ``selector`` and yield one event per feature.

    Parameters
    ----------
    selector : OnlineSelector
        A fresh selector (its state carries over between calls).
    X : ndarray, shape (n_samples, n_features)
    names : sequence of str
        Feature names, one per column.
    order : ndarray of int, optional
        Arrival order of the columns (default: natural order).
    chunk : int
        Features handed over per ``step_many`` call; events are identical to
        calling ``step`` once per feature.

    Yields
    ------
    StreamEvent
    """
    if order is None:
        order = np.arange(X.shape[1])
    for lo in range(0, len(order), chunk):
        cols = np.asarray(order[lo:lo + chunk])
        block = X[:, cols]
        yield from selector.step_many(block, [names[c] for c in cols], cols.tolist())
