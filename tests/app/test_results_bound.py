"""Every result belongs to its task (issue 29, points 1, 2 and 4), under AppTest.

A stream stays with the data set and minority class it streamed: loading another data
set never shows it (or continues it) under the new name, and loading the first again
brings it back. A reload (a new session with the same ``?ws=``) brings back finished and
stopped streams, and what is built on them: the Genes page's selection, the Export
page's source and the report's Stream section. A run the protocol would refuse is not
offered (its button is disabled with the reason) and a refused run leaves no record in
History. Expected selections come from the library's ``run_selection``, the command
line's code path.
"""

import numpy as np
import pandas as pd
from apptest_helpers import click as _click
from apptest_helpers import session as _session
from apptest_helpers import stream_at_max_speed
from apptest_helpers import workspace_id as _ws

from dashboard import workspace
from fsengine import FSEngineError, load_dataset, run_selection


def _cohort(seed: int, n_rare: int, n_common: int, n_genes: int) -> bytes:
    """A CSV of rounded expression values with a 'diagnosis' column (rare / common)."""
    rng = np.random.default_rng(seed)
    n = n_rare + n_common
    frame = pd.DataFrame(
        rng.normal(size=(n, n_genes)).round(2), columns=[f"gene{j}" for j in range(n_genes)]
    )
    frame.iloc[:n_rare, :3] += 2.0  # a few genes that tell the rare class apart
    frame["diagnosis"] = ["rare"] * n_rare + ["common"] * n_common
    return frame.to_csv(index=False).encode()


ALPHA = ("alpha.csv", _cohort(1, 8, 22, 12))
BETA = ("beta.csv", _cohort(2, 10, 30, 20))
WIDE_GENES = 2000
WIDE = ("wide.csv", _cohort(3, 8, 22, WIDE_GENES))


def _upload(at, upload) -> None:
    at.switch_page("dashboard/pages/data.py").run()
    name, raw = upload
    at.file_uploader(key="uploader").set_value((name, raw, "text/csv")).run()
    assert not at.exception and not at.error


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def _stream_to_end(at) -> None:
    at.switch_page("dashboard/pages/stream.py").run()
    stream_at_max_speed(at)
    assert not at.exception


def _kept_streams(at) -> list:
    return list(at.session_state["streams"].values())


def test_a_stream_stays_with_its_data_set():
    at = _session()
    _upload(at, ALPHA)
    at.switch_page("dashboard/pages/stream.py").run()
    for _ in range(3):
        at.button(key="stream_step").click().run()
    assert _metrics(at)["Features streamed"] == "3 / 12"

    _upload(at, BETA)
    at.switch_page("dashboard/pages/stream.py").run()
    assert not at.exception
    assert "Features streamed" not in _metrics(at)  # nothing of alpha under beta's name
    assert any("Press Start" in i.value for i in at.info)
    kept = " ".join(c.value for c in at.caption)
    assert "alpha.csv" in kept and "stopped at 3 of 12 features" in kept
    at.button(key="stream_step").click().run()
    assert _metrics(at)["Features streamed"] == "1 / 20"  # beta's own stream

    _upload(at, ALPHA)  # back to alpha: its stream, where it was
    at.switch_page("dashboard/pages/stream.py").run()
    assert _metrics(at)["Features streamed"] == "3 / 12"


