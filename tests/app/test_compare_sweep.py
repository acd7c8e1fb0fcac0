"""The Compare and Sweep pages under Streamlit's AppTest, on the bundled SRBCT sample
(minority class 2), with few splits to stay quick."""

import json
import re

import pyarrow as pa
import pytest
from apptest_helpers import SAMPLE_K
from apptest_helpers import click as _click
from apptest_helpers import figures as _figures
from apptest_helpers import open_page as _open
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SLOW_SECONDS
from fsengine import run_selection
from fsengine.evaluation import evaluate, sweep_k, sweep_top
from fsengine.pl.figures import topk_sweep_figure

MINORITY = 2
METHODS = ["kofsd", "fisher", "relieff"]
#: How the figures name them: the specifications' labels.
LABELS = ["K-OFSD", "Fisher", "ReliefF"]


def _compare(at, methods=METHODS, splits=2, seed=3):
    at.multiselect(key="compare_methods").set_value(methods)
    at.slider(key="compare_splits").set_value(splits)
    at.number_input(key="compare_seed").set_value(seed)
    _click(at.run(), "Run comparison")


@pytest.fixture(scope="module")
def compared():
    """The Compare page after one run with three methods, two splits, seed 3."""
    at = _open("dashboard/pages/compare.py")
    _compare(at)
    return at


@pytest.fixture(scope="module")
def expected(srbct):
    return evaluate(
        srbct, MINORITY, METHODS, n_splits=2, seed=3, params={"kofsd": {"k": SAMPLE_K}}
    ).summary()


def test_compare_defaults_are_the_papers_protocol():
    at = _open("dashboard/pages/compare.py")
    assert at.multiselect(key="compare_methods").value == [
        "kofsd",
        "fisher",
        "s2n",
        "pcc",
        "relieff",
        "mi",
    ]
    assert at.slider(key="compare_splits").value == 20
    assert not at.get("plotly_chart")  # nothing runs before the click
    assert at.info


def test_compare_bar_chart_and_table_match_the_library(compared, expected):
    assert not compared.error
    bars = _figures(compared)[0]["data"]
    assert [t["name"] for t in bars] == ["1-NN", "SVM"]
    assert bars[0]["x"] == LABELS
    assert bars[0]["y"] == pytest.approx([r["gmean_1nn_mean"] for r in expected])
    assert bars[1]["y"] == pytest.approx([r["gmean_svm_mean"] for r in expected])
    assert bars[1]["error_y"]["array"] == pytest.approx([r["gmean_svm_std"] for r in expected])

    table = compared.dataframe[0].value
    assert list(table["method"]) == LABELS
    measures = ["G-mean 1-NN", "G-mean SVM", "F1 1-NN", "AUC SVM", "features", "time (s)"]
    # fits the page (issue 40): a column per measure, each cell "mean ± sd"; the settings
    # in a details view below
    assert list(table.columns) == ["method", *measures, "splits"]
    shown = _display(compared.dataframe[0])
    for i, (row, want) in enumerate(zip(table.to_dict("records"), expected)):
        # numbers, not "mean ± sd" strings: the columns sort as numbers
        assert row["G-mean 1-NN"] == pytest.approx(want["gmean_1nn_mean"])
        assert row["F1 1-NN"] == pytest.approx(want["f1_1nn_mean"])
        assert row["AUC SVM"] == pytest.approx(want["auc_svm_mean"])
        assert row["features"] == pytest.approx(want["n_features_mean"])
        assert row["splits"] == 2
        # shown as the mean and the standard deviation
        assert shown.loc[i, "G-mean 1-NN"] == (
            f"{want['gmean_1nn_mean']:.4f} ± {want['gmean_1nn_std']:.4f}"
        )
        assert shown.loc[i, "features"] == (
            f"{want['n_features_mean']:.1f} ± {want['n_features_std']:.1f}"
        )
    settings = compared.table[0].value
    assert list(settings["method"]) == LABELS
    assert settings.loc[0, "settings"].startswith(f"k={SAMPLE_K}, alpha=0.5")  # the page's K
    assert settings.loc[1, "settings"] == "(no parameters)"
    # the paper's rule: rankers keep as many features as K-OFSD on every split
    assert table["features"].nunique() == 1


def _display(element):
    """What an st.dataframe shows (its Styler's display values), as a DataFrame."""
    return pa.ipc.open_stream(element.proto.arrow_data.styler.display_values).read_pandas()


