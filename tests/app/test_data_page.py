"""The Data page under Streamlit's AppTest: sample on start, upload, bad input, options."""

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE, SLOW_SECONDS
from dashboard import messages


@pytest.fixture
def app():
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=SLOW_SECONDS).run()


def _metrics(at):
    return {m.label: m.value for m in at.metric}


def _deltas(at):
    return {m.label: m.delta for m in at.metric if m.delta}


def _class_table(at):
    return at.dataframe[0].value


def _csv_bytes(n_minority=4, n_rest=12, p=6, seed=0):
    rng = np.random.default_rng(seed)
    labels = ["tumour"] * n_minority + ["normal"] * n_rest
    frame = pd.DataFrame(rng.normal(size=(len(labels), p)), columns=[f"gene{j}" for j in range(p)])
    frame["diagnosis"] = labels
    return frame.to_csv(index=False).encode()


def test_sample_data_set_is_loaded_on_start(app):
    assert not app.exception
    assert _metrics(app) == {
        "Samples": "83",
        "Features": "2308",
        "Classes": "4",
        "Minority class": "2 (BL)",
        "Imbalance ratio": "6.55",
    }
    assert _deltas(app) == {"Minority class": "11 samples"}
    table = _class_table(app)
    assert list(table["class"]) == ["0 (EWS)", "1 (RMS)", "3 (NB)", "2 (BL)"]
    assert list(table["samples"]) == [29, 25, 18, 11]
    assert list(table["share"]) == pytest.approx([29 / 83, 25 / 83, 18 / 83, 11 / 83])
    assert list(table["role"]) == ["", "", "", "minority"]
    assert not app.get("plotly_chart")  # the first page loads no chart library
    assert "SRBCT.parquet" in app.sidebar.markdown[0].value


def test_the_first_page_tells_a_newcomer_what_to_do_next(app):
    """Three steps under the title (issue 40, point 10): upload, choose the class, stream;
    the bundled sample is named as such until a file is uploaded."""
    steps = next(m.value for m in app.markdown if "three steps" in m.value)
    positions = [steps.index(step) for step in ("1. Upload", "2. Choose the minority", "3. Stream")]
    assert positions == sorted(positions)
    assert "the bundled SRBCT sample is loaded" in steps
    app.file_uploader(key="uploader").set_value(("mine.csv", _csv_bytes(), "text/csv")).run()
    steps = next(m.value for m in app.markdown if "three steps" in m.value)
    assert "1. Upload" in steps and "SRBCT" not in steps


def test_choosing_another_minority_class_updates_ratio_and_chart(app):
    minority = next(s for s in app.selectbox if s.label.startswith("Minority"))
    minority.set_value(3).run()
    assert _metrics(app)["Minority class"] == "3 (NB)"
    assert _deltas(app)["Minority class"] == "18 samples"
    assert _metrics(app)["Imbalance ratio"] == f"{65 / 18:.2f}"
    # larger than the default: allowed, but flagged with the default named
    assert any(
        "Class 3 (18 samples) is larger than the default, class 2 (11 samples)" in w.value
        for w in app.warning
    )
    assert list(_class_table(app)["role"]) == ["", "", "minority", "default minority"]


def test_every_minority_choice_is_kept(app):
    # Regression: the widget's identity followed the previous choice, losing every second one.
    for choice, count in [(0, "29"), (2, "11"), (1, "25"), (3, "18"), (2, "11")]:
        next(s for s in app.selectbox if s.label.startswith("Minority")).set_value(choice).run()
        assert app.session_state["minority"] == choice
        names = {0: "EWS", 1: "RMS", 2: "BL", 3: "NB"}
        assert _metrics(app)["Minority class"] == f"{choice} ({names[choice]})"
        assert _deltas(app)["Minority class"] == f"{count} samples"


def test_upload_csv_replaces_the_data_set(app):
    app.file_uploader(key="uploader").set_value(("tumours.csv", _csv_bytes(), "text/csv")).run()
    assert not app.exception
    assert not app.error
    assert _metrics(app) == {
        "Samples": "16",
        "Features": "6",
        "Classes": "2",
        "Minority class": "tumour",
        "Imbalance ratio": "3.00",
    }
    assert app.subheader[0].value == "tumours.csv"


