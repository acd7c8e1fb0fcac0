"""The contract every online selector keeps, for people who write their own.

As scikit-learn's ``check_estimator``: :func:`check_selector` runs every check on a
selector and raises :class:`AssertionError` naming the first broken one;
:func:`selector_checks` gives the checks one by one, for ``pytest.mark.parametrize``. The
project's own selectors pass them all (``tests/unit/test_contract.py`` runs them on every
registered one). A check needs nothing but the selector: its class's ``spec`` and the
interface of :class:`fsengine.methods.online.StreamingSelector`.

The data are what users upload, not what makes a method look good: rounded values with
many ties, an exact copy of a column and a constant one; and integer counts, mostly zero.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable, Iterator
from itertools import product

import numpy as np

from fsengine.errors import FSEngineError
from fsengine.methods.online import (
    StreamEvent,
    StreamingSelector,
    feature_order,
    stream_events,
    stream_selection,
)
from fsengine.spec import Param

__all__ = [
    "CHECKS",
    "bad_values",
    "check_selector",
    "contract_data",
    "selector_checks",
    "varied_params",
]

N_SAMPLES, N_FEATURES = 30, 48


def contract_data(kind: str = "rounded", seed: int = 0):
    """The data of the checks: 30 samples (9 of the rare class) x 48 features.

    Parameters
    ----------
    kind : {"rounded", "counts"}
        ``"rounded"``: normal values rounded to one decimal (ties everywhere), every fifth
        column shifted in the rare class, column 7 a copy of column 3 and column 11
        constant. ``"counts"``: Poisson counts, about two thirds of them zero, higher in
        the rare class in every fifth column.
    seed : int
        Seed of the values and of which samples are rare.

    Returns
    -------
    tuple
        ``(X, y, names)``: float matrix, 0/1 labels (1 = rare), ``["g0", ...]``.
    """
    rng = np.random.default_rng(seed)
    y = np.zeros(N_SAMPLES, dtype=np.int8)
    y[rng.choice(N_SAMPLES, 9, replace=False)] = 1
    if kind == "rounded":
        X = np.round(rng.normal(size=(N_SAMPLES, N_FEATURES)), 1)
        X[:, ::5] += 1.5 * y[:, None]
        X[:, 7] = X[:, 3]
        X[:, 11] = 2.0
    elif kind == "counts":
        rate = np.full((N_SAMPLES, N_FEATURES), 0.4)
        rate[:, ::5] += 2.0 * y[:, None]
        X = rng.poisson(rate).astype(float)
    else:
        raise FSEngineError(f"kind must be 'rounded' or 'counts', got {kind!r}")
    return X, y, [f"g{j}" for j in range(N_FEATURES)]


def _same(a, b) -> bool:
    """Equal events or selections, NaN equal to NaN (repr writes every float exactly)."""
    return repr(a) == repr(b)


def _other_value(param: Param):
    """A valid value of ``param`` other than its default, from its declaration alone."""
    if param.kind == "choice":
        return [c for c in param.choices if c != param.default][-1]
    if param.kind == "bool":
        return not param.default
    if param.kind == "int":
        base = param.default if param.default is not None else param.low
        high = param.high(N_SAMPLES) if callable(param.high) else param.high
        value = base + 1
        return value if high is None or value <= high else base - 1
    low = param.low if math.isfinite(param.low) else param.default - 1
    high = param.high if math.isfinite(param.high) else param.default + 1
    return (
        (param.default + (high if param.default < high else low)) / 2
        if low <= param.default <= high
        else (low + high) / 2
    )


def bad_values(param: Param) -> list:
    """Values the declaration of ``param`` refuses: out of range, of the wrong type, NaN.

    Parameters
    ----------
    param : Param
        A parameter of a method's spec.

    Returns
    -------
    list
        Each one a value that :meth:`fsengine.spec.MethodSpec.check` must refuse.
    """
    if param.kind == "choice":
        return ["no-such-choice", 3]
    if param.kind == "bool":
        return ["yes", 2]
    if param.kind == "int":
        high = param.high(N_SAMPLES) if callable(param.high) else param.high
        bad = [param.low - 1, 2.5, "7", True]
        return bad + ([high + 1] if high is not None else [])
    bad = [float("nan"), "0.5", True]
    if math.isfinite(param.low):
        bad.append(param.low - 1.0 if not param.low_open else param.low)
    if math.isfinite(param.high):
        bad.append(param.high + 1.0 if not param.high_open else param.high)
    return bad


def varied_params(spec) -> dict:
    """Every parameter of ``spec`` at a valid value other than its default; a parameter
    that applies only under another value of a choice gets that value, so it applies.

    Parameters
    ----------
    spec : MethodSpec
        The method's specification (a selector class's ``spec``).

    Returns
    -------
    dict
        Parameter name -> value.
    """
    values = {n: _other_value(p) for n, p in spec.parameters.items()}
    for p in spec.parameters.values():
        if p.when is not None and values.get(p.when[0]) not in p.when[1]:
            values[p.when[0]] = p.when[1][0]
    if "gamma1" in values and "gamma2" in values and values["gamma2"] >= values["gamma1"]:
        values["gamma2"] = values["gamma1"] / 2  # a pair whose order the spec requires
    return values


def _fresh(selector: StreamingSelector, y) -> StreamingSelector:
    return selector.clone().start(y, n_features=N_FEATURES)


def check_spec(selector: StreamingSelector) -> None:
    """The class declares a complete ``spec``: name, label, citation, what it scores, the
    set's score, its actions and event class; every parameter has a help text and a
    source, and its default is valid."""
    spec = type(selector).spec
    assert spec.name and spec.label and spec.citation and spec.score, "spec: a field is empty"
    assert spec.online and spec.set_score and spec.actions, "spec: not an online selector's"
    assert spec.event is not None and issubclass(spec.event, StreamEvent), "spec: event class"
    for param in spec.parameters.values():
        assert param.help and param.source, f"parameter {param.name}: no help or source"
        spec.check({param.name: param.default})


def check_step_equals_step_many(selector: StreamingSelector) -> None:
    """One feature at a time (``step``) and blocks of 1, 7 and 256 (``step_many``) give the
    same events and the same selection, on rounded values and on counts; a stream that
    keeps no events (:func:`fsengine.methods.online.stream_selection`) selects the same."""
    for kind in ("rounded", "counts"):
        X, y, names = contract_data(kind)
        one = _fresh(selector, y)
        singles = [one.step(X[:, j], names[j], j) for j in range(N_FEATURES)]
        selection = one.finish()
        for chunk in (1, 7, 256):
            many = list(stream_events(_fresh(selector, y), X, names, chunk=chunk))
            assert _same(singles, many), f"{kind}: step and step_many (chunk {chunk}) differ"
        quiet = stream_selection(_fresh(selector, y), X, names)
        assert _same(selection, quiet), f"{kind}: the selection without events differs"


def check_events(selector: StreamingSelector) -> None:
    """One event per feature, of the spec's event class, its action one of the spec's, its
    column the feature's."""
    spec = type(selector).spec
    X, y, names = contract_data()
    events = list(stream_events(_fresh(selector, y), X, names))
    assert len(events) == N_FEATURES, f"{len(events)} events for {N_FEATURES} features"
    for j, event in enumerate(events):
        assert isinstance(event, spec.event), f"event {j} is a {type(event).__name__}"
        assert event.action in spec.actions, f"event {j}: action {event.action!r} undeclared"
        assert event.column == j and event.feature == names[j], f"event {j}: wrong feature"


