"""The registry of methods and the one protocol that runs any of them.

Every front end (command line, evaluation, sweeps, stability, the live stream, the
dashboard's pages, the scikit-learn wrappers) finds a method here by name and runs it
through :meth:`Method.select`; online selectors also give their stream of events
(:meth:`Method.selector`). A new online selector is one module with a
:class:`fsengine.methods.online.StreamingSelector` subclass declaring its ``spec``, plus its
entry in :data:`fsengine.methods.online.SELECTORS`; a new ranker, its score function and
specification in :data:`fsengine.methods.rankers.RANKER_TABLE`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from fsengine.errors import FSEngineError, is_integer_in
from fsengine.methods.online import (
    KOFSD,
    SELECTORS,
    OrderDependence,
    Selection,
    StreamEvent,
    StreamingSelector,
    event_columns,
    feature_order,
    gene_parallel_selection,
    order_dependence,
    stream_events,
    stream_selection,
)
from fsengine.methods.rankers import RANKER_TABLE, default_clusters, rank_features, score_matrix
from fsengine.spec import MethodSpec

__all__ = [
    "get_method",
    "list_methods",
    "Method",
    "method_descriptions",
    "METHOD_LABELS",
    "METHODS",
    "ONLINE_METHODS",
    "ONLINE_SELECTORS",
    "RANKER_METHODS",
    "REGISTRY",
    "RunResult",
]

#: The online selectors, in the order the front ends list them
#: (:data:`fsengine.methods.online.SELECTORS`).
ONLINE_SELECTORS: list[type[StreamingSelector]] = list(SELECTORS)


@dataclass(frozen=True)
class RunResult:
    """A finished run of one method: the selection, every step's event and what produced them.

    :meth:`Method.select` gives one with the method's parameters in ``params``;
    :func:`fsengine.methods.runs.run_selection` gives one whose ``params`` is the whole run record.

    Attributes
    ----------
    selection : Selection
    events : list of StreamEvent
        One per streamed feature (online selectors asked for events), else empty.
    params : dict
        The parameters in effect: the method's (:meth:`Method.select`) or the run
        record, JSON-ready and enough to repeat the run
        (:func:`~fsengine.methods.runs.run_selection`:
        method, data, label_column, minority, then order and seed or top, then the
        method's parameters).
    seconds : float
        Wall-clock time of the stream or the scoring.
    scores : ndarray or None
        Rankers: every feature's score.
    warnings : tuple of str
        What the selector warned about the labels and parameters (K-OFSD: K too large).
    """

    #: The tag of a run in JSON (:mod:`fsengine.export.codec`).
    json_tag = "run"

    selection: Selection
    events: list[StreamEvent]
    params: dict
    seconds: float
    scores: np.ndarray | None = None
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """The run as JSON-able fields; :meth:`from_dict` takes them back (events too)."""
        return {
            "selection": dataclasses.asdict(self.selection),
            "events": [
                {
                    "type": type(e).__name__,
                    **{f.name: getattr(e, f.name) for f in dataclasses.fields(e)},
                }
                for e in self.events
            ],
            "params": self.params,
            "seconds": self.seconds,
            "scores": None if self.scores is None else self.scores.tolist(),
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_dict(cls, data: dict) -> RunResult:
        """The run of :meth:`to_dict`'s fields (after a JSON round trip)."""
        selection = data["selection"]
        event_type = _event_types(selection["method"])
        events = []
        for fields in data["events"]:
            fields = dict(fields)
            kind = event_type.get(fields.pop("type"), StreamEvent)
            events.append(kind(**{k: _as_tuple(v) for k, v in fields.items()}))
        return cls(
            Selection(
                selection["method"],
                tuple(selection["features"]),
                tuple(selection["columns"]),
                tuple(float(s) for s in selection["scores"]),
                selection.get("note", ""),
                bool(selection.get("fallback", False)),
            ),
            events,
            dict(data["params"]),
            float(data["seconds"]),
            None if data.get("scores") is None else np.asarray(data["scores"], dtype=float),
            tuple(data.get("warnings", ())),
        )


def _event_fields(event: StreamEvent) -> dict:
    return {f.name: getattr(event, f.name) for f in dataclasses.fields(event)}


def _as_tuple(value):
    """JSON's lists back as the tuples events hold."""
    return tuple(_as_tuple(v) for v in value) if isinstance(value, list) else value


def _event_types(method: str) -> dict[str, type]:
    """Event types by class name: the method's own and the base."""
    found = {StreamEvent.__name__: StreamEvent}
    if method in REGISTRY and REGISTRY[method].spec.event is not None:
        kind = REGISTRY[method].spec.event
        for base in kind.__mro__:
            if isinstance(base, type) and issubclass(base, StreamEvent):
                found[base.__name__] = base
    return found


@dataclass(frozen=True)
class Method:
    """A registered method: its specification and its implementation.

    Attributes
    ----------
    spec : MethodSpec
    implementation : type or callable
        The :class:`StreamingSelector` subclass of an online method, or the score
        function ``score(X, y, **params)`` of a ranker.
    """

    spec: MethodSpec
    implementation: type | Callable

    @property
    def name(self) -> str:
        """The method's name ("kofsd")."""
        return self.spec.name

    @property
    def online(self) -> bool:
        """Whether the method streams features (else it ranks them)."""
        return self.spec.online

    @property
    def on_dask(self) -> bool:
        """Whether :meth:`select` runs the method's per-gene work on a Dask cluster
        (a ``client``): K-OFSD, and the rankers that score each gene alone."""
        return self.implementation is KOFSD if self.online else bool(self.spec.columnwise)

    def trace_columns(self) -> tuple[str, ...]:
        """The fields this method's events add to every event's (its trace columns)."""
        return event_columns(self.spec.event) if self.spec.event is not None else ()

    def selector(self, **params) -> StreamingSelector:
        """A new, unstarted online selector with ``params`` (checked by the spec)."""
        if not self.online:
            raise FSEngineError(
                f"{self.name} is a ranker: it scores all features at once and has no stream"
            )
        return self.implementation(**params)

    def warnings(self, y, params: dict) -> list[str]:
        """An online selector's warnings for ``params`` and the 0/1 labels ``y``, checked
        as a stream's start checks them, without starting one."""
        checked = self.spec.check(params, n_samples=len(y))
        return self.implementation.data_warnings(checked, y) if self.online else []

    def ranker_params(self, y, params: dict) -> tuple[dict, dict]:
        """A ranker's checked parameters and its record (computed defaults filled in)."""
        values = self.spec.check(params, n_samples=len(y))
        record = dict(values)
        if "n_clusters" in record and record["n_clusters"] is None:
            record["n_clusters"] = default_clusters(y)
        return values, record

    def order_dependence(
        self, X, y, selection: Selection | None, params: dict | None = None
    ) -> OrderDependence | None:
        """How much an online run (``params`` on ``X``, ``y``, giving ``selection``; None:
        no single selection, as in a comparison over splits) was decided by the order of
        the rows through tied distances: the shares of samples whose card depends on it,
        on each feature alone and on the selected set
        (:func:`fsengine.methods.online.order_dependence`). None for a ranker, and for
        a selector and settings that no row order changes this way (``ties="average"``)."""
        if not self.online:
            return None
        checked = self.spec.check(dict(params or {}), n_samples=len(y))  # an entry of its own
        found = self.selector(**checked).tie_rule()
        if found is None:
            return None
        rule, metric = found
        columns = () if selection is None or selection.fallback else selection.columns
        return order_dependence(X, y, rule, metric, columns, self.spec.label)

    def scores(self, X, y, **params) -> np.ndarray:
        """A ranker's score of every column of ``X`` for binary labels ``y``."""
        values, _ = self.ranker_params(y, params)
        return score_matrix(self.name, X, y, values)

    def select(
        self,
        X: np.ndarray,
        y: np.ndarray,
        names: Sequence[str],
        *,
        params: dict | None = None,
        order: str = "natural",
        seed: int | None = None,
        top: int | None = None,
        events: bool = False,
        client=None,
    ) -> RunResult:
        """Select features of ``X`` for the 0/1 labels ``y``: the one way to run a method.

        Parameters
        ----------
        X : ndarray, shape (n_samples, n_features)
        y : array of {0, 1}
            1 = the minority class.
        names : sequence of str
            Feature names, one per column.
        params : dict, optional
            The method's parameters (its spec's); the rest take their defaults.
        order : {"natural", "random"}
            Online selectors: arrival order of the features.
        seed : int, optional
            Online selectors: seed of the random order. Rankers with a ``seed``
            parameter (k-means of the decomposition rankers): that parameter.
        top : int, optional
            Rankers: how many of the best features to keep (default: all, in rank
            order). Online selectors decide their number themselves.
        events : bool
            Online selectors: keep every step's event (a trace). Without events the
            selector may skip work only events need; the selection is the same.
        client : distributed.Client, optional
            Run the per-gene work over gene blocks on this Dask cluster's workers (K-OFSD:
            each gene's dependency alone and the alpha filter, the set tests here in stream
            order; a columnwise ranker: its scores). The same selection as without.

        Returns
        -------
        RunResult

        Raises
        ------
        FSEngineError
            For a parameter the method does not take or out of its range, an order
            for a ranker or a ``top`` for an online selector.
        """
        params = dict(params or {})
        if self.online:
            if top is not None:
                raise FSEngineError(
                    f"applies to rankers; {self.name} decides how many features to keep",
                    parameter="top",
                )
            return self._stream(X, y, names, params, order, seed, events, client)
        if order != "natural":
            raise FSEngineError(
                f"{self.name} is a ranker: it scores all features at once, "
                "so a feature order does not apply",
                parameter="order",
            )
        return self._rank(X, y, names, params, seed, top, client)

    def _stream(self, X, y, names, params: dict, order, seed, events: bool, client) -> RunResult:
        """:meth:`select` for an online selector: the features of ``X`` stream in the
        ``order`` drawn with ``seed``, on this machine (with every step's event when
        ``events``) or over ``client``'s workers."""
        selector = self.selector(**params).start(y, n_features=X.shape[1])
        arrival = feature_order(X.shape[1], order, seed)
        start = time.perf_counter()
        if client is not None:
            if events:
                raise FSEngineError(
                    "a trace of every step is written by a run on this machine only; "
                    "leave out the Dask cluster (or the trace)"
                )
            kept = []
            selection = gene_parallel_selection(client, selector, X, names, arrival).selection
        elif events:
            kept = list(stream_events(selector, X, names, arrival))
            selection = selector.finish()
        else:
            kept = []
            selection = stream_selection(selector, X, names, arrival)
        seconds = time.perf_counter() - start
        return RunResult(
            selection, kept, selector.params, seconds, warnings=tuple(selector.warnings())
        )

    def _rank(self, X, y, names, params: dict, seed, top, client) -> RunResult:
        """:meth:`select` for a ranker: every feature's score, the ``top`` best kept in
        rank order (all by default); ``seed`` is the ranker's own parameter."""
        if top is not None and not is_integer_in(top, 1, X.shape[1]):
            raise FSEngineError(
                f"must be an integer from 1 to {X.shape[1]} (the number of features), got {top!r}",
                parameter="top",
            )
        if seed is not None:
            if "seed" not in self.spec.parameters:
                raise FSEngineError(
                    f"does not apply to {self.name} (only rankers with k-means, d-*, take a seed)",
                    parameter="seed",
                )
            params["seed"] = seed
        values, record = self.ranker_params(y, params)
        start = time.perf_counter()
        scores = score_matrix(self.name, X, y, values, client)
        seconds = time.perf_counter() - start
        ranking = rank_features(scores)[:top]
        selection = Selection(
            self.name,
            tuple(names[j] for j in ranking),
            tuple(int(j) for j in ranking),
            tuple(float(scores[j]) for j in ranking),
            "ranked by descending score",
        )
        return RunResult(selection, [], record, seconds, scores)

    def selections_over(
        self,
        X: np.ndarray,
        y: np.ndarray,
        names: Sequence[str],
        parameter: str,
        values: Sequence,
        params: dict | None = None,
    ) -> dict:
        """The selection for each value of one parameter, others fixed (natural order).

        A selector class may share work across the values (K-OFSD sorts each block
        once for every K: ``selections_over`` on the class); the selections equal
        separate runs.

        Returns
        -------
        dict
            value -> Selection.
        """
        found = self.shared_selections(X, y, names, parameter, values, params)
        if found is not None:
            return found
        params = dict(params or {})
        return {
            v: self.select(X, y, names, params={**params, parameter: v}).selection for v in values
        }

    def shared_selections(
        self,
        X: np.ndarray,
        y: np.ndarray,
        names: Sequence[str],
        parameter: str,
        values: Sequence,
        params: dict | None = None,
    ) -> dict | None:
        """:meth:`selections_over` when the selector shares one pass over every value
        (K-OFSD's K), else None (the values then run one by one).

        Raises
        ------
        FSEngineError
            When ``parameter`` cannot be swept or is also given in ``params``.
        """
        params = dict(params or {})
        self.spec.check_swept(parameter, params)
        shared = getattr(self.implementation, "selections_over", None)
        return None if shared is None else shared(X, y, names, parameter, values, params)


def _build_registry() -> dict[str, Method]:
    registry: dict[str, Method] = {}
    entries = [(cls.spec, cls) for cls in ONLINE_SELECTORS] + list(RANKER_TABLE)
    for spec, implementation in entries:
        if spec.name in registry:
            raise RuntimeError(f"two methods are named {spec.name!r}")
        registry[spec.name] = Method(spec, implementation)
    return registry


#: Every method by name: online selectors, then rankers.
REGISTRY: dict[str, Method] = _build_registry()
#: Names of the online selectors and of the rankers.
ONLINE_METHODS = tuple(name for name, m in REGISTRY.items() if m.online)
RANKER_METHODS = tuple(name for name, m in REGISTRY.items() if not m.online)
#: Every method name: online selectors, then rankers.
METHODS = tuple(REGISTRY)
#: Every method's label from its specification, by id ("kofsd" -> "K-OFSD"): what the
#: figures, tables and lists show.
METHOD_LABELS = {name: m.spec.label for name, m in REGISTRY.items()}


def get_method(name: str) -> Method:
    """The registered method ``name``.

    Parameters
    ----------
    name : str
        Its name, as :data:`METHODS` lists it (``"kofsd"``, ``"welch"``, ...).

    Returns
    -------
    Method
        Its specification, implementation and run (:meth:`Method.select`).

    Raises
    ------
    FSEngineError
        With ``parameter="method"`` and the known names, for an unknown name.
    """
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        raise FSEngineError(
            f"{name!r} is not a method; choose one of {', '.join(METHODS)}", parameter="method"
        ) from None


def method_descriptions() -> list[dict]:
    """Every registered method as JSON-ready data, in the registry's order: the output of
    ``fsengine methods --json`` (name, label, kind, citation, what it scores, its
    parameters with flag, range, default and source); :func:`list_methods` tabulates it."""
    described = []
    for name, method in REGISTRY.items():
        spec = method.spec
        described.append(
            {
                "name": name,
                "label": spec.label,
                "kind": spec.kind,
                "citation": spec.citation,
                "score": spec.score,
                "set_score": spec.set_score or None,
                "sparse_input": (
                    "read a dense block of columns at a time"
                    if method.online or spec.columnwise
                    else "made dense (when it fits in memory)"
                ),
                "assumes_normalised": spec.parametric,
                "actions": spec.actions or None,
                "trace_columns": list(method.trace_columns()) if method.online else None,
                "parameters": [
                    {
                        "name": p.name,
                        "flag": p.cli_flag,
                        "kind": p.kind,
                        "default": p.default,
                        "range": p.range_text(),
                        "help": p.help,
                        "source": p.source,
                        "applies_when": ({p.when[0]: list(p.when[1])} if p.when else None),
                    }
                    for p in spec.parameters.values()
                ],
            }
        )
    return described


def list_methods():
    """Every registered method, one row each, as the command ``fsengine methods`` lists
    them; ``fs.methods()`` gives the same table.

    Returns
    -------
    pandas.DataFrame
        Indexed by the method's name (what :func:`fsengine.select` takes), with columns
        ``label``, ``kind`` (``"online"`` or ``"ranker"``), ``citation``, ``score`` (what it
        scores a feature by) and ``parameters`` (each parameter's name and default).
    """
    import pandas as pd

    rows = [
        {
            "name": m["name"],
            "label": m["label"],
            "kind": m["kind"],
            "citation": m["citation"],
            "score": m["score"],
            "parameters": ", ".join(f"{p['name']}={p['default']!r}" for p in m["parameters"]),
        }
        for m in method_descriptions()
    ]
    return pd.DataFrame(rows).set_index("name")
