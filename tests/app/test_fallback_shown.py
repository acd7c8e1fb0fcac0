"""No silent fallback (issue 29, point 3): on the authors' reference data set 5 at K = 3,
K-OFSD selects nothing and the authors' fallback lists round(sqrt(40)) = 6 features. The
Stream and Export pages say so in words and mark every row 'fallback'; the Genes page
names the selection a fallback; the CSV has the status column."""

import csv
import html
import io

import numpy as np
from apptest_helpers import open_page, rerun_until

from conftest import REFERENCE
from fsengine.export.writers import selection_to_csv
from fsengine.methods.online import run_kofsd

SENTENCE = "K-OFSD selected no feature. The 6 features listed are its fallback rule's"


def _upload(at):
    X = np.loadtxt(REFERENCE / "ds5_X.csv", delimiter=",")
    y = np.loadtxt(REFERENCE / "ds5_y.csv").astype(int)
    header = [f"f{j}" for j in range(X.shape[1])] + ["label"]
    rows = [[*map(repr, row), str(label)] for row, label in zip(X.tolist(), y.tolist())]
    raw = ("\n".join(",".join(r) for r in [header, *rows]) + "\n").encode()
    at.file_uploader(key="uploader").set_value(("ds5.csv", raw, "text/csv")).run()
    next(s for s in at.selectbox if s.label.startswith("Minority")).set_value(1).run()
    assert not at.exception
    return X, y


def _warnings(at):
    return [w.value for w in at.warning]


def test_the_stream_and_export_pages_say_the_fallback():
    at = open_page("dashboard/pages/data.py")
    X, y = _upload(at)
    expected, _ = run_kofsd(X, y, k=3)
    assert expected.fallback and len(expected) == 6
    at.switch_page("dashboard/pages/stream.py").run()
    at.slider(key="stream_kofsd_k").set_value(3).run()
    at.select_slider(key="stream_speed").set_value("max").run()
    at.button(key="stream_start").click().run()
    rerun_until(
        at,
        lambda: {m.label: m.value for m in at.metric}["Features streamed"] == "40 / 40",
        "the stream did not finish",
    )
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Features streamed"] == "40 / 40" and metrics["Selected"] == "0"
    assert any(w.startswith(SENTENCE) for w in _warnings(at))
    table = next(d.value for d in at.dataframe if "rank" in d.value.columns)
    assert list(table["status"]) == ["fallback"] * 6
    assert list(table["column"]) == list(expected.columns)

    at.switch_page("dashboard/pages/genes.py").run()
    assert not at.exception
    labels = [o for s in at.selectbox for o in s.options]
    assert any("fallback: none selected" in o for o in labels), labels

    at.switch_page("dashboard/pages/export.py").run()  # offers the finished stream's run first
    assert not at.exception
    for source in range(2):  # the stream's run, then one computed on the page
        if source:
            radio = at.radio(key="export_source")
            radio.set_value(radio.options[-1]).run()
            at.slider(key="export_kofsd_k").set_value(3).run()
            at.button(key="export_compute").click().run()
            assert not at.exception
        metrics = {m.label: m.value for m in at.metric}
        assert metrics["Listed features (fallback)"] == "6"
        assert any(w.startswith(SENTENCE) for w in _warnings(at))
        table = next(d.value for d in at.dataframe if "status" in d.value.columns)
        assert list(table["status"]) == ["fallback"] * 6
    rows = list(csv.DictReader(io.StringIO(selection_to_csv(expected))))
    assert [r["status"] for r in rows] == ["fallback"] * 6


def test_compare_says_which_whole_data_selection_is_a_fallback():
    at = open_page("dashboard/pages/data.py")
    _upload(at)
    at.switch_page("dashboard/pages/stream.py").run()
    at.slider(key="stream_kofsd_k").set_value(3).run()  # Compare takes the Stream's settings
    at.switch_page("dashboard/pages/compare.py").run()
    at.multiselect(key="compare_methods").set_value(["kofsd", "fisher"])
    at.slider(key="compare_splits").set_value(2)
    next(b for b in at.run().button if b.label == "Run comparison").click().run()
    assert not at.exception
    warnings = _warnings(at)
    assert any(
        w.startswith("K-OFSD selected no feature on the whole data set; its 6 genes")
        for w in warnings
    ), warnings
    caption = next(c.value for c in at.caption if c.value.startswith("Overlap"))
    assert "K-OFSD 6 (fallback: it selected none)" in caption
    assert "as many as K-OFSD returns there (6, its fallback's)" in caption
    assert "Fisher 6." in caption


def test_the_report_says_which_selection_of_the_export_page_is_a_fallback():
    """A fallback computed on the Export page, no stream run: the report's section of that
    selection says it in the sentence of the page (it once took the method's name from a
    stream's selection, and without one the report failed)."""
    at = open_page("dashboard/pages/data.py")
    _upload(at)
    at.switch_page("dashboard/pages/export.py").run()
    assert not at.exception
    at.slider(key="export_kofsd_k").set_value(3).run()
    at.button(key="export_compute").click().run()
    assert not at.exception
    at.button(key="export_report").click().run()
    assert not at.exception
    page = at.session_state["export_report_files"][1].decode()
    assert "Selection: K-OFSD" in page
    assert html.escape(SENTENCE) in page
