"""Sample groups in benchmark studies (issue 30): a data set's ``sample_groups`` column in
the manifest, kept in the study record, and used by the study's splits (equal to
:func:`fsengine.evaluation.evaluate` on the grouped data set, not to the ungrouped one)."""

import os
import pickle

import numpy as np
import pandas as pd
import pytest

from conftest import SAMPLE
from fsengine import FSEngineError, load_dataset
from fsengine.data.task import Task
from fsengine.evaluation import evaluate
from fsengine.evaluation.benchmark import run_study
from fsengine.evaluation.study import load_manifest, study_from, study_record

METHODS = ["fisher", "s2n"]


def _patients(labels) -> list[str]:
    """Three samples per patient, within a class."""
    out, seen = [], {}
    for c in labels:
        k = seen.get(c, 0)
        seen[c] = k + 1
        out.append(f"{c}-p{k // 3}")
    return out


@pytest.fixture(scope="module")
def grouped(tmp_path_factory):
    srbct = load_dataset(SAMPLE)
    frame = pd.DataFrame(srbct.X, columns=list(srbct.feature_names))
    frame.insert(0, "patient", _patients(srbct.labels))
    frame["label"] = srbct.labels
    folder = tmp_path_factory.mktemp("study_groups")
    frame.to_csv(folder / "srbct_patients.csv", index=False)
    return folder


def _manifest(folder, groups_line='sample_groups = "patient"'):
    path = folder / "study.toml"
    path.write_text(
        f"""
[study]
methods = {METHODS!r}
splits = 3
seed = 4
top = 5

[[dataset]]
path = "{os.path.relpath(folder / "srbct_patients.csv", folder)}"
minority = "2"
name = "srbct_patients"
{groups_line}
""".replace("'", '"')
    )
    return path


def test_the_manifest_and_the_record_carry_the_groups_column(grouped):
    study = load_manifest(_manifest(grouped))
    assert study.datasets[0].sample_groups == "patient"
    record = study_record(study)
    assert record["datasets"][0]["sample_groups"] == "patient"
    assert study_from(**record) == study
    ungrouped = study_record(load_manifest(_manifest(grouped, "")))
    assert "sample_groups" not in ungrouped["datasets"][0]  # older records unchanged


def test_a_bad_groups_value_is_named(grouped):
    with pytest.raises(FSEngineError, match="sample_groups: must be the name of the column"):
        load_manifest(_manifest(grouped, "sample_groups = 3"))


def test_the_study_splits_keep_patients_apart(grouped):
    table = run_study(load_manifest(_manifest(grouped)), engine="serial")
    ds = load_dataset(grouped / "srbct_patients.csv", sample_groups="patient")
    expected = evaluate(ds, "2", METHODS, top=5, n_splits=3, seed=4, n_jobs=1)
    plain = evaluate(load_dataset(SAMPLE), "2", METHODS, top=5, n_splits=3, seed=4, n_jobs=1)
    mine = table.sort_values(["method", "split"]).reset_index(drop=True)

    def features(records):
        frame = pd.DataFrame(records).sort_values(["method", "split"])
        return frame["features"].tolist()

    assert mine["features"].tolist() == features(expected.records)
    assert mine["features"].tolist() != features(plain.records)
    assert np.allclose(
        mine["gmean_1nn"],
        pd.DataFrame(expected.records).sort_values(["method", "split"])["gmean_1nn"],
    )


def test_a_task_keeps_its_groups_in_a_worker(grouped):
    ds = load_dataset(grouped / "srbct_patients.csv", sample_groups="patient")
    task = pickle.loads(pickle.dumps(Task.from_dataset(ds, 2)))
    assert task.dataset is None
    assert list(task.groups) == _patients(ds.labels)


def test_a_data_sets_preprocessing_is_applied_and_recorded(tmp_path):
    from fsengine.evaluation.benchmark import read_study_data

    srbct = load_dataset(SAMPLE)
    raw = pd.DataFrame(2.0**srbct.X, columns=list(srbct.feature_names))  # unlogged
    raw["label"] = srbct.labels
    raw.to_csv(tmp_path / "raw.csv", index=False)
    manifest = tmp_path / "study.toml"
    manifest.write_text(
        '[study]\nmethods = ["fisher", "s2n"]\nsplits = 2\n\n[[dataset]]\npath = "raw.csv"\n'
        'minority = "2"\npreprocessing = "transform=log2"\n'
    )
    study = load_manifest(manifest)
    assert study.datasets[0].preprocessing == "transform=log2, offset=0.0"
    record = study_record(study)
    assert record["datasets"][0]["preprocessing"] == "transform=log2, offset=0.0"
    assert study_from(**record) == study
    [task] = read_study_data(study).values()
    assert np.allclose(task.X, srbct.X)  # log2(2 ** x), by hand
    assert task.record()["preprocessing"] == "transform=log2, offset=0.0"
    manifest.write_text(manifest.read_text().replace("transform=log2", "transform=log10"))
    with pytest.raises(FSEngineError, match="preprocessing"):
        load_manifest(manifest)
