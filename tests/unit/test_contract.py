"""The contract every registered method passes, checked the same way for each.

Parametrized by the registry (:data:`fsengine.methods.registry.REGISTRY`): a method added there is
checked here with no edit. The values a test uses are derived from the method's
specification (its defaults, ranges and choices), not written per method. The online
selectors' contract is the shipped one (:mod:`fsengine.checks`, which people who write
their own selector run on it); the rest here is the registry's and the command line's.
"""

from __future__ import annotations

import csv
import dataclasses
import io

import numpy as np
import pytest

from fsengine.checks import (
    CHECKS,
    N_FEATURES,
    N_SAMPLES,
    bad_values,
    check_selector,
    contract_data,
    varied_params,
)
from fsengine.cli import build_parser, main
from fsengine.cli.options import method_params
from fsengine.data.dataset import Dataset
from fsengine.errors import FSEngineError
from fsengine.export.writers import events_to_csv, select_arguments, trace_columns
from fsengine.methods.online import KOFSD
from fsengine.methods.registry import METHODS, ONLINE_METHODS, REGISTRY, get_method
from fsengine.methods.runs import run_selection


def _matrix(seed: int = 0):
    """:func:`fsengine.checks.contract_data`: rounded values, a copied and a constant column."""
    return contract_data("rounded", seed)


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


def _variants(name: str) -> list[dict]:
    """The parameters an online selector is checked under: its defaults, and each tie rule
    of a selector that has them (only ``ties="average"`` promises a result independent of
    the rows' order)."""
    spec = get_method(name).spec
    ties = spec.parameters.get("ties")
    return [{}] + ([{"ties": rule} for rule in ties.choices] if ties is not None else [])


CONTRACT = [
    pytest.param(
        name, params, check, id=f"{name}-{'-'.join(params.values()) or 'default'}-{check.__name__}"
    )
    for name in ONLINE_METHODS
    for params in _variants(name)
    for check in CHECKS
]


class Forgetful(KOFSD):
    """Broken: ``step_many`` forgets the selected set after each block."""

    def step_many(self, block, names=None, columns=None):
        events = super().step_many(block, names, columns)
        self._set_selected((), ())
        return events


class Sticky(KOFSD):
    """Broken: its clone is itself, state and all."""

    def clone(self):
        return self


class Misnamed(KOFSD):
    """Broken: an event names another column than the feature's."""

    def step_many(self, block, names=None, columns=None):
        events = super().step_many(block, names, columns)
        return [dataclasses.replace(event, column=-1) for event in events]


class Hoarder(KOFSD):
    """Broken: keeps the blocks it is given (not a copy) and streams them again at finish."""

    def _step_block(self, block, names, columns, want_events=True):  # (its quiet one too)
        self.__dict__.setdefault("kept", []).append((block, names, columns))
        return super()._step_block(block, names, columns, want_events)

    def finish(self):
        again = KOFSD(**self.get_params()).start(self.y, n_features=N_FEATURES)
        for block, names, columns in self.__dict__.get("kept", []):
            again._step_block_quiet(again._checked_block(block, names), names, columns)
        return again.finish()


@pytest.mark.parametrize(("name", "params", "check"), CONTRACT)
def test_every_online_selector_keeps_the_shipped_contract(name, params, check):
    check(get_method(name).selector(**params))


def test_check_selector_finds_a_broken_selector():
    """The shipped checks fail where they should: a selector whose ``step_many`` forgets
    the set, one whose clone keeps its state, one whose event names another column, one
    that uses a block after handing it back."""

    expected = {
        Forgetful: "check_step_equals_step_many",
        Sticky: "check_pickle_and_clone",
        Misnamed: "check_events",
        Hoarder: "check_block_not_kept",
    }
    for broken, check in expected.items():
        with pytest.raises(AssertionError, match=f"^{check}: "):
            check_selector(broken(k=3))
    check_selector(KOFSD(k=3))  # the unbroken one passes


@pytest.mark.parametrize("name", METHODS)
def test_parameters_round_trip_through_spec_cli_and_command_line(name):
    method = get_method(name)
    given = varied_params(get_method(name).spec)
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
        for bad in bad_values(param):
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