def test_loading_another_data_set_pauses_a_running_stream_under_its_own_name():
    # The stream advances off the script thread (a feature every 0.25 s) while the upload
    # runs, for as long as that takes on this machine: it pauses where it is then, which
    # the test reads from the message, the record and the kept stream (all one position),
    # never from its own clock. 2,000 features: a busy machine could not finish them.
    at = _session()
    _upload(at, WIDE)
    at.switch_page("dashboard/pages/stream.py").run()
    at.select_slider(key="stream_speed").set_value("1").run()
    at.button(key="stream_start").click().run()
    at.run()
    assert at.session_state["stream_running"] is not None
    started = _kept_streams(at)[0].live.position
    assert 0 < started < WIDE_GENES

    _upload(at, BETA)
    at.switch_page("dashboard/pages/stream.py").run()
    assert at.session_state["stream_running"] is None
    position = _kept_streams(at)[0].live.position
    assert started <= position < WIDE_GENES
    paused = " ".join(i.value for i in at.info)
    assert (
        f"Paused: K-OFSD on wide.csv (minority rare), stopped at {position} of {WIDE_GENES:,}"
        in paused
    )
    (run,) = workspace.default_store().list_runs(_ws(at))
    assert (run.kind, run.status, run.dataset_name) == ("stream", "stopped", "wide.csv")
    _, payload = workspace.default_store().load_run(_ws(at), run.id)
    assert payload["position"] == position
    for _ in range(3):  # beta's page does not advance the paused stream
        at.run()
    assert _kept_streams(at)[0].live.position == position


def test_a_reload_brings_back_a_finished_stream_and_what_is_built_on_it():
    first = _session()
    _upload(first, ALPHA)
    _stream_to_end(first)
    (live,) = [kept.live for kept in _kept_streams(first)]
    dataset = load_dataset(ALPHA[1], name=ALPHA[0])
    expected = run_selection(dataset, "rare", "kofsd", **live.params).selection
    wid = _ws(first)

    workspace.reset_default_store()  # as after a server restart
    again = _session(wid, "dashboard/pages/stream.py")
    assert _metrics(again)["Features streamed"] == "12 / 12"
    table = again.dataframe[-1].value
    assert list(table["feature"]) == list(expected.features)
    (run,) = workspace.default_store().list_runs(wid)  # brought back, not run again
    assert run.status == "finished"

    again.switch_page("dashboard/pages/genes.py").run()
    assert any(o.startswith("Stream: K-OFSD") for o in again.selectbox(key="genes_source").options)
    again.switch_page("dashboard/pages/export.py").run()
    assert again.radio(key="export_source").value == "Last Stream run"
    _click(again, "Build the report")
    html = again.session_state["export_report_files"][1].decode()
    assert "over all 12 features in natural order on all samples" in html  # the Stream section
    assert all(f">{feature}<" in html for feature in expected.features)


def test_a_reload_brings_back_a_stopped_stream_that_start_continues():
    first = _session()
    _upload(first, ALPHA)
    first.switch_page("dashboard/pages/stream.py").run()
    for _ in range(5):
        first.button(key="stream_step").click().run()
    wid = _ws(first)

    again = _session(wid, "dashboard/pages/stream.py")
    assert _metrics(again)["Features streamed"] == "5 / 12"
    assert any("Stopped at 5 of 12 features" in c.value for c in again.caption)
    stream_at_max_speed(again)
    (live,) = [kept.live for kept in _kept_streams(again)]
    dataset = load_dataset(ALPHA[1], name=ALPHA[0])
    expected = run_selection(dataset, "rare", "kofsd", **live.params).selection
    assert list(again.dataframe[-1].value["feature"]) == list(expected.features)
    runs = workspace.default_store().list_runs(wid)
    assert [(r.kind, r.status) for r in runs] == [("stream", "finished")]  # one run, continued


def test_a_class_too_small_for_the_protocol_disables_the_run_buttons():
    at = _session()
    _upload(at, ("tiny.csv", _cohort(3, 3, 27, 10)))  # rare: 3 samples
    next(s for s in at.selectbox if s.label.startswith("Minority")).set_value("rare").run()
    for page, label in (
        ("dashboard/pages/compare.py", "Run comparison"),
        ("dashboard/pages/sweep.py", "Run K sweep"),
    ):
        at.switch_page(page).run()
        button = next(b for b in at.button if b.label == label)
        assert button.disabled
        reason = " ".join(c.value for c in at.caption)
        assert "names a class of 3 samples" in reason
    assert not [r for r in workspace.default_store().list_runs(_ws(at))]
    at.switch_page("dashboard/pages/stream.py").run()  # a stream needs no split: it can run
    assert not at.button(key="stream_start").disabled


