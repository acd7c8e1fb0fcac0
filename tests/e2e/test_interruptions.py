"""Interrupted runs in a real browser: the Cancel button ends a comparison as "stopped"
in the workspace, with a message saying how far it got and no progress bar left behind;
other pages opened meanwhile and Streamlit's Stop do not (the page drawn again follows
the run); a stream whose tab is closed keeps the position it reached.

The comparison runs on the bundled SRBCT with its genes repeated ten times (83 x 23,080)
and 50 splits, long enough (minutes on 2 cores) to be interrupted mid-run."""

from __future__ import annotations

import json
import os
import sqlite3
import time
import zlib
from pathlib import Path

import pandas as pd
import pytest

from conftest import SAMPLE, SLOW_SECONDS
from tests.e2e.test_browser import (
    TIMEOUT_MS,
    back_to_running,
    idle,
    no_exception,
    open_app,
    open_page,
    table_rows,
    upload,
)
from tests.e2e.test_dashboard_trust import workspace_of

pytestmark = pytest.mark.e2e

UPLOAD_NAME = "interrupt_srbct_x10.parquet"
STOPPED_TEXT = "was stopped after"


@pytest.fixture(scope="module")
def long_upload(tmp_path_factory) -> Path:
    """SRBCT with each gene repeated ten times (scaled copies, so no two columns are equal)."""
    frame = pd.read_parquet(SAMPLE)
    genes = frame.drop(columns="label")
    copies = [genes] + [genes.mul(1 + i / 100).add_suffix(f"_copy{i}") for i in range(1, 10)]
    path = tmp_path_factory.mktemp("interrupt") / UPLOAD_NAME
    pd.concat([*copies, frame[["label"]]], axis=1).to_parquet(path)
    return path


def runs(workspace: str, kind: str) -> list[tuple[str, dict | None]]:
    """The workspace's runs of ``kind`` as the database holds them: (status, payload)."""
    path = Path(os.environ["FSENGINE_WORKSPACE_DIR"]) / "workspaces.sqlite3"
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT status, payload FROM runs WHERE workspace = ? AND kind = ? ORDER BY id",
            (workspace, kind),
        ).fetchall()
    return [(s, json.loads(zlib.decompress(p)) if p else None) for s, p in rows]


def wait_for_runs(workspace: str, kind: str, statuses: list[str]) -> list:
    deadline = time.monotonic() + SLOW_SECONDS
    while True:
        found = runs(workspace, kind)
        if [status for status, _ in found] == statuses:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{kind} runs {[s for s, _ in found]}, expected {statuses}")
        time.sleep(0.25)


def start_long_comparison(page) -> None:
    """Press Run comparison with 50 splits; wait for the progress bar and Cancel."""
    page.get_by_role("button", name="Run comparison").click()
    page.get_by_role("button", name="Cancel").wait_for(timeout=TIMEOUT_MS)
    page.get_by_test_id("stProgress").wait_for(timeout=TIMEOUT_MS)


def test_cancel_ends_a_comparison_and_other_pages_or_stop_do_not(page, server, long_upload):
    open_app(page, server)
    upload(page, long_upload)
    page.get_by_test_id("stHeading").filter(has_text=UPLOAD_NAME).wait_for(timeout=TIMEOUT_MS)
    idle(page)
    workspace = workspace_of(page)
    open_page(page, "Compare")
    splits = page.get_by_test_id("stSlider").filter(has_text="Splits")
    splits.locator("input[type=range]").focus()
    page.keyboard.press("End")
    page.wait_for_timeout(300)
    idle(page)
    assert splits.locator("input[type=range]").input_value() == "50"

    # Cancel: the message at once, the run stopped in the workspace.
    start_long_comparison(page)
    page.get_by_role("button", name="Cancel").click()
    page.get_by_text(STOPPED_TEXT).wait_for(timeout=TIMEOUT_MS)
    idle(page)
    assert page.get_by_test_id("stProgress").count() == 0
    assert page.get_by_role("button", name="Cancel").count() == 0
    assert page.get_by_role("heading", name="Results").count() == 0
    assert wait_for_runs(workspace, "compare", ["stopped"])[0][1] is None
    no_exception(page, "Compare after Cancel")

    # Other pages opened meanwhile: the run goes on (a run of minutes, looked at within
    # seconds), and Compare opened again follows it, with its bar and Cancel.
    start_long_comparison(page)
    wait_for_runs(workspace, "compare", ["stopped", "running"])
    open_page(page, "Genes")
    open_page(page, "Data")
    assert [status for status, _ in runs(workspace, "compare")] == ["stopped", "running"]
    back_to_running(page, "Compare")
    assert page.get_by_text(STOPPED_TEXT).count() == 0
    assert [status for status, _ in runs(workspace, "compare")] == ["stopped", "running"]
    page.get_by_role("button", name="Cancel").click()
    page.get_by_text(STOPPED_TEXT).wait_for(timeout=TIMEOUT_MS)
    wait_for_runs(workspace, "compare", ["stopped", "stopped"])
    no_exception(page, "Compare after leaving it")

    # Streamlit's Stop (the app's toolbar) stops drawing the page, not the run: Compare
    # drawn again follows it, and its Cancel stops it.
    start_long_comparison(page)
    wait_for_runs(workspace, "compare", ["stopped", "stopped", "running"])
    page.get_by_test_id("stToolbar").get_by_text("Stop", exact=True).click()
    idle(page)
    assert [s for s, _ in runs(workspace, "compare")] == ["stopped", "stopped", "running"]
    back_to_running(page, "Compare")
    page.get_by_role("button", name="Cancel").click()
    page.get_by_text(STOPPED_TEXT).wait_for(timeout=TIMEOUT_MS)
    wait_for_runs(workspace, "compare", ["stopped", "stopped", "stopped"])
    idle(page)
    assert page.get_by_test_id("stProgress").count() == 0
    assert page.get_by_role("heading", name="Results").count() == 0
    no_exception(page, "Compare after Stop")

    open_page(page, "History")
    grid = page.get_by_test_id("stDataFrame").first
    rows = table_rows(grid)
    titles = [h.text_content().strip() for h in grid.locator("[role=columnheader]").all()]
    statuses = sorted(row[titles.index("status")] for row in rows)
    assert statuses == ["stopped", "stopped", "stopped"], rows


def test_a_closed_tab_keeps_the_position_its_stream_reached(page, server):
    open_app(page, server)
    workspace = workspace_of(page)
    open_page(page, "Stream")
    page.get_by_test_id("stSlider").last.locator("input[type=range]").focus()
    page.keyboard.press("Home")  # speed: 1 feature a tick, 2308 ticks
    idle(page)
    page.get_by_role("button", name="Start").click()
    # A running stream is saved every few seconds, without a pause.
    deadline = time.monotonic() + SLOW_SECONDS
    while not any((p or {}).get("position", 0) > 0 for _, p in runs(workspace, "stream")):
        assert time.monotonic() < deadline, runs(workspace, "stream")
        time.sleep(0.5)
    page.close()
    # the server notices the closed tab when it next sends to it: however long that
    # takes on this machine, the stream ends stopped where it was
    (status, payload), *_ = wait_for_runs(workspace, "stream", ["stopped"])
    assert 0 < payload["position"] < payload["total"] == 2308
