"""Every page shows the current task's own settings and results (issue 40, point 4), under
AppTest.

A task is the data set's content, how it was read and the minority class. Compare's
methods, splits and top-k chosen on one data set are not offered on the next; going back
to the first brings back its settings and, with them, its result (without recomputing).
Sweep, Stream, Genes and Export keep their settings per task the same way, and Export
never offers a report built for another task. On the Stream page what is on screen is
what the boxes say: a paused or finished run of other settings is named as such, and
Start streams the settings in the boxes from the first feature instead of continuing it.
"""

import numpy as np
import pandas as pd
import pytest
from apptest_helpers import click, stream_at_max_speed, workspace_id
from apptest_helpers import session as new_session

from dashboard import workspace
from fsengine.evaluation import PAPER_METHODS


def _cohort(seed: int, n_rare: int, n_common: int, n_genes: int) -> bytes:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        rng.normal(size=(n_rare + n_common, n_genes)).round(2),
        columns=[f"gene{j}" for j in range(n_genes)],
    )
    frame.iloc[:n_rare, :3] += 2.0
    frame["diagnosis"] = ["rare"] * n_rare + ["common"] * n_common
    return frame.to_csv(index=False).encode()


ALPHA = ("alpha.csv", _cohort(1, 8, 22, 12))
BETA = ("beta.csv", _cohort(2, 10, 30, 20))