def test_bad_upload_shows_the_loader_message_and_keeps_the_previous_data(app):
    bad = b"gene1,gene2,label\n1.0,2.0,a\n3.0,oops,b\n"
    app.file_uploader(key="uploader").set_value(("bad.csv", bad, "text/csv")).run()
    assert not app.exception
    assert len(app.error) == 1
    message = app.error[0].value
    assert "gene2" in message and "row 2" in message and "'oops' is not a number" in message
    assert "Still using SRBCT.parquet" in message
    assert _metrics(app)["Samples"] == "83"


def _widget_labels(at) -> dict:
    return (
        {w.label: "toggle" for w in at.toggle}
        | {w.label: "box" for w in [*at.selectbox, *at.number_input]}
        | {w.proto.label: "uploader" for w in at.get("file_uploader")}
    )


#: Widgets the Data page draws only for an AnnData upload with layers or var columns.
ANNDATA_ONLY = ("layer", "gene_names")


def test_error_messages_name_the_widgets_as_the_page_shows_them(app, tmp_path):
    # the offset is drawn only with log2 (its "when")
    app.selectbox(key="data_preprocess_transform").set_value("log2").run()
    labels = _widget_labels(app)
    for name, (label, kind) in messages.WIDGETS.items():
        assert messages.words(name) == f"the '{label}' {kind}"
        if name not in ANNDATA_ONLY:
            assert labels.get(label) == kind, name
    import anndata

    adata = anndata.AnnData(
        X=np.arange(1, 49, dtype=float).reshape(12, 4),  # positive: log2 stays chosen
        obs=pd.DataFrame({"kind": ["a"] * 4 + ["b"] * 8}, index=[f"c{i}" for i in range(12)]),
        var=pd.DataFrame({"symbol": list("WXYZ")}, index=[f"g{j}" for j in range(4)]),
    )
    adata.layers["counts"] = adata.X * 2
    adata.write_h5ad(tmp_path / "cells.h5ad")
    upload = ("cells.h5ad", (tmp_path / "cells.h5ad").read_bytes(), "application/octet-stream")
    app.file_uploader(key="uploader").set_value(upload).run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    labels = _widget_labels(app)
    for name in ANNDATA_ONLY:
        label, kind = messages.WIDGETS[name]
        assert labels.get(label) == kind, name


def test_a_label_column_error_names_the_label_column_box(app):
    rows = [b"%d,%d.5,%d,%s\n" % (i, i, i * i % 7, b"ab"[i % 2 : i % 2 + 1]) for i in range(12)]
    raw = b"index,g1,g2,label\n" + b"".join(rows)
    app.file_uploader(key="uploader").set_value(("idx.csv", raw, "text/csv")).run()
    assert not app.error and _metrics(app)["Features"] == "3"
    app.selectbox(key="label_column").set_value("index").run()
    assert not app.exception and len(app.error) == 1
    message = app.error[0].value
    assert message.startswith("Could not load idx.csv: label column 'index' holds 0..11")
    assert "; choose the class column with the 'Label column' box" in message
    assert "label=" not in message and "--label" not in message


def test_transpose_toggle_reads_genes_in_rows(app):
    rng = np.random.default_rng(1)
    genes = pd.DataFrame(
        rng.normal(size=(5, 10)),
        index=[f"g{i}" for i in range(5)],
        columns=[f"s{j}" for j in range(10)],
    )
    raw = (
        genes.to_csv(index_label="gene") + "class," + ",".join(["a"] * 3 + ["b"] * 7) + "\n"
    ).encode()
    app.toggle(key="transpose").set_value(True).run()  # before the upload
    app.file_uploader(key="uploader").set_value(("genes.csv", raw, "text/csv")).run()
    assert not app.exception and not app.error
    assert _metrics(app)["Samples"] == "10"
    assert _metrics(app)["Features"] == "5"


