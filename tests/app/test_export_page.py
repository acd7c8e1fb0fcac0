"""The Export page under AppTest, and the bytes of its downloads through the pure functions
that build them (AppTest shows a download button's label only): the selection CSV is the
command line's, the reduced matrix reads back to the data, the command line repeats the run."""

import io
import json
import shlex

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from apptest_helpers import SAMPLE_K, rerun_until
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE, SLOW_SECONDS
from fsengine import FSEngineError, load_dataset, run_selection
from fsengine.cli import main
from fsengine.export.writers import (
    command_line,
    params_to_json,
    reduced_matrix,
    select_arguments,
    selection_to_csv,
)
from fsengine.methods.runs import METHODS, ONLINE_METHODS

DOWNLOADS = [
    "Download selected features (CSV)",
    "Download as AnnData (.h5ad)",
    "Download reduced matrix (CSV)",
    "Download parameters (JSON)",
]


@pytest.fixture
def app():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=SLOW_SECONDS).run()
    at.switch_page("dashboard/pages/export.py").run()
    assert not at.exception
    return at


def _cli_csv(capsys, *args) -> str:
    capsys.readouterr()
    assert main(["select", *map(str, args)]) == 0
    return capsys.readouterr().out


def _result(at, method, top=None, minority=2):
    """The page's kept result for the method (the key ends with the method's parameters)."""
    found = [
        r
        for key, r in at.session_state["export_results"]["results"].items()
        if key[:3] == (minority, method, top)
    ]
    assert len(found) == 1
    return found[0]


def _table(at):
    return at.dataframe[0].value


def _metrics(at):
    return {m.label: m.value for m in at.metric}


def _run_command(text, capsys, cwd, monkeypatch) -> str:
    """Run the page's command-line text (``python -m fsengine ...``) in ``cwd``."""
    words = shlex.split(text)
    assert words[:3] == ["python", "-m", "fsengine"]
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    assert main(words[3:]) == 0
    return capsys.readouterr().out


def _upload(at, frame, name="upload.csv", usable=True):
    at.switch_page("dashboard/pages/data.py").run()
    at.file_uploader(key="uploader").set_value(
        (name, frame.to_csv(index=False).encode(), "text/csv")
    ).run()
    assert not at.exception
    if usable:
        assert not at.error
    else:  # the Data page already says why the default minority cannot be used
        assert len(at.error) == 1 and "only 1 sample" in at.error[0].value
    at.switch_page("dashboard/pages/export.py").run()
    return at


def test_nothing_to_export_before_a_run(app):
    assert [r.options for r in app.radio] == [["Compute here"]]  # no finished stream yet
    assert any("Press Compute selection" in i.value for i in app.info)
    assert not app.get("download_button")


def test_online_method_matches_the_command_line(app, srbct, capsys, monkeypatch):
    app.button(key="export_compute").click().run()
    assert not app.exception and not app.error
    result = _result(app, "kofsd")
    expected = run_selection(srbct, 2, "kofsd", k=SAMPLE_K).selection
    table = _table(app)
    assert list(table["feature"]) == list(expected.features)
    assert list(table["column"]) == list(expected.columns)
    assert list(table["score"]) == list(expected.scores)
    assert list(table["rank"]) == list(range(1, len(expected) + 1))
    assert _metrics(app)["Selected features"] == str(len(expected))
    assert [d.label for d in app.get("download_button")] == DOWNLOADS
    page_csv = selection_to_csv(result.selection)
    assert page_csv == _cli_csv(
        capsys, SAMPLE, "--minority", "2", "--method", "kofsd", "--k", str(SAMPLE_K)
    )
    # The command line shown on the page writes the same bytes, run where the file is.
    command = app.code[0].value
    assert command.startswith("python -m fsengine select SRBCT.parquet ")
    assert _run_command(command, capsys, SAMPLE.parent, monkeypatch) == page_csv


