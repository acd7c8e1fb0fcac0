"""The workspace under AppTest: a new session opened with the URL's ``ws`` id gets the data
set, the settings and the finished results back (a reload, a bookmark, a server restart);
an unknown or malformed id opens a fresh workspace; History reopens and deletes runs."""

import numpy as np
import pandas as pd
import pytest
from apptest_helpers import SAMPLE_K, stream_at_max_speed
from apptest_helpers import click as _click
from apptest_helpers import session as _session
from apptest_helpers import workspace_id as _ws

from dashboard import workspace
from dashboard.workspace import is_workspace_id


def _csv(seed=5) -> bytes:
    rng = np.random.default_rng(seed)
    labels = ["rare"] * 8 + ["common"] * 22
    frame = pd.DataFrame(
        rng.normal(size=(30, 12)).round(2), columns=[f"gene{j}" for j in range(12)]
    )
    frame["diagnosis"] = labels
    return frame.to_csv(index=False).encode()


@pytest.fixture(scope="module")
def first_session():
    """Upload a CSV, set K = 5 on Stream, run Compare (kofsd + fisher, 2 splits)."""
    at = _session()
    at.file_uploader(key="uploader").set_value(("cohort.csv", _csv(), "text/csv")).run()
    at.switch_page("dashboard/pages/stream.py").run()
    at.slider(key="stream_kofsd_k").set_value(5).run()
    at.switch_page("dashboard/pages/compare.py").run()
    at.multiselect(key="compare_methods").set_value(["kofsd", "fisher"])
    at.slider(key="compare_splits").set_value(2).run()
    _click(at, "Run comparison")
    assert not at.error
    return at


def test_the_url_carries_an_unguessable_workspace_id(first_session):
    wid = _ws(first_session)
    assert is_workspace_id(wid) and len(wid) * 6 >= 128


def test_compare_takes_k_from_the_stream_page_and_the_records_carry_it(first_session):
    (result,) = first_session.session_state["compare_results"].values()
    kofsd = [r for r in result["evaluation"].records if r["method"] == "kofsd"]
    assert kofsd and all(r["settings"].startswith("k=5, ") for r in kofsd)
    settings = first_session.table[0].value  # the settings view below the results table
    assert settings.loc[settings["method"] == "K-OFSD", "settings"].iloc[0].startswith("k=5, ")


def test_a_reload_brings_back_the_data_set_settings_and_results(first_session):
    """A new session with the same ?ws= is what a reload, a bookmark or a server restart
    (a new Store over the same folder) looks like to the app."""
    wid = _ws(first_session)
    workspace.reset_default_store()  # as after a server restart
    at = _session(wid, "dashboard/pages/compare.py")
    assert _ws(at) == wid
    assert at.session_state["data"].name == "cohort.csv"
    assert at.session_state["minority"] == "rare"
    assert at.multiselect(key="compare_methods").value == ["kofsd", "fisher"]
    assert at.slider(key="compare_splits").value == 2
    # the result is shown without pressing the button, and nothing was recomputed
    assert len(at.get("plotly_chart")) == 3
    assert "compare_results_computed" not in at.session_state
    before = first_session.dataframe[0].value
    after = at.dataframe[0].value
    pd.testing.assert_frame_equal(before, after)


def test_history_lists_the_runs_and_reopens_one(first_session):
    wid = _ws(first_session)
    at = _session(wid, "dashboard/pages/history.py")
    table = at.dataframe[0].value
    assert list(table["kind"]).count("compare") == 1
    assert set(table["status"]) <= {"finished", "stopped"}
    assert (table["data set"] == "cohort.csv").any()


def test_an_unknown_or_malformed_id_opens_a_fresh_workspace_and_reveals_nothing(first_session):
    known = _ws(first_session)
    for bad in ("A" * 32, "../../etc/passwd", "", known[:-1] + ("x" if known[-1] != "x" else "y")):
        at = _session(bad)
        fresh = _ws(at)
        assert fresh != known and fresh != bad and is_workspace_id(fresh)
        assert at.session_state["data"].name == "SRBCT.parquet"  # the sample, not cohort.csv
        assert "compare_results" not in at.session_state or not at.session_state["compare_results"]
        shown = " ".join(e.value for e in [*at.info, *at.warning, *at.error])
        assert bad not in shown or bad == ""  # the bad id is never echoed
        assert "cohort" not in shown


