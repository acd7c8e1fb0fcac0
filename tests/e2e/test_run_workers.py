"""A closed tab or a stopped server ends its run's worker processes (issue 40, point 5), in
a real browser.

A comparison long enough to be running when the tab closes (SRBCT with its genes repeated
ten times, 83 x 23,080, 50 splits) starts; once the server has worker processes computing
it and its progress bar and Cancel are shown, the page is closed (or the server stopped):
the worker processes are gone within the suite's bound and the run is recorded as stopped,
with how far it got (after a restart, History shows it so)."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest

from conftest import SLOW_SECONDS
from tests.e2e.conftest import streamlit_server
from tests.e2e.test_browser import TIMEOUT_MS, idle, open_app, open_page, table_rows, upload
from tests.e2e.test_dashboard_trust import workspace_of
from tests.e2e.test_interruptions import UPLOAD_NAME, long_upload, runs  # noqa: F401

pytestmark = pytest.mark.e2e


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                fields = Path(f"/proc/{entry.name}/stat").read_bytes().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != b"Z":
                found.append(int(entry.name))
    return found


def _server_pid(url: str) -> int:
    port = url.rsplit(":", 1)[1]
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            line = _cmdline(int(entry.name))
            if "streamlit" in line and f"--server.port {port}" in line:
                return int(entry.name)
    raise AssertionError(f"no streamlit process on port {port}")


def _workers(server_pid: int) -> set[int]:
    """The server's worker processes (loky's), not its resource tracker."""
    return {
        pid
        for pid in _children(server_pid)
        if "loky" in _cmdline(pid) and "resource_tracker" not in _cmdline(pid)
    }


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
    except OSError:
        return False
    return stat[0] != b"Z"


def _params(workspace: str) -> dict:
    """The parameters of the workspace's newest run, as the database holds them."""
    path = Path(os.environ["FSENGINE_WORKSPACE_DIR"]) / "workspaces.sqlite3"
    with sqlite3.connect(path) as conn:
        row = conn.execute(
            "SELECT params FROM runs WHERE workspace = ? ORDER BY id DESC", (workspace,)
        ).fetchone()
    return json.loads(row[0]) if row else {}


def _wait(condition, what: str) -> None:
    deadline = time.monotonic() + SLOW_SECONDS
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.25)


def _start_a_long_comparison(page, server, path) -> str:
    """Upload the long data set, press Run comparison with 50 splits (confirming it when
    asked), wait for its progress bar, Cancel and worker processes; its workspace id."""
    open_app(page, server)
    upload(page, path)
    page.get_by_test_id("stHeading").filter(has_text=UPLOAD_NAME).wait_for(timeout=TIMEOUT_MS)
    idle(page)
    workspace = workspace_of(page)
    open_page(page, "Compare")
    page.get_by_text("Estimated time:").wait_for(timeout=TIMEOUT_MS)  # said before it runs
    splits = page.get_by_test_id("stSlider").filter(has_text="Splits")
    splits.locator("input[type=range]").focus()
    page.keyboard.press("End")
    page.wait_for_timeout(300)
    idle(page)
    page.get_by_role("button", name="Run comparison").click()
    anyway = page.get_by_role("button", name="Run anyway")
    cancel = page.get_by_role("button", name="Cancel")
    anyway.or_(cancel).first.wait_for(timeout=TIMEOUT_MS)
    if anyway.count():  # a long run asks first
        anyway.click()
    cancel.wait_for(timeout=TIMEOUT_MS)
    page.get_by_test_id("stProgress").wait_for(timeout=TIMEOUT_MS)
    _wait(lambda: [s for s, _ in runs(workspace, "compare")] == ["running"], "not running")
    return workspace


def test_a_closed_tab_ends_the_worker_processes_of_its_run(page, server, long_upload):  # noqa: F811
    server_pid = _server_pid(server)
    workspace = _start_a_long_comparison(page, server, long_upload)
    _wait(lambda: _workers(server_pid), "no worker process computes the run")
    computing = _workers(server_pid)

    page.close()
    _wait(
        lambda: not any(_alive(pid) for pid in computing),
        f"worker processes {computing} outlived the closed tab",
    )
    _wait(lambda: [s for s, _ in runs(workspace, "compare")] == ["stopped"], "not stopped")


def test_a_stopped_server_ends_the_workers_and_history_says_stopped(
    page,
    tmp_path,
    long_upload,  # noqa: F811
):
    with streamlit_server(tmp_path / "first.log") as url:
        workspace = _start_a_long_comparison(page, url, long_upload)
        server_pid = _server_pid(url)
        _wait(lambda: _workers(server_pid), "no worker process computes the run")
        computing = _workers(server_pid)
        _wait(lambda: "reached" in _params(workspace), "how far it got was never noted")
    _wait(
        lambda: not any(_alive(pid) for pid in computing),
        f"worker processes {computing} outlived their server",
    )
    with streamlit_server(tmp_path / "second.log") as url:
        page.goto(f"{url}/?ws={workspace}")
        idle(page)
        open_page(page, "History")
        grid = page.get_by_test_id("stDataFrame").first
        grid.wait_for(timeout=TIMEOUT_MS)
        rows = table_rows(grid)
        titles = [h.text_content().strip() for h in grid.locator("[role=columnheader]").all()]
        (row,) = rows
        assert row[titles.index("status")] == "stopped", rows
        assert row[titles.index("reached")], rows  # how far it got, as noted while it ran