def test_compare_table_marks_the_best_mean_of_each_measure(compared):
    element = compared.dataframe[0]
    table = element.value
    styles = element.proto.arrow_data.styler.styles
    marked = {(int(r), table.columns[int(c)]) for r, c in re.findall(r"_row(\d+)_col(\d+)", styles)}
    expected = set()
    for column, larger in (
        ("G-mean 1-NN", True),
        ("G-mean SVM", True),
        ("F1 1-NN", True),
        ("AUC SVM", True),
        ("time (s)", False),
    ):
        target = table[column].max() if larger else table[column].min()
        expected |= {(i, column) for i in table.index[table[column] == target]}
    assert marked == expected and "c7e9c0" in styles


def test_compare_heat_map_is_the_overlap_on_the_whole_data(compared, srbct):
    heat = _figures(compared)[1]["data"][0]
    assert heat["type"] == "heatmap"
    assert heat["x"] == heat["y"] == LABELS
    z = heat["z"]
    assert [z[i][i] for i in range(3)] == [1.0, 1.0, 1.0]
    assert all(z[i][j] == z[j][i] for i in range(3) for j in range(3))
    kofsd = set(run_selection(srbct, MINORITY, "kofsd", k=SAMPLE_K).selection.features)
    fisher = set(run_selection(srbct, MINORITY, "fisher", top=len(kofsd)).selection.features)
    assert z[0][1] == pytest.approx(len(kofsd & fisher) / len(kofsd | fisher))
    assert any("whole data set" in c.value for c in compared.caption)
    assert compared.get("download_button")


def test_compare_same_parameters_do_not_recompute_and_survive_page_switch(compared):
    results = compared.session_state["compare_results"]
    assert compared.session_state["compare_results_computed"] == 1
    (first,) = results.values()
    _click(compared, "Run comparison")
    assert compared.session_state["compare_results_computed"] == 1
    assert next(iter(compared.session_state["compare_results"].values())) is first

    compared.switch_page("dashboard/pages/data.py").run()
    assert not compared.get("plotly_chart") or len(_figures(compared)) == 1  # the class chart
    compared.switch_page("dashboard/pages/compare.py").run()
    assert not compared.exception
    assert compared.multiselect(key="compare_methods").value == METHODS
    assert compared.slider(key="compare_splits").value == 2
    assert _figures(compared)[0]["data"][0]["x"] == LABELS
    assert compared.session_state["compare_results_computed"] == 1

    compared.number_input(key="compare_seed").set_value(4).run()  # other parameters: not run
    assert not compared.get("plotly_chart")
    compared.number_input(key="compare_seed").set_value(3).run()  # back: shown again
    assert len(_figures(compared)) == 3  # bars, overlap, selection frequencies


def test_compare_fixed_top_gives_every_ranker_k_features():
    at = _open("dashboard/pages/compare.py")
    at.toggle(key="compare_fixed_top").set_value(True).run()
    at.number_input(key="compare_top").set_value(3)
    _compare(at, methods=["fisher", "s2n"], splits=2, seed=0)
    assert not at.error
    assert list(at.dataframe[0].value["features"]) == [3.0, 3.0]
    assert any("top 3" in c.value for c in at.caption)


def test_rankers_alone_are_said_to_keep_k_ofsds_count():
    """Rankers compared without K-OFSD still keep as many genes as K-OFSD selects on each
    split (the caption once said "no ranker compared")."""
    at = _open("dashboard/pages/compare.py")
    _compare(at, methods=["fisher", "s2n"], splits=2, seed=0)
    assert not at.error
    captions = [c.value for c in at.caption]
    assert not any("no ranker compared" in c for c in captions)
    assert any(
        f"every ranker keeps as many features as K-OFSD (k={SAMPLE_K}" in c for c in captions
    )


def test_compare_without_methods_shows_an_error_and_keeps_working():
    at = _open("dashboard/pages/compare.py")
    _compare(at, methods=[], splits=2)
    assert len(at.error) == 1 and "no method" in at.error[0].value
    _compare(at, methods=["fisher"], splits=2)
    assert not at.error
    assert _figures(at)[0]["data"][0]["x"] == ["Fisher"]


@pytest.fixture(scope="module")
def swept():
    """The Sweep page after a K sweep (K 2..4) and a top-k sweep (fisher, pcc; 1..3)."""
    at = _open("dashboard/pages/sweep.py")
    at.slider(key="sweep_splits").set_value(2)
    at.slider(key="sweep_ks").set_value((2, 4))
    _click(at.run(), "Run K sweep")
    at.multiselect(key="sweep_rankers").set_value(["fisher", "pcc"])
    at.slider(key="sweep_tops").set_value((1, 3))
    _click(at.run(), "Run top-k sweep")
    return at


