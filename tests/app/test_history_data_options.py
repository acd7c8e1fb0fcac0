"""History reopens a run with the data options it ran with (issue 30): a comparison run on a
table read with its sample sheet, log2-transformed and grouped by patient, reopened after
the preprocessing and the groups were changed, brings all three back with its result."""

import numpy as np
from apptest_helpers import click
from apptest_helpers import session as new_session
from test_repeat_data_options import SUGGESTED, _sheet, _table

from dashboard.session import TaskKey


def _upload(at, key: str, name: str, data: bytes):
    at.file_uploader(key=key).set_value((name, data, "text/csv")).run()
    assert not at.exception


def test_reopening_a_run_restores_its_sheet_preprocessing_and_groups():
    at = new_session()
    _upload(at, "uploader", "expression.csv", _table())
    _upload(at, "sheet_uploader", "samples.tsv", _sheet())
    if at.session_state["data"].label != "diagnosis":
        at.selectbox(key="label_column").set_value("diagnosis").run()
    at.selectbox(key="sample_groups").set_value("patient").run()
    click(at, SUGGESTED)
    at.session_state["minority"] = "tumour"
    ran_on = at.session_state["data"]
    at.switch_page("dashboard/pages/compare.py").run()
    at.multiselect(key="compare_methods").set_value(["fisher", "s2n"])
    at.slider(key="compare_splits").set_value(2).run()
    click(at, "Run comparison")
    assert not at.error, [e.value for e in at.error]
    [(key, result)] = at.session_state["compare_results"].items()

    # the same table read otherwise: no groups, no preprocessing
    at.switch_page("dashboard/pages/data.py").run()
    at.selectbox(key="sample_groups").set_value(at.selectbox(key="sample_groups").options[0]).run()
    at.selectbox(key="data_preprocess_transform").set_value("none").run()
    click(at, "Apply preprocessing")
    now = at.session_state["data"]
    assert now.preprocessing == {} and now.sample_groups is None
    assert not np.array_equal(now.dataset.X, ran_on.dataset.X)

    at.switch_page("dashboard/pages/history.py").run()
    table = at.dataframe[0].value
    row = int(np.flatnonzero(table["kind"] == "compare")[0])
    at.session_state["history_table"] = {"selection": {"rows": [row], "columns": []}}
    at.run()
    click(at, "Reopen")
    loaded = at.session_state["data"]
    assert loaded.samples_name == "samples.tsv" and loaded.samples == _sheet()
    assert loaded.preprocessing == {"transform": "log2"}
    assert loaded.sample_groups == "patient"
    assert loaded.options == ran_on.options
    assert np.array_equal(loaded.dataset.X, np.log2(now.dataset.X))  # by hand
    assert list(loaded.dataset.groups) == list(ran_on.dataset.groups)
    assert at.session_state["minority"] == "tumour"
    # the comparison is kept under the task it ran on: its data set, reading and class
    assert key[0] == TaskKey.of(
        loaded.sha256,
        loaded.label,
        loaded.transpose,
        loaded.drop_constant,
        "tumour",
        samples=loaded.samples_sha256,
        preprocessing={"transform": "log2"},
        sample_groups="patient",
    )
    assert at.session_state["compare_results"][key] is not None
