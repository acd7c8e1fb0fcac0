"""Eight users on one server at once, each in a browser context (and a workspace) of its
own, doing real work side by side: upload a data set (SRBCT, GLIOMA and Colon in several
formats; two users upload the same GLIOMA file), stream K-OFSD to the end, compare K-OFSD
and Fisher over 20 splits (the comparisons queue for the server's slots:
dashboard/run_queue.py), export the selection. Every action is sent to all eight before
any is waited for, so the server serves them together; while the comparisons wait or
run, four users move to other pages and back (their comparisons go on).

Checked: every run finishes; each user's export is the command line's selection on that
user's own file (byte for byte); each workspace holds only its own runs, on its own data
set; the file two users uploaded is stored once, under each one's name. How long the
page switches take and the server's memory are measured by ``make bench``
(benchmarks/bench_many_users.py), not asserted here.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT, SAMPLE, SLOW_SECONDS
from fsengine import load_dataset
from fsengine.cli import main
from fsengine.data.task import Task
from fsengine.evaluation import protocol_defaults
from fsengine.methods.registry import METHOD_LABELS
from tests.e2e.test_browser import (
    TIMEOUT_MS,
    back_to_running,
    download,
    idle,
    no_exception,
    open_app,
    open_page,
    upload,
    wait_for_metric,
)
from tests.e2e.test_dashboard_trust import set_slider, workspace_of

pytestmark = pytest.mark.e2e

USERS = 8
SPLITS = 20
COMPARED = {METHOD_LABELS["kofsd"], METHOD_LABELS["fisher"]}
GLIOMA = ROOT / "tests" / "reference" / "datasets" / "GLIOMA.parquet"
COLON = ROOT / "tests" / "data" / "colon_alon.csv.gz"
GLIOMA_SERIES = ROOT / "tests" / "data" / "glioma_series_matrix.txt.gz"


@dataclass
class User:
    """A user's browser page, file and what the command line selects on it."""

    path: Path
    expected: bytes = b""
    n_features: int = 0
    page: object = None
    workspace: str = ""


def write_uploads(folder: Path) -> list[Path]:
    """Eight uploads written into ``folder``: three real sets in six forms, and
    GLIOMA.parquet twice (the same bytes under another name)."""
    srbct, colon = pd.read_parquet(SAMPLE), pd.read_csv(COLON)
    paths = [folder / name for name in ("SRBCT.parquet", "GLIOMA.parquet")]
    shutil.copy(SAMPLE, paths[0])
    shutil.copy(GLIOMA, paths[1])
    second = folder / "glioma_again.parquet"
    shutil.copy(GLIOMA, second)
    for source, name in ((COLON, COLON.name), (GLIOMA_SERIES, GLIOMA_SERIES.name)):
        shutil.copy(source, folder / name)
    srbct.to_csv(folder / "srbct_table.csv", index=False)
    srbct.to_csv(folder / "srbct_table.tsv.gz", sep="\t", index=False)
    colon.to_parquet(folder / "colon_table.parquet")
    return [
        paths[0],
        paths[1],
        second,
        folder / COLON.name,
        folder / GLIOMA_SERIES.name,
        folder / "srbct_table.csv",
        folder / "srbct_table.tsv.gz",
        folder / "colon_table.parquet",
    ]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> list[Path]:
    """:func:`write_uploads` in a folder of the test run."""
    return write_uploads(tmp_path_factory.mktemp("users"))


def expected_selection(path: Path, out: Path) -> tuple[bytes, int]:
    """The command line's K-OFSD selection on ``path`` with the pages' defaults (the data
    set's default class, K as the page proposes it), and the number of genes."""
    dataset = load_dataset(path)
    minority = dataset.default_minority()
    task = Task.from_dataset(dataset, minority)
    k = protocol_defaults(task.y, "kofsd").get("k", (7, ""))[0]
    args = ["select", str(path), "--minority", str(minority), "--method", "kofsd"]
    assert main([*args, "--k", str(k), "--out", str(out)]) == 0
    return out.read_bytes(), dataset.n_features


def start_compare(page) -> None:
    """On Compare: K-OFSD and Fisher only, SPLITS splits, press Run (not waited for)."""
    open_page(page, "Compare")
    tags = page.get_by_test_id("stMultiSelect").filter(has_text="Methods")
    tags.locator("[data-tag]").first.wait_for(timeout=TIMEOUT_MS)
    for method in [t.get_attribute("aria-label") for t in tags.locator("[data-tag]").all()]:
        if method not in COMPARED:
            page.get_by_role("button", name=f"Remove {method}", exact=True).click()
            page.wait_for_timeout(200)
            idle(page)
    chosen = {t.get_attribute("aria-label") for t in tags.locator("[data-tag]").all()}
    assert chosen == COMPARED, chosen
    set_slider(page, "Splits", SPLITS)
    page.get_by_role("button", name="Run comparison").click()


