"""Compare and Sweep bound K by the training halves the protocol draws (issue 30): with
sample groups a drawn half can be smaller than ceil(n / 2), so "K is at most" and the K
range follow the smallest drawn half (fsengine.evaluation.training_halves), counted here
on the splits themselves."""

import numpy as np
import pandas as pd
import pytest
from apptest_helpers import session as new_session

from fsengine.evaluation import stratified_splits

N, P = 24, 12
IDS = [f"S{k:02d}" for k in range(N)]
DIAGNOSIS = ["tumour"] * 8 + ["normal"] * 16
#: tumours from 4 patients (3, 2, 2, 1 samples), normals from 6 patients (3 samples, one 1)
PATIENTS = ["t0"] * 3 + ["t1"] * 2 + ["t2"] * 2 + ["t3"] + [f"n{k // 3}" for k in range(16)]


def _smallest_half(n_splits: int, seed: int) -> int:
    y = np.array([d == "tumour" for d in DIAGNOSIS], dtype=np.int8)
    splits = stratified_splits(y, n_splits, seed, np.array(PATIENTS, dtype=object))
    return min(len(train) for train, _ in splits)


@pytest.fixture
def grouped():
    """A table of numbers and its sheet (patient, diagnosis), grouped by patient."""
    rng = np.random.default_rng(7)
    table = pd.DataFrame(rng.normal(size=(N, P)), columns=[f"g{j}" for j in range(P)])
    table.insert(0, "sample", IDS)
    sheet = pd.DataFrame({"sample_id": IDS, "patient": PATIENTS, "diagnosis": DIAGNOSIS})
    at = new_session()
    for key, name, frame in (
        ("uploader", "grouped.csv", table),
        ("sheet_uploader", "s.csv", sheet),
    ):
        data = frame.to_csv(index=False).encode()
        at.file_uploader(key=key).set_value((name, data, "text/csv")).run()
    if at.session_state["data"].label != "diagnosis":
        at.selectbox(key="label_column").set_value("diagnosis").run()
    at.selectbox(key="sample_groups").set_value("patient").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.session_state["minority"] = "tumour"
    assert at.session_state["data"].dataset.groups_column == "patient"
    return at


def test_compare_says_k_is_bounded_by_the_smallest_drawn_half(grouped):
    at = grouped
    at.switch_page("dashboard/pages/compare.py").run()
    assert not at.exception
    drawn = _smallest_half(20, 0)
    assert drawn < 12  # ceil(24 / 2): the groups make a half smaller
    caption = next(c.value for c in at.caption if "K is at most" in c.value)
    assert f"training halves of {drawn} samples or more" in caption
    assert f"K is at most {drawn - 1} here" in caption


def test_the_sweep_k_range_ends_below_the_smallest_drawn_half(grouped):
    at = grouped
    at.switch_page("dashboard/pages/sweep.py").run()
    assert not at.exception
    splits = at.slider(key="sweep_splits").value
    [k_range] = [s for s in at.slider if s.key == "sweep_ks"]
    drawn = _smallest_half(splits, 0)
    assert drawn < 12 and k_range.max == drawn - 1


#: 7 tumours from 3 patients (3, 3, 1), 28 normals from 10 patients (3 samples, one 1):
#: Compare's default protocol (20 splits, seed 0) draws a training half with 3 tumours,
#: 5 splits with seed 20 none with fewer than 4.
UNEVEN = (["t0"] * 3 + ["t1"] * 3 + ["t2"], [f"n{k // 3}" for k in range(28)])


def _fewest_tumours(n_splits: int, seed: int) -> int:
    tumours, normals = UNEVEN
    y = np.array([1] * len(tumours) + [0] * len(normals), dtype=np.int8)
    splits = stratified_splits(y, n_splits, seed, np.array(tumours + normals, dtype=object))
    return min(int(y[train].sum()) for train, _ in splits)