def test_drop_constant_toggle_reports_dropped_features(app):
    frame = pd.read_csv(pd.io.common.BytesIO(_csv_bytes()))
    frame.insert(0, "flat", 1.0)
    app.file_uploader(key="uploader").set_value(
        ("flat.csv", frame.to_csv(index=False).encode(), "text/csv")
    ).run()
    assert _metrics(app)["Features"] == "7"
    assert any("constant features: **1**" in m.value for m in app.markdown)
    app.toggle(key="drop_constant").set_value(True).run()
    assert _metrics(app)["Features"] == "6"
    assert any("dropped features: **1**" in m.value for m in app.markdown)


def test_sample_file_is_the_real_srbct_data():
    frame = pd.read_parquet(SAMPLE)
    assert frame.shape == (83, 2309)
    assert frame["label"].value_counts().to_dict() == {0: 29, 1: 25, 3: 18, 2: 11}


def _two_class_csv(counts: dict, p=5, seed=3) -> bytes:
    rng = np.random.default_rng(seed)
    labels = [c for c, n in counts.items() for _ in range(n)]
    frame = pd.DataFrame(rng.normal(size=(len(labels), p)), columns=[f"g{j}" for j in range(p)])
    frame["label"] = labels
    return frame.sample(frac=1, random_state=seed).to_csv(index=False).encode()


def test_a_new_data_set_defaults_to_its_smallest_class(app):
    """The reported case: labels 1 (19 samples) and 2 (58); 2 must not be preselected,
    even after the previous data set's minority was class 2."""
    assert app.session_state["minority"] == 2  # SRBCT: BL, the smallest class
    raw = _two_class_csv({1: 19, 2: 58})
    app.file_uploader(key="uploader").set_value(("cohort.csv", raw, "text/csv")).run()
    assert not app.exception and not app.error
    assert app.session_state["minority"] == 1
    metrics = _metrics(app)
    assert metrics["Minority class"] == "1"
    assert metrics["Imbalance ratio"] == f"{58 / 19:.2f}"
    assert not [w for w in app.warning if "smallest" in w.value]
    # choosing the majority is allowed, flagged, and the ratio stays majority / minority
    next(s for s in app.selectbox if s.label.startswith("Minority")).set_value(2).run()
    assert _metrics(app)["Imbalance ratio"] == f"{58 / 19:.2f}"
    assert any(
        "Class 2 (58 samples) is larger than the default, class 1 (19 samples)" in w.value
        for w in app.warning
    )


def test_ties_go_to_the_first_class_in_label_order(app):
    raw = _two_class_csv({"b": 6, "a": 6, "c": 9})
    app.file_uploader(key="uploader").set_value(("ties.csv", raw, "text/csv")).run()
    assert app.session_state["minority"] == "a"