def test_a_study_with_a_class_too_small_disables_its_run_button():
    """Benchmark: the current data set (SRBCT) and an upload whose minority has 3 samples:
    the button is disabled, the reason names the upload, and nothing is recorded."""
    at = _session(page="dashboard/pages/benchmark.py")
    at.file_uploader[0].set_value([("tiny.csv", _cohort(3, 3, 27, 10), "text/csv")]).run()
    at.multiselect(key="benchmark_methods").set_value(["kofsd", "fisher"]).run()
    assert not at.exception
    button = next(b for b in at.button if b.label == "Run the study")
    assert button.disabled
    # The refusal's caption (others say why a setting is what it is, naming its data set)
    (reason,) = [c.value for c in at.caption if ":material/block:" in c.value]
    assert "tiny: " in reason and "names a class of 3 samples" in reason
    assert "SRBCT" not in reason  # the usable data set is not blamed
    assert not any("press **Run the study**" in i.value for i in at.info)
    assert not workspace.default_store().list_runs(_ws(at))


def test_a_refused_run_leaves_no_record(monkeypatch):
    import fsengine.evaluation

    def refuse(*args, **kwargs):
        raise FSEngineError("no method to evaluate")

    monkeypatch.setattr(fsengine.evaluation, "evaluate", refuse)
    at = _session(page="dashboard/pages/compare.py")
    at.multiselect(key="compare_methods").set_value(["kofsd", "fisher"])
    at.slider(key="compare_splits").set_value(2).run()
    _click(at, "Run comparison")
    assert any("no method to evaluate" in e.value for e in at.error)
    assert not workspace.default_store().list_runs(_ws(at))


def test_the_sweep_and_stream_start_inside_what_works(srbct):
    """SRBCT's class 2 has 11 samples, 6 in a training half at least: K starts at 5 and the
    K range at 1..5, with the reason under the widget."""
    at = _session(page="dashboard/pages/stream.py")
    assert at.slider(key="stream_kofsd_k").value == 5
    why = " ".join(c.value for c in at.caption)
    assert "K is 5, not the paper's 7: a training half has as few as 6 minority samples" in why
    at.switch_page("dashboard/pages/sweep.py").run()
    assert at.slider(key="sweep_ks").value == (1, 5)
    assert not at.warning  # no protocol warning for the defaults
    # a data set whose minority class is large keeps the paper's K
    _upload(at, ("large.csv", _cohort(4, 30, 40, 10)))
    at.switch_page("dashboard/pages/stream.py").run()
    assert at.slider(key="stream_kofsd_k").value == 7


def test_history_names_a_studys_data_sets():
    """A Benchmark run is listed under the study's data sets, not the Data page's."""
    store = workspace.default_store()
    wid, _ = store.open_workspace(None)
    run = store.start_run(wid, "benchmark", None, "Benchmark", {}, dataset_name="a.csv, b.csv")
    store.finish_run(run, {"x": 1}, 1.0)
    (info,) = store.list_runs(wid)
    assert info.dataset_name == "a.csv, b.csv"


def test_history_reopens_a_stream_with_the_loader_options_it_ran_with():
    """The same bytes re-read with other options (here 'Drop constant features') are
    another task: Reopen reads the file as the stream did, and shows it where it was."""
    at = _session()
    _upload(at, ALPHA)
    at.switch_page("dashboard/pages/stream.py").run()
    for _ in range(3):
        at.button(key="stream_step").click().run()
    at.switch_page("dashboard/pages/data.py").run()
    at.toggle(key="drop_constant").set_value(True).run()
    assert at.session_state["data"].drop_constant
    at.switch_page("dashboard/pages/stream.py").run()
    assert "Features streamed" not in _metrics(at)  # another task: not shown

    at.switch_page("dashboard/pages/history.py").run()
    at.session_state["history_table"] = {"selection": {"rows": [0], "columns": []}}
    at.run()
    _click(at, "Reopen")
    assert not at.session_state["data"].drop_constant  # read as the stream read it
    assert _metrics(at)["Features streamed"] == "3 / 12"
