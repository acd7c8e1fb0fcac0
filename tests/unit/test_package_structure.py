"""The package's public face (``import fsengine as fs``), checked as scanpy checks its own
(scanpy's tests/test_package_structure.py): every name of ``fs.__all__`` is there and
public, every public function documents each of its parameters and what it returns, the
face's options are keyword-only, every online selector of the registry is exported, and
each door gives what the function behind it gives (the same code path as the command
line's)."""

from __future__ import annotations

import inspect
import json
import re

import numpy as np
import pytest

import fsengine as fs
from conftest import SAMPLE
from fsengine import adata as fs_adata
from fsengine.cli import main
from fsengine.evaluation import sweep_k, sweep_top
from fsengine.methods import METHODS, REGISTRY
from fsengine.online import SELECTORS

FUNCTIONS = sorted(
    name
    for name in fs.__all__
    if inspect.isfunction(getattr(fs, name)) and not name.startswith("_")
)


def test_every_public_name_is_there_and_public():
    assert len(fs.__all__) == len(set(fs.__all__))
    for name in fs.__all__:
        assert hasattr(fs, name), name
        assert name == "__version__" or not name.startswith("_"), name
    assert {"read", "Task", "select", "evaluate", "sweep", "methods"} <= set(fs.__all__)


def test_every_online_selector_class_is_exported():
    exported = {getattr(fs, name) for name in fs.__all__}
    assert set(SELECTORS) <= exported
    assert len(SELECTORS) == len(METHODS) - sum(not m.online for m in REGISTRY.values())


def _documented(doc: str) -> set[str]:
    """The names the ``Parameters`` section of a numpydoc docstring (as
    :func:`inspect.getdoc` gives it) documents; ``a, b : int`` documents both."""
    lines = doc.splitlines()
    if "Parameters" not in lines:
        return set()
    names = set()
    for i in range(lines.index("Parameters") + 2, len(lines)):
        line = lines[i]
        if i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
            break  # the next section's title
        if line.strip() and not line.startswith(" "):
            head = line.split(" : ")[0]
            names.update(part.strip().lstrip("*") for part in head.split(","))
    return names


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_public_function_documents_its_parameters_and_returns(name):
    function = getattr(fs, name)
    doc = inspect.getdoc(function) or ""
    assert doc.split("\n")[0].strip(), f"{name}: no summary line"
    parameters = [p for p in inspect.signature(function).parameters]
    missing = set(parameters) - _documented(doc)
    assert not missing, f"{name} does not document {sorted(missing)}"
    if inspect.signature(function).return_annotation not in (None, "None"):
        assert re.search(r"\n(Returns|Yields)\n-+\n", doc), f"{name}: no Returns section"


@pytest.mark.parametrize("name", ["select", "sweep"])
def test_the_faces_options_are_keyword_only(name):
    """Data first (and the class, or the method), then options by name, as scanpy's."""
    parameters = list(inspect.signature(getattr(fs, name)).parameters.values())
    positional = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert len(positional) <= 2, positional
    assert all(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in parameters[len(positional) :])


def test_the_documentation_checker_finds_an_undocumented_parameter():
    def documented(a, b):
        """Summary.

        Parameters
        ----------
        a : int
            The first.

        Returns
        -------
        int
        """

    assert _documented(inspect.getdoc(documented)) == {"a"}


def test_read_is_the_loader_and_select_gives_the_runs_selection():
    dataset = fs.read(SAMPLE)
    assert fs.read is fs.load_dataset
    mine = fs.select(dataset, "kofsd", minority=2, k=5)
    behind = fs.run_selection(dataset, 2, "kofsd", k=5)
    assert mine.selection == behind.selection and mine.params == behind.params
    task = fs.Task.from_dataset(dataset, 2)
    assert (
        fs.select(task, "welch", top=7).selection
        == fs.run_selection(task, None, "welch", top=7).selection
    )


def test_select_on_anndata_writes_into_it_as_the_anndata_door_does():
    anndata = pytest.importorskip("anndata")
    dataset = fs.read(SAMPLE)
    obs = {"cell_type": [str(label) for label in dataset.labels]}
    import pandas as pd

    def fresh():
        return anndata.AnnData(
            np.asarray(dataset.X, dtype=np.float32),
            obs=pd.DataFrame(obs, index=[f"c{i}" for i in range(dataset.n_samples)]),
            var=pd.DataFrame(index=list(dataset.feature_names)),
        )

    mine, theirs = fresh(), fresh()
    result = fs.select(mine, "kofsd", groupby="cell_type", minority="2", k=5)
    behind = fs_adata.select(theirs, "cell_type", "2", "kofsd", k=5)
    assert result.selection == behind.selection
    assert mine.var["kofsd_selected"].sum() == len(result.selection.features) > 0
    assert mine.var.equals(theirs.var)


def test_sweep_gives_the_sweeps_records():
    task = fs.Task.from_dataset(fs.read(SAMPLE), 2)
    over_k = fs.sweep(task, method="kofsd", over="k", values=[3, 5], n_splits=2, n_jobs=1)
    behind = sweep_k(task, None, [3, 5], n_splits=2, n_jobs=1)
    assert [(r["k"], r["split"], r["features"]) for r in over_k.records] == [
        (r["k"], r["split"], r["features"]) for r in behind.records
    ]
    over_top = fs.sweep(
        task, method=["fisher", "welch"], over="top", values=[4, 8], n_splits=2, n_jobs=1
    )
    behind = sweep_top(task, None, ["fisher", "welch"], [4, 8], n_splits=2, n_jobs=1)
    key = ("top", "split", "method", "features", "gmean_1nn")
    assert [tuple(r[k] for k in key) for r in over_top.records] == [
        tuple(r[k] for k in key) for r in behind.records
    ]
    assert len(over_top.records) == 2 * 2 * 2


def test_the_faces_refusals_name_the_problem():
    dataset = fs.read(SAMPLE)
    with pytest.raises(fs.FSEngineError, match="groupby names an obs column"):
        fs.select(dataset, "kofsd", groupby="cell_type")
    with pytest.raises(fs.FSEngineError, match="one method"):
        fs.sweep(dataset, 2, method=["kofsd", "ofs-fpd"], over="k", values=[3])
    with pytest.raises(fs.FSEngineError, match="is not a method"):
        fs.select(dataset, "k-ofsd")


def test_methods_lists_what_the_command_lists(capsys):
    table = fs.methods()
    assert main(["methods", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert list(table.index) == [m["name"] for m in listed] == list(METHODS)
    assert list(table["kind"]) == [m["kind"] for m in listed]
    kofsd = table.loc["kofsd"]
    assert kofsd["label"] == "K-OFSD" and kofsd["kind"] == "online"
    assert "k=" in kofsd["parameters"] and "alpha=" in kofsd["parameters"]
