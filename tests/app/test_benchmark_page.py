"""The Benchmark page under AppTest: a study of SRBCT (the current data set) and an uploaded
GLIOMA, three methods, two splits, run on the page's default engine (a local Dask cluster),
must show what the library computes serially; it comes back after a reload and from
History; workspace data sets can be picked; bad uploads and a bad scheduler address are
error boxes and the page goes on."""

import json
import threading

import pandas as pd
import pytest
from apptest_helpers import click as _click
from apptest_helpers import figures as _figures
from apptest_helpers import session as _session
from apptest_helpers import workspace_id as _ws

from conftest import GLIOMA, SAMPLE
from dashboard import workspace
from fsengine.evaluation.benchmark import compare_study, run_study
from fsengine.evaluation.study import STUDY_METRICS, StudyDataset, study_from
from fsengine.export.writers import pairs_frame, rank_frame
from fsengine.methods.registry import METHOD_LABELS

PAGE = "dashboard/pages/benchmark.py"
METHODS = ["kofsd", "fisher", "relieff"]
SPLITS, SEED = 2, 3
#: K-OFSD's K on the page for SRBCT and GLIOMA with minority class 2: one K for both,
#: below every training half's minority count. By hand: SRBCT's class 2 has 11 samples,
#: a training half 5 or 6 of them (K 5 would do); GLIOMA's has 7, a half 3 or 4 (K 2).
STUDY_K = 2
K_KEY = "benchmark_kofsd_k"


def _glioma():
    return ("GLIOMA.parquet", GLIOMA.read_bytes(), "application/octet-stream")


def _upload(at, *files):
    at.file_uploader[0].set_value(list(files)).run()
    assert not at.exception


def _protocol(at, methods=METHODS):
    at.multiselect(key="benchmark_methods").set_value(methods)
    at.slider(key="benchmark_splits").set_value(SPLITS)
    at.number_input(key="benchmark_seed").set_value(SEED)
    at.run()


def _texts(elements):
    return [e.value for e in elements]


def _metrics(at):
    return {m.label: m.value for m in at.metric}


def _shown(at):
    """The rank table, the pairs table, the tests' values and p-values, and the figures."""
    frames = [d.value for d in at.dataframe]
    return {
        "ranks": frames[1],
        "pairs": frames[2].reset_index(drop=True),
        "metrics": _metrics(at),
        "p": [c.value for c in at.caption if c.value.startswith("p = ")],
        "figures": _figures(at),
    }


@pytest.fixture(scope="module")
def studied():
    """SRBCT (minority 2) and an uploaded GLIOMA (its smallest class, 2): kofsd, fisher and
    relieff, 2 splits, seed 3, on the default engine."""
    at = _session(page=PAGE)
    _upload(at, _glioma())
    _protocol(at)
    assert at.radio(key="benchmark_engine").value == "local"  # the default: local Dask
    _click(at, "Run the study")
    assert not at.error
    return at


@pytest.fixture(scope="module")
def library():
    """The same study run by the library alone, in this process, from the files."""
    study = study_from(
        [StudyDataset("SRBCT", SAMPLE, "2"), StudyDataset("GLIOMA", GLIOMA, "2")],
        METHODS,
        splits=SPLITS,
        seed=SEED,
        metrics=STUDY_METRICS,
        params={"kofsd": {"k": STUDY_K}},
    )
    table = run_study(study, engine="serial")
    return study, table


def test_fewer_than_two_data_sets_is_said_not_failed():
    at = _session(page=PAGE)
    assert any("at least 2" in text for text in _texts(at.info))
    assert not at.error and not at.exception
    assert not any(b.label == "Run the study" for b in at.button)
    at.checkbox(key="benchmark_current").uncheck().run()  # no data set at all
    assert any("has 0 data sets" in text for text in _texts(at.info))
    assert not at.exception


def test_the_kept_table_is_the_librarys(studied, library):
    _, table = library
    (result,) = studied.session_state["benchmark_results"].values()
    json.dumps(result)  # kept as JSON-able data (the workspace stores it as JSON)
    shown = pd.DataFrame(result["records"]).drop(columns="seconds")
    pd.testing.assert_frame_equal(shown, table.drop(columns="seconds"))  # bit for bit
    assert result["study"]["methods"] == METHODS
    assert [d["name"] for d in result["study"]["datasets"]] == ["SRBCT", "GLIOMA"]
    assert "local Dask cluster" in result["engine"]