def test_the_command_line_says_where_the_dashboards_k_differs_from_its_own(app):
    """The dashboard starts K-OFSD at K = 5 on the sample's class 2 (a training half holds
    as few as 6 of its 11 samples), the command line at the paper's 7: said next to the
    command line, at a glance (issue 40, point 10)."""
    app.button(key="export_compute").click().run()
    command = app.code[0].value
    assert f" --k {SAMPLE_K} " in f"{command} "
    (note,) = [i.value for i in app.info if "--k" in i.value]
    assert note.startswith(
        f"`--k {SAMPLE_K}` is the dashboard's default for this minority class; the command "
        "line's default is 7"
    )
    assert "as few as 6 minority samples" in note  # why, from the protocol
    # a parameter at the command line's default, or a method without one, is not noted
    app.selectbox(key="export_method").set_value("fisher").run()
    app.button(key="export_compute").click().run()
    assert not [i for i in app.info if "command line's default" in i.value]


def test_ranker_with_top_n_matches_the_command_line(app, srbct, capsys, monkeypatch):
    app.selectbox(key="export_method").set_value("d-fisher").run()
    app.number_input(key="export_top").set_value(6).run()
    app.button(key="export_compute").click().run()
    assert not app.exception and not app.error
    result = _result(app, "d-fisher", 6)
    table = _table(app)
    assert len(table) == 6
    assert list(table["feature"]) == list(
        run_selection(srbct, 2, "d-fisher", top=6).selection.features
    )
    page_csv = selection_to_csv(result.selection)
    assert page_csv == _cli_csv(
        capsys, SAMPLE, "--minority", "2", "--method", "d-fisher", "--top", "6"
    )
    assert _run_command(app.code[0].value, capsys, SAMPLE.parent, monkeypatch) == page_csv
    params = json.loads(
        params_to_json({**result.params, "transpose": False, "drop_constant": False})
    )
    assert params["method"] == "d-fisher" and params["top"] == 6 and params["seed"] == 0
    assert params["minority"] == 2 and params["data"] == "SRBCT.parquet"


def test_computed_results_are_kept_per_method_and_count(app, srbct):
    app.button(key="export_compute").click().run()
    first = _result(app, "kofsd")
    app.selectbox(key="export_method").set_value("fisher").run()
    assert any("Press Compute selection to run Fisher" in i.value for i in app.info)
    app.button(key="export_compute").click().run()
    assert len(_table(app)) == 10  # default top-N
    app.selectbox(key="export_method").set_value("kofsd").run()
    expected = run_selection(srbct, 2, "kofsd", k=SAMPLE_K).selection.features
    assert list(_table(app)["feature"]) == list(expected)
    assert _result(app, "kofsd") is first  # kept, not recomputed
    app.switch_page("dashboard/pages/data.py").run()
    app.switch_page("dashboard/pages/export.py").run()
    assert app.selectbox(key="export_method").value == "kofsd"  # survives a page switch
    assert list(_table(app)["feature"]) == list(expected)


def test_reduced_matrix_round_trips_as_csv_and_parquet(app, srbct):
    app.button(key="export_compute").click().run()
    selection = _result(app, "kofsd").selection
    columns = [*selection.features, "label"]
    expected = np.column_stack([srbct.X[:, list(selection.columns)], srbct.labels])

    frame = pd.read_csv(io.BytesIO(reduced_matrix(srbct, selection, "csv")))
    assert list(frame.columns) == columns
    assert frame["label"].dtype.kind == "i"
    np.testing.assert_array_equal(frame.to_numpy(), expected)  # full precision

    app.radio(key="export_format").set_value("Parquet").run()
    assert "Download reduced matrix (Parquet)" in [d.label for d in app.get("download_button")]
    table = pq.read_table(io.BytesIO(reduced_matrix(srbct, selection, "parquet")))
    assert table.column_names == columns
    assert str(table.schema.field("label").type) == "int64"
    assert all(str(table.schema.field(f).type) == "double" for f in selection.features)
    np.testing.assert_array_equal(table.to_pandas().to_numpy(), expected)

    again = load_dataset(reduced_matrix(srbct, selection, "csv"), name="reduced.csv")
    np.testing.assert_array_equal(again.X, srbct.X[:, list(selection.columns)])
    np.testing.assert_array_equal(again.labels, srbct.labels)


