"""One entry point that runs a selection method on a data set.

The command line and the app both call :func:`run_selection`, so the numbers they
show and export come from the same code path.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from fsengine.data import Dataset
from fsengine.errors import FSEngineError
from fsengine.online import (CIEOSFS, KOFSD, OFSFPD, Selection, StreamEvent, feature_order,
                             stream_events)

#: Online methods and their selector classes; later methods register here.
ONLINE_METHODS = {"kofsd": KOFSD, "ofs-fpd": OFSFPD, "cie-osfs": CIEOSFS}


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
        Wall-clock time of the stream.
    """

    selection: Selection
    events: list[StreamEvent]
    params: dict
    seconds: float


def make_online_selector(method: str, y, **params):
    """Build the online selector ``method`` for binary labels ``y`` (1 = minority)."""
    try:
        cls = ONLINE_METHODS[method]
    except KeyError:
        raise FSEngineError(f"unknown method {method!r}; choose one of "
                            f"{', '.join(ONLINE_METHODS)}") from None
    return cls(y, **params)


def run_selection(dataset: Dataset, minority, method: str = "kofsd", *, order: str = "natural",
                  seed: int | None = None, **params) -> RunResult:
    """Binarise ``dataset`` for ``minority`` and stream its features through ``method``.

    Parameters
    ----------
    dataset : Dataset
    minority : label or str
        The class to select for (one versus rest).
    method : str
        A key of :data:`ONLINE_METHODS`.
    order : {"natural", "random"}
        Feature arrival order.
    seed : int, optional
        Seed of the random order.
    **params
        The method's parameters (for K-OFSD: k, alpha, card, variant, metric,
        gamma, gamma1, gamma2).

    Returns
    -------
    RunResult
    """
    label = dataset.resolve_class(minority)
    y = dataset.binarise(label)
    selector = make_online_selector(method, y, **params)
    arrival = feature_order(dataset.n_features, order, seed)
    start = time.perf_counter()
    events = list(stream_events(selector, dataset.X, dataset.feature_names, arrival))
    selection = selector.finish()
    seconds = time.perf_counter() - start
    record = {"method": method, "data": dataset.source, "label_column": dataset.label_column,
              "minority": label, "order": order, "seed": seed, **selector.params}
    return RunResult(selection, events, record, seconds)