def test_sweep_defaults():
    at = _open("dashboard/pages/sweep.py")
    assert at.slider(key="sweep_ks").value == (1, SAMPLE_K)  # inside what works
    assert at.slider(key="sweep_tops").value == (1, 10)
    assert at.slider(key="sweep_splits").value == 10
    assert not at.get("plotly_chart")


def test_k_sweep_plots_the_chosen_range(swept, srbct):
    assert not swept.error
    k_fig = _figures(swept)[0]
    expected = sweep_k(srbct, MINORITY, [2, 3, 4], n_splits=2, seed=0).summary(("k",))
    assert [t["name"] for t in k_fig["data"][:2]] == ["1-NN", "SVM"]
    assert all(t["x"] == [2, 3, 4] for t in k_fig["data"])
    assert k_fig["data"][0]["y"] == pytest.approx([r["gmean_1nn_mean"] for r in expected])
    assert k_fig["data"][1]["y"] == pytest.approx([r["gmean_svm_mean"] for r in expected])
    assert k_fig["data"][2]["y"] == pytest.approx([r["n_features_mean"] for r in expected])


def test_top_k_sweep_has_one_line_per_method_and_classifier(swept, srbct):
    fig = _figures(swept)[1]
    result = sweep_top(srbct, MINORITY, ["fisher", "pcc"], [1, 2, 3], n_splits=2, seed=0)
    expected = result.summary(("method", "top"))
    # Fisher and PCC keep the same genes on every split and top-k of one-versus-rest labels
    genes = {(r["method"], r["top"], r["split"]): r["features"] for r in result.records}
    assert all(genes[("pcc", t, s)] == genes[("fisher", t, s)] for t in (1, 2, 3) for s in (0, 1))
    # one name per ranker, in both panels (not "... 1-NN" on the SVM panel's lines); the
    # second of two identical rankers says so
    assert [t["name"] for t in fig["data"]] == [
        "Fisher",
        "Fisher",
        "PCC (same curves as Fisher)",
        "PCC (same curves as Fisher)",
    ]
    ids = {"Fisher": "fisher", "PCC": "pcc"}
    for trace, column in zip(fig["data"], ["gmean_1nn_mean", "gmean_svm_mean"] * 2):
        rows = [r for r in expected if r["method"] == ids[trace["name"].split()[0]]]
        assert trace["x"] == [1, 2, 3]
        assert trace["y"] == pytest.approx([r[column] for r in rows])
    assert fig["data"][2]["line"]["dash"] == "dash"  # visible over Fisher's line
    assert any(
        i.value.startswith("Fisher and PCC have identical curves: they kept the same genes")
        for i in swept.info
    )
    assert len(swept.get("download_button")) == 2


def test_the_k_advice_follows_the_measured_g_means(srbct):
    """The rule "K below a training half's minority size" is stated as the rule; what the
    page says measured best is the sweep's own result (issue 40: "consider K < 4" beside a
    G-mean best at K 5-7)."""
    at = _open("dashboard/pages/sweep.py")
    at.slider(key="sweep_splits").set_value(2)
    at.slider(key="sweep_ks").set_value((1, 8))
    _click(at.run(), "Run K sweep")
    summary = sweep_k(srbct, MINORITY, range(1, 9), n_splits=2, seed=0).summary(("k",))
    best = max(r["gmean_1nn_mean"] for r in summary)
    best_ks = [r["k"] for r in summary if r["gmean_1nn_mean"] == best]
    svm = max(r["gmean_svm_mean"] for r in summary)
    svm_ks = [r["k"] for r in summary if r["gmean_svm_mean"] == svm]
    shown = [e.value for e in (*at.warning, *at.info, *at.caption, *at.markdown, *at.error)]
    assert not any("consider K" in text for text in shown)
    # the rule, as a rule: a training half holds as few as SAMPLE_K + 1 = 6 minority samples
    fewest = SAMPLE_K + 1
    (rule,) = [w.value for w in at.warning if "K = 8 is at or above" in w.value]
    assert f"which takes K < {fewest}; this is the method's rule, not a measurement" in rule
    (measured,) = [i.value for i in at.info if i.value.startswith("Measured on these 2 splits")]
    assert (
        f"highest at K = {', '.join(map(str, best_ks))} with 1-NN ({best:.3f}) and at "
        f"K = {', '.join(map(str, svm_ks))} with the SVM ({svm:.3f})"
    ) in measured
    if min(best_ks) >= fewest:  # seeded: K = 7 measures best here
        assert "is about neighbourhoods, not a measurement: on these splits K = " in measured
    else:
        assert "In line with K-OFSD's rule" in measured


