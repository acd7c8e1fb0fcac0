"""Study manifests: a valid one read in full, and every kind of mistake named."""

import os

import pytest

from conftest import GLIOMA, SAMPLE
from fsengine.errors import FSEngineError
from fsengine.study import DEFAULT_METRICS, load_manifest


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