def test_an_excel_workbook_gets_a_message_that_says_what_to_do(app):
    import io
    import zipfile

    book = io.BytesIO()
    with zipfile.ZipFile(book, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/workbook.xml", "<workbook/>")
    app.file_uploader(key="uploader").set_value(
        ("cohort.xlsx", book.getvalue(), "application/vnd.ms-excel")
    ).run()
    assert not app.exception and len(app.error) == 1
    assert "Excel workbook" in app.error[0].value and "save the sheet as CSV" in app.error[0].value
    assert _metrics(app)["Samples"] == "83"  # still the previous data set


def test_a_minority_too_small_for_the_protocol_is_warned_about(app):
    raw = _two_class_csv({"rare": 3, "common": 30})
    app.file_uploader(key="uploader").set_value(("rare.csv", raw, "text/csv")).run()
    assert app.session_state["minority"] == "rare"
    texts = " ".join(w.value for w in app.warning)
    assert "3 samples" in texts and "at least 4" in texts


def test_the_sample_shows_its_class_names_and_a_user_can_name_coded_classes(app):
    table = app.dataframe[0].value
    assert list(table["class"]) == ["0 (EWS)", "1 (RMS)", "3 (NB)", "2 (BL)"]
    assert "2 (BL)" in app.sidebar.markdown[0].value
    raw = _two_class_csv({1: 19, 2: 58})
    app.file_uploader(key="uploader").set_value(("cohort.csv", raw, "text/csv")).run()
    assert list(app.dataframe[0].value["class"]) == ["2", "1"]  # a new data set: no names
    box = next(t for t in app.text_input if t.label == "Class names (optional)")
    box.set_value("1=tumour, 2=normal").run()
    assert not app.exception and not app.error
    assert _metrics(app)["Minority class"] == "1 (tumour)"
    box = next(t for t in app.text_input if t.label == "Class names (optional)")
    box.set_value("7=x").run()
    assert len(app.error) == 1 and "'7=x'" in app.error[0].value


def test_class_names_written_with_spaces_are_taken_once_and_kept_as_typed(app, monkeypatch):
    """'1 = tumour ,2=normal' names the classes as '1=tumour, 2=normal' does: one rerun
    takes them (the box's text and the names' text differ: comparing the two texts
    reran the page without end), and the box keeps what the user typed."""
    from dashboard import reruns

    real, reran = reruns.rerun, []

    def counted():
        reran.append(1)
        if len(reran) <= 3:  # (a loop is cut here, and counted)
            real()

    monkeypatch.setattr(reruns, "rerun", counted)
    raw = _two_class_csv({1: 19, 2: 58})
    app.file_uploader(key="uploader").set_value(("cohort.csv", raw, "text/csv")).run()
    reran.clear()
    box = next(t for t in app.text_input if t.label == "Class names (optional)")
    box.set_value("1 = tumour ,2=normal").run()
    assert not app.exception and not app.error
    assert len(reran) == 1
    assert _metrics(app)["Minority class"] == "1 (tumour)"
    app.run()
    box = next(t for t in app.text_input if t.label == "Class names (optional)")
    assert box.value == "1 = tumour ,2=normal" and len(reran) == 1


def test_the_default_minority_is_a_class_the_comparison_can_use(app):
    """GLIOMA with two samples relabelled 'lipoma' (issue 29: a class of 2 is the smallest
    and no protocol can use it): the default is the smallest class of 4 or more, the page
    says why, and the defaults raise no protocol warning."""
    import pandas as pd

    from conftest import GLIOMA

    frame = pd.read_parquet(GLIOMA)
    label = frame.columns[-1] if "label" not in frame.columns else "label"
    frame[label] = frame[label].astype(str)
    frame.loc[frame.index[:2], label] = "lipoma"
    counts = frame[label].value_counts()
    usable = counts[counts >= 4]
    expected = sorted(usable[usable == usable.min()].index)[0]  # the first of the smallest
    app.file_uploader(key="uploader").set_value(
        ("glioma_lipoma.csv", frame.to_csv(index=False).encode(), "text/csv")
    ).run()
    assert not app.exception and not app.error
    assert str(app.session_state["minority"]) == expected
    info = " ".join(i.value for i in app.info)
    assert "The smallest class lipoma has only 2 samples, too few for a comparison" in info
    assert f"The default is class {expected} ({usable[expected]} samples)" in info
    assert not [w.value for w in app.warning if "choose a larger class" in w.value]
    # choosing lipoma is allowed; the warning names the default, a class that works
    next(s for s in app.selectbox if s.label.startswith("Minority")).set_value("lipoma").run()
    texts = " ".join(w.value for w in app.warning)
    assert "names a class of 2 samples" in texts
    assert "choose a class with at least 4 samples as the minority" in texts
    assert f"The default class, {expected} ({usable[expected]} samples), can be used." in texts


@pytest.mark.parametrize(("chosen", "expected"), [("'4'", "2"), ("3", "3"), ("'CO'", "2")])
def test_a_class_the_data_set_does_not_have_is_no_choice(chosen, expected):
    """The class box's value when it changes becomes the class, unless the loaded data set
    has no such class: a browser request carrying the previous data set's class (seen in a
    fresh-clone run: after an AnnData file was loaded, the sidebar said 'minority class: 4',
    the series matrix's class) keeps the new data set's default."""
    at = AppTest.from_function(_script_choosing, args=(chosen,), default_timeout=SLOW_SECONDS).run()
    assert not at.exception, at.exception
    assert [t.value for t in at.text] == [expected]


def _script_choosing(chosen: str):
    import ast

    import streamlit as st

    from conftest import SAMPLE
    from dashboard import session

    session.load_into_session(SAMPLE.read_bytes(), SAMPLE.name)
    st.session_state["minority_select"] = ast.literal_eval(chosen)
    session.take_minority_choice()
    st.text(str(st.session_state["minority"]))