def test_sweeps_are_kept_across_clicks_and_page_switches(swept):
    counts = (
        swept.session_state["sweep_k_results_computed"],
        swept.session_state["sweep_top_results_computed"],
    )
    assert counts == (1, 1)
    _click(swept, "Run K sweep")
    _click(swept, "Run top-k sweep")
    swept.switch_page("dashboard/pages/compare.py").run()
    swept.switch_page("dashboard/pages/sweep.py").run()
    assert not swept.exception
    assert swept.slider(key="sweep_ks").value == (2, 4)
    assert len(_figures(swept)) == 2
    assert (
        swept.session_state["sweep_k_results_computed"],
        swept.session_state["sweep_top_results_computed"],
    ) == counts


def test_top_k_sweep_without_rankers_shows_an_error():
    at = _open("dashboard/pages/sweep.py")
    at.slider(key="sweep_splits").set_value(2)
    at.multiselect(key="sweep_rankers").set_value([])
    _click(at.run(), "Run top-k sweep")
    assert len(at.error) == 1 and "no method" in at.error[0].value
    assert at.button  # the page still draws its buttons


def test_topk_sweep_figure_is_a_function_of_the_summary_rows():
    rows = [
        {
            "method": m,
            "top": t,
            "gmean_1nn_mean": t / 10 + (0.01 if m == "mi" else 0.0),
            "gmean_1nn_std": 0.01,
            "gmean_svm_mean": t / 20,
            "gmean_svm_std": 0.02,
        }
        for m in ("s2n", "mi")
        for t in (3, 1, 2)
    ]
    fig = topk_sweep_figure(rows)
    assert [t.name for t in fig.data] == ["s2n", "s2n", "mi", "mi"]
    assert list(fig.data[0].x) == [1, 2, 3]
    assert list(fig.data[1].y) == pytest.approx([0.05, 0.1, 0.15])
    assert fig.data[0].line.color == fig.data[1].line.color != fig.data[2].line.color
    # 1-NN in the left panel, SVM in the right; one legend entry per ranker; the y axis
    # fits the data instead of a fixed 0-1.05
    assert [t.xaxis for t in fig.data] == ["x", "x2", "x", "x2"]
    assert [t.showlegend for t in fig.data] == [True, False, True, False]
    assert fig.layout.yaxis.range is None


def test_sweep_shown_k_and_narrower_range_redraw_without_recomputing(monkeypatch):
    import fsengine.evaluation as evaluation_module

    calls = []
    real = evaluation_module.sweep_k

    def counting(*args, **kwargs):
        calls.append(args[2])
        return real(*args, **{**kwargs, "n_jobs": 1})

    monkeypatch.setattr(evaluation_module, "sweep_k", counting)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=SLOW_SECONDS).run()
    at.switch_page("dashboard/pages/sweep.py").run()
    at.slider(key="sweep_splits").set_value(2).run()
    at.slider(key="sweep_ks").set_value((2, 6)).run()
    next(b for b in at.button if b.label == "Run K sweep").click().run()
    assert calls == [(2, 3, 4, 5, 6)]

    def cursor_x():

        spec = json.loads(at.get("plotly_chart")[0].proto.spec)
        return {shape["x0"] for shape in spec["layout"]["shapes"]}

    assert cursor_x() == {4}  # the middle of 2..6 at first
    at.select_slider(key="sweep_shown_k").set_value(5).run()
    assert cursor_x() == {5} and calls == [(2, 3, 4, 5, 6)]
    assert any("K = 5" in m.label for m in at.metric)
    at.slider(key="sweep_ks").set_value((3, 5)).run()  # inside what was computed
    assert calls == [(2, 3, 4, 5, 6)]
    assert len(at.get("plotly_chart")) == 1
    at.slider(key="sweep_ks").set_value((3, 8)).run()  # beyond it: needs a new run
    assert calls == [(2, 3, 4, 5, 6)]
    assert any("Run K sweep" in i.value for i in at.info)


def test_the_k_sweep_says_which_settings_produced_it(swept):
    shown = swept.select_slider(key="sweep_shown_k").value
    assert any(
        c.value.startswith(f"K-OFSD's settings at the shown K: k={shown}, alpha=0.5")
        for c in swept.caption
    )
