"""Preprocessing (issue 30, point 2): each step against values worked out by hand, the
defaults changing nothing, the unlogged check on real sets, and the command line's options,
note and run record."""

import numpy as np
import pytest

from conftest import ROOT, SAMPLE
from fsengine import FSEngineError, load_dataset, run_selection
from fsengine.cli import main
from fsengine.data.dataset import Dataset
from fsengine.data.preprocess import PREPROCESSING, looks_unlogged, preprocess
from fsengine.data.task import Task

COLON = ROOT / "tests" / "data" / "colon_alon.csv.gz"


def _dataset(X) -> Dataset:
    X = np.asarray(X, dtype=float)
    return Dataset(
        X=np.asfortranarray(X),
        labels=np.array([1, 1, 0, 0]),
        feature_names=tuple(f"g{j}" for j in range(X.shape[1])),
        label_column="label",
        sample_names=("a", "b", "c", "d"),
    )


RAW = [[10.0, 100.0, 7.0], [30.0, 300.0, 7.0], [20000.0, 50.0, 7.0], [25.0, 0.0, 7.0]]


def test_the_defaults_change_nothing(srbct):
    assert preprocess(srbct) is srbct
    assert preprocess(srbct, PREPROCESSING.defaults()) is srbct
    assert Task.from_dataset(srbct, 2).record() == {
        "data": "SRBCT.parquet",
        "label_column": "label",
        "minority": 2,
    }


def test_thresholds_then_log2_by_hand():
    done = preprocess(_dataset(RAW), {"floor": 20.0, "ceiling": 16000.0, "transform": "log2"})
    expected = np.log2(
        [[20, 100, 20], [30, 300, 20], [16000, 50, 20], [25, 20, 20]]
    )  # 10 -> 20, 20000 -> 16000, 0 -> 20, 7 -> 20
    assert np.allclose(done.X, expected)
    assert done.constant_features == ("g2",)  # 7 everywhere: 20 after the floor
    assert done.preprocessing == "floor=20.0, ceiling=16000.0, transform=log2, offset=0.0"
    assert done.notes[-3:] == (
        "thresholded to [20, 16000]",
        "log2(value + 0)",
        "preprocessing: floor=20.0, ceiling=16000.0, transform=log2, offset=0.0",
    )


def test_log_cpm_by_hand():
    counts = [[0, 10, 90], [5, 5, 0], [100, 300, 600], [1, 1, 2]]
    done = preprocess(_dataset(counts), {"transform": "log-cpm"})
    totals = np.array([100, 10, 1000, 4])[:, None]
    assert np.allclose(done.X, np.log2(np.array(counts) / totals * 1e6 + 1))
    assert done.X[0, 0] == 0.0  # a zero count stays 0: log2(0 + 1)


def test_the_variance_filter_drops_low_variance_genes():
    X = [[1.0, 5.0, 0.0], [1.1, 9.0, 0.0], [0.9, 1.0, 0.0], [1.0, 5.0, 0.1]]
    done = preprocess(_dataset(X), {"min_variance": 0.5})
    assert done.feature_names == ("g1",)  # variances 0.005, 8.0, 0.0019
    assert "2 genes of variance below 0.5 dropped" in done.notes
    with pytest.raises(FSEngineError, match="drops every gene"):
        preprocess(_dataset(X), {"min_variance": 100.0})


def test_bad_steps_are_named():
    with pytest.raises(FSEngineError) as caught:
        preprocess(_dataset(RAW), {"transform": "log2"})
    message = caught.value.describe()
    assert "gene 'g1', sample 'd' is 0" in message and "remedy" not in message
    assert message.endswith("or an offset above 0 with floor")  # not "above -0"
    with pytest.raises(FSEngineError) as caught:
        preprocess(_dataset([[-2.5, 1], [2, 1], [3, 1], [4, 2]]), {"transform": "log2"})
    assert caught.value.describe().endswith("or an offset above 2.5 with floor")
    with pytest.raises(FSEngineError, match="gene 'g0', sample 'a' is -1"):
        preprocess(_dataset([[-1.0, 1], [2, 1], [3, 1], [4, 2]]), {"transform": "log-cpm"})
    with pytest.raises(FSEngineError, match="must not exceed the ceiling"):
        preprocess(_dataset(RAW), {"floor": 10.0, "ceiling": 5.0})
    with pytest.raises(FSEngineError, match="must be one of none, log2, log-cpm"):
        preprocess(_dataset(RAW), {"transform": "ln"})


