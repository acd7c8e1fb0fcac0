"""The streaming interface shared by every online selector.

An online selector receives one feature at a time (its values and name) through
``step`` and returns an event: what it decided and the state after the step. A
run over a matrix is a loop over steps in some feature order; the CLI, the tests,
the benchmark and the dashboard's animation all consume the same events.
"""

from __future__ import annotations

import dataclasses
import inspect
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from fsengine._compute.sparse import (
    BlockBuffer,
    as_columns,
    block_width,
    by_columns,
    dense_block,
    gigabytes,
    memory_exceeded,
)
from fsengine.data.labels import check_binary
from fsengine.errors import FSEngineError
from fsengine.methods.online._tie_average import ties_default
from fsengine.spec import MethodSpec

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
    fallback : bool
        True when the selector selected nothing and a fallback rule chose these features
        instead (K-OFSD's reference: the top round(sqrt(P)) features by single-feature
        dependency). Every front end says so (:attr:`status`, :meth:`fallback_text`).
    """

    method: str
    features: tuple[str, ...]
    columns: tuple[int, ...]
    scores: tuple[float, ...]
    note: str = ""
    fallback: bool = False

    def __len__(self) -> int:
        return len(self.features)

    @property
    def status(self) -> str:
        """``"fallback"`` when a fallback rule chose the features, else ``"selected"``
        (the selection CSV's ``status`` column)."""
        return "fallback" if self.fallback else "selected"

    def fallback_text(self, label: str | None = None) -> str | None:
        """In plain words, why these features are not a selection (None when they are):
        the sentence every page, the report and the command line show.

        Parameters
        ----------
        label : str, optional
            The method's name in the sentence (the pages give its label, "K-OFSD");
            default: its id, as the command line names it.
        """
        if not self.fallback:
            return None
        return (
            f"{label or self.method} selected no feature. The {len(self)} features listed are its "
            f"fallback rule's, not a selection: the top {len(self)} by single-feature score, "
            "as the authors' code returns them (marked 'fallback')."
        )


def event_columns(event_type: type) -> tuple[str, ...]:
    """The fields an event type adds to :class:`StreamEvent`'s, in declaration order
    (the method's own trace columns)."""
    base = {f.name for f in dataclasses.fields(StreamEvent)}
    return tuple(f.name for f in dataclasses.fields(event_type) if f.name not in base)


class StreamingSelector(ABC):
    """Base of the online selectors: parameters, labels, input checks, ``step`` and the set.

    A selector is built from its parameters alone (``KOFSD(k=5)``) and receives its
    labels when a stream starts (:meth:`start`), so it can be cloned, compared and
    pickled before and after. Its parameters are declared once, in the class's
    :attr:`spec` (:class:`fsengine.spec.MethodSpec`): the constructor's signature,
    the checks and the run record come from there.

    A subclass declares ``spec`` and implements ``_start()`` (state for the labels
    ``self.y``, parameters in ``self._params``), ``_step_block(block, names, columns)``,
    which decides on the columns of a checked block in arrival order, and ``finish``.

    Parameters
    ----------
    **params
        The method's parameters (see its ``spec``); any left out take their defaults.

    Attributes
    ----------
    score_rejections : bool
        True (default): every event reports the scores the method computed. A run that
        only needs the final selection sets it to False, and a selector may then skip
        scores that decide nothing (K-OFSD stops a set test once the feature cannot be
        added; the event then reports NaN). The selection is the same.
    """

    spec: ClassVar[MethodSpec]
    #: The compiled kernel families the selector loads, besides the column kernels every
    #: selector shares (:func:`fsengine._compute.kernels.load`).
    kernel_families: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        spec = cls.__dict__.get("spec")
        if spec is not None:  # the signature a user sees: the spec's
            cls.__signature__ = inspect.Signature(
                [
                    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=p.default)
                    for name, p in spec.parameters.items()
                ]
            )

    def __init__(self, **params):
        # values are checked once, where a stream starts (start): a name the method does
        # not take is refused here
        self._params = self.spec.given(params)
        self._given_names = tuple(params)
        self._unused: list[str] = []  # the parameters given that take no effect: at start
        self.score_rejections = True
        self.y = None
        self.n_features: int | None = None
        self.n_seen = 0
        self._selected_names: tuple[str, ...] = ()
        self._selected_columns: tuple[int, ...] = ()

    @property
    def method(self) -> str:
        """The method's name ("kofsd")."""
        return self.spec.name

    def get_params(self) -> dict:
        """Every parameter's value, defaults included (the constructor's keywords)."""
        return dict(self._params)

    def clone(self) -> StreamingSelector:
        """A new, unstarted selector with the same parameters."""
        return type(self)(**self._params)

    def __repr__(self) -> str:
        given = ", ".join(f"{k}={v!r}" for k, v in self._params.items())
        return f"{type(self).__name__}({given})"

    @property
    def params(self) -> dict:
        """The parameters in effect, for a run's record (JSON-ready): those that apply
        given the others (K-OFSD's ``gamma`` only with ``card="weight"``)."""
        return self.spec.record(self._params)

    def start(self, y, n_features: int | None = None) -> StreamingSelector:
        """Begin a stream for the class labels ``y``: forget any earlier stream.

        Parameters
        ----------
        y : array of {0, 1}, shape (n_samples,)
            Class labels, 1 = the minority class, 0 = the rest
            (:func:`fsengine.data.labels.check_binary`).
        n_features : int, optional
            How many features the stream will bring, when known (a matrix's columns).
            Most selectors ignore it; group SAOLA cuts the stream into groups from it.

        Returns
        -------
        self

        Raises
        ------
        FSEngineError
            For labels that break the rule, or a parameter out of the range the data
            allow (K-OFSD's K must be below the number of samples).
        """
        y = check_binary(y)
        self._params = self.spec.check(self._params, n_samples=len(y))
        given = getattr(self, "_given_names", ())  # (a selector pickled before 0.2: none)
        self._unused = self.spec.unused({k: self._params[k] for k in given})
        self.y = y
        if n_features is not None and not (isinstance(n_features, int) and n_features >= 1):
            raise FSEngineError(f"n_features must be a positive integer, got {n_features!r}")
        self.n_features = n_features
        self.n_seen = 0
        self._selected_names = ()
        self._selected_columns = ()
        self._check_pairwise_memory(len(y))
        self._start()
        return self

    def _pairwise_matrices(self) -> int:
        """How many N x N matrices (8 bytes a value) the stream keeps with its checked
        parameters: the set's distances between samples, for the selectors that keep
        them (0 for the others)."""
        return 0

    def _check_pairwise_memory(self, n: int, budget: int | None = None) -> None:
        """Refuse a stream whose N x N matrices (:meth:`_pairwise_matrices`) would take
        more than :data:`~fsengine._compute.sparse.MEMORY_SHARE` of the available memory
        (``budget`` bytes, default: measured), naming their size and what to do instead.

        Raises
        ------
        FSEngineError
        """
        count = self._pairwise_matrices()
        needed = count * 8 * n * n
        available = memory_exceeded(needed, budget) if count else None
        if available is None:
            return
        averaged = self._params.get("ties") == "index"  # the order-invariant rule keeps none
        raise FSEngineError(
            f"{self.spec.label} keeps {count} matrices of {n:,} x {n:,} values (distances "
            f"between samples): {gigabytes(needed)}, more than half of this machine's "
            f"available memory ({gigabytes(available)})",
            remedy=(
                "the order-invariant rule measures on the set's distinct points and keeps "
                "none: use fewer samples, or choose average for"
                if averaged
                else "use fewer samples"
            ),
            remedy_option="ties" if averaged else None,
        )

    def warnings(self) -> list[str]:
        """Warnings about the labels and parameters of the started stream
        (:meth:`data_warnings`), and about parameters set that take no effect
        (:meth:`fsengine.spec.MethodSpec.unused`)."""
        return self.data_warnings(self._params, self.y) + self._unused

    def tie_rule(self):
        """The neighbour list and distance of a selector that judges samples by their first
        K neighbours under the authors' tie rule (``ties="index"``), as
        ``(NeighbourRule, metric)``; None for every other selector and setting (then no
        result depends on the order of the rows through ties)."""
        return None

    @classmethod
    def data_warnings(cls, params: dict, y) -> list[str]:
        """Warnings about checked parameters for the 0/1 labels ``y``, without starting a
        stream (none by default; K-OFSD warns when K is at or above the minority size)."""
        return []

    @classmethod
    def data_defaults(
        cls, defaults: dict, y, where: str = "the minority class has", X=None
    ) -> dict[str, tuple[object, str]]:
        """Defaults that suit the 0/1 labels ``y`` (and the matrix ``X``) better than the
        specification's.

        Parameters
        ----------
        defaults : dict
            The specification's defaults.
        y : array of 0/1
        where : str
            How the reason names the samples counted ("a training half has").
        X : ndarray or scipy sparse matrix, optional
            The features: a selector with a ``ties`` parameter is proposed the
            order-invariant rule on counts (:func:`fsengine.methods.online.ties_default`).

        Returns
        -------
        dict
            Parameter -> (value, why, a sentence); empty when the specification's defaults
            suit (K-OFSD lowers K below a small minority class).
        """
        if X is None or "ties" not in defaults:
            return {}
        rule, reason = ties_default(X)
        if rule == defaults["ties"]:
            return {}
        return {"ties": (rule, f"Tied distances: '{rule}', not the authors' rule: {reason}.")}

    @classmethod
    def merged_defaults(cls, proposals: list[dict]) -> dict[str, tuple[object, str]]:
        """Defaults that suit several data sets at once, from each one's
        :meth:`data_defaults` (parameter -> (value, why)): a parameter's first proposal.
        The order-invariant tie rule, the one proposal here (for a data set of counts,
        sparse or mostly zeros), gives the authors' selections where there are no ties.
        """
        merged: dict = {}
        for found in proposals:
            for name, proposal in found.items():
                merged.setdefault(name, proposal)
        return merged

    @abstractmethod
    def _start(self) -> None:
        """Set up the state of a new stream (``self.y`` and ``self._params`` are set)."""

    @property
    def selected(self) -> tuple[str, ...]:
        """Names of the currently selected features, in selection order."""
        return self._selected_names

    @property
    def selected_columns(self) -> tuple[int, ...]:
        """Column indices of the currently selected features."""
        return self._selected_columns

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

    def step_many(
        self, block, names: Sequence[str], columns: Sequence[int], events: bool = True
    ) -> list[StreamEvent]:
        """Receive several features in arrival order; same events as repeated ``step``.

        Parameters
        ----------
        block : ndarray, shape (n_samples, b)
        names : sequence of str, length b
        columns : sequence of int, length b
        events : bool
            False: make no event (as :func:`stream_selection`: the selector may skip the
            work only events report, e.g. K-OFSD stops a set test once the feature cannot
            be added); the decisions, hence the selected set, are the same.

        Returns
        -------
        list of StreamEvent
            One per feature; empty when ``events`` is False.
        """
        block = self._checked_block(block, names)
        if len(columns) != block.shape[1]:
            raise FSEngineError(f"{block.shape[1]} features but {len(columns)} column indices")
        if not events:
            self._step_block_quiet(block, list(names), [int(c) for c in columns])
            return []
        return self._step_block(block, list(names), [int(c) for c in columns])

    @abstractmethod
    def _step_block(
        self, block: np.ndarray, names: list[str], columns: list[int]
    ) -> list[StreamEvent]:
        """Decide on the columns of a checked block, in arrival order."""

    def _step_block_quiet(self, block: np.ndarray, names: list[str], columns: list[int]) -> None:
        """:meth:`_step_block` when no event is wanted (a selector may skip their work)."""
        self._step_block(block, names, columns)

    def _checked_block(self, block, names: Sequence[str] | None = None) -> np.ndarray:
        if self.y is None:
            raise FSEngineError(
                f"{type(self).__name__} has no labels yet: call "
                "start(y) before streaming features into it"
            )
        block = np.asarray(block, dtype=float)
        if block.ndim != 2 or block.shape[0] != len(self.y):
            raise FSEngineError(
                f"expected {len(self.y)} values per feature (one per sample), "
                f"got an array of shape {block.shape}"
            )
        if names is not None and len(names) != block.shape[1]:
            raise FSEngineError(f"{block.shape[1]} features but {len(names)} names")
        # A finite column sum has finite terms (a sum that overflows is looked at closely).
        if not np.isfinite(block.sum(axis=0)).all() and not np.isfinite(block).all():
            row, col = np.argwhere(~np.isfinite(block))[0]
            label = names[col] if names is not None else col
            raise FSEngineError(
                f"feature {label!r} has a missing or infinite value at row {row + 1}"
            )
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