def check_random_order(selector: StreamingSelector) -> None:
    """A seeded random order (:func:`fsengine.methods.online.feature_order`) gives the same events
    twice, and the events come in that order."""
    X, y, names = contract_data(seed=1)
    order = feature_order(N_FEATURES, "random", 5)
    first = list(stream_events(_fresh(selector, y), X, names, order=order))
    again = list(stream_events(_fresh(selector, y), X, names, order=order))
    assert _same(first, again), "the same order and data gave other events"
    assert [e.column for e in first] == order.tolist(), "events out of the stream's order"


def check_pickle_and_clone(selector: StreamingSelector) -> None:
    """Built from its parameters alone: ``get_params`` gives them back (over the defaults;
    checked when the stream starts), a pickle and a clone keep them; a selector pickled
    mid-stream goes on as the original does, and a clone starts from nothing."""
    spec = type(selector).spec
    params = varied_params(spec)
    built = type(selector)(**params)
    assert built.get_params() == spec.check(params), "get_params is not the parameters given"
    assert pickle.loads(pickle.dumps(built)).get_params() == built.get_params(), "pickle"
    twin = built.clone()
    assert twin is not built and twin.get_params() == built.get_params(), "clone"
    X, y, names = contract_data()
    built.start(y)
    first = list(stream_events(built, X[:, :20], names[:20]))
    copy = pickle.loads(pickle.dumps(built))
    rest = [X[:, 20:], names[20:], list(range(20, N_FEATURES))]
    assert _same(built.step_many(*rest), copy.step_many(*rest)), "pickled mid-stream: differs"
    assert _same(built.finish(), copy.finish()), "pickled mid-stream: another selection"
    fresh = twin.start(y)
    assert _same(list(stream_events(fresh, X[:, :20], names[:20])), first), "a clone had state"


def check_bad_parameters(selector: StreamingSelector) -> None:
    """Every value its spec refuses, and a parameter it does not have, raise
    :class:`fsengine.FSEngineError` naming the parameter and the method."""
    spec = type(selector).spec
    _X, y, _names = contract_data()
    for param in spec.parameters.values():
        for bad in bad_values(param):
            try:  # a bound that depends on the labels (K below the rare class) at the start
                type(selector)(**{param.name: bad}).start(y)
            except FSEngineError as exc:
                assert exc.parameter == param.name, f"{param.name}={bad!r} named {exc.parameter}"
                assert exc.method == spec.name, f"{param.name}={bad!r}: method {exc.method}"
            else:
                raise AssertionError(f"{param.name}={bad!r} was accepted")
    try:
        type(selector)(no_such_parameter=1)
    except (FSEngineError, TypeError) as exc:
        named = getattr(exc, "parameter", None) == "no_such_parameter"
        assert named or "no_such_parameter" in str(exc), "an unknown parameter is not named"
    else:
        raise AssertionError("an unknown parameter was accepted")


