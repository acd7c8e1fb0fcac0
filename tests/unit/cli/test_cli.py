"""The command line: output format, same bytes as the library, one-line errors, exit 2."""

import csv
import io
import subprocess
import sys

import numpy as np
import pytest

from conftest import REFERENCE, ROOT, SAMPLE
from fsengine import load_dataset, run_selection
from fsengine.cli import main
from fsengine.export.writers import selection_to_csv


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_select_to_stdout_matches_the_library_writer(capsys, srbct):
    code, out, err = _run(
        capsys, "select", str(SAMPLE), "--minority", "2", "--method", "kofsd", "--out", "-"
    )
    assert code == 0
    expected = run_selection(srbct, 2, "kofsd")
    assert out == selection_to_csv(expected.selection)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["rank", "feature", "column_index", "score", "method", "status"]
    assert [int(r["rank"]) for r in rows] == list(range(1, len(rows) + 1))
    for r in rows:
        j = int(r["column_index"])
        assert r["feature"] == srbct.feature_names[j]
        assert r["method"] == "kofsd" and r["status"] == "selected"
        assert 0.5 < float(r["score"]) <= 1.0
    assert "selected" in err and err.count("\n") == 1


def test_reference_data_through_the_command_line(tmp_path, capsys):
    """ds4, K = 5 written as a CSV file: the command line selects the reference's features."""
    X = np.loadtxt(REFERENCE / "ds4_X.csv", delimiter=",")
    y = np.loadtxt(REFERENCE / "ds4_y.csv").astype(int)
    path = tmp_path / "ds4.csv"
    header = ",".join(f"f{j}" for j in range(X.shape[1])) + ",label\n"
    path.write_text(
        header + "".join(",".join(repr(float(v)) for v in row) + f",{c}\n" for row, c in zip(X, y))
    )
    out_file = tmp_path / "selected.csv"
    code, _, _ = _run(
        capsys, "select", str(path), "--minority", "1", "--k", "5", "--out", str(out_file)
    )
    assert code == 0
    rows = list(csv.DictReader(out_file.open()))
    expected = np.loadtxt(REFERENCE / "ds4_K5_selected.csv", delimiter=",").astype(int) - 1
    assert [int(r["column_index"]) for r in rows] == expected.tolist()
    deps = np.loadtxt(REFERENCE / "ds4_K5_depArray.csv", delimiter=",")
    assert [float(r["score"]) for r in rows] == deps[expected].tolist()  # full precision


def test_trace_file_has_one_row_per_feature(tmp_path, capsys, srbct):
    trace = tmp_path / "trace.csv"
    code, _, _ = _run(
        capsys,
        "select",
        str(SAMPLE),
        "--minority",
        "2",
        "--trace",
        str(trace),
        "--out",
        str(tmp_path / "s.csv"),
    )
    assert code == 0
    rows = list(csv.DictReader(trace.open()))
    assert len(rows) == srbct.n_features
    assert {r["action"] for r in rows} <= {"discarded", "replaced", "added", "rejected"}


def test_options_reach_the_selector(capsys, srbct):
    code, out, _ = _run(
        capsys,
        "select",
        str(SAMPLE),
        "--minority",
        "2",
        "--k",
        "3",
        "--alpha",
        "0.6",
        "--card",
        "consistency",
        "--variant",
        "paper",
        "--order",
        "random",
        "--seed",
        "5",
    )
    assert code == 0
    expected = run_selection(
        srbct, 2, k=3, alpha=0.6, card="consistency", variant="paper", order="random", seed=5
    )
    assert out == selection_to_csv(expected.selection)
    assert out != selection_to_csv(run_selection(srbct, 2).selection)


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["select", str(SAMPLE), "--minority", "9"], "--minority '9' is not a class"),
        (
            ["select", str(SAMPLE), "--minority", "2", "--k", "0"],
            "kofsd: --k must be an integer >= 1, got 0",
        ),
        (
            ["select", str(SAMPLE), "--minority", "2", "--k", "83"],
            "--k must be an integer from 1 to 82 (the number of samples minus one), got 83",
        ),
        (["select", str(SAMPLE), "--minority", "2", "--alpha", "2"], "alpha must be"),
        (
            ["select", str(SAMPLE), "--minority", "2", "--k", "seven"],
            "argument --k: 'seven' is not a valid integer",
        ),
        (["select", str(SAMPLE), "--minority", "2", "--method", "magic"], "invalid choice"),
        (["select", "missing.csv", "--minority", "2"], "file not found"),
        (
            ["select", str(SAMPLE), "--minority", "2", "--label", "nope"],
            "label column 'nope' not found",
        ),
        (["select", str(SAMPLE), "--minority", "2", "--out", str(ROOT)], "is a directory"),
        ([], "COMMAND"),
    ],
)
def test_errors_are_one_line_on_stderr_with_exit_2(capsys, argv, fragment):
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("fsengine: error: ")
    assert fragment in err


