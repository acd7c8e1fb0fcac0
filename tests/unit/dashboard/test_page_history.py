"""The History page's pure helpers (dashboard/pages/history.py): the table of runs, the
texts about the selected run and the stored bytes, and the Stream widgets a reopened
stream gets, checked against values written out by hand."""

import datetime as dt

from conftest import ROOT
from dashboard.pages import history
from dashboard.workspace import RunInfo

#: 2026-03-04 05:06:30 on this machine's clock (the table shows local time).
STARTED = dt.datetime(2026, 3, 4, 5, 6, 30).timestamp()


def run_info(kind="compare", status="finished", **fields) -> RunInfo:
    """A run as the workspace lists it."""
    values = {
        "id": 1,
        "kind": kind,
        "title": "Compare K-OFSD, Fisher: 2 splits",
        "status": status,
        "created": STARTED,
        "seconds": 1.25,
        "dataset_name": "SRBCT.parquet",
        "dataset_sha": "abc",
        "size": 1536,
        "dataset_size": None,
        "version": "0.9.0",
        "params": {},
    }
    return RunInfo(**(values | fields))


def test_sizes_are_bytes_up_to_1023_then_kb_mb_gb_with_one_decimal():
    assert history._size(None) == "-"
    assert history._size(0) == "0 B"
    assert history._size(1023) == "1023 B"
    assert history._size(1024) == "1.0 KB"
    assert history._size(1536) == "1.5 KB"
    assert history._size(3 * 1024**2) == "3.0 MB"
    assert history._size(5 * 1024**3) == "5.0 GB"
    assert history._size(2048 * 1024**3) == "2048.0 GB"  # no unit above GB


def test_only_an_unfinished_run_shows_where_it_got_to():
    reached = {"reached": "3 of 5 (split 2/2 kofsd)"}
    assert history._reached(run_info(status="running", params=reached)) == (
        "3 of 5 (split 2/2 kofsd)"
    )
    assert history._reached(run_info(status="stopped", params=reached)) == (
        "3 of 5 (split 2/2 kofsd)"
    )
    assert history._reached(run_info(status="finished", params=reached)) == ""
    assert history._reached(run_info(status="stopped")) == ""


def test_the_table_has_a_row_per_run_in_their_order():
    runs = [
        run_info(
            "stream",
            "stopped",
            id=2,
            title="Stream K-OFSD",
            seconds=None,
            dataset_name=None,
            size=3 * 1024**2,
            params={"reached": "40 of 300"},
        ),
        run_info(),
    ]
    table = history._runs_table(runs)
    assert list(table.columns) == [
        "started",
        "kind",
        "run",
        "status",
        "reached",
        "time (s)",
        "data set",
        "stored",
        "fsengine",
    ]
    rows = table.to_dict("records")
    assert rows[0] | {"time (s)": None} == {
        "started": "2026-03-04 05:06",
        "kind": "stream",
        "run": "Stream K-OFSD",
        "status": "stopped",
        "reached": "40 of 300",
        "time (s)": None,
        "data set": "-",
        "stored": "3.0 MB",
        "fsengine": "0.9.0",
    }
    assert rows[0]["time (s)"] != rows[0]["time (s)"]  # no duration: NaN in the table
    assert rows[1] == {
        "started": "2026-03-04 05:06",
        "kind": "compare",
        "run": "Compare K-OFSD, Fisher: 2 splits",
        "status": "finished",
        "reached": "",
        "time (s)": 1.25,
        "data set": "SRBCT.parquet",
        "stored": "1.5 KB",
        "fsengine": "0.9.0",
    }


def test_the_heading_adds_where_an_unfinished_run_got_to():
    assert history._run_heading(run_info()) == "**Compare K-OFSD, Fisher: 2 splits**: finished"
    running = run_info(status="running", title="Sweep", params={"reached": "3 of 5"})
    assert history._run_heading(running) == "**Sweep**: running, at 3 of 5"
    assert history._run_heading(run_info(status="stopped", title="Sweep")) == ("**Sweep**: stopped")


def test_a_finished_run_or_any_stream_can_be_reopened():
    assert history._can_reopen(run_info("compare", "finished"))
    assert history._can_reopen(run_info("stream", "stopped"))
    assert history._can_reopen(run_info("stream", "running"))
    assert not history._can_reopen(run_info("compare", "stopped"))
    assert not history._can_reopen(run_info("sweep-k", "running"))


def test_a_stopped_run_says_what_it_keeps():
    assert history._stopped_note(run_info("stream", "stopped")) == (
        "A stopped stream keeps where it was: Reopen brings it back there, and Start on the "
        "Stream page continues it."
    )
    assert history._stopped_note(run_info("benchmark", "stopped")) == (
        "A stopped run was interrupted (Stop, a closed tab or a restart): it has no result."
    )
    assert history._stopped_note(run_info("stream", "running")) is None
    assert history._stopped_note(run_info("compare", "finished")) is None


def test_the_storage_text_gives_the_bytes_and_the_cap():
    assert history._storage_text(1536, 500 * 1024**2) == (
        "Stored: 1.5 KB of a 500.0 MB cap for all workspaces on this server "
        "(FSENGINE_WORKSPACE_CAP_MB); the oldest runs are removed first when it is full, "
        "and you are told."
    )


def test_a_reopened_stream_sets_the_stream_widgets_of_its_method():
    stream = {"method": "kofsd", "order": "random", "seed": 3, "params": {"k": 5, "alpha": 0.5}}
    assert history._stream_widget_values(stream) == {
        "stream_method": "kofsd",
        "stream_order": "random",
        "stream_seed": 3,
        "stream_kofsd_k": 5,
        "stream_kofsd_alpha": 0.5,
    }
    unseeded = {"method": "saola", "order": "index", "seed": None, "params": {}}
    assert history._stream_widget_values(unseeded) == {
        "stream_method": "saola",
        "stream_order": "index",
    }


def test_each_kind_of_run_reopens_on_a_page_that_exists():
    for page in history.PAGE_OF.values():
        assert (ROOT / page).is_file(), page
    assert set(history.WIDGETS_OF) <= set(history.PAGE_OF.values())