def check_row_order(selector: StreamingSelector) -> None:
    """Rows given in another order select the same features, on counts, where ties
    between equally near samples are everywhere, unless the selector says that its
    result depends on the rows' order through ties (``tie_rule()`` not None: K-OFSD's
    and the other neighbourhood selectors' ``ties="index"``, the authors' rule).

    The features are compared as a set. Counts make columns whose values in each class
    are the same numbers in another order, whose statistics are equal in exact
    arithmetic: a selector that sums them in the rows' order gets sums that differ in
    the last bits and may choose between the columns by the rows' order, which this
    check reports (a real dependence on the order of the rows). Summing exactly
    (:func:`math.fsum`) or over the values sorted removes it.
    """
    X, y, names = contract_data("counts")
    if _fresh(selector, y).tie_rule() is not None:
        return
    before = set(stream_selection(_fresh(selector, y), X, names).features)
    for seed in (3, 4):
        rows = np.random.default_rng(seed).permutation(N_SAMPLES)
        after = set(stream_selection(_fresh(selector, y[rows]), X[rows], names).features)
        assert before == after, (
            f"the rows' order changed the selection: {sorted(before ^ after)} in one only"
        )


def _stream_in_one_buffer(
    selector: StreamingSelector, X, y, names, events: bool, reuse: bool, width: int
):
    """Blocks of ``width`` features through ``step_many``; with ``reuse``, each made in one
    buffer that is filled with NaN once the selector has it back. (events, selection)."""
    started, found = _fresh(selector, y), []
    buffer = np.empty((X.shape[0], width), order="F")
    for lo in range(0, X.shape[1], width):
        columns = list(range(lo, min(lo + width, X.shape[1])))
        block = buffer[:, : len(columns)] if reuse else np.array(X[:, columns], order="F")
        block[...] = X[:, columns]
        found += started.step_many(block, [names[c] for c in columns], columns, events=events)
        if reuse:
            buffer.fill(np.nan)
    return found, started.finish()


def check_block_not_kept(selector: StreamingSelector) -> None:
    """A block given to ``step_many`` is the selector's only during the call: the streams
    over sparse matrices make every block in the memory of the one before
    (:class:`fsengine._compute.sparse.BlockBuffer`). Blocks overwritten with NaN once
    handed back give the same events and selection as blocks left alone, with events and
    without, in blocks of one feature (a column of the buffer, which
    ``np.ascontiguousarray`` does not copy) and of seven."""
    for kind, width in product(("rounded", "counts"), (1, 7)):
        X, y, names = contract_data(kind)
        for events in (True, False):
            alone = _stream_in_one_buffer(selector, X, y, names, events, False, width)
            where = f"{kind}, blocks of {width}, events={events}"
            try:
                reused = _stream_in_one_buffer(selector, X, y, names, events, True, width)
            except FSEngineError as exc:
                raise AssertionError(
                    f"{where}: a block handed back was used later ({exc})"
                ) from None
            assert _same(alone, reused), f"{where}: a block handed back was used later"


#: Every check, in the order :func:`check_selector` runs them.
CHECKS: tuple[Callable[[StreamingSelector], None], ...] = (
    check_spec,
    check_bad_parameters,
    check_pickle_and_clone,
    check_events,
    check_step_equals_step_many,
    check_random_order,
    check_row_order,
    check_block_not_kept,
)


def selector_checks(selector: StreamingSelector) -> Iterator[tuple[str, Callable[[], None]]]:
    """The checks of ``selector``, one at a time (for ``pytest.mark.parametrize``).

    Parameters
    ----------
    selector : StreamingSelector
        An unstarted selector, built with the parameters to check it under.

    Yields
    ------
    tuple
        ``(name, check)``: the check's name (``"check_events"``) and a function of no
        argument that raises :class:`AssertionError` when the selector breaks it.
    """
    for check in CHECKS:
        yield check.__name__, (lambda check=check: check(selector))


def check_selector(selector: StreamingSelector) -> None:
    """Run every check of the contract on ``selector``.

    Parameters
    ----------
    selector : StreamingSelector
        An unstarted selector (an instance of a subclass that declares its ``spec``).

    Returns
    -------
    None
        When every check holds.

    Raises
    ------
    AssertionError
        At the first broken check, its name first (``"check_events: event 3: ..."``).
    TypeError
        When ``selector`` is not a :class:`fsengine.methods.online.StreamingSelector`.
    """
    if not isinstance(selector, StreamingSelector):
        raise TypeError(f"expected a StreamingSelector, got {type(selector).__name__}")
    for name, check in selector_checks(selector):
        try:
            check()
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from exc
