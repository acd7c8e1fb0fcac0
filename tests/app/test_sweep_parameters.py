"""The Sweep page's online-selector section over any parameter of any online selector,
under Streamlit's AppTest, on the bundled SRBCT sample (minority class 2), two splits.

The numbers on the page are checked against :func:`fsengine.evaluation.sweep_values`
called directly with the same arguments; bad values give an error box, never an
exception; a generic sweep is kept in the workspace, restored on reload and reopened
from History."""

import pytest
from apptest_helpers import SAMPLE_K
from apptest_helpers import click as _click
from apptest_helpers import figures as _figures
from apptest_helpers import open_page as _open
from apptest_helpers import session as _session
from apptest_helpers import workspace_id as _ws

from dashboard import workspace
from fsengine.evaluation import feature_frequencies, sweep_values
from fsengine.methods.registry import ONLINE_METHODS

MINORITY = 2
ALPHAS = [0.01, 0.05]
#: OSFS's other parameters as the page passes them (defaults: nothing set on Stream).
OSFS_OTHERS = {"max_conditioning": 3, "variant": "reference"}


def _without_time(records):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


@pytest.fixture(scope="module")
def expected(srbct):
    return sweep_values(
        srbct, MINORITY, "osfs", "alpha", ALPHAS, n_splits=2, seed=0, params=OSFS_OTHERS
    )


@pytest.fixture(scope="module")
def swept():
    """The Sweep page after an OSFS sweep of alpha over 0.01, 0.05 on two splits."""
    at = _open("dashboard/pages/sweep.py")
    at.slider(key="sweep_splits").set_value(2)
    at.selectbox(key="sweep_method").set_value("osfs").run()
    at.text_input(key="sweep_values_osfs_alpha").set_value("0.05, 0.01").run()
    _click(at, "Run alpha sweep")
    return at


def test_every_online_selector_can_be_chosen_and_kofsd_k_stays_the_default():
    at = _open("dashboard/pages/sweep.py")
    assert at.selectbox(key="sweep_method").value == "kofsd"
    assert at.selectbox(key="sweep_method").options == [
        "K-OFSD",
        "OFS-FPD",
        "CIE-OSFS",
        "Alpha-investing",
        "OSFS",
        "Fast-OSFS",
        "SAOLA",
        "Group SAOLA",
        "OFS-A3M",
        "OFS-Density",
        "RHOFS",
        "SFSF",
        "OSFS-ET",
        "SFS-FI",
        "OSSFS-DD",
        "Grafting",
    ]
    assert len(ONLINE_METHODS) == 16
    assert at.selectbox(key="sweep_over_kofsd").value == "k"
    assert at.slider(key="sweep_ks").value == (1, SAMPLE_K)
    # the swept K is not also offered among K-OFSD's other settings
    assert "sweep_kofsd_k" not in [s.key for s in at.slider]
    at.selectbox(key="sweep_method").set_value("osfs").run()
    assert at.selectbox(key="sweep_over_osfs").options == [
        "alpha: Significance level",
        "max_conditioning: Largest conditioning set",
    ]
    # a significance level: a text box of values around its default
    assert at.text_input(key="sweep_values_osfs_alpha").value == (
        "0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1"
    )
    assert not at.error and not at.exception


def test_a_parameter_that_applies_only_under_another_setting_is_offered_under_it():
    at = _open("dashboard/pages/sweep.py")
    assert "gamma" not in at.selectbox(key="sweep_over_kofsd").options
    at.selectbox(key="sweep_kofsd_card").set_value("weight").run()
    assert "gamma" in at.selectbox(key="sweep_over_kofsd").options
    at.selectbox(key="sweep_over_kofsd").set_value("gamma").run()
    assert at.text_input(key="sweep_values_kofsd_gamma").value.startswith("0, 0.1, 0.2")
    assert not at.exception


