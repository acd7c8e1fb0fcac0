"""The tie rule on the pages: counts are proposed the order-invariant rule with the reason
shown; a stream under the authors' rule whose result can depend on the row order says so,
with the switch; the averaged stream selects what the library selects."""

import io

import numpy as np
import pandas as pd
from apptest_helpers import stream_at_max_speed
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SLOW_SECONDS
from fsengine import load_dataset, run_selection
from fsengine.data.task import Task
from synthetic import sparse_log_counts

TIES_KEY = "stream_kofsd_ties"


def _counts_csv() -> bytes:
    """Integer counts (expm1 of the synthetic log counts), a rare class of 8 of 400."""
    X, y, names = sparse_log_counts(400, 30, seed=5)
    frame = pd.DataFrame(np.rint(np.expm1(X)).astype(int), columns=names)
    frame["label"] = np.where(y == 1, "rare", "common")
    return frame.to_csv(index=False).encode()


def _stream_page_with(raw: bytes, name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=SLOW_SECONDS).run()
    at.file_uploader(key="uploader").set_value((name, raw, "text/csv")).run()
    assert not at.exception and not at.error
    at.switch_page("dashboard/pages/stream.py").run()
    assert not at.exception
    return at


def _selected(at) -> tuple:
    table = next(d.value for d in at.dataframe if "rank" in d.value.columns)
    return tuple(table["feature"])


def test_counts_are_proposed_the_average_rule_and_it_selects_as_the_library():
    raw = _counts_csv()
    at = _stream_page_with(raw, "counts.csv")
    assert at.selectbox(key=TIES_KEY).value == "average"
    assert any("not the authors' rule: every value is an integer" in c.value for c in at.caption)
    stream_at_max_speed(at)
    expected = run_selection(
        Task.from_dataset(load_dataset(io.BytesIO(raw), name="counts.csv"), "rare"),
        method="kofsd",
        k=int(at.session_state["stream_kofsd_k"]),
        ties="average",
    ).selection.features
    assert _selected(at) == expected
    assert not any("depend on the order of the samples" in w.value for w in at.warning)


def test_a_stream_under_the_authors_rule_says_when_the_row_order_decides():
    at = _stream_page_with(_counts_csv(), "counts.csv")
    at.selectbox(key=TIES_KEY).set_value("index").run()
    stream_at_max_speed(at)
    notes = [w.value for w in at.warning if "depend on the order of the samples" in w.value]
    assert len(notes) == 1
    assert "'average' under Tied distances gives the same selection for any order" in notes[0]