@pytest.mark.parametrize("metric", ["gmean_1nn", "gmean_svm", "n_features"])
def test_the_statistics_shown_are_compare_study_of_the_library(studied, library, metric):
    study, table = library
    studied.selectbox(key="benchmark_metric").set_value(metric).run()
    want = compare_study(table, study, alpha=0.05)[metric]
    shown = _shown(studied)
    # The tables name the methods as the charts do; the downloads keep their keys.
    pd.testing.assert_frame_equal(shown["ranks"], rank_frame(want).rename(columns=METHOD_LABELS))
    pairs = pairs_frame(want)
    assert set(pairs["method"]) | set(pairs["versus"]) == set(METHODS)
    pairs[["method", "versus"]] = pairs[["method", "versus"]].map(METHOD_LABELS.get)
    pd.testing.assert_frame_equal(shown["pairs"], pairs)
    assert shown["metrics"]["Friedman chi-square"] == f"{want.friedman_chi2:.3f}"
    assert shown["metrics"]["Iman-Davenport F"] == f"{want.iman_davenport_f:.3f}"
    cd = shown["metrics"]["Nemenyi critical difference (alpha 0.05)"]
    assert cd == f"{want.critical_difference:.3f}"
    assert shown["p"] == [f"p = {want.friedman_p:.3g}", f"p = {want.iman_davenport_p:.3g}"]
    cd_figure, heat = shown["figures"]
    labels = [a["text"] for a in cd_figure["layout"]["annotations"]]
    for method, rank in zip(want.methods, want.average_ranks):
        assert f"{METHOD_LABELS[method]} ({rank:.2f})" in labels
    assert heat["data"][0]["type"] == "heatmap"
    assert heat["data"][0]["x"] == [METHOD_LABELS[m] for m in want.methods]
    assert heat["data"][0]["y"] == ["SRBCT", "GLIOMA"]


def test_results_say_they_are_test_half_scores_and_offer_the_downloads(studied):
    assert any("test halves" in c.value and "not in-sample" in c.value for c in studied.caption)
    labels = [d.label for d in studied.get("download_button")]
    assert labels[:2] == ["The long table (CSV)", "The long table (Parquet)"]
    assert labels[2].startswith("The rank table of ")


def test_alpha_changes_the_tests_without_a_new_run(studied, library):
    study, table = library
    studied.selectbox(key="benchmark_metric").set_value("gmean_1nn").run()
    studied.select_slider(key="benchmark_alpha").set_value(0.10).run()
    want = compare_study(table, study, alpha=0.10)["gmean_1nn"]
    cd = _metrics(studied)["Nemenyi critical difference (alpha 0.1)"]
    assert cd == f"{want.critical_difference:.3f}"
    assert studied.session_state["benchmark_results_computed"] == 1
    studied.select_slider(key="benchmark_alpha").set_value(0.05).run()


def test_a_reload_shows_the_kept_study_and_history_reopens_it(studied):
    wid = _ws(studied)
    studied.selectbox(key="benchmark_metric").set_value("gmean_1nn").run()
    before = _shown(studied)
    workspace.reset_default_store()  # as after a server restart
    at = _session(wid, PAGE)
    assert "benchmark_results_computed" not in at.session_state  # restored, not rerun
    assert at.multiselect(key="benchmark_methods").value == METHODS
    after = _shown(at)
    pd.testing.assert_frame_equal(after["ranks"], before["ranks"])
    assert after["metrics"] == before["metrics"]

    history = _session(wid, "dashboard/pages/history.py")
    table = history.dataframe[0].value
    row = list(table["kind"]).index("benchmark")
    assert table.loc[row, "status"] == "finished"
    history.session_state["history_table"] = {"selection": {"rows": [row], "columns": []}}
    history.run()
    _click(history, "Reopen")
    assert "benchmark_results_computed" not in history.session_state
    pd.testing.assert_frame_equal(_shown(history)["ranks"], before["ranks"])


def test_workspace_data_sets_can_be_picked_with_their_own_minority():
    at = _session()
    at.file_uploader(key="uploader").set_value(_glioma()).run()  # the Data page
    at.switch_page(PAGE).run()
    assert any("has 1 data set" in text for text in _texts(at.info))
    picker = at.multiselect(key="benchmark_workspace")
    stored = {d.sha: d.name for d in workspace.default_store().list_datasets(_ws(at))}
    assert set(picker.options) == {"SRBCT.parquet (2.8 MB)"}  # GLIOMA is the current one
    [srbct] = [sha for sha, name in stored.items() if name == "SRBCT.parquet"]
    picker.set_value([srbct]).run()
    datasets = at.dataframe[0].value
    assert list(datasets["data set"]) == ["GLIOMA", "SRBCT"]
    assert list(datasets["minority class"]) == ["2", "2"]  # the smallest classes
    at.selectbox(key=f"benchmark_{srbct[:16]}_minority").set_value(3).run()
    datasets = at.dataframe[0].value
    assert datasets.loc[1, "minority class"] == "3" and datasets.loc[1, "minority samples"] == 18
    assert not any("at least 2" in text for text in _texts(at.info))
    assert any(b.label == "Run the study" for b in at.button)


