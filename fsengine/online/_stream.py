"""The streaming interface shared by every online selector.

An online selector receives one feature at a time (its values and name) through
``step`` and returns an event: what it decided and the state after the step. A
run over a matrix is a loop over steps in some feature order; the CLI, the tests,
the benchmark and the dashboard's animation all consume the same events.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Iterator, Sequence

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


def binary_labels(y) -> np.ndarray:
    """Check that ``y`` is a 0/1 vector with both classes and return it as int8."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise FSEngineError(f"labels must be one-dimensional, got shape {y.shape}")
    values = set(np.unique(y).tolist())
    if not values <= {0, 1}:
        raise FSEngineError(
            "labels must be binary: 1 for the minority class, 0 for the rest "
            f"(got values {sorted(values)[:5]}); binarise with Dataset.binarise(minority)")
    if values != {0, 1}:
        raise FSEngineError("labels must contain both classes (1 = minority, 0 = rest)")
    return y.astype(np.int8)


class StreamingSelector(ABC):
    """Base of the online selectors: labels, input checks, ``step`` and the selected set.

    A subclass implements ``_step_block(block, names, columns)``, which decides on
    the columns of a checked block in arrival order, ``finish`` and ``params``.

    Parameters
    ----------
    y : array of {0, 1}, shape (n_samples,)
        Class labels, 1 = the minority class, 0 = the rest.

    Attributes
    ----------
    score_rejections : bool
        True (default): every event reports the scores the method computed. A run that
        only needs the final selection sets it to False, and a selector may then skip
        scores that decide nothing (K-OFSD stops a set test once the feature cannot be
        added; the event then reports NaN). The selection is the same.
    """

    method = ""

    def __init__(self, y):
        self.y = binary_labels(y)
        self.score_rejections = True
        self.n_seen = 0
        self._selected_names: tuple[str, ...] = ()
        self._selected_columns: tuple[int, ...] = ()

    @property
    def selected(self) -> tuple[str, ...]:
        """Names of the currently selected features, in selection order."""
        return self._selected_names

    @property
    def selected_columns(self) -> tuple[int, ...]:
        """Column indices of the currently selected features."""
        return self._selected_columns

    @property
    @abstractmethod
    def params(self) -> dict:
        """Every parameter in effect, defaults included (JSON-ready)."""

    @abstractmethod
    def finish(self) -> Selection:
        """The final selection after the last feature."""

    def _set_selected(self, names, columns) -> None:
        self._selected_names = tuple(names)
        self._selected_columns = tuple(columns)

    def step(self, values, name: str | None = None, column: int | None = None) -> StreamEvent:
        """Receive the next feature and decide on it.

        Parameters
        ----------
        values : array, shape (n_samples,)
            The feature's value for every sample, in the order of ``y``.
        name : str, optional
            The feature's name (default: its arrival position).
        column : int, optional
            Its column index in the source matrix (default: arrival position).

        Returns
        -------
        StreamEvent
            The method's event subclass.
        """
        values = np.asarray(values, dtype=float)
        if values.ndim != 1:
            raise FSEngineError(f"a feature must be one-dimensional, got shape {values.shape}")
        position = self.n_seen
        name = str(position) if name is None else name
        column = position if column is None else column
        return self.step_many(values[:, None], [name], [column])[0]

    def step_many(self, block, names: Sequence[str], columns: Sequence[int]) -> list[StreamEvent]:
        """Receive several features in arrival order; same events as repeated ``step``.

        Parameters
        ----------
        block : ndarray, shape (n_samples, b)
        names : sequence of str, length b
        columns : sequence of int, length b

        Returns
        -------
        list of StreamEvent
        """
        block = self._checked_block(block, names)
        if len(columns) != block.shape[1]:
            raise FSEngineError(f"{block.shape[1]} features but {len(columns)} column indices")
        return self._step_block(block, list(names), [int(c) for c in columns])

    @abstractmethod
    def _step_block(self, block: np.ndarray, names: list[str],
                    columns: list[int]) -> list[StreamEvent]:
        """Decide on the columns of a checked block, in arrival order."""

    def _step_block_quiet(self, block: np.ndarray, names: list[str], columns: list[int]) -> None:
        """:meth:`_step_block` when no event is wanted (a selector may skip their work)."""
        self._step_block(block, names, columns)

    def _checked_block(self, block, names: Sequence[str] | None = None) -> np.ndarray:
        block = np.asarray(block, dtype=float)
        if block.ndim != 2 or block.shape[0] != len(self.y):
            raise FSEngineError(f"expected {len(self.y)} values per feature (one per sample), "
                                f"got an array of shape {block.shape}")
        if names is not None and len(names) != block.shape[1]:
            raise FSEngineError(f"{block.shape[1]} features but {len(names)} names")
        finite = np.isfinite(block)
        if not finite.all():
            row, col = np.argwhere(~finite)[0]
            label = names[col] if names is not None else col
            raise FSEngineError(f"feature {label!r} has a missing or infinite value at row {row + 1}")
        return block


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


def stream_events(selector: "StreamingSelector", X: np.ndarray, names: Sequence[str],
                  order: np.ndarray | None = None, chunk: int = 256) -> Iterator[StreamEvent]:
    """Stream the columns of ``X`` into ``selector`` and yield one event per feature.

    Parameters
    ----------
    selector : StreamingSelector
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
    for block, block_names, cols in _blocks(X, names, order, chunk):
        yield from selector.step_many(block, block_names, cols)


def _blocks(X: np.ndarray, names: Sequence[str], order: np.ndarray | None, chunk: int):
    """(block of columns, their names, their indices) in arrival order, ``chunk`` at a time."""
    if order is None:
        order = np.arange(X.shape[1])
    if len(order) == 0:
        raise FSEngineError("the feature order is empty: there is no feature to stream")
    from fsengine.online._compiled import plan
    plan(X.shape[0] * X.shape[0] * len(order))         # N x N per feature at the most
    for lo in range(0, len(order), chunk):
        cols = np.asarray(order[lo:lo + chunk])
        consecutive = cols[-1] - cols[0] == len(cols) - 1 and np.all(np.diff(cols) == 1)
        block = X[:, cols[0]:cols[-1] + 1] if consecutive else X[:, cols]   # a view if it can
        yield block, [names[c] for c in cols], cols.tolist()


#: Values handed to a selector at once by :func:`stream_selection` (at least 256 features):
#: whole blocks let the kernels split a block's features over the cores.
QUIET_BLOCK_ELEMENTS = 1_000_000


def stream_selection(selector: "StreamingSelector", X: np.ndarray, names: Sequence[str],
                     order: np.ndarray | None = None, chunk: int | None = None) -> Selection:
    """Stream the columns of ``X`` into ``selector`` keeping no events; its final selection.

    The same decisions as :func:`stream_events` (the selector may skip work that only
    events report: K-OFSD stops a set test once the feature cannot be added).

    Parameters
    ----------
    selector, X, names, order
        As in :func:`stream_events`.
    chunk : int, optional
        Features per block (default: about QUIET_BLOCK_ELEMENTS values, at least 256);
        the selection does not depend on it.

    Returns
    -------
    Selection
        ``selector.finish()``.
    """
    if chunk is None:
        chunk = max(256, QUIET_BLOCK_ELEMENTS // max(X.shape[0], 1))
    for block, block_names, cols in _blocks(X, names, order, chunk):
        selector._step_block_quiet(selector._checked_block(block, block_names), block_names, cols)
    return selector.finish()
