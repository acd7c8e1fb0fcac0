"""A workspace written by an older dashboard (store schema 1, tests/data/workspace_schema1.py)
opens with today's: migrated once to schema 2, it brings back its data set, its minority
class and the comparison the old code computed, shown under its task without recomputing."""

import shutil
import sqlite3

import pytest
from apptest_helpers import session

from conftest import ROOT
from dashboard import workspace
from dashboard.session import TaskKey

WORKSPACE = "OeoKsAlLcR3mC2W_U2AvUN-INj3Q0HxY"
#: What the old code showed (tests/data/workspace_schema1.py): G-mean 1-NN, G-mean SVM,
#: F1 1-NN, AUC SVM, features.
SHOWN = {
    "Fisher": [0.5640760748177662, 0.25, 0.4, 0.6363636363636365, 1.0],
    "S2N": [0.5640760748177662, 0.25, 0.4, 0.6363636363636365, 1.0],
}


@pytest.fixture
def old_store(tmp_path, monkeypatch):
    folder = tmp_path / "store"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "data" / "workspace_schema1.sqlite3", folder / workspace.DB_NAME)
    monkeypatch.setenv(workspace.ENV_DIR, str(folder))
    workspace.reset_default_store()
    yield folder / workspace.DB_NAME
    workspace.reset_default_store()


def _version(path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("PRAGMA user_version").fetchone()[0]


def test_an_older_workspace_opens_with_its_comparison(old_store):
    assert _version(old_store) == 1
    at = session(WORKSPACE, "dashboard/pages/compare.py")
    assert _version(old_store) == workspace.SCHEMA_VERSION == 2
    assert at.session_state["data"].name == "cohort.csv"
    assert at.session_state["minority"] == "rare"
    [key] = at.session_state["compare_results"]
    assert isinstance(key[0], TaskKey) and key[0].sha256 == at.session_state["data"].sha256
    assert key[1:3] == (("fisher", "s2n"), 2)
    shown = at.dataframe[0].value.set_index("method")
    for method, values in SHOWN.items():
        assert list(shown.loc[method].iloc[:5]) == values
    assert "compare_results_computed" not in at.session_state  # nothing recomputed

    # a second opening (a server restart) finds it as the first left it
    workspace.reset_default_store()
    again = session(WORKSPACE, "dashboard/pages/compare.py")
    assert list(again.session_state["compare_results"]) == [key]