def test_the_unlogged_check_on_real_sets(srbct):
    colon = load_dataset(COLON)  # raw intensities 5.8 .. 20903
    assert looks_unlogged(colon.X).startswith(
        "the values range from 5.82 to 20,903.2, over three orders of magnitude: they look unlogged"
    )
    assert looks_unlogged(srbct.X) is None  # 0.0025 .. 32.7: already transformed
    glioma = load_dataset(ROOT / "tests" / "data" / "glioma_series_matrix.txt.gz")
    assert looks_unlogged(glioma.X) is None  # log10 values
    brain = np.array([[-37762.0, 5.0], [207050.0, 100.0]])  # Brain_Tumor1's range
    assert "negative background-corrected values" in looks_unlogged(brain)
    logged = preprocess(colon, {"floor": 20.0, "transform": "log2"})
    assert looks_unlogged(logged.X) is None


def test_the_command_line_notes_unlogged_data_and_preprocesses(tmp_path, capsys):
    out = tmp_path / "selected.csv"
    assert main(["select", str(COLON), "--minority", "tumour", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("fsengine: note: the values range from 5.82 to 20,903.2")
    argv = ["select", str(COLON), "--minority", "tumour", "--floor", "20", "--transform", "log2"]
    assert main([*argv, "--out", str(out)]) == 0
    assert "the values range from" not in capsys.readouterr().err  # logged: no such note
    expected = run_selection(
        preprocess(load_dataset(COLON), {"floor": 20.0, "transform": "log2"}), "tumour", "kofsd"
    ).selection
    assert [line.split(",")[1] for line in out.read_text().splitlines()[1:]] == list(
        expected.features
    )
    assert main(["select", str(SAMPLE), "--transform", "log2", "--offset", "-1"]) == 2
    assert "--offset must be a number in [0, inf)" in capsys.readouterr().err


def test_the_run_record_states_the_preprocessing():
    from fsengine.evaluation import evaluate

    settings = {"floor": 20.0, "transform": "log2"}
    task = Task.from_dataset(preprocess(load_dataset(COLON), settings), "tumour")
    result = evaluate(task, methods=["fisher"], n_splits=2, n_jobs=1)
    assert result.params["preprocessing"] == "floor=20.0, transform=log2, offset=0.0"
    assert result.params["data"] == "colon_alon.csv.gz"
    plain = evaluate(
        Task.from_dataset(load_dataset(COLON), "tumour"), methods=["fisher"], n_splits=2
    )
    assert "preprocessing" not in plain.params


def test_the_suggested_steps_follow_the_kind_of_values():
    from fsengine.data.preprocess import suggested_preprocessing

    intensities = np.array([[-40.0, 12000.0], [25.0, 300.0]])
    counts = np.array([[0.0, 5000.0], [3.0, 12.0]])
    with_zeros = np.array([[0.0, 5000.5], [3.25, 12.0]])
    positive = np.array([[2.5, 5000.0], [3.0, 12.0]])
    assert suggested_preprocessing(intensities) == {
        "floor": 20.0,
        "ceiling": 16000.0,
        "transform": "log2",
    }
    assert suggested_preprocessing(counts) == {"transform": "log-cpm"}
    assert suggested_preprocessing(with_zeros) == {"transform": "log2", "offset": 1.0}
    assert suggested_preprocessing(positive) == {"transform": "log2"}
    assert suggested_preprocessing(np.log2(positive)) == {}


def test_the_record_line_reads_back_to_its_parameters_and_flags():
    from fsengine.data.preprocess import preprocessing_params, preprocessing_text
    from fsengine.errors import FSEngineError
    from fsengine.export.writers import data_arguments

    cases = [
        ({"floor": 20.0, "transform": "log2"}, {"floor": 20.0, "transform": "log2", "offset": 0.0}),
        (
            {"transform": "log-cpm", "min_variance": 0.25},
            {"transform": "log-cpm", "min_variance": 0.25},
        ),
        ({"ceiling": 16000.0, "offset": 3.0}, {"ceiling": 16000.0}),  # no offset without log2
    ]
    for settings, expected in cases:
        assert preprocessing_params(preprocessing_text(settings)) == expected
    assert preprocessing_params("none") == {} == preprocessing_params("")
    assert data_arguments({"preprocessing": "floor=20.0, transform=log2, offset=1.0"}) == [
        "--floor", "20.0", "--transform", "log2", "--offset", "1.0"
    ]  # fmt: skip
    assert data_arguments({"layer": "counts", "gene_names": "symbol", "label_column": "cell"}) == [
        "--label", "cell", "--layer", "counts", "--gene-names", "symbol"
    ]  # fmt: skip
    with pytest.raises(FSEngineError, match="not a step of the preprocessing"):
        preprocessing_params("scale=2")


def test_the_notes_split_into_the_loaders_and_the_steps():
    from fsengine.data.preprocess import preprocessing_notes

    raw = _dataset(RAW)
    assert preprocessing_notes(raw) == (raw.notes, ())
    done = preprocess(raw, {"floor": 20.0, "transform": "log2", "min_variance": 1e-9})
    reading, steps = preprocessing_notes(done)
    assert reading == raw.notes
    assert steps == ("thresholded to [20, inf]", "log2(value + 0)", steps[2])
    assert steps[2].endswith("genes of variance below 1e-09 dropped")