def test_the_alpha_sweep_chart_equals_sweep_values(swept, expected):
    assert not swept.error
    summary = expected.summary(("alpha",))
    fig = _figures(swept)[0]
    assert [t["name"] for t in fig["data"][:2]] == ["1-NN", "SVM"]
    assert all(t["x"] == ALPHAS for t in fig["data"])
    assert fig["data"][0]["y"] == pytest.approx([r["gmean_1nn_mean"] for r in summary])
    assert fig["data"][1]["y"] == pytest.approx([r["gmean_svm_mean"] for r in summary])
    assert fig["data"][2]["y"] == pytest.approx([r["n_features_mean"] for r in summary])
    # the bars stop at the possible range: a G-mean lies in [0, 1]
    assert fig["data"][0]["error_y"]["array"] == pytest.approx(
        [min(r["gmean_1nn_std"], 1 - r["gmean_1nn_mean"]) for r in summary]
    )
    assert fig["data"][0]["error_y"]["arrayminus"] == pytest.approx(
        [min(r["gmean_1nn_std"], r["gmean_1nn_mean"]) for r in summary]
    )
    assert fig["layout"]["xaxis"]["title"]["text"] == "Significance level"
    (result,) = swept.session_state["sweep_values_results"].values()
    assert _without_time(result.records) == _without_time(expected.records)
    assert result.params["params"] == OSFS_OTHERS


def test_metrics_and_frequencies_are_at_the_shown_value(swept, expected):
    summary = {r["alpha"]: r for r in expected.summary(("alpha",))}
    assert swept.select_slider(key="sweep_shown_value").value == 0.01  # OSFS's default
    metrics = {m.label: m.value for m in swept.metric}
    assert metrics["G-mean 1-NN at alpha = 0.01"] == f"{summary[0.01]['gmean_1nn_mean']:.3f}"
    assert metrics["G-mean SVM at alpha = 0.01"] == f"{summary[0.01]['gmean_svm_mean']:.3f}"
    assert metrics["Selected features (mean)"] == f"{summary[0.01]['n_features_mean']:.1f}"
    table = swept.dataframe[0].value
    genes = feature_frequencies(expected.records, alpha=0.01)
    assert list(table["gene"]) == [g for g, _ in genes]
    assert list(table["splits selected (of 2)"]) == [c for _, c in genes]
    assert any(
        b.label == "Download the alpha sweep records (CSV)" for b in swept.get("download_button")
    )
    assert any(
        c.value.startswith("OSFS's settings at the shown alpha: alpha=0.01, max_conditioning=3")
        for c in swept.caption
    )

    swept.select_slider(key="sweep_shown_value").set_value(0.05).run()
    metrics = {m.label: m.value for m in swept.metric}
    assert metrics["G-mean 1-NN at alpha = 0.05"] == f"{summary[0.05]['gmean_1nn_mean']:.3f}"
    shapes = _figures(swept)[0]["layout"]["shapes"]
    assert {s["x0"] for s in shapes} == {0.05}
    # one of the computed values alone is drawn from the same result
    swept.text_input(key="sweep_values_osfs_alpha").set_value("0.05").run()
    assert _figures(swept)[0]["data"][0]["x"] == [0.05]
    assert swept.session_state["sweep_values_results_computed"] == 1


@pytest.mark.parametrize(
    "text,shown",
    [("0.01, 1.5", "got 1.5"), ("0.01, abc", "got 'abc'"), ("", "at least one value")],
)
def test_a_bad_value_gives_an_error_box_and_the_page_keeps_working(text, shown):
    at = _open("dashboard/pages/sweep.py")
    at.selectbox(key="sweep_method").set_value("saola").run()
    at.text_input(key="sweep_values_saola_alpha").set_value(text).run()
    assert not at.exception
    assert len(at.error) == 1
    message = at.error[0].value
    assert shown in message and "(0, 1)" in message and "Significance level" in message
    assert not any(b.label == "Run alpha sweep" for b in at.button)
    assert any(b.label == "Run top-k sweep" for b in at.button)  # the rest is drawn
    at.text_input(key="sweep_values_saola_alpha").set_value("0.02").run()
    assert not at.error and any(b.label == "Run alpha sweep" for b in at.button)