def test_bad_file_reports_column_and_row(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("g1,g2,label\n1,2,a\n3,inf,b\n4,5,a\n")
    code, _, err = _run(capsys, "select", str(path), "--minority", "a")
    assert code == 2
    assert "'g2'" in err and "row 2" in err and "infinite" in err


def test_help_documents_every_option():
    result = subprocess.run(
        [sys.executable, "-m", "fsengine", "select", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    for option in (
        "--label",
        "--minority",
        "--method",
        "--k",
        "--alpha",
        "--card",
        "--variant",
        "--order",
        "--seed",
        "--transpose",
        "--out",
        "--drop-constant",
        "--trace",
        "--metric",
        "--gamma1",
        "--gamma2",
    ):
        assert option in result.stdout


def test_module_entry_point_exit_status_and_single_stderr_line():
    result = subprocess.run(
        [sys.executable, "-m", "fsengine", "select", str(SAMPLE), "--minority", "BL"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_info_command(capsys):
    code, out, _ = _run(capsys, "info", str(SAMPLE), "--minority", "2")
    assert code == 0
    assert "samples: 83" in out and "features: 2308" in out
    assert "imbalance ratio (majority / minority, 2 versus rest): 6.55" in out
    assert "minority class: 2\n" in out


def test_info_names_the_default_minority(capsys):
    code, out, _ = _run(capsys, "info", str(SAMPLE))
    assert code == 0
    assert "minority class: 2, the smallest class" in out  # BL: 11 of 83
    assert out.count("imbalance ratio") == 1


def test_transposed_csv_gives_the_same_selection(tmp_path, capsys):
    ds = load_dataset(SAMPLE)
    path = tmp_path / "genes_in_rows.csv"
    lines = ["gene," + ",".join(f"s{i}" for i in range(ds.n_samples))]
    lines += [
        name + "," + ",".join(repr(float(v)) for v in ds.X[:, j])
        for j, name in enumerate(ds.feature_names)
    ]
    lines.append("label," + ",".join(str(v) for v in ds.labels))
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = _run(capsys, "select", str(path), "--transpose", "--minority", "2")
    assert code == 0
    assert out == selection_to_csv(run_selection(ds, 2).selection)


def test_run_parameters_record_every_effective_default(srbct):
    import json

    from fsengine.export.writers import params_to_json

    record = json.loads(params_to_json(run_selection(srbct, "2").params))
    assert record == {
        "method": "kofsd",
        "data": "SRBCT.parquet",
        "label_column": "label",
        "minority": 2,
        "order": "natural",
        "seed": None,
        "k": 7,
        "alpha": 0.5,
        "card": "imbalanced",
        "variant": "reference",
        "metric": "seuclidean",
        "ties": "index",
    }


@pytest.mark.parametrize(
    "method,options",
    [
        ("ofs-fpd", ["--relevance", "absolute"]),
        (
            "cie-osfs",
            ["--bins", "4", "--binning", "uniform", "--test", "chi2", "--significance", "0.01"],
        ),
    ],
)
def test_other_online_methods_through_the_command_line(capsys, srbct, method, options):
    code, out, _ = _run(
        capsys, "select", str(SAMPLE), "--minority", "2", "--method", method, *options
    )
    assert code == 0
    params = dict(zip([o[2:] for o in options[::2]], options[1::2]))
    typed = {
        k: (int(v) if k == "bins" else float(v) if k == "significance" else v)
        for k, v in params.items()
    }
    expected = run_selection(srbct, 2, method, **typed)
    assert out == selection_to_csv(expected.selection)
    assert {r["method"] for r in csv.DictReader(io.StringIO(out))} == {method}


def test_an_option_of_another_method_is_an_error(capsys):
    code, _, err = _run(
        capsys, "select", str(SAMPLE), "--minority", "2", "--method", "cie-osfs", "--alpha", "0.3"
    )
    # --alpha is K-OFSD's threshold and the significance level of the Fisher z methods
    assert code == 2 and "--alpha applies to --method kofsd|osfs|fast-osfs|saola|" in err
    assert err.rstrip().endswith(", not cie-osfs") and err.count("\n") == 1


def test_stability_command(tmp_path, capsys, srbct):
    from fsengine.evaluation.stability import order_stability

    out_file = tmp_path / "orders.csv"
    code, out, _ = _run(
        capsys,
        "stability",
        str(SAMPLE),
        "--minority",
        "2",
        "--method",
        "cie-osfs",
        "--orders",
        "3",
        "--seed",
        "7",
        "--out",
        str(out_file),
    )
    assert code == 0
    expected = order_stability(srbct, 2, "cie-osfs", orders=3, seed=7)
    assert f"mean pairwise Jaccard: {expected.mean_jaccard:.4f}" in out
    assert f"mean pairwise Kuncheva index: {expected.mean_kuncheva:.4f}" in out
    rows = list(csv.DictReader(out_file.open()))
    assert [int(r["seed"]) for r in rows] == [7, 8, 9]
    assert [tuple(r["features"].split(";")) for r in rows] == list(expected.selections)


def test_stability_needs_two_orders(capsys):
    code, _, err = _run(capsys, "stability", str(SAMPLE), "--minority", "2", "--orders", "1")
    assert code == 2 and ">= 2" in err


@pytest.mark.parametrize(
    "method",
    ["fisher", "s2n", "pcc", "mi", "relieff", "hellinger", "d-fisher", "d-mi", "d-pcc", "d-s2n"],
)
def test_every_ranker_through_the_command_line(capsys, srbct, method):
    from fsengine.sklearn import RankerSelector

    code, out, _ = _run(
        capsys, "select", str(SAMPLE), "--minority", "2", "--method", method, "--top", "7"
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [int(r["rank"]) for r in rows] == list(range(1, 8))
    scores = [float(r["score"]) for r in rows]
    assert scores == sorted(scores, reverse=True)
    selector = RankerSelector(method=method, k=7, minority=2).fit(srbct.X, srbct.labels)
    assert [int(r["column_index"]) for r in rows] == selector.ranking_[:7].tolist()
    assert scores == [float(selector.scores_[j]) for j in selector.ranking_[:7]]


def test_ranker_without_top_writes_every_feature_in_rank_order(capsys, srbct):
    code, out, _ = _run(capsys, "select", str(SAMPLE), "--minority", "2", "--method", "pcc")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == srbct.n_features
    assert sorted(int(r["column_index"]) for r in rows) == list(range(srbct.n_features))


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["--method", "kofsd", "--top", "3"], "--top applies to rankers"),
        (["--method", "fisher", "--top", "0"], "--top must be an integer from 1 to 2308"),
        (
            ["--method", "fisher", "--neighbors", "3"],
            "--neighbors applies to --method mi|relieff|d-mi, not fisher",
        ),
        (["--method", "fisher", "--seed", "3"], "--seed does not apply to fisher"),
        (["--method", "pcc", "--order", "random"], "a feature order does not apply"),
        (
            ["--method", "d-fisher", "--clusters", "0"],
            "d-fisher: --clusters must be an integer >= 1, got 0",
        ),
        (["--method", "mi", "--neighbors", "0"], "mi: --neighbors must be an integer >= 1, got 0"),
    ],
)
def test_ranker_option_errors(capsys, argv, fragment):
    code, _, err = _run(capsys, "select", str(SAMPLE), "--minority", "2", *argv)
    assert code == 2 and err.count("\n") == 1
    assert fragment in err


def test_ranker_options_reach_the_ranker(capsys, srbct):
    code, out, _ = _run(
        capsys,
        "select",
        str(SAMPLE),
        "--minority",
        "2",
        "--method",
        "d-mi",
        "--top",
        "5",
        "--clusters",
        "3",
        "--seed",
        "2",
        "--estimator",
        "binned",
        "--bins",
        "4",
    )
    assert code == 0
    expected = run_selection(
        srbct, 2, "d-mi", top=5, n_clusters=3, seed=2, estimator="binned", bins=4
    )
    assert out == selection_to_csv(expected.selection)
    assert expected.params["n_clusters"] == 3 and expected.params["seed"] == 2


def test_k_at_or_above_the_minority_size_warns_but_runs(capsys, srbct):
    code, out, err = _run(capsys, "select", str(SAMPLE), "--minority", "2", "--k", "11")
    assert code == 0
    lines = err.strip().splitlines()
    assert lines[0].startswith(
        "fsengine: warning: K = 11 is at or above the minority class size (11)"
    )
    assert out == selection_to_csv(run_selection(srbct, 2, k=11).selection)
    code, _, err = _run(capsys, "select", str(SAMPLE), "--minority", "2", "--k", "10")
    assert "warning" not in err


def test_an_empty_feature_order_is_an_error():
    from fsengine import FSEngineError
    from fsengine.methods.online import KOFSD, stream_events

    with pytest.raises(FSEngineError, match="feature order is empty"):
        list(
            stream_events(
                KOFSD(k=2).start(np.array([0, 1] * 4)),
                np.zeros((8, 3)),
                ["a", "b", "c"],
                order=np.array([], dtype=int),
            )
        )


def test_minority_defaults_to_the_smallest_class_as_in_the_library(capsys, srbct):
    """Without --minority, select and evaluate take the library's class (the smallest,
    ties to the first in label order) and say so on stderr; the output is the same as with
    that class named."""
    smallest = srbct.default_minority()
    counts = srbct.class_counts()
    assert counts[smallest] == min(counts.values())
    code, out, err = _run(capsys, "select", str(SAMPLE), "--out", "-")
    assert code == 0
    assert f"class {smallest} ({counts[smallest]} of {srbct.n_samples} samples)" in err
    named = _run(capsys, "select", str(SAMPLE), "--minority", str(smallest), "--out", "-")
    assert named[1] == out
    assert "no --minority" not in named[2]
    code, out, err = _run(capsys, "evaluate", str(SAMPLE), "--methods", "fisher", "--splits", "2")
    assert code == 0
    assert f"minority {smallest} ({counts[smallest]} of" in out
    assert "no --minority given" in err


def test_a_study_refuses_a_k_too_large_for_a_half_where_the_manifest_sets_it(capsys, tmp_path):
    """The study's K lives in its manifest, not in a --k flag: the one-line refusal names
    the manifest's table and the data set whose training half it does not fit, exit 2,
    before any task runs (no journal is written)."""
    from conftest import GLIOMA

    manifest = tmp_path / "study.toml"
    manifest.write_text(
        '[study]\nmethods = ["kofsd", "fisher"]\nsplits = 3\n'
        "[study.params.kofsd]\nk = 30\n"
        f'[[dataset]]\npath = "{SAMPLE.as_posix()}"\nminority = "2"\n'
        f'[[dataset]]\npath = "{GLIOMA.as_posix()}"\nminority = "2"\n'
    )
    out = tmp_path / "out"
    code, printed, err = _run(capsys, "benchmark", str(manifest), "--serial", "--out", str(out))
    assert code == 2 and printed == ""
    assert err == (
        f"fsengine: error: {manifest} [study.params.kofsd] k: must be an integer from 1 to 24 "
        "(the number of samples minus one), got 30: the samples here are those of the "
        "smallest training half of the splits (25), in the data set GLIOMA\n"
    )
    assert not list(tmp_path.glob("out*"))


def _tiny_study(tmp_path, study_lines: str, minority: str = "1", labels=None) -> str:
    """A manifest over a 14-sample CSV (classes 1 x 4 and 0 x 10, or ``labels``)."""
    rng = np.random.default_rng(0)
    labels = labels or [1] * 4 + [0] * 10
    rows = ["label," + ",".join(f"g{j}" for j in range(6))]
    rows += [f"{c}," + ",".join(f"{v:.2f}" for v in rng.normal(size=6)) for c in labels]
    (tmp_path / "tiny.csv").write_text("\n".join(rows) + "\n")
    manifest = tmp_path / "study.toml"
    manifest.write_text(
        f'[study]\nsplits = 3\n{study_lines}\n[[dataset]]\npath = "tiny.csv"\n'
        f'minority = "{minority}"\n'
    )
    return str(manifest)


def test_a_studys_refusals_name_the_manifests_keys_not_flags(capsys, tmp_path):
    """A default of the method that counts the rankers' features says it is one and
    where to set it; a data set's minority and the study's top are named by their tables
    (the data set too, where the splits refuse it)."""
    ranked = _tiny_study(tmp_path, 'methods = ["fisher"]')  # K-OFSD's K = 7 > 7 - 1
    code, _, err = _run(capsys, "benchmark", ranked, "--serial", "--out", str(tmp_path / "a"))
    assert code == 2
    assert err.startswith(
        f"fsengine: error: {ranked}: kofsd (it counts the rankers' features), by default, k "
        "must be an integer from 1 to 6"
    )
    assert err.endswith(
        "(7), in the data set tiny; set k in [study.params.kofsd] or the rankers' number of "
        "features, [study] top\n"
    )
    top = _tiny_study(tmp_path, 'methods = ["fisher"]\ntop = 50')
    code, _, err = _run(capsys, "benchmark", top, "--serial", "--out", str(tmp_path / "b"))
    assert code == 2 and err == (
        f"fsengine: error: {top} [study] top: must be an integer from 1 to 6 (the number of "
        "features), got 50, in the data set tiny\n"
    )
    assert not list(tmp_path.glob("b*"))  # refused before the journal was opened
    few = _tiny_study(tmp_path, 'methods = ["fisher"]\ntop = 3', "2", [2] * 3 + [0] * 11)
    code, _, err = _run(capsys, "benchmark", few, "--serial", "--out", str(tmp_path / "c"))
    assert code == 2
    assert err.startswith(f"fsengine: error: {few} [[dataset]] minority: names a class of 3")
    assert ", in the data set tiny; " in err and "--" not in err
