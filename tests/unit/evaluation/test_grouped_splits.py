"""Grouped splits (issue 30, point 4): samples of one patient, donor or batch never on both
sides of a split, stratified as far as the groups allow; the groups read from a column or
a sample sheet (a series matrix's line and an obs column take the same path); runs record
them; groups that leave a half without minority samples are refused by name."""

import numpy as np
import pandas as pd
import pytest

from conftest import SAMPLE
from fsengine import FSEngineError, load_dataset, run_selection
from fsengine.cli import main
from fsengine.data.task import Task
from fsengine.evaluation import (
    Plan,
    evaluate,
    evaluate_split,
    protocol_warnings,
    stratified_splits,
)


def _patients(labels) -> np.ndarray:
    """Two samples per patient, within a class (the last of an odd class alone)."""
    labels = np.asarray(labels)
    groups = np.empty(len(labels), dtype=object)
    for c in np.unique(labels):
        rows = np.flatnonzero(labels == c)
        for k, row in enumerate(rows):
            groups[row] = f"{c}-p{k // 2}"
    return groups


@pytest.fixture(scope="module")
def grouped_csv(tmp_path_factory, srbct):
    frame = pd.DataFrame(srbct.X, columns=list(srbct.feature_names))
    frame.insert(0, "patient", _patients(srbct.labels))
    frame["label"] = srbct.labels
    path = tmp_path_factory.mktemp("groups") / "srbct_patients.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_sample_without_a_group_is_a_group_of_its_own(tmp_path, srbct):
    """An empty cell in the groups column (a healthy donor among patients' pairs): that
    sample shares a group with no other, and a note names it; before, the file was
    refused ('missing group')."""
    frame = pd.DataFrame(srbct.X, columns=list(srbct.feature_names))
    patients = _patients(srbct.labels)
    patients[[3, 40]] = None
    frame.insert(0, "patient", patients)
    frame["label"] = srbct.labels
    frame.to_csv(tmp_path / "gaps.csv", index=False)
    ds = load_dataset(tmp_path / "gaps.csv", sample_groups="patient")
    assert ds.groups[3] == "(no group) row 4" and ds.groups[40] == "(no group) row 41"
    assert list(ds.groups[[0, 1, 2]]) == list(patients[[0, 1, 2]])
    assert (
        "2 samples without a group in 'patient' ('row 4', 'row 41'): each is a group of its own"
        in ds.notes
    )


def test_group_saolas_groups_do_not_hide_the_sample_groups_in_the_record(grouped_csv):
    # Group-SAOLA's own parameter is named groups (its number of feature groups)
    task = Task.from_dataset(load_dataset(grouped_csv, sample_groups="patient"), 2)
    record = run_selection(task, method="group-saola", groups=3).params
    assert record["groups"] == 3 and record["sample_groups"] == "patient"


def test_no_group_is_on_both_sides_and_the_minority_on_each(srbct):
    y = srbct.binarise(2)
    groups = _patients(srbct.labels)
    splits = stratified_splits(y, 20, 3, groups)
    assert len(splits) == 20
    for train, test in splits:
        assert set(groups[train]).isdisjoint(groups[test])
        assert sorted(np.r_[train, test]) == list(range(len(y)))
        assert 4 <= y[train].sum() <= 7 and 4 <= y[test].sum() <= 7  # 11 BL in 6 patients
        assert 35 <= len(train) <= 48
    assert [t.tolist() for t, _ in splits] == [
        t.tolist() for t, _ in stratified_splits(y, 20, 3, groups)
    ]
    assert [t.tolist() for t, _ in splits] != [
        t.tolist() for t, _ in stratified_splits(y, 20, 4, groups)
    ]


def test_groups_that_cannot_give_both_halves_the_minority_are_refused(srbct):
    y = srbct.binarise(2)
    one_group = np.where(y == 1, "bl-patient", _patients(srbct.labels))
    with pytest.raises(FSEngineError) as caught:
        stratified_splits(y, 5, 0, one_group)
    assert caught.value.parameter == "sample_groups"
    assert "minority's 11 samples in 1 group(s)" in caught.value.describe()


def test_the_groups_column_is_not_a_feature_and_runs_use_it(grouped_csv, srbct):
    ds = load_dataset(grouped_csv, sample_groups="patient")
    assert ds.feature_names == srbct.feature_names and np.array_equal(ds.X, srbct.X)
    assert list(ds.groups) == list(_patients(srbct.labels))
    assert "column 'patient' holds the samples' groups" in ds.notes
    task = Task.from_dataset(ds, 2)
    assert task.record()["sample_groups"] == "patient"
    result = evaluate(task, methods=["fisher"], top=5, n_splits=3, seed=1, n_jobs=1)
    assert result.params["sample_groups"] == "patient"
    plan = Plan(("fisher",), 5, {"fisher": {}})
    expected = [
        record
        for k, (train, test) in enumerate(stratified_splits(task.y, 3, 1, task.groups))
        for record in evaluate_split(task, plan, k, train, test)
    ]
    drop = ("seconds", "settings")
    assert [{k: v for k, v in r.items() if k not in drop} for r in result.records] == [
        {k: v for k, v in r.items() if k not in drop} for r in expected
    ]
    ungrouped = evaluate(Task.from_dataset(srbct, 2), methods=["fisher"], top=5, n_splits=3, seed=1)
    assert [r["features"] for r in ungrouped.records] != [r["features"] for r in result.records]
    warnings = protocol_warnings(task.y, ["kofsd"], {"kofsd": {"k": 7}}, 20, task.groups)
    assert any("K = 7" in w for w in warnings)
    with pytest.raises(FSEngineError, match="has no column 'donor'"):
        load_dataset(grouped_csv, sample_groups="donor")


def test_groups_from_a_sample_sheet(tmp_path, srbct):
    samples = [f"S{k}" for k in range(srbct.n_samples)]
    patients = _patients(srbct.labels)
    table = pd.DataFrame(srbct.X, columns=list(srbct.feature_names))
    table.insert(0, "sample", samples)
    table.to_csv(tmp_path / "table.csv", index=False)
    pd.DataFrame({"id": samples, "class": srbct.labels, "patient": patients}).to_csv(
        tmp_path / "sheet.csv", index=False
    )
    ds = load_dataset(
        tmp_path / "table.csv",
        samples=tmp_path / "sheet.csv",
        label="class",
        sample_groups="patient",
    )
    assert list(ds.groups) == list(patients) and ds.groups_column == "patient"
    with pytest.raises(FSEngineError, match="has no sample sheet column 'donor'"):
        load_dataset(
            tmp_path / "table.csv",
            samples=tmp_path / "sheet.csv",
            label="class",
            sample_groups="donor",
        )


def test_the_command_line_takes_groups(grouped_csv, capsys):
    argv = ["evaluate", str(grouped_csv), "--minority", "2", "--methods", "fisher"]
    assert main([*argv, "--sample-groups", "patient", "--splits", "2", "--jobs", "1"]) == 0
    capsys.readouterr()
    assert main([*argv, "--sample-groups", "nurse"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no column 'nurse'" in err
    assert main(["select", str(SAMPLE), "--sample-groups", "label"]) == 2