def test_an_integer_parameter_is_swept_over_a_range_within_its_bounds(srbct):
    at = _open("dashboard/pages/sweep.py")
    at.slider(key="sweep_splits").set_value(2)
    at.selectbox(key="sweep_method").set_value("cie-osfs").run()
    assert at.selectbox(key="sweep_over_cie-osfs").value == "bins"
    slider = at.slider(key="sweep_values_cie-osfs_bins")
    assert (slider.min, slider.max) == (2, 10)  # the spec's 2..64 under its cap of 10
    slider.set_value((2, 4)).run()
    _click(at, "Run bins sweep")
    assert not at.error
    others = {"binning": "quantile", "test": "g", "significance": 0.05}
    expected = sweep_values(
        srbct, MINORITY, "cie-osfs", "bins", [2, 3, 4], n_splits=2, seed=0, params=others
    ).summary(("bins",))
    fig = _figures(at)[0]
    assert fig["data"][0]["x"] == [2, 3, 4]
    assert fig["data"][0]["y"] == pytest.approx([r["gmean_1nn_mean"] for r in expected])
    assert fig["data"][2]["y"] == pytest.approx([r["n_features_mean"] for r in expected])


def test_too_many_integers_and_a_method_without_numbers_are_said_so():
    at = _open("dashboard/pages/sweep.py")
    at.selectbox(key="sweep_method").set_value("group-saola").run()
    at.selectbox(key="sweep_over_group-saola").set_value("groups").run()
    at.slider(key="sweep_values_group-saola_groups").set_value((1, 20)).run()
    assert not at.exception
    assert len(at.error) == 1 and "at most 15 values" in at.error[0].value
    at.selectbox(key="sweep_method").set_value("ofs-fpd").run()
    assert not at.exception and not at.error
    assert any("OFS-FPD has no numeric parameter to sweep" in i.value for i in at.info)
    assert not any(b.label.startswith("Run") and b.label != "Run top-k sweep" for b in at.button)


def test_a_generic_sweep_is_restored_on_reload_and_reopened_from_history(expected):
    at = _session(page="dashboard/pages/sweep.py")
    at.slider(key="sweep_splits").set_value(2)
    at.selectbox(key="sweep_method").set_value("osfs").run()
    at.text_input(key="sweep_values_osfs_alpha").set_value("0.01, 0.05").run()
    _click(at, "Run alpha sweep")
    wid = _ws(at)
    runs = workspace.default_store().list_runs(wid)
    assert [(r.kind, r.status) for r in runs] == [("sweep-values", "finished")]
    assert runs[0].title.startswith("OSFS, alpha 0.01, 0.05: 2 splits, seed 0")
    shown = _figures(at)[0]["data"][0]["y"]

    workspace.reset_default_store()  # as after a server restart
    again = _session(wid, "dashboard/pages/sweep.py")
    assert again.selectbox(key="sweep_method").value == "osfs"
    assert again.text_input(key="sweep_values_osfs_alpha").value == "0.01, 0.05"
    assert "sweep_values_results_computed" not in again.session_state  # restored, not rerun
    assert _figures(again)[0]["data"][0]["y"] == pytest.approx(shown)

    history = _session(wid, "dashboard/pages/history.py")
    assert list(history.dataframe[0].value["kind"]) == ["sweep-values"]
    # AppTest cannot click a table row: set the selection state the click would set
    history.session_state["history_table"] = {"selection": {"rows": [0], "columns": []}}
    history.run()
    _click(history, "Reopen")
    assert history.selectbox(key="sweep_method").value == "osfs"
    fig = _figures(history)[0]
    assert fig["data"][0]["x"] == ALPHAS
    assert fig["data"][0]["y"] == pytest.approx(
        [r["gmean_1nn_mean"] for r in expected.summary(("alpha",))]
    )
    assert "sweep_values_results_computed" not in history.session_state


def test_the_report_holds_the_generic_sweep(swept, expected):
    import io
    import zipfile

    from fsengine.export.writers import records_to_csv

    swept.switch_page("dashboard/pages/export.py").run()
    _click(swept, "Build the report")
    stem, html, archive, sections = swept.session_state["export_report_files"]
    assert sections == 1
    assert b"OSFS alpha sweep 1" in html
    with zipfile.ZipFile(io.BytesIO(archive)) as opened:
        found = opened.read(f"{stem}/sweep_osfs_alpha_1_records.csv").decode()
    (result,) = swept.session_state["sweep_values_results"].values()
    assert found == records_to_csv(result.records, ("alpha", "split"))
    assert found.splitlines()[0].startswith("alpha,split,")
    swept.switch_page("dashboard/pages/sweep.py").run()
    assert not swept.exception