def test_a_hostile_upload_name_never_becomes_a_path(tmp_path):
    root = workspace.default_store().root
    before = {p.name for p in root.rglob("*")}
    at = _session()
    at.file_uploader(key="uploader").set_value(("../../evil.csv", _csv(7), "text/csv")).run()
    assert not at.exception
    after = {p.name for p in root.rglob("*")}
    assert not any("evil" in name for name in after - before)
    assert (
        not (root.parent / "evil.csv").exists() and not (root.parent.parent / "evil.csv").exists()
    )


def test_a_stopped_run_is_said_so_and_never_shown_as_finished(monkeypatch):
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    import fsengine.evaluation

    at = _session(page="dashboard/pages/compare.py")
    at.multiselect(key="compare_methods").set_value(["fisher"])
    at.slider(key="compare_splits").set_value(2).run()

    def interrupted(*args, progress=None, **kwargs):
        progress(1, 2, "split 1/2 fisher")
        raise StopException()

    monkeypatch.setattr(fsengine.evaluation, "evaluate", interrupted)
    next(b for b in at.button if b.label == "Run comparison").click().run()
    monkeypatch.undo()
    at.run()
    assert not at.exception
    # 1 of 3: the two splits, then the selections on the whole data set
    assert any("stopped" in w.value and "1 of 3" in w.value for w in at.warning)
    runs = workspace.default_store().list_runs(_ws(at))
    assert [r.status for r in runs if r.kind == "compare"] == ["stopped"]
    assert not at.get("plotly_chart")  # nothing of it is shown


def test_streams_are_recorded_stopped_then_finished_and_reopen(srbct):
    from fsengine import run_selection

    at = _session(page="dashboard/pages/stream.py")
    at.button(key="stream_step").click().run()
    runs = workspace.default_store().list_runs(_ws(at))
    assert [(r.kind, r.status) for r in runs] == [("stream", "stopped")]  # paused at 1
    stream_at_max_speed(at)
    runs = workspace.default_store().list_runs(_ws(at))
    assert [(r.kind, r.status) for r in runs] == [("stream", "finished")]
    expected = list(run_selection(srbct, 2, "kofsd", k=SAMPLE_K).selection.features)
    _, payload = workspace.default_store().load_run(_ws(at), runs[0].id)
    assert payload["selected"] == expected and payload["position"] == 2308

    # History in a new session of the workspace: select the run and reopen it
    again = _session(_ws(at), "dashboard/pages/history.py")
    assert not any(b.label == "Reopen" for b in again.button)  # nothing selected yet
    # AppTest cannot click a table row: set the selection state the click would set
    again.session_state["history_table"] = {"selection": {"rows": [0], "columns": []}}
    again.run()
    _click(again, "Reopen")
    assert not again.exception
    table = again.dataframe[-1].value
    assert list(table["feature"]) == expected


def test_history_deletes_a_run(first_session):
    wid = _ws(first_session)
    store = workspace.default_store()
    before = len(store.list_runs(wid))
    run_id = store.list_runs(wid)[0].id
    assert store.delete_run(wid, run_id)
    assert len(store.list_runs(wid)) == before - 1


def test_order_stability_is_kept_and_reopened_from_history(first_session):
    from fsengine import load_dataset
    from fsengine.evaluation.stability import order_stability

    at = first_session
    at.switch_page("dashboard/pages/genes.py").run()
    at.slider(key="genes_stability_orders").set_value(3).run()
    _click(at, "Run the orders")
    shown = {m.label: m.value for m in at.metric}
    wid = _ws(at)

    workspace.reset_default_store()  # as after a server restart
    again = _session(wid, "dashboard/pages/genes.py")
    assert "stability_results_computed" not in again.session_state  # restored, not rerun
    assert again.slider(key="genes_stability_orders").value == 3
    assert {m.label: m.value for m in again.metric} == shown
    (result,) = again.session_state["stability_results"].values()
    dataset = load_dataset(_csv(), name="cohort.csv")
    # K = 5 as set on Stream (the Genes page inherits it)
    expected = order_stability(dataset, "rare", "kofsd", orders=3, seed=0, k=5)
    assert result.selections == expected.selections
    assert result.mean_jaccard == pytest.approx(expected.mean_jaccard)

    history = _session(wid, "dashboard/pages/history.py")
    table = history.dataframe[0].value
    assert list(table.loc[table["kind"] == "stability", "status"]) == ["finished"]
