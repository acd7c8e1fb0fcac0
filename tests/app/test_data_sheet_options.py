"""The Data page's sample sheet, preprocessing and sample groups (issue 30) under AppTest:
a table of numbers read with a sheet (the label box then offers the sheet's columns),
mismatched ids named in an error box, the preprocessing drawn from its specification and
applied (the suggested steps in one click), groups keeping the protocol's splits apart,
and all of it part of the data set: its task key, its run record and the workspace."""

import numpy as np
import pandas as pd
import pytest
from apptest_helpers import click, workspace_id
from apptest_helpers import session as new_session

from dashboard import messages, workspace
from dashboard.session import TaskKey
from fsengine import FSEngineError, load_dataset
from fsengine.data.task import Task
from fsengine.evaluation import stratified_splits

N, P = 40, 30
IDS = [f"S{k:02d}" for k in range(N)]
#: 10 tumours from 4 patients (4, 2, 2, 2 samples), 30 normals from 15 patients.
DIAGNOSIS = ["tumour"] * 10 + ["normal"] * 30
PATIENTS = ["t0"] * 4 + ["t1"] * 2 + ["t2"] * 2 + ["t3"] * 2 + [f"n{k // 2}" for k in range(30)]


SUGGESTED = "Apply the suggested preprocessing (transform=log2, offset=0.0)"


def _values() -> np.ndarray:
    """Raw intensities: 20 to about 60,000, all positive (unlogged)."""
    rng = np.random.default_rng(3)
    return np.round(np.exp(rng.uniform(3.0, 11.0, size=(N, P))), 1)


def _table() -> bytes:
    frame = pd.DataFrame(_values(), columns=[f"g{j}" for j in range(P)])
    frame.insert(0, "sample", IDS)
    return frame.to_csv(index=False).encode()


def _sheet(ids=IDS, patients=PATIENTS) -> bytes:
    frame = pd.DataFrame({"sample_id": ids, "patient": patients, "diagnosis": DIAGNOSIS})
    return frame.iloc[::-1].to_csv(sep="\t", index=False).encode()  # another order


def _upload(at, key: str, name: str, data: bytes):
    at.file_uploader(key=key).set_value((name, data, "text/csv")).run()
    assert not at.exception


@pytest.fixture
def with_sheet():
    """A new session with the table, then its sheet, uploaded and 'diagnosis' as label."""
    at = new_session()
    _upload(at, "uploader", "expression.csv", _table())
    _upload(at, "sheet_uploader", "samples.tsv", _sheet())
    if at.session_state["data"].label != "diagnosis":
        at.selectbox(key="label_column").set_value("diagnosis").run()
    assert not at.error, [e.value for e in at.error]
    return at


def test_the_table_is_read_with_its_sheet_and_the_label_box_offers_its_columns(with_sheet):
    at = with_sheet
    loaded = at.session_state["data"]
    ds = loaded.dataset
    assert loaded.name == "expression.csv" and loaded.samples_name == "samples.tsv"
    assert np.array_equal(ds.X, _values())  # the table's rows, in the table's order
    assert list(ds.labels) == DIAGNOSIS  # the reversed sheet matched by id
    assert ds.sample_names == tuple(IDS)
    options = at.selectbox(key="label_column").options
    assert "patient" in options and "diagnosis" in options and "g0" not in options
    assert {m.label: m.value for m in at.metric}["Samples"] == str(N)
    report = next(m.value for m in at.markdown if "label column" in m.value)
    assert "sample sheet: **samples.tsv**" in report


def test_mismatched_ids_show_the_library_error_and_keep_the_data_set(with_sheet):
    at = with_sheet
    short = _sheet(IDS[:-2] + ["X1", "X2"])
    try:
        load_dataset(_table(), name="expression.csv", samples=short, samples_name="bad.tsv")
    except FSEngineError as exc:
        expected = messages.describe(exc)
    else:
        pytest.fail("the library read a sheet without two of the samples")
    assert "'S38', 'S39'" in expected
    _upload(at, "sheet_uploader", "bad.tsv", short)
    assert len(at.error) == 1
    assert expected in at.error[0].value
    assert "Still using expression.csv" in at.error[0].value
    assert at.session_state["data"].samples_name == "samples.tsv"  # the previous one


def test_the_suggested_preprocessing_is_one_click_and_reaches_the_record(with_sheet):
    at = with_sheet
    before = at.session_state["data"]
    note = next(i.value for i in at.info if "look unlogged" in i.value)
    assert "**transform=log2, offset=0.0**" in note and "`--transform log2`" in note
    click(at, SUGGESTED)
    loaded = at.session_state["data"]
    assert loaded.preprocessing == {"transform": "log2"}
    assert np.allclose(loaded.dataset.X, np.log2(_values()))  # by hand
    assert at.selectbox(key="data_preprocess_transform").value == "log2"
    assert Task.from_dataset(loaded.dataset, "tumour").record()["preprocessing"] == (
        "transform=log2, offset=0.0"
    )
    report = next(m.value for m in at.markdown if "label column" in m.value)
    assert "preprocessing: **transform=log2, offset=0.0** (log2(value + 0))" in report
    assert report.count("transform=log2") == 1 and report.count("log2(value") == 1  # once
    assert not any("look unlogged" in i.value for i in at.info)
    # another task: results computed before are not shown under it
    old = TaskKey.of(
        before.sha256, before.label, False, False, "tumour", samples=before.samples_sha256
    )
    assert at.session_state["_of_task"]["task"][0] != old

    # a floor of 100 then log2(value + 1), set in the widgets drawn from the specification
    at.number_input(key="data_preprocess_floor").set_value(100.0).run()
    at.number_input(key="data_preprocess_offset").set_value(1.0).run()
    click(at, "Apply preprocessing")
    X = at.session_state["data"].dataset.X
    assert np.allclose(X, np.log2(np.maximum(_values(), 100.0) + 1.0))
    assert at.session_state["data"].preprocessing == {
        "floor": 100.0,
        "transform": "log2",
        "offset": 1.0,
    }


