"""The session has one owner (dashboard.session.SessionState): the loaded data set, the
minority class, the class names, the workspace and the Export page's selections are read
and written through it; no page or other module of the dashboard names their keys in
``st.session_state``."""

import ast

import pytest

from conftest import ROOT
from dashboard.session import SessionState

OWNED = {
    SessionState._DATA,
    SessionState._MINORITY,
    SessionState._CLASS_NAMES,
    SessionState._WORKSPACE,
    SessionState._WORKSPACE_PROBLEM,
    SessionState._WORKSPACE_NOTICE,
    SessionState._EXPORT_RESULTS,
}


def _session_state_keys(tree) -> list[tuple[int, str]]:
    """(line, key) of every string literal used as a key of ``st.session_state``: a
    subscript, ``get``/``pop``/``setdefault`` or ``in``."""
    found = []
    for node in ast.walk(tree):
        target = key = None
        if isinstance(node, ast.Subscript):
            target, key = node.value, node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "pop", "setdefault") and node.args:
                target, key = node.func.value, node.args[0]
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            target, key = node.comparators[0], node.left
        if (
            isinstance(target, ast.Attribute)
            and target.attr == "session_state"
            and isinstance(key, ast.Constant)
            and isinstance(key.value, str)
        ):
            found.append((node.lineno, key.value))
    return found


def test_the_owned_keys_are_named_by_the_owner_alone():
    scripts = [ROOT / "app.py", *(ROOT / "dashboard").rglob("*.py")]
    assert len(scripts) > 20
    named = [
        f"{path.relative_to(ROOT)}:{line} {key!r}"
        for path in scripts
        for line, key in _session_state_keys(ast.parse(path.read_text(encoding="utf-8")))
        if key in OWNED
    ]
    assert named == []


def test_the_check_finds_a_key_named_by_hand():
    tree = ast.parse(
        'import streamlit as st\nx = st.session_state["minority"]\n'
        'y = st.session_state.get("data")\nz = "workspace" in st.session_state\n'
    )
    assert _session_state_keys(tree) == [(2, "minority"), (3, "data"), (4, "workspace")]


def test_a_tasks_values_are_made_once_per_task_and_a_failure_keeps_nothing(monkeypatch):
    import streamlit as st

    from dashboard.session import state

    monkeypatch.setattr(st, "session_state", {})
    made = []

    def make(value):
        def build():
            made.append(value)
            return value

        return build

    assert state.of_task("size", "task A", make(1)) == 1
    assert state.of_task("size", "task A", make(2)) == 1  # kept: not made again
    assert state.of_task("task", "task A", make(3)) == 3  # another value of the same task
    assert state.of_task("size", "task B", make(4)) == 4  # another task: made anew
    assert made == [1, 3, 4]

    def refused():
        raise ValueError("refused")

    with pytest.raises(ValueError):
        state.of_task("size", "task C", refused)
    assert state.of_task("size", "task B", make(5)) == 4  # the failure kept nothing
    state.by_task("refusals")[("task A", 20)] = "why"
    assert state.by_task("refusals") == {("task A", 20): "why"}
    assert state.by_task("training_half") == {}


def test_the_export_pages_selections_belong_to_one_reading_and_come_back_with_it(monkeypatch):
    import streamlit as st

    from dashboard.session import state

    monkeypatch.setattr(st, "session_state", {})

    class Loaded:  # what the store reads of a LoadedData: its hash and reading options
        def __init__(self, sha256, **options):
            self.sha256, self.options = sha256, options

    first, second = Loaded("a" * 64), Loaded("b" * 64)
    assert state.export_results_shown(first) == {}  # nothing computed: nothing made
    assert st.session_state == {}
    state.export_results(first)[(1, "kofsd", 10, ())] = "first's selection"
    assert state.export_results_shown(first) == {(1, "kofsd", 10, ()): "first's selection"}
    assert state.export_results(second) == {}  # another data set: its own, first's aside
    assert state.export_results_shown(first) == {}  # the report shows the current one's
    state.export_results(second)[(2, "fisher", 5, ())] = "second's"
    again = Loaded("a" * 64)  # the first file loaded again, read the same way
    assert state.export_results(again) == {(1, "kofsd", 10, ()): "first's selection"}
    assert state.export_results(Loaded("a" * 64, transpose=True)) == {}  # read otherwise
    assert state.export_results(second) == {(2, "fisher", 5, ()): "second's"}
    for n in range(state.EXPORT_READINGS_KEPT + 2):  # the oldest readings leave
        state.export_results(Loaded(f"{n:064d}"))[("x",)] = n
    assert state.export_results(Loaded("b" * 64)) == {}