def stream_events(
    selector: StreamingSelector,
    X: np.ndarray,
    names: Sequence[str],
    order: np.ndarray | None = None,
    chunk: int = 256,
) -> Iterator[StreamEvent]:
    """Stream the columns of ``X`` into ``selector`` and yield one event per feature.

    Parameters
    ----------
    selector : StreamingSelector
        A fresh selector (its state carries over between calls).
    X : ndarray, scipy sparse matrix or matrix on disk, shape (n_samples, n_features)
        A sparse matrix, or one on disk, is read a dense block of columns at a time
        (:func:`_blocks`).
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


def _blocks(X, names: Sequence[str], order: np.ndarray | None, chunk: int):
    """(block of columns, their names, their indices) in arrival order, ``chunk`` at a time.

    A sparse ``X`` (scipy CSR or CSC), or one on disk
    (:class:`fsengine._compute.sparse.BackedMatrix`), is read a dense block of at most
    :data:`fsengine._compute.sparse.BLOCK_ELEMENTS` values at a time, never whole, each
    made in the memory of the one before (a selector copies what it keeps of a block)."""
    if order is None:
        order = np.arange(X.shape[1])
    if len(order) == 0:
        raise FSEngineError("the feature order is empty: there is no feature to stream")
    from fsengine._compute.budget import plan

    plan(X.shape[0] * X.shape[0] * len(order))  # N x N per feature at the most
    sparse = by_columns(X)
    blocks = BlockBuffer()
    if sparse:
        X = as_columns(X)
        chunk = min(chunk, block_width(X.shape[0]))
    for lo in range(0, len(order), chunk):
        cols = np.asarray(order[lo : lo + chunk])
        consecutive = cols[-1] - cols[0] == len(cols) - 1 and np.all(np.diff(cols) == 1)
        where = slice(cols[0], cols[-1] + 1) if consecutive else cols  # a view if it can
        block = dense_block(X, where, out=blocks) if sparse else X[:, where]
        indices = cols.tolist()
        yield block, [names[c] for c in indices], indices


#: Values handed to a selector at once by :func:`stream_selection` (at least 256 features):
#: whole blocks let the kernels split a block's features over the cores.
QUIET_BLOCK_ELEMENTS = 1_000_000


def stream_selection(
    selector: StreamingSelector,
    X: np.ndarray,
    names: Sequence[str],
    order: np.ndarray | None = None,
    chunk: int | None = None,
) -> Selection:
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
