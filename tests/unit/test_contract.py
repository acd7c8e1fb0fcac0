"""The contract every registered method passes, checked the same way for each.

Parametrized by the registry (:data:`fsengine.methods.REGISTRY`): a method added there is
checked here with no edit. The values a test uses are derived from the method's
specification (its defaults, ranges and choices), not written per method.
"""

from __future__ import annotations

import csv
import io
import math
import pickle

import numpy as np
import pytest

from fsengine.cli import build_parser, main
from fsengine.cli.options import method_params
from fsengine.data import Dataset
from fsengine.errors import FSEngineError
from fsengine.export import events_to_csv, select_arguments, trace_columns
from fsengine.methods import METHODS, ONLINE_METHODS, REGISTRY, get_method
from fsengine.online import StreamEvent, feature_order, stream_events
from fsengine.runs import run_selection

N_SAMPLES, N_FEATURES = 30, 48


def _matrix(seed: int = 0):
    """Tie-heavy, rounded data with a few informative columns: what users upload."""
    rng = np.random.default_rng(seed)
    y = np.zeros(N_SAMPLES, dtype=np.int8)
    y[rng.choice(N_SAMPLES, 9, replace=False)] = 1
    X = np.round(rng.normal(size=(N_SAMPLES, N_FEATURES)), 1)
    X[:, ::5] += 1.5 * y[:, None]
    X[:, 7] = X[:, 3]  # an exact copy
    X[:, 11] = 2.0  # a constant
    return X, y, [f"g{j}" for j in range(N_FEATURES)]


def _dataset(seed: int = 0) -> Dataset:
    X, y, names = _matrix(seed)
    labels = np.where(y == 1, "rare", "common").astype(object)
    return Dataset(
        X=X, labels=labels, feature_names=tuple(names), label_column="class", source="contract.csv"
    )


