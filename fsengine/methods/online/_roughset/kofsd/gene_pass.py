"""K-OFSD's gene-parallel pass on a Dask cluster.

The work on each feature that does not depend on the selected set (its distance weight and
its dependency alone, hence the alpha filter) runs over blocks of columns on the workers,
which read their blocks themselves when the matrix is on disk
(:class:`fsengine.io.backed.BackedColumns` pickles as its path); the set tests then run here,
on the client, in stream order, on the columns that pass the alpha filter only. Each
feature's dependency is computed from its own column alone, so the selection is the one of
:func:`fsengine.methods.online._stream.stream_selection`, bit for bit, on any number of workers.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from fsengine._compute.budget import plan
from fsengine._compute.cluster import map_column_blocks
from fsengine._compute.sparse import as_columns, block_width, by_columns, dense_block
from fsengine.errors import FSEngineError
from fsengine.methods.online._roughset.kofsd.selector import KOFSD
from fsengine.methods.online._stream import QUIET_BLOCK_ELEMENTS, Selection, StreamingSelector


@dataclass(frozen=True)
class GenePass:
    """Each feature's values that do not depend on the selected set, in column order.

    Attributes
    ----------
    weights : ndarray, shape (n_features,)
        The distance weight of each column (:meth:`KOFSD._weights`).
    dependencies : ndarray, shape (n_features,)
        Each column's dependency alone (Algorithm 4 on one feature).
    seconds : float
        Wall time of the pass, until its last block was back.
    """

    weights: np.ndarray
    dependencies: np.ndarray
    seconds: float


def _block_values(block: np.ndarray, prototype: KOFSD) -> tuple[np.ndarray, np.ndarray]:
    """On a worker: the block's weights and single dependencies, computed as
    :meth:`KOFSD._step_block` computes them."""
    block = prototype._checked_block(block)
    plan(block.shape[0] * block.shape[0] * block.shape[1])  # the kernels from the start
    weights, deps, _ = prototype._weights_and_singles(block, [prototype.k])
    return weights, deps[0]


def _prototype(selector: StreamingSelector) -> KOFSD:
    """A started, empty copy of ``selector`` to ship to the workers."""
    if not isinstance(selector, KOFSD):
        raise FSEngineError(
            f"the gene-parallel pass on Dask runs K-OFSD (kofsd) and the rankers that score "
            f"each gene alone; {selector.method} runs on this machine only (without Dask)"
        )
    if selector.y is None:
        raise FSEngineError("start(y) the selector before its gene-parallel pass")
    return KOFSD(**selector.get_params()).start(selector.y)


class _PassFutures:
    """The worker tasks of one pass, gathered in column order as they are needed."""

    def __init__(self, client, selector: StreamingSelector, X):
        p = X.shape[1]
        self.start = time.perf_counter()
        self.tasks = map_column_blocks(client, _block_values, X, _prototype(selector))
        self.bounds, self.futures = self.tasks.bounds, self.tasks.futures
        self.weights = np.empty(p)
        self.dependencies = np.empty(p)
        self.gathered = 0  # tasks whose values are in the arrays
        self.seconds = 0.0

    def upto(self, column: int) -> None:
        """Wait for the tasks up to the one of ``column`` (its values are then known)."""
        while self.gathered < len(self.bounds) and self.bounds[self.gathered][0] <= column:
            lo, hi = self.bounds[self.gathered]
            self.weights[lo:hi], self.dependencies[lo:hi] = self.futures[self.gathered].result()
            self.futures[self.gathered] = None  # its result is released on the worker
            self.gathered += 1
            if self.gathered == len(self.bounds):
                self.seconds = time.perf_counter() - self.start


def gene_pass(client, selector: StreamingSelector, X) -> GenePass:
    """Each column's weight and dependency alone, computed over blocks of columns on the
    workers of ``client`` (the first half of :func:`gene_parallel_selection`).

    Parameters
    ----------
    client : distributed.Client
    selector : KOFSD
        Started (its labels and parameters).
    X : ndarray, scipy sparse matrix or BackedColumns, shape (n_samples, n_features)
        A matrix on disk is read by the workers themselves; another is sent a block at a
        time.

    Returns
    -------
    GenePass
    """
    futures = _PassFutures(client, selector, _columns_of(X))
    futures.upto(X.shape[1] - 1)
    return GenePass(futures.weights, futures.dependencies, futures.seconds)


def _columns_of(X):
    return as_columns(X) if by_columns(X) else np.asarray(X, dtype=float)


@dataclass(frozen=True)
class GeneParallelRun:
    """A selection by :func:`gene_parallel_selection` and what it took.

    Attributes
    ----------
    selection : Selection
    dependencies : ndarray, shape (n_features,)
        Each column's dependency alone, in column order.
    pass_seconds : float
        Wall time of the gene-parallel pass (until its last block was back).
    seconds : float
        Wall time of the whole run (the set tests overlap the pass).
    set_tests : int
        Features that passed the alpha filter (each met a set test, or replaced the set).
    """

    selection: Selection
    dependencies: np.ndarray
    pass_seconds: float
    seconds: float
    set_tests: int


def gene_parallel_selection(
    client,
    selector: StreamingSelector,
    X,
    names: Sequence[str],
    order: np.ndarray | None = None,
    chunk: int | None = None,
) -> GeneParallelRun:
    """K-OFSD's selection with its per-feature work on the workers of ``client`` and its
    set tests here, in stream order: the selection of
    :func:`fsengine.methods.online._stream.stream_selection` with the same arguments.

    The set tests of a block start as soon as the worker tasks that hold its columns are
    back, while the workers go on with the next. Only the columns that pass the alpha
    filter are read here.

    Parameters
    ----------
    client : distributed.Client
    selector : KOFSD
        Started (:meth:`StreamingSelector.start`); it holds the state afterwards.
    X : ndarray, scipy sparse matrix or BackedColumns, shape (n_samples, n_features)
    names : sequence of str
        One per column.
    order : ndarray of int, optional
        Arrival order of the columns (default: column order).
    chunk : int, optional
        Features per block of set tests (as :func:`stream_selection`).

    Returns
    -------
    GeneParallelRun
    """
    start = time.perf_counter()
    X = _columns_of(X)
    n, p = X.shape
    order = np.arange(p) if order is None else np.asarray(order, dtype=np.int64)
    if len(order) == 0:
        raise FSEngineError("the feature order is empty: there is no feature to stream")
    futures = _PassFutures(client, selector, X)
    plan(n * n * len(order))
    if chunk is None:
        chunk = max(256, QUIET_BLOCK_ELEMENTS // max(n, 1))
    if by_columns(X):
        chunk = min(chunk, block_width(n))
    set_tests = 0
    for lo in range(0, len(order), chunk):
        columns = order[lo : lo + chunk]
        futures.upto(int(columns.max()))
        weights = futures.weights[columns]
        dependencies = futures.dependencies[columns]
        passing = np.flatnonzero(selector._passes_alpha_all(dependencies))
        set_tests += len(passing)
        block = np.zeros((n, len(columns)), order="F")  # failing columns are never read
        if len(passing):
            block[:, passing] = dense_block(X, columns[passing])
        selector._decide_block(
            block,
            weights,
            dependencies.tolist(),
            [names[c] for c in columns.tolist()],
            columns.tolist(),
            want_events=False,
            cards=_cards_alone(selector, block, weights),
        )
    futures.upto(p - 1)
    return GeneParallelRun(
        selector.finish(),
        futures.dependencies,
        futures.seconds,
        time.perf_counter() - start,
        set_tests,
    )


def _cards_alone(selector: KOFSD, block: np.ndarray, weights: np.ndarray):
    """``cards(j)``: column j's card values alone, computed here when a feature replaces
    the set (rare): they only order the set tests' samples for early rejection (None
    under ``ties="average"``, which does not use them)."""
    if selector.ties == "average":
        return None

    def cards(j: int):
        values = selector._single_for_ks(block[:, [j]], weights[[j]], [selector.k])[1]
        return values(0, 0)

    return cards