def test_the_data_page_checks_the_groups_on_the_compare_pages_protocol():
    tumours, normals = UNEVEN
    n = len(tumours) + len(normals)
    ids = [f"S{k:02d}" for k in range(n)]
    rng = np.random.default_rng(2)
    table = pd.DataFrame(rng.normal(size=(n, 6)), columns=[f"g{j}" for j in range(6)])
    table.insert(0, "sample", ids)
    sheet = pd.DataFrame(
        {
            "sample_id": ids,
            "patient": tumours + normals,
            "diagnosis": ["tumour"] * len(tumours) + ["normal"] * len(normals),
        }
    )
    at = new_session()
    for key, name, frame in (("uploader", "u.csv", table), ("sheet_uploader", "s.csv", sheet)):
        at.file_uploader(key=key).set_value((name, frame.to_csv(index=False).encode(), "")).run()
    if at.session_state["data"].label != "diagnosis":
        at.selectbox(key="label_column").set_value("diagnosis").run()
    at.session_state["minority"] = "tumour"
    at.session_state["stream_widgets"] = {"stream_method": "kofsd", "stream_kofsd_k": 3}
    at.selectbox(key="sample_groups").set_value("patient").run()
    assert not at.exception and not at.error, [e.value for e in at.error]

    def k_warnings():
        return [w.value for w in at.warning if "K = 3 is at or above" in w.value]

    assert _fewest_tumours(20, 0) == 3  # Compare's defaults: K = 3 is too large
    assert len(k_warnings()) == 1
    # Compare set to 5 splits, seed 20: the Data page checks those splits
    at.session_state["compare_widgets"] = {"compare_splits": 5, "compare_seed": 20}
    at.run()
    assert _fewest_tumours(5, 20) == 4
    assert k_warnings() == []
    at.switch_page("dashboard/pages/compare.py").run()
    assert at.slider(key="compare_splits").value == 5
    assert at.number_input(key="compare_seed").value == 20
    assert k_warnings() == []  # the Compare page agrees


def test_compare_warns_when_the_groups_allow_fewer_splits_than_asked():
    """Issue 40, point 1: 8 tumours from 4 patients (2 each) and 12 normals from 2 patients
    (6 each) allow 12 distinct splits (2 of the 4 tumour patients and 1 of the 2 normal
    patients train: 6 x 2); Compare's 20 would repeat 8 of them, and the page says so."""
    tumours = [f"t{k // 2}" for k in range(8)]
    normals = [f"n{k // 6}" for k in range(12)]
    n = len(tumours) + len(normals)
    ids = [f"S{k:02d}" for k in range(n)]
    rng = np.random.default_rng(5)
    table = pd.DataFrame(rng.normal(size=(n, 6)), columns=[f"g{j}" for j in range(6)])
    table.insert(0, "sample", ids)
    sheet = pd.DataFrame(
        {
            "sample_id": ids,
            "patient": tumours + normals,
            "diagnosis": ["tumour"] * len(tumours) + ["normal"] * len(normals),
        }
    )
    at = new_session()
    for key, name, frame in (("uploader", "u.csv", table), ("sheet_uploader", "s.csv", sheet)):
        at.file_uploader(key=key).set_value((name, frame.to_csv(index=False).encode(), "")).run()
    if at.session_state["data"].label != "diagnosis":
        at.selectbox(key="label_column").set_value("diagnosis").run()
    at.session_state["minority"] = "tumour"
    at.selectbox(key="sample_groups").set_value("patient").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    report = next(m.value for m in at.markdown if "sample groups: column" in m.value)
    assert "6 groups (each kept on one side of a split; they allow 12 distinct splits)" in report
    at.switch_page("dashboard/pages/compare.py").run()
    assert not at.exception
    assert at.slider(key="compare_splits").value == 20
    repeated = [w.value for w in at.warning if "distinct splits" in w.value]
    assert len(repeated) == 1
    assert repeated[0].startswith("The 6 sample groups allow only 12 distinct splits")
    at.slider(key="compare_splits").set_value(12).run()
    assert not [w.value for w in at.warning if "distinct splits" in w.value]


def test_a_k_range_set_by_the_user_stays_when_the_seed_moves_its_bound(grouped):
    """Streamlit names a keyed slider by its bounds too: a new seed draws other halves, the
    K range's upper bound moves, and the slider is a new widget. The range the user set
    stays (found by a review: it fell back to the whole range for one run once the page
    stopped setting every value in every run)."""
    at = grouped
    at.switch_page("dashboard/pages/sweep.py").run()
    at.slider(key="sweep_splits").set_value(2).run()
    seeds = [s for s in range(1, 20) if _smallest_half(2, s) != _smallest_half(2, 0)]
    assert seeds, "no seed moves the bound"
    at.slider(key="sweep_ks").set_value((3, 6)).run()
    before = at.slider(key="sweep_ks").max
    at.number_input(key="sweep_seed").set_value(seeds[0]).run()
    assert not at.exception
    k_range = at.slider(key="sweep_ks")
    assert k_range.max == _smallest_half(2, seeds[0]) - 1 != before
    assert k_range.value == (3, 6) and at.session_state["sweep_ks"] == (3, 6)