def _write_csv(folder):
    """The contract data as the CSV a user would give the command line."""
    X, y, names = _matrix()
    path = folder / "d.csv"
    lines = [",".join(names + ["class"])] + [
        ",".join([repr(float(v)) for v in X[i]] + ["rare" if y[i] else "common"])
        for i in range(N_SAMPLES)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _same(a, b) -> bool:
    """Equal events or selections, NaN equal to NaN (repr writes every float exactly)."""
    return repr(a) == repr(b)


def _other_value(param):
    """A valid value different from the default, from the spec alone."""
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


def _bad_values(param):
    """Values the spec refuses."""
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


def _varied_params(name: str) -> dict:
    """Every parameter of the method at a valid value other than its default (those that
    apply only with another value are varied too when they then apply)."""
    spec = get_method(name).spec
    values = {n: _other_value(p) for n, p in spec.parameters.items()}
    # Parameters that apply only under a choice: keep that choice so that they apply.
    for p in spec.parameters.values():
        if p.when is not None and values.get(p.when[0]) not in p.when[1]:
            values[p.when[0]] = p.when[1][0]
    if "gamma1" in values and "gamma2" in values and values["gamma2"] >= values["gamma1"]:
        values["gamma2"] = values["gamma1"] / 2
    return values


@pytest.mark.parametrize("name", ONLINE_METHODS)
@pytest.mark.parametrize("chunk", [1, 7, 256])
def test_step_equals_step_many(name, chunk):
    X, y, names = _matrix()
    method = get_method(name)
    one = method.selector().start(y, n_features=N_FEATURES)  # as select announces it
    singles = [one.step(X[:, j], names[j], j) for j in range(N_FEATURES)]
    started = method.selector().start(y, n_features=N_FEATURES)
    many = list(stream_events(started, X, names, chunk=chunk))
    assert _same(singles, many)
    assert _same(one.finish(), method.select(X, y, names).selection)


@pytest.mark.parametrize("name", ONLINE_METHODS)
def test_random_order_with_a_seed_is_reproducible(name):
    X, y, names = _matrix(1)
    method = get_method(name)
    first = method.select(X, y, names, order="random", seed=5, events=True)
    again = method.select(X, y, names, order="random", seed=5, events=True)
    assert _same(first.selection, again.selection) and _same(first.events, again.events)
    assert [e.column for e in first.events] == feature_order(N_FEATURES, "random", 5).tolist()


@pytest.mark.parametrize("name", METHODS)
def test_parameters_round_trip_through_spec_cli_and_command_line(name):
    method = get_method(name)
    given = _varied_params(name)
    checked = method.spec.check(given, n_samples=N_SAMPLES)
    assert checked == given and method.spec.check(checked) == checked
    result = run_selection(
        _dataset(), "rare", name, events=False, **({} if method.online else {"top": 3}), **given
    )
    record = {k: v for k, v in result.params.items() if k in method.spec.parameters}
    assert record == method.spec.record(given)
    args = build_parser().parse_args(select_arguments(result.params))
    assert args.method == name
    parsed = method_params(args)
    if not method.online and "seed" in method.spec.parameters:
        parsed["seed"] = args.seed  # d-*: --seed is the k-means seed
    assert {k: parsed.get(k, method.spec.parameters[k].default) for k in record} == record


@pytest.mark.parametrize("name", METHODS)
def test_every_bad_parameter_names_itself(name):
    spec = get_method(name).spec
    X, y, names = _matrix()
    for param in spec.parameters.values():
        for bad in _bad_values(param):
            with pytest.raises(FSEngineError) as caught:
                if spec.online:
                    get_method(name).selector(**{param.name: bad}).start(y)
                else:
                    get_method(name).select(X, y, names, params={param.name: bad}, top=2)
            assert caught.value.parameter == param.name, (param.name, bad, caught.value)
            assert caught.value.method == name
            assert param.cli_flag in caught.value.describe(lambda n: spec.parameters[n].cli_flag)
    with pytest.raises(FSEngineError) as caught:
        get_method(name).select(X, y, names, params={"no_such_parameter": 1})
    assert caught.value.parameter == "no_such_parameter"


@pytest.mark.parametrize("name", METHODS)
def test_bad_parameter_on_the_command_line_is_one_line_naming_the_flag(name, tmp_path, capsys):
    spec = get_method(name).spec
    path = _write_csv(tmp_path)
    for param in spec.parameters.values():
        if param.kind != "int" or param.flag == "seed":
            continue
        code = main(
            [
                "select",
                str(path),
                "--minority",
                "rare",
                "--method",
                name,
                param.cli_flag,
                str(param.low - 1),
            ]
        )
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and param.cli_flag in err, err


@pytest.mark.parametrize("name", ONLINE_METHODS)
def test_selector_pickles_and_clones(name):
    X, y, names = _matrix()
    method = get_method(name)
    params = _varied_params(name)
    selector = method.selector(**params)
    assert selector.get_params() == method.spec.check(params)
    assert pickle.loads(pickle.dumps(selector)).get_params() == selector.get_params()
    twin = selector.clone()
    assert twin is not selector and twin.get_params() == selector.get_params()
    selector.start(y)
    first = list(stream_events(selector, X[:, :20], names[:20]))
    copy = pickle.loads(pickle.dumps(selector))  # mid-stream state survives
    rest = [X[:, 20:], names[20:], list(range(20, N_FEATURES))]
    assert _same(selector.step_many(*rest), copy.step_many(*rest))
    assert _same(selector.finish(), copy.finish())
    fresh = twin.start(y)  # a clone starts from nothing
    assert _same(list(stream_events(fresh, X[:, :20], names[:20])), first)


@pytest.mark.parametrize("name", ONLINE_METHODS)
def test_events_carry_the_declared_columns(name):
    X, y, names = _matrix()
    method = get_method(name)
    events = method.select(X, y, names, events=True).events
    assert len(events) == N_FEATURES
    own = method.trace_columns()
    for event in events:
        assert isinstance(event, method.spec.event) and isinstance(event, StreamEvent)
        assert event.action in method.spec.actions
        assert all(hasattr(event, column) for column in own)
    assert {e.action for e in events} - set(method.spec.actions) == set()


@pytest.mark.parametrize("name", ONLINE_METHODS)
def test_trace_csv_has_the_methods_own_columns(name, tmp_path):
    X, y, names = _matrix()
    method = get_method(name)
    events = method.select(X, y, names, events=True).events
    rows = list(csv.reader(io.StringIO(events_to_csv(events, name))))
    header = rows[0]
    assert tuple(header) == trace_columns(name)
    assert set(method.trace_columns()) <= set(header)
    assert len(rows) == N_FEATURES + 1 and all(len(r) == len(header) for r in rows)
    for row, event in zip(rows[1:], events):
        cells = dict(zip(header, row))
        assert cells["action"] == event.action and int(cells["column_index"]) == event.column
        if method.spec.action_codes:
            assert int(cells["action_code"]) == method.spec.action_codes[event.action]
    # The command line writes the same trace.
    path = _write_csv(tmp_path)
    trace = tmp_path / "trace.csv"
    assert (
        main(
            [
                "select",
                str(path),
                "--minority",
                "rare",
                "--method",
                name,
                "--out",
                str(tmp_path / "sel.csv"),
                "--trace",
                str(trace),
            ]
        )
        == 0
    )
    assert trace.read_text() == events_to_csv(events, name)


def test_the_registry_lists_each_method_once_with_a_complete_spec():
    assert len(set(METHODS)) == len(METHODS) == len(REGISTRY)
    for name, method in REGISTRY.items():
        spec = method.spec
        assert spec.name == name and spec.label and spec.citation and spec.score
        for param in spec.parameters.values():
            assert param.help and param.source, (name, param.name)
            spec.check({param.name: param.default})  # the default is valid
        if spec.online:
            assert spec.set_score and spec.actions and spec.event is not None


def test_the_docs_parameter_tables_are_the_specs():
    from pathlib import Path

    from fsengine.cli import methods_markdown

    docs = Path(__file__).resolve().parents[2] / "docs" / "METHODS.md"
    assert docs.read_text() == methods_markdown(), (
        "docs/METHODS.md is out of date: python -m fsengine methods --markdown > docs/METHODS.md"
    )
    for _name, method in REGISTRY.items():
        for param in method.spec.parameters.values():
            assert f"| `{param.name}` | `{param.cli_flag}` |" in docs.read_text()
    import re

    for line in docs.read_text().splitlines():  # every row has its cells
        if line.startswith("| `"):
            cells = len(re.findall(r"(?<!\\)\|", line)) - 1
            assert cells in (2, 6), line


def test_methods_command_lists_every_method_as_json(capsys):
    import json

    assert main(["methods", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [m["name"] for m in listed] == list(METHODS)
    for m in listed:
        spec = get_method(m["name"]).spec
        assert [p["name"] for p in m["parameters"]] == list(spec.parameters)
        assert [p["default"] for p in m["parameters"]] == list(spec.defaults().values())