def test_a_bad_upload_is_an_error_box_and_the_page_goes_on():
    at = _session(page=PAGE)
    _upload(at, ("broken.csv", b"gene1,gene2,label\n1,2\n3,4,a\n", "text/csv"), _glioma())
    errors = _texts(at.error)
    assert len(errors) == 1 and errors[0].startswith("Could not read broken.csv: ")
    assert "left out of the study" in errors[0]
    assert list(at.dataframe[0].value["data set"]) == ["SRBCT", "GLIOMA"]
    # a wrong scheduler address: the library's message, and the page still runs
    _protocol(at, ["kofsd", "fisher"])
    at.radio(key="benchmark_engine").set_value("cluster").run()
    at.text_input(key="benchmark_scheduler").set_value("not-an-address").run()
    _click(at, "Run the study")
    assert any(
        e.startswith("The study could not run: cannot reach the Dask scheduler at not-an-address")
        for e in _texts(at.error)
    )
    at.radio(key="benchmark_engine").set_value("serial").run()
    _click(at, "Run the study")
    assert _texts(at.error) == errors  # only the bad file's box is left
    assert sorted(at.dataframe[1].value.columns) == ["Fisher", "K-OFSD"]


def test_the_studys_thread_draws_nothing(monkeypatch):
    """A study computes on the run's own thread; an element drawn from there (the 'tasks:
    running in this process' note, before) reached the browser under a path the page's
    run had moved on from, and Chromium's app failed on it ('Bad delta path index 14
    (should be between [0, 13])': a blank page, the loaded browser test's failure of 3
    December). Every message of the run comes from the script's thread; the start is
    said by the progress bar."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    senders = []
    real = ScriptRunContext.enqueue

    def enqueue(self, msg):
        senders.append(threading.current_thread().name)
        return real(self, msg)

    monkeypatch.setattr(ScriptRunContext, "enqueue", enqueue)
    at = _session(page=PAGE)
    _upload(at, _glioma())
    _protocol(at, ["fisher", "s2n"])
    at.radio(key="benchmark_engine").set_value("serial").run()
    _click(at, "Run the study")
    assert not at.exception and not at.error
    assert sorted(at.dataframe[1].value.columns) == ["Fisher", "S2N"]
    assert senders and not [name for name in senders if name.startswith("fsengine-run-")]


def _k_warnings(at):
    return [text for text in _texts(at.warning) if "K = " in text and "minority" in text]


def test_k_suits_every_data_set_until_set_on_the_page():
    """The study runs one K-OFSD setting on every data set: its K starts below each data
    set's smallest training-half minority (no warning on the defaults), follows the data
    sets chosen, and stays where the user puts it."""
    at = _session(page=PAGE)  # SRBCT, class 2: 5 or 6 minority samples in a half
    assert at.slider(key=K_KEY).value == 5
    assert any(c.value.startswith("K is 5, not the paper's 7: in SRBCT,") for c in at.caption)
    assert not _k_warnings(at)
    _upload(at, _glioma())  # GLIOMA, class 2: 3 or 4 in a half
    assert at.slider(key=K_KEY).value == STUDY_K
    assert any(c.value.startswith("K is 2, not the paper's 7: in GLIOMA,") for c in at.caption)
    assert not _k_warnings(at)
    at.checkbox(key="benchmark_current").uncheck().run()  # GLIOMA alone
    assert at.slider(key=K_KEY).value == STUDY_K
    at.checkbox(key="benchmark_current").check().run()
    at.slider(key=K_KEY).set_value(4).run()  # the user's K: kept, and warned about
    assert at.slider(key=K_KEY).value == 4
    assert not any(c.value.startswith("K is ") for c in at.caption)
    (warning,) = _k_warnings(at)
    assert warning.startswith("GLIOMA: ") and "K = 4" in warning
    at.checkbox(key="benchmark_current").uncheck().run()
    assert at.slider(key=K_KEY).value == 4