def _with_ids(n_minority=5, n_rest=15, p=8, seed=3):
    rng = np.random.default_rng(seed)
    n = n_minority + n_rest
    frame = pd.DataFrame({"patient": [f"P{i:03d}" for i in range(n)]})
    for j in range(p):
        frame[f"gene{j}"] = rng.normal(size=n) + (np.arange(n) < n_minority) * (j % 3)
    frame["diagnosis"] = ["tumour"] * n_minority + ["normal"] * n_rest
    return frame


def test_reduced_matrix_puts_sample_ids_first_and_keeps_the_label_name(app):
    frame = _with_ids()
    _upload(app, frame, "patients.csv")
    app.selectbox(key="export_method").set_value("s2n").run()
    app.number_input(key="export_top").set_value(3).run()
    app.button(key="export_compute").click().run()
    assert not app.exception and not app.error
    ds = app.session_state["data"].dataset
    selection = _result(app, "s2n", 3, minority="tumour").selection
    for fmt in ("csv", "parquet"):
        raw = reduced_matrix(ds, selection, fmt)
        back = pd.read_csv(io.BytesIO(raw)) if fmt == "csv" else pd.read_parquet(io.BytesIO(raw))
        assert list(back.columns) == ["sample", *selection.features, "diagnosis"]
        pd.testing.assert_frame_equal(
            back,
            frame[["patient", *selection.features, "diagnosis"]].rename(
                columns={"patient": "sample"}
            ),
            check_dtype=False,
        )
    assert any("sample identifiers" in c.value for c in app.caption)


def test_reduced_matrix_sample_column_avoids_a_clash():
    frame = _with_ids().rename(columns={"gene0": "sample"})
    ds = load_dataset(frame.to_csv(index=False).encode(), name="clash.csv")
    selection = run_selection(ds, "tumour", "fisher", top=ds.n_features).selection
    back = pd.read_csv(io.BytesIO(reduced_matrix(ds, selection, "csv")))
    assert back.columns[0] == "sample_" and "sample" in back.columns


def test_reduced_matrix_rejects_a_foreign_selection_or_format(srbct):
    selection = run_selection(srbct, 2, "fisher", top=3).selection
    with pytest.raises(ValueError, match="format"):
        reduced_matrix(srbct, selection, "xlsx")
    other = load_dataset(_with_ids().to_csv(index=False).encode(), name="ids.csv")
    with pytest.raises(ValueError):
        reduced_matrix(other, selection, "csv")


def test_finished_stream_is_offered_with_its_parameters(app, srbct, capsys, monkeypatch):
    app.switch_page("dashboard/pages/stream.py").run()
    app.slider(key="stream_kofsd_k").set_value(5).run()
    app.select_slider(key="stream_speed").set_value("max").run()
    app.button(key="stream_start").click().run()
    rerun_until(
        app,
        lambda: {m.label: m.value for m in app.metric}.get("Features streamed") == "2308 / 2308",
        "the stream did not finish",
    )
    app.switch_page("dashboard/pages/export.py").run()
    assert not app.exception
    assert app.radio(key="export_source").options == ["Last Stream run", "Compute here"]
    assert app.radio(key="export_source").value == "Last Stream run"
    (live,) = [kept.live for kept in app.session_state["streams"].values()]
    expected = run_selection(srbct, 2, "kofsd", k=5)
    assert list(_table(app)["feature"]) == list(live.selection().features)
    assert list(_table(app)["feature"]) == list(expected.selection.features)
    result = app.session_state["export_stream"][1]
    assert result.params == expected.params
    assert result.params["k"] == 5
    command = app.code[0].value
    assert "--k 5" in command
    assert _run_command(command, capsys, SAMPLE.parent, monkeypatch) == selection_to_csv(
        expected.selection
    )
    # A new data set: the stream ran on the old one, so it is no longer offered.
    _upload(app, _with_ids())
    assert app.radio(key="export_source").options == ["Compute here"]


