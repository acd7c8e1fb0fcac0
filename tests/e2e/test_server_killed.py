"""The dashboard's server killed with SIGKILL while it saves a running stream, three times at
seeded moments: each time a new server on the same workspace folder brings the stream back
in the browser at the very position the workspace had saved (the README's "at most the last
2 s of a running stream" is lost), the database passes its integrity check, and the run is
shown stopped. The writes themselves are killed 50 times at finer points by
tests/unit/dashboard/test_crash_safety.py."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from conftest import SLOW_SECONDS
from tests.e2e.conftest import SERVER_PIDS, streamlit_server
from tests.e2e.test_browser import TIMEOUT_MS, idle, metrics, no_exception, open_app, open_page
from tests.e2e.test_dashboard_trust import workspace_of
from tests.e2e.test_interruptions import runs

pytestmark = pytest.mark.e2e

KILLS = 3


def saved_position(workspace: str) -> int:
    """The position of the workspace's stream as the database holds it (0: none saved)."""
    found = runs(workspace, "stream")
    return max(((p or {}).get("position", 0) for _, p in found), default=0)


def test_a_killed_server_brings_its_stream_back_where_it_was_saved(page, tmp_path):
    rng = random.Random(43)
    workspace, before = None, 0
    for kill in range(KILLS):
        with streamlit_server(tmp_path / f"server{kill}.log") as url:
            if workspace is None:
                open_app(page, url)
                workspace = workspace_of(page)
            else:
                open_app(page, f"{url}/?ws={workspace}")
                assert workspace_of(page) == workspace
            open_page(page, "Stream")
            if kill:  # back where the killed server had saved it
                wanted = f"{before} / 2308"
                deadline = time.monotonic() + SLOW_SECONDS
                while metrics(page).get("Features streamed") != wanted:
                    assert time.monotonic() < deadline, (metrics(page), wanted)
                    page.wait_for_timeout(250)
                page.get_by_text(f"Stopped at {before:,} of 2,308 features").wait_for(
                    timeout=TIMEOUT_MS
                )
                assert [status for status, _ in runs(workspace, "stream")] == ["stopped"]
                no_exception(page, f"Stream after kill {kill}")
            page.get_by_test_id("stSlider").last.locator("input[type=range]").focus()
            page.keyboard.press("Home")  # 1 feature a tick: the stream outlives the kills
            idle(page)
            page.get_by_role("button", name="Start").click()
            # Killed once it has saved further, a seeded 0 to 4 s after that save.
            start = saved_position(workspace)
            deadline = time.monotonic() + SLOW_SECONDS
            while saved_position(workspace) <= start:
                assert time.monotonic() < deadline, runs(workspace, "stream")
                time.sleep(0.25)
            time.sleep(rng.uniform(0.0, 4.0))
            os.kill(SERVER_PIDS[url], signal.SIGKILL)
            page.goto("about:blank")
        database = Path(os.environ["FSENGINE_WORKSPACE_DIR"]) / "workspaces.sqlite3"
        with sqlite3.connect(database) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        before = saved_position(workspace)
        assert 0 < before < 2308
