"""Study manifests: a valid one read in full, and every kind of mistake named."""

import json
import os

import pytest

from conftest import GLIOMA, SAMPLE
from fsengine.errors import FSEngineError
from fsengine.evaluation.study import (
    DEFAULT_METRICS,
    StudyDataset,
    load_manifest,
    study_from,
    study_record,
)


def write(tmp_path, text: str):
    path = tmp_path / "study.toml"
    path.write_text(text)
    return path


def manifest(tmp_path, study: str = "", datasets: str | None = None) -> str:
    srbct = os.path.relpath(SAMPLE, tmp_path)
    glioma = os.path.relpath(GLIOMA, tmp_path)
    if datasets is None:
        datasets = f"""
[[dataset]]
path = "{srbct}"
minority = "2"

[[dataset]]
path = "{glioma}"
minority = 2
name = "glioma"
label = "label"
"""
    return f"""
[study]
methods = ["kofsd", "osfs", "fisher"]
{study}
{datasets}
"""


def test_a_valid_manifest_is_read_in_full(tmp_path):
    study = load_manifest(
        write(
            tmp_path,
            manifest(
                tmp_path,
                'splits = 5\nseed = 3\nmetrics = ["gmean_svm", "seconds"]\n'
                "[study.params.kofsd]\nk = 5\n",
            ),
        )
    )
    assert study.methods == ("kofsd", "osfs", "fisher")
    assert (study.splits, study.seed, study.top, study.count_from) == (5, 3, None, "kofsd")
    assert study.metrics == ("gmean_svm", "seconds")
    assert study.params["kofsd"]["k"] == 5
    assert [d.name for d in study.datasets] == ["SRBCT", "glioma"]
    assert study.datasets[0].path == SAMPLE.resolve()
    assert study.datasets[1].minority == "2" and study.datasets[1].label == "label"
    assert study.n_tasks == 2 * 3 * 5


def test_defaults(tmp_path):
    study = load_manifest(write(tmp_path, manifest(tmp_path)))
    assert (study.splits, study.seed, study.metrics) == (20, 0, DEFAULT_METRICS)


@pytest.mark.parametrize(
    "study,datasets,message",
    [
        ("splits = ", None, r"is not valid TOML \(.*line"),
        ("split = 5", None, r"\[study\]: unknown key\(s\) split"),
        ('methods = ["kofsd", "nope"]', None, r"methods: 'nope' is not a method"),
        ("splits = 0", None, r"splits: must be a positive integer, got 0"),
        ('metrics = ["accuracy"]', None, r"'accuracy' is not a metric"),
        ("[study.params.kofsd]\nk = 0", None, r"\[study.params.kofsd\] k: .*got 0"),
        ("[study.params.saola]\nalpha = 0.1", None, r"saola is not among the study's methods"),
        ('count_from = "fisher"', None, r"count_from: fisher is not an online selector"),
        ("", '[[dataset]]\npath = "missing.csv"\nminority = "1"', r"#1 path: .*missing.csv"),
        ("", '[[dataset]]\npath = "x.csv"', r"#1 needs|#1 path"),
        ("", "", r"lists no data set"),
    ],
)
def test_mistakes_are_named(tmp_path, study, datasets, message):
    text = manifest(tmp_path, study, datasets)
    if "methods = [" in study:
        text = text.replace('methods = ["kofsd", "osfs", "fisher"]\n', "", 1)
    with pytest.raises(FSEngineError, match=message):
        load_manifest(write(tmp_path, text))


def test_two_data_sets_with_one_name(tmp_path):
    srbct = os.path.relpath(SAMPLE, tmp_path)
    twice = f'[[dataset]]\npath = "{srbct}"\nminority = "2"\n' * 2
    with pytest.raises(FSEngineError, match=r"#2 name: 'SRBCT' is already the name"):
        load_manifest(write(tmp_path, manifest(tmp_path, "", twice)))


def test_missing_manifest(tmp_path):
    with pytest.raises(FSEngineError, match="no such manifest file"):
        load_manifest(tmp_path / "none.toml")


def test_study_from_values_equals_the_manifests_study(tmp_path):
    read = load_manifest(
        write(tmp_path, manifest(tmp_path, "splits = 5\nseed = 3\n[study.params.kofsd]\nk = 5\n"))
    )
    built = study_from(
        read.datasets,
        ["kofsd", "osfs", "fisher"],
        splits=5,
        seed=3,
        params={"kofsd": {"k": 5}},
    )
    assert built == read


def test_a_study_record_is_json_and_comes_back_equal():
    study = study_from(
        [
            StudyDataset("SRBCT", SAMPLE, 2),
            {"name": "uploaded", "path": None, "minority": "t", "label": "label"},
        ],
        ("kofsd", "fisher", "relieff"),
        splits=3,
        seed=7,
        top=4,
        metrics=("gmean_svm", "n_features"),
        params={"kofsd": {"k": 5}},
    )
    assert study.datasets[0].minority == "2"  # a class as text, as a manifest gives it
    assert study.datasets[1] == StudyDataset("uploaded", None, "t", "label", False)
    record = json.loads(json.dumps(study_record(study)))
    assert record["datasets"][0]["path"] == str(SAMPLE)
    assert study_from(**record) == study


@pytest.mark.parametrize(
    "change,message",
    [
        ({"methods": ["kofsd", "nope"]}, r"study methods: 'nope' is not a method"),
        ({"methods": ["kofsd", "kofsd"]}, r"study methods: names a method twice"),
        ({"splits": 0}, r"study splits: must be a positive integer, got 0"),
        ({"top": 0}, r"study top: must be a positive integer"),
        ({"metrics": ["accuracy"]}, r"study metrics: 'accuracy' is not a metric"),
        ({"params": {"kofsd": {"k": 0}}}, r"study params\['kofsd'\] k: .*got 0"),
        ({"params": {"saola": {}}}, r"saola is not among the study's methods"),
        ({"count_from": "fisher"}, r"count_from: fisher is not an online selector"),
        ({"datasets": []}, r"study: has no data set"),
        (
            {"datasets": [StudyDataset("a", None, "1"), StudyDataset("a", None, "2")]},
            r"#2 name: 'a' is already",
        ),
        ({"datasets": [{"name": "a", "path": None}]}, r"#1: needs a name and a minority"),
        ({"datasets": [StudyDataset("a", None, None)]}, r"'a' minority: must name"),
    ],
)
def test_study_from_names_the_value_at_fault(change, message):
    values = {"datasets": [StudyDataset("a", None, "1")], "methods": ["kofsd", "fisher"]}
    with pytest.raises(FSEngineError, match=message):
        study_from(**{**values, **change})