def test_errors_are_shown_and_the_page_keeps_working(app):
    frame = _with_ids(n_minority=1, n_rest=11)  # class tumour: a single sample
    _upload(app, frame, usable=False)
    app.button(key="export_compute").click().run()
    assert not app.exception
    assert len(app.error) == 1 and "only 1 sample" in app.error[0].value
    assert not app.get("download_button")
    app.switch_page("dashboard/pages/data.py").run()
    next(s for s in app.selectbox if s.label.startswith("Minority")).set_value("normal").run()
    app.switch_page("dashboard/pages/export.py").run()
    app.button(key="export_compute").click().run()
    assert not app.exception and not app.error
    assert [d.label for d in app.get("download_button")] == DOWNLOADS


# The command line, for every method and the loader's options.


@pytest.mark.parametrize("method", METHODS)
def test_command_line_repeats_every_method(srbct, method, capsys):
    top = None if method in ONLINE_METHODS else 7
    result = run_selection(srbct, 2, method, top=top)
    args = select_arguments(
        {**result.params, "transpose": False, "drop_constant": False}, str(SAMPLE)
    )
    assert args[:2] == ["select", str(SAMPLE)]
    assert _cli_csv(capsys, *args[1:]) == selection_to_csv(result.selection)


def test_command_line_repeats_a_random_order_and_loader_options(tmp_path, capsys):
    frame = _with_ids(n_minority=6, n_rest=18, p=12)
    frame.insert(3, "flat", 1.0)
    genes = frame.drop(columns="diagnosis").set_index("patient").T.astype(object)
    genes.loc["diagnosis"] = frame["diagnosis"].to_numpy()
    path = tmp_path / "genes in rows.csv"
    genes.to_csv(path, index_label="gene")
    ds = load_dataset(path, transpose=True, drop_constant=True)
    assert ds.dropped_features == ("flat",)
    result = run_selection(ds, "tumour", "ofs-fpd", order="random", seed=11)
    text = command_line({**result.params, "transpose": True, "drop_constant": True}, str(path))
    words = shlex.split(text)
    assert words[4] == str(path)  # quoted: it has spaces
    assert "--transpose" in words and "--drop-constant" in words
    assert words[words.index("--order") + 1] == "random"
    assert words[words.index("--seed") + 1] == "11"
    assert _cli_csv(capsys, *words[4:]) == selection_to_csv(result.selection)


def test_command_line_expresses_every_parameter_and_refuses_unknown_ones(srbct):
    params = run_selection(srbct, 2, "mi", top=3).params
    assert params["tie_noise"] is True and "--tie-noise" in command_line(params).split()
    assert "--no-tie-noise" in command_line({**params, "tie_noise": False}).split()
    with pytest.raises(FSEngineError) as caught:
        command_line({**params, "no_such_parameter": 1})
    assert caught.value.parameter == "no_such_parameter"


def test_command_line_repeats_a_negative_class_label(tmp_path, capsys, monkeypatch):
    frame = _with_ids(n_minority=6, n_rest=14).drop(columns="patient")
    frame["diagnosis"] = np.where(frame["diagnosis"] == "tumour", -1, 1)  # labels as +-1
    path = tmp_path / "-signed.csv"
    frame.to_csv(path, index=False)
    ds = load_dataset(path)
    result = run_selection(ds, -1, "kofsd", k=3)
    words = shlex.split(command_line(result.params, path.name))
    assert "--minority=-1" in words and words[4] == "./-signed.csv"
    monkeypatch.chdir(tmp_path)
    assert _cli_csv(capsys, *words[4:]) == selection_to_csv(result.selection)