def _upload(at, upload) -> None:
    at.switch_page("dashboard/pages/data.py").run()
    at.file_uploader(key="uploader").set_value((*upload, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state["data"].name == upload[0]


def _compare(at, methods, splits) -> pd.DataFrame:
    at.switch_page("dashboard/pages/compare.py").run()
    at.multiselect(key="compare_methods").set_value(methods)
    at.slider(key="compare_splits").set_value(splits).run()
    click(at, "Run comparison")
    assert not at.error, [e.value for e in at.error]
    return at.dataframe[0].value


def _infos(at) -> str:
    return " ".join(i.value for i in at.info)


def test_compare_shows_each_data_sets_own_settings_and_results():
    at = new_session()
    _upload(at, ALPHA)
    alpha_table = _compare(at, ["fisher", "s2n"], 2)
    at.toggle(key="compare_fixed_top").set_value(True).run()
    at.number_input(key="compare_top").set_value(4).run()
    click(at, "Run comparison")
    alpha_top4 = at.dataframe[0].value

    _upload(at, BETA)
    at.switch_page("dashboard/pages/compare.py").run()
    # not alpha's methods, splits or top-k, and no result: Compare's own defaults
    assert at.multiselect(key="compare_methods").value == list(PAPER_METHODS)
    assert at.slider(key="compare_splits").value == 20
    assert not at.toggle(key="compare_fixed_top").value
    assert not at.dataframe and "press **Run comparison**" in _infos(at)
    beta_table = _compare(at, ["welch"], 3)
    computed = at.session_state["compare_results_computed"]

    _upload(at, ALPHA)  # back to alpha: its settings and its result, not recomputed
    at.switch_page("dashboard/pages/compare.py").run()
    assert at.multiselect(key="compare_methods").value == ["fisher", "s2n"]
    assert at.slider(key="compare_splits").value == 2
    assert at.toggle(key="compare_fixed_top").value
    assert at.number_input(key="compare_top").value == 4
    pd.testing.assert_frame_equal(at.dataframe[0].value, alpha_top4)
    assert not alpha_top4.equals(alpha_table)  # the shown one is the last run, top 4
    assert at.session_state["compare_results_computed"] == computed

    # and after a reload of the workspace (a new session, as after a server restart)
    wid = workspace_id(at)
    _upload(at, BETA)
    workspace.reset_default_store()
    again = new_session(wid, "dashboard/pages/compare.py")
    assert again.multiselect(key="compare_methods").value == ["welch"]
    pd.testing.assert_frame_equal(again.dataframe[0].value, beta_table)
    _upload(again, ALPHA)
    again.switch_page("dashboard/pages/compare.py").run()
    assert again.multiselect(key="compare_methods").value == ["fisher", "s2n"]
    assert again.number_input(key="compare_top").value == 4
    pd.testing.assert_frame_equal(again.dataframe[0].value, alpha_top4)
    assert "compare_results_computed" not in again.session_state


def test_reopening_a_run_keeps_the_settings_of_the_task_left():
    at = new_session()
    _upload(at, ALPHA)
    _compare(at, ["fisher"], 2)
    _upload(at, BETA)
    beta_table = _compare(at, ["welch", "s2n"], 3)
    at.switch_page("dashboard/pages/history.py").run()
    table = at.dataframe[0].value
    row = int(np.flatnonzero(table["data set"] == "alpha.csv")[0])
    at.session_state["history_table"] = {"selection": {"rows": [row], "columns": []}}
    at.run()
    click(at, "Reopen")
    assert at.session_state["data"].name == "alpha.csv"
    assert at.multiselect(key="compare_methods").value == ["fisher"]
    _upload(at, BETA)
    at.switch_page("dashboard/pages/compare.py").run()
    assert at.multiselect(key="compare_methods").value == ["welch", "s2n"]
    assert at.slider(key="compare_splits").value == 3
    pd.testing.assert_frame_equal(at.dataframe[0].value, beta_table)


def test_a_minority_class_has_its_own_settings_too():
    at = new_session()
    _upload(at, ALPHA)
    _compare(at, ["fisher"], 2)
    at.switch_page("dashboard/pages/data.py").run()
    at.selectbox(key="minority_select").set_value("common").run()
    at.switch_page("dashboard/pages/compare.py").run()
    assert at.multiselect(key="compare_methods").value == list(PAPER_METHODS)
    at.switch_page("dashboard/pages/data.py").run()
    at.selectbox(key="minority_select").set_value("rare").run()
    at.switch_page("dashboard/pages/compare.py").run()
    assert at.multiselect(key="compare_methods").value == ["fisher"]
    assert at.dataframe  # its result again


def test_sweep_genes_stream_and_export_settings_stay_with_their_task():
    at = new_session()
    _upload(at, ALPHA)
    at.switch_page("dashboard/pages/sweep.py").run()
    at.slider(key="sweep_splits").set_value(4).run()
    at.switch_page("dashboard/pages/genes.py").run()
    at.slider(key="genes_stability_orders").set_value(5).run()
    at.switch_page("dashboard/pages/stream.py").run()
    at.slider(key="stream_kofsd_k").set_value(2).run()
    at.select_slider(key="stream_speed").set_value("max").run()  # a preference: kept
    at.switch_page("dashboard/pages/export.py").run()
    at.selectbox(key="export_method").set_value("fisher").run()
    at.button(key="export_compute").click().run()
    alpha_selection = at.dataframe[0].value

    _upload(at, BETA)
    at.switch_page("dashboard/pages/sweep.py").run()
    assert at.slider(key="sweep_splits").value == 10
    at.switch_page("dashboard/pages/genes.py").run()
    assert at.slider(key="genes_stability_orders").value == 10
    at.switch_page("dashboard/pages/stream.py").run()
    assert at.slider(key="stream_kofsd_k").value != 2
    assert at.select_slider(key="stream_speed").value == "max"
    at.switch_page("dashboard/pages/export.py").run()
    assert at.selectbox(key="export_method").value == "kofsd"
    assert not at.dataframe  # alpha's selection is not shown under beta

    _upload(at, ALPHA)
    at.switch_page("dashboard/pages/sweep.py").run()
    assert at.slider(key="sweep_splits").value == 4
    at.switch_page("dashboard/pages/genes.py").run()
    assert at.slider(key="genes_stability_orders").value == 5
    at.switch_page("dashboard/pages/stream.py").run()
    assert at.slider(key="stream_kofsd_k").value == 2
    at.switch_page("dashboard/pages/export.py").run()
    assert at.selectbox(key="export_method").value == "fisher"
    pd.testing.assert_frame_equal(at.dataframe[0].value, alpha_selection)  # computed before


def test_the_report_built_for_one_task_is_not_offered_under_another():
    at = new_session(page="dashboard/pages/export.py")
    click(at, "Build the report")
    assert any(b.label.startswith("Download the report") for b in at.get("download_button"))
    at.switch_page("dashboard/pages/data.py").run()
    at.selectbox(key="minority_select").set_value(3).run()  # same file, another task
    at.switch_page("dashboard/pages/export.py").run()
    assert not any(b.label.startswith("Download the report") for b in at.get("download_button"))


# ---------------------------------------------------------------- the Stream page


@pytest.fixture
def stream_page():
    at = new_session(page="dashboard/pages/stream.py")
    return at


def _live(at):
    kept = at.session_state["streams"]
    (key,) = [k for k in kept if k == at.session_state["_of_task"]["task"][0]]
    return kept[key].live


def test_start_after_choosing_another_selector_streams_that_one(stream_page):
    at = stream_page
    at.button(key="stream_step").click().run()
    at.button(key="stream_step").click().run()
    at.button(key="stream_pause").click().run()
    assert (_live(at).method, _live(at).position) == ("kofsd", 2)
    at.selectbox(key="stream_method").set_value("saola").run()
    # what is shown is named: the K-OFSD run, and what Start will do
    said = _infos(at)
    assert "K-OFSD" in said and "SAOLA" in said and "Start" in said
    assert "Reset" in said
    assert not any("Start continues it" in c.value for c in at.caption)
    at.button(key="stream_start").click().run()
    live = _live(at)
    assert live.method == "saola"  # not K-OFSD continued under the SAOLA box
    # the K-OFSD run stays in History, stopped where it was
    runs = workspace.default_store().list_runs(workspace_id(at))
    kofsd = [r for r in runs if r.kind == "stream" and r.title.startswith("K-OFSD")]
    assert kofsd and kofsd[0].status == "stopped"


def test_step_after_changing_a_parameter_takes_the_first_feature_of_a_new_run(stream_page):
    at = stream_page
    for _ in range(3):
        at.button(key="stream_step").click().run()
    at.slider(key="stream_kofsd_k").set_value(3).run()
    assert "K-OFSD" in _infos(at) and "Reset" in _infos(at)
    at.button(key="stream_step").click().run()
    live = _live(at)
    assert live.params["k"] == 3 and live.position == 1


def test_a_finished_run_under_another_chosen_selector_is_named_as_such(stream_page):
    at = stream_page
    stream_at_max_speed(at)
    assert _live(at).done
    at.selectbox(key="stream_method").set_value("ofs-fpd").run()
    said = _infos(at)
    assert "K-OFSD" in said and "OFS-FPD" in said and "finished" in said
    # the selected genes shown are labelled as K-OFSD's
    assert any("K-OFSD" in s.value for s in at.subheader if "Selected" in s.value)
    at.button(key="stream_start").click().run()
    assert _live(at).method == "ofs-fpd"


def test_changing_a_setting_while_streaming_pauses_the_run(stream_page):
    at = stream_page
    at.select_slider(key="stream_speed").set_value("1").run()
    at.button(key="stream_start").click().run()
    assert at.session_state["stream_running"] is not None
    at.selectbox(key="stream_method").set_value("saola").run()
    assert at.session_state["stream_running"] is None
    position = _live(at).position
    at.run()
    assert _live(at).position == position and _live(at).method == "kofsd"
