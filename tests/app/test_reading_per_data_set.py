"""How a data set is read belongs to that data set (issue 40, point 3), under AppTest.

The suggested log2 applied to one file is not applied to the next upload: that file
starts with no preprocessing and is offered its own suggestion (raw intensities with
negative values: a floor, a ceiling and log2; already logged values: none). The other
reading options (genes in rows, dropping constant genes, label column, sample sheet,
sample groups) do not carry over either. Going back to a data set (uploading it again, or
after a reload of the workspace) brings back its own reading, minority class and class
names. Expected matrices come from the library's loader, by hand where a transform
applies.
"""

import numpy as np
import pandas as pd
from apptest_helpers import click, workspace_id
from apptest_helpers import session as new_session

from dashboard import workspace
from fsengine import load_dataset

N = 30
SUGGESTED_LOG2 = "Apply the suggested preprocessing (transform=log2, offset=0.0)"
SUGGESTED_FLOOR = (
    "Apply the suggested preprocessing (floor=20.0, ceiling=16000.0, transform=log2, offset=0.0)"
)


def _csv(values: np.ndarray, labels, label="diagnosis", extra: dict | None = None) -> bytes:
    frame = pd.DataFrame(values, columns=[f"g{j}" for j in range(values.shape[1])])
    for name, column in (extra or {}).items():
        frame[name] = column
    frame[label] = labels
    return frame.to_csv(index=False).encode()


RARE = ["rare"] * 8 + ["common"] * 22
#: Raw intensities, all positive (20 to about 60,000): the suggestion is log2.
UNLOGGED = (
    "unlogged.csv",
    _csv(np.round(np.exp(np.random.default_rng(1).uniform(3, 11, (N, 12))), 1), RARE),
)
#: Raw intensities with negative background-corrected values: floor, ceiling, log2.
NEGATIVE = (
    "negative.csv",
    _csv(
        np.round(np.random.default_rng(2).uniform(-500, 30000, (N, 10)), 1),
        ["tumour"] * 9 + ["normal"] * 21,
        label="class",
    ),
)
#: Other raw intensities, all positive: read as they are until log2 is asked for here.
POSITIVE = (
    "positive.csv",
    _csv(
        np.round(np.exp(np.random.default_rng(3).uniform(2, 12, (N, 9))), 1),
        ["a"] * 6 + ["b"] * 24,
    ),
)
#: Logged values (centred): nothing to suggest.
LOGGED = (
    "logged.csv",
    _csv(np.random.default_rng(4).normal(size=(N, 8)).round(3), ["x"] * 7 + ["y"] * 23),
)


def _upload(at, upload, key="uploader") -> None:
    at.file_uploader(key=key).set_value((*upload, "text/csv")).run()
    assert not at.exception


def _buttons(at) -> list[str]:
    return [b.label for b in at.button]


def _suggestions(at) -> list[str]:
    return [b for b in _buttons(at) if b.startswith("Apply the suggested")]


def _loaded_as_the_library_reads(at, upload, **options) -> None:
    loaded = at.session_state["data"]
    assert loaded.name == upload[0]
    expected = load_dataset(upload[1], name=upload[0], **options)
    np.testing.assert_array_equal(loaded.dataset.X, expected.X)


def test_the_suggested_log2_of_one_file_does_not_reach_the_next_upload():
    at = new_session()
    _upload(at, UNLOGGED)
    assert _suggestions(at) == [SUGGESTED_LOG2]
    click(at, SUGGESTED_LOG2)
    assert at.session_state["data"].preprocessing == {"transform": "log2"}
    assert at.selectbox(key="data_preprocess_transform").value == "log2"

    # negative values: with the previous file's log2 this upload failed ("the 'Transform'
    # box log2 needs positive values ... an offset above ...")
    _upload(at, NEGATIVE)
    assert not at.error, [e.value for e in at.error]
    loaded = at.session_state["data"]
    assert loaded.preprocessing == {} and loaded.dataset.preprocessing == ""
    _loaded_as_the_library_reads(at, NEGATIVE)
    assert at.session_state["data"].dataset.X.min() < 0  # not thresholded, not logged
    assert at.selectbox(key="data_preprocess_transform").value == "none"
    assert _suggestions(at) == [SUGGESTED_FLOOR]  # its own suggestion


def test_positive_values_are_not_silently_logged_after_another_file_was():
    at = new_session()
    _upload(at, UNLOGGED)
    click(at, SUGGESTED_LOG2)
    _upload(at, POSITIVE)
    assert not at.error, [e.value for e in at.error]
    loaded = at.session_state["data"]
    assert loaded.preprocessing == {}
    raw = pd.read_csv(pd.io.common.BytesIO(POSITIVE[1])).drop(columns="diagnosis").to_numpy()
    np.testing.assert_array_equal(loaded.dataset.X, raw)  # by hand: the file's numbers
    assert _suggestions(at) == [SUGGESTED_LOG2]  # its own, computed on its own values
    _upload(at, LOGGED)
    assert at.session_state["data"].preprocessing == {} and not _suggestions(at)