def database_rows(query: str, *args) -> list[tuple]:
    path = Path(os.environ["FSENGINE_WORKSPACE_DIR"]) / "workspaces.sqlite3"
    with sqlite3.connect(path) as conn:
        return conn.execute(query, args).fetchall()


def test_eight_users_work_at_once_each_in_their_own_workspace(
    browser, browser_context_args, server, files, tmp_path
):
    users = [User(path) for path in files]
    for i, user in enumerate(users):
        user.expected, user.n_features = expected_selection(user.path, tmp_path / f"{i}.csv")
    contexts = [browser.new_context(**browser_context_args) for _ in users]
    try:
        for user, context in zip(users, contexts, strict=True):
            user.page = context.new_page()
            user.page.set_default_timeout(TIMEOUT_MS)
            open_app(user.page, server)
            user.workspace = workspace_of(user.page)
        assert len({user.workspace for user in users}) == USERS

        for user in users:  # all uploads sent, then each waited for
            upload(user.page, user.path)
        for user in users:
            user.page.get_by_test_id("stHeading").filter(has_text=user.path.name).wait_for()
            wait_for_metric(user.page, "Features", str(user.n_features))
            no_exception(user.page, f"Data of {user.path.name}")

        for user in users:  # every stream started, then each waited for
            open_page(user.page, "Stream")
            user.page.get_by_test_id("stSlider").last.locator("input[type=range]").focus()
            user.page.keyboard.press("End")  # speed: max
            idle(user.page)
            user.page.get_by_role("button", name="Start").click()
        for user in users:
            n = user.n_features
            wait_for_metric(user.page, "Features streamed", f"{n} / {n}", SLOW_SECONDS)
            idle(user.page)
            no_exception(user.page, f"Stream of {user.path.name}")

        # Every comparison pressed (they queue for the server's slots); then half the
        # users look at other pages while theirs waits or computes, and come back to it.
        for user in users:
            start_compare(user.page)
        for user in users[USERS // 2 :]:  # (each run may also have ended already)
            running = user.page.get_by_test_id("stProgress")
            running.or_(user.page.get_by_test_id("stPlotlyChart")).first.wait_for(
                timeout=SLOW_SECONDS * 1000
            )
            open_page(user.page, "Genes")
            open_page(user.page, "Data")
            back_to_running(user.page, "Compare", or_done="stPlotlyChart")
        for user in users:
            user.page.get_by_test_id("stPlotlyChart").first.wait_for(timeout=SLOW_SECONDS * 1000)
            idle(user.page)
            no_exception(user.page, f"Compare of {user.path.name}")

        for user in users:
            open_page(user.page, "Export")
            assert download(user.page, "Download selected features") == user.expected, (
                user.path.name
            )
    finally:
        for context in contexts:
            context.close()

    # Each workspace: its own stream and comparison, finished, on its own file's bytes.
    for user in users:
        sha = hashlib.sha256(user.path.read_bytes()).hexdigest()
        runs = database_rows(
            "SELECT kind, status, dataset_sha FROM runs WHERE workspace = ? ORDER BY id",
            user.workspace,
        )
        assert sorted(kind for kind, _, _ in runs) == ["compare", "stream"], runs
        assert {status for _, status, _ in runs} == {"finished"}, runs
        assert {digest for _, _, digest in runs} == {sha}, user.path.name
        names = {
            name
            for (name,) in database_rows(
                "SELECT name FROM dataset_names WHERE workspace = ?", user.workspace
            )
        }
        # (every workspace starts with the bundled SRBCT.parquet, which user 0 uploads)
        others = {other.path.name for other in users} - {user.path.name, SAMPLE.name}
        assert user.path.name in names and not names & others, names
    # The file two users uploaded: stored once, under each one's name. (The server is
    # shared with earlier tests, whose workspaces may hold GLIOMA too: only this test's
    # workspaces are asked for their names.)
    glioma = hashlib.sha256(GLIOMA.read_bytes()).hexdigest()
    # (one row per hash is the schema's key; what is checked is that the row holds the bytes)
    assert database_rows("SELECT data FROM datasets WHERE sha = ?", glioma) == [
        (GLIOMA.read_bytes(),)
    ]
    ours = [user.workspace for user in users]
    names = database_rows(
        f"SELECT name FROM dataset_names WHERE sha = ? AND workspace IN "
        f"({', '.join('?' * len(ours))})",
        glioma,
        *ours,
    )
    assert sorted(names) == [("GLIOMA.parquet",), ("glioma_again.parquet",)]