def test_a_bad_preprocessing_is_an_error_box_naming_the_widget(with_sheet):
    at = with_sheet
    at.number_input(key="data_preprocess_floor").set_value(5000.0).run()
    at.number_input(key="data_preprocess_ceiling").set_value(100.0).run()
    click(at, "Apply preprocessing")
    assert len(at.error) == 1
    assert "'Floor' box" in at.error[0].value and "ceiling (100)" in at.error[0].value
    assert at.session_state["data"].preprocessing == {}


def test_groups_keep_patients_apart_and_refusals_are_the_librarys(with_sheet):
    at = with_sheet
    at.selectbox(key="sample_groups").set_value("patient").run()
    assert not at.error
    ds = at.session_state["data"].dataset
    assert ds.groups_column == "patient" and list(ds.groups) == PATIENTS
    assert "patient" not in ds.feature_names
    report = next(m.value for m in at.markdown if "label column" in m.value)
    assert "sample groups: column **patient**, 19 groups" in report
    assert Task.from_dataset(ds, "tumour").record()["sample_groups"] == "patient"

    # every tumour from one patient: the library refuses the splits, the page says why
    one = ["t0"] * 10 + PATIENTS[10:]
    _upload(at, "sheet_uploader", "one_patient.tsv", _sheet(patients=one))
    at.selectbox(key="sample_groups").set_value("patient").run()
    y = np.array([d == "tumour" for d in DIAGNOSIS], dtype=np.int8)
    with pytest.raises(FSEngineError) as refused:
        stratified_splits(y, 20, 0, np.array(one, dtype=object))
    expected = messages.describe(refused.value)
    warned = [w.value for w in at.warning]
    assert any(expected[1:] in w for w in warned), warned  # the page capitalises it
    assert any("cannot run on class tumour: with the groups of 'patient'" in w for w in warned)


def test_a_later_session_reloads_the_sheet_preprocessing_and_groups(with_sheet):
    at = with_sheet
    at.selectbox(key="sample_groups").set_value("patient").run()
    click(at, SUGGESTED)
    before = at.session_state["data"]
    wid = workspace_id(at)
    workspace.reset_default_store()  # as after a server restart
    again = new_session(wid)
    loaded = again.session_state["data"]
    assert loaded.options == before.options
    assert loaded.samples == _sheet() and loaded.samples_name == "samples.tsv"
    assert loaded.preprocessing == {"transform": "log2"}
    assert loaded.sample_groups == "patient"
    assert np.array_equal(loaded.dataset.X, before.dataset.X)
    assert list(loaded.dataset.groups) == PATIENTS


def test_a_workspace_saved_before_these_options_still_loads():
    at = new_session()
    wid = workspace_id(at)
    store = workspace.default_store()
    raw = pd.DataFrame({"g1": range(12), "g2": [v % 5 for v in range(12)], "label": ["a", "b"] * 6})
    data = raw.to_csv(index=False).encode()
    sha = store.put_dataset(data, "old.csv", workspace_id=wid)
    store.save_state(
        wid,
        {
            "dataset": {
                "sha": sha,
                "name": "old.csv",
                "label": None,
                "transpose": False,
                "drop_constant": False,
            },
            "minority": "a",
        },
    )
    workspace.reset_default_store()
    again = new_session(wid)
    loaded = again.session_state["data"]
    assert loaded.name == "old.csv" and loaded.samples is None
    assert loaded.preprocessing == {} and loaded.sample_groups is None
    assert not again.error


def test_a_genes_in_rows_table_is_turned_by_its_sheet():
    """Issue 40, point 10: the sheet's identifiers are the table's column headers, so the
    table is read with genes in rows without the toggle, and the report says so."""
    genes = pd.DataFrame(_values().T, columns=IDS)
    genes.insert(0, "gene", [f"g{j}" for j in range(P)])
    at = new_session()
    _upload(at, "uploader", "genes_in_rows.csv", genes.to_csv(index=False).encode())
    _upload(at, "sheet_uploader", "samples.tsv", _sheet())
    if at.session_state["data"].label != "diagnosis":
        at.selectbox(key="label_column").set_value("diagnosis").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ds = at.session_state["data"].dataset
    assert np.array_equal(ds.X, _values()) and ds.sample_names == tuple(IDS)
    assert list(ds.labels) == DIAGNOSIS and at.toggle(key="transpose").value is False
    report = next(m.value for m in at.markdown if "label column" in m.value)
    assert "read with genes in rows: the sample sheet samples.tsv holds the table's column" in (
        report
    )