def test_the_other_reading_options_stay_with_their_data_set():
    at = new_session()
    flat = np.random.default_rng(5).normal(size=(N, 6)).round(2)
    flat[:, 0] = 1.0  # a constant gene
    patients = [f"p{k // 2}" for k in range(N)]
    first = ("first.csv", _csv(flat, RARE, label="status", extra={"patient": patients}))
    _upload(at, first)
    at.toggle(key="drop_constant").set_value(True).run()
    at.selectbox(key="sample_groups").set_value("patient").run()
    at.selectbox(key="label_column").set_value("status").run()
    loaded = at.session_state["data"]
    assert loaded.drop_constant and loaded.sample_groups == "patient" and loaded.label == "status"

    _upload(at, LOGGED)
    assert not at.error, [e.value for e in at.error]
    loaded = at.session_state["data"]
    assert (loaded.drop_constant, loaded.transpose, loaded.sample_groups, loaded.label) == (
        False,
        False,
        None,
        None,
    )
    assert loaded.dataset.label_column == "diagnosis"
    assert not at.toggle(key="drop_constant").value
    _loaded_as_the_library_reads(at, LOGGED)


def test_genes_in_rows_stays_with_the_file_read_so():
    genes = pd.DataFrame(
        np.random.default_rng(7).normal(size=(5, N)).round(2),
        index=[f"g{i}" for i in range(5)],
        columns=[f"s{j}" for j in range(N)],
    )
    rows = (genes.to_csv(index_label="gene") + "class," + ",".join(RARE) + "\n").encode()
    at = new_session()
    _upload(at, ("genes_in_rows.csv", rows))
    assert at.error  # refused, naming the toggle
    at.toggle(key="transpose").set_value(True).run()
    assert not at.error and at.session_state["data"].transpose

    _upload(at, LOGGED)  # samples in rows: read so, not transposed by the toggle left on
    assert not at.error, [e.value for e in at.error]
    assert not at.session_state["data"].transpose and not at.toggle(key="transpose").value
    _loaded_as_the_library_reads(at, LOGGED)


def test_a_sample_sheet_stays_with_its_table():
    ids = [f"S{k:02d}" for k in range(N)]
    table = pd.DataFrame(np.random.default_rng(6).normal(size=(N, 5)).round(2))
    table.columns = [f"g{j}" for j in range(5)]
    table.insert(0, "sample", ids)
    sheet = pd.DataFrame({"sample_id": ids, "diagnosis": RARE}).to_csv(index=False).encode()
    at = new_session()
    _upload(at, ("numbers.csv", table.to_csv(index=False).encode()))
    _upload(at, ("sheet.csv", sheet), key="sheet_uploader")
    if at.session_state["data"].label != "diagnosis":
        at.selectbox(key="label_column").set_value("diagnosis").run()
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["data"].samples_name == "sheet.csv"

    # a table with its own label column: read alone, not matched against numbers.csv's sheet
    _upload(at, LOGGED)
    assert not at.error, [e.value for e in at.error]
    loaded = at.session_state["data"]
    assert loaded.samples is None and loaded.samples_name is None
    _loaded_as_the_library_reads(at, LOGGED)
    assert not any("Sample sheet in use" in c.value for c in at.caption)


def test_uploading_a_file_again_brings_back_its_own_reading_class_and_names():
    at = new_session()
    _upload(at, UNLOGGED)
    click(at, SUGGESTED_LOG2)
    at.selectbox(key="minority_select").set_value("common").run()
    box = next(t for t in at.text_input if t.label == "Class names (optional)")
    box.set_value("rare=R, common=C").run()
    assert at.session_state["class_names"] == {"rare": "R", "common": "C"}

    _upload(at, NEGATIVE)
    assert at.session_state["data"].preprocessing == {}
    assert at.session_state["minority"] == "tumour" and at.session_state["class_names"] == {}

    _upload(at, UNLOGGED)  # back to the first file
    loaded = at.session_state["data"]
    assert loaded.preprocessing == {"transform": "log2"}
    raw = pd.read_csv(pd.io.common.BytesIO(UNLOGGED[1])).drop(columns="diagnosis").to_numpy()
    np.testing.assert_allclose(loaded.dataset.X, np.log2(raw))  # by hand
    assert at.session_state["minority"] == "common"
    assert at.session_state["class_names"] == {"rare": "R", "common": "C"}
    assert at.selectbox(key="data_preprocess_transform").value == "log2"
    assert any("as you last read it" in i.value for i in at.info)

    # and after a reload of the workspace (a new session, as after a server restart)
    wid = workspace_id(at)
    _upload(at, NEGATIVE)
    workspace.reset_default_store()
    again = new_session(wid)
    assert again.session_state["data"].name == NEGATIVE[0]
    _upload(again, UNLOGGED)
    assert again.session_state["data"].preprocessing == {"transform": "log2"}
    assert again.session_state["minority"] == "common"
