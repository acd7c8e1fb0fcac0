"""Charts that do not mislead (issue 40, point 9): the top-k sweep's legend names the
rankers (not "... 1-NN" for the SVM panel's lines too), two rankers with identical curves
are said to be identical and both stay visible, a K sweep's time panel that would be a flat
line of one shared pass is not drawn as a measurement, the stream's hold-out G-mean is drawn
as the points it was measured at, and the best values of a sweep are read off its summary.
Every figure is built from small hand-made rows and checked on its JSON."""

import pytest

from fsengine.evaluation import best_sweep_values
from fsengine.methods.registry import REGISTRY
from fsengine.pl.figures import identical_curves, stream_figure, sweep_figure, topk_sweep_figure

LABELS = {name: method.spec.label for name, method in REGISTRY.items()}


def _topk_rows(curves: dict) -> list[dict]:
    """Summary rows of a top-k sweep: method -> (1-NN means, SVM means) over top 1..n."""
    return [
        {
            "method": method,
            "top": top,
            "gmean_1nn_mean": nn[top - 1],
            "gmean_1nn_std": 0.05,
            "gmean_svm_mean": svm[top - 1],
            "gmean_svm_std": 0.04,
        }
        for method, (nn, svm) in curves.items()
        for top in range(1, len(nn) + 1)
    ]


#: Fisher and PCC rank alike on one-versus-rest labels: their curves are the same.
SAME = ([0.5, 0.6, 0.7], [0.55, 0.65, 0.75])
CURVES = {"fisher": SAME, "s2n": ([0.4, 0.5, 0.8], [0.5, 0.5, 0.6]), "pcc": SAME}


def test_the_top_k_legend_names_each_ranker_once_without_a_classifier():
    fig = topk_sweep_figure(_topk_rows(CURVES), labels=LABELS)
    legend = [t.name for t in fig.data if t.showlegend]
    assert legend[:2] == ["Fisher", "S2N"] and legend[2].startswith("PCC")
    # every trace's name is its ranker's: the SVM panel's lines are not called "1-NN"
    for trace in fig.data:
        assert "1-NN" not in trace.name and "SVM" not in trace.name
    left = [t for t in fig.data if t.xaxis == "x"]
    right = [t for t in fig.data if t.xaxis == "x2"]
    assert len(left) == len(right) == 3
    assert all("1-NN" in t.hovertemplate and "SVM" not in t.hovertemplate for t in left)
    assert all("SVM" in t.hovertemplate and "1-NN" not in t.hovertemplate for t in right)
    titles = [a.text for a in fig.layout.annotations]
    assert titles[:2] == ["1-NN", "linear SVM"]


def test_identical_curves_are_found_from_the_summary():
    assert identical_curves(_topk_rows(CURVES)) == [["fisher", "pcc"]]
    shifted = {**CURVES, "pcc": (SAME[0], [0.55, 0.65, 0.7501])}  # the SVM curve differs
    assert identical_curves(_topk_rows(shifted)) == []
    assert identical_curves(_topk_rows({"fisher": SAME})) == []


def test_a_curve_identical_to_another_says_so_and_stays_visible():
    fig = topk_sweep_figure(_topk_rows(CURVES), labels=LABELS)
    fisher = [t for t in fig.data if t.legendgroup == "fisher"]
    pcc = [t for t in fig.data if t.legendgroup == "pcc"]
    s2n = [t for t in fig.data if t.legendgroup == "s2n"]
    legend = next(t.name for t in pcc if t.showlegend)
    assert legend == "PCC (same curves as Fisher)"
    # drawn over Fisher's line, but not hidden by it or hiding it: another dash, an open
    # marker larger than Fisher's filled one
    for over, under in zip(pcc, fisher):
        assert list(over.y) == list(under.y)
        assert over.line.dash not in (None, "solid") and under.line.dash in (None, "solid")
        assert over.marker.symbol.endswith("-open") and over.marker.size > under.marker.size
    assert all(t.line.dash in (None, "solid") for t in s2n)
    assert next(t.name for t in fisher if t.showlegend) == "Fisher"


def _k_rows(seconds):
    return [
        {
            "k": k,
            "gmean_1nn_mean": g,
            "gmean_1nn_std": 0.1,
            "gmean_svm_mean": g,
            "gmean_svm_std": 0.1,
            "n_features_mean": 3.0,
            "n_features_std": 1.0,
            "seconds_mean": s,
            "seconds_std": 0.0,
        }
        for k, g, s in zip((1, 2, 3, 4), (0.5, 0.7, 0.9, 0.8), seconds)
    ]


def test_a_shared_selection_time_is_not_drawn_as_a_flat_measured_line():
    """K-OFSD's one sorted pass serves every K: the time per K is that pass divided by
    the number of K, the same for each, a flat line that tells nothing about K."""
    fig = sweep_figure(_k_rows([0.05] * 4), "k", "K")
    titles = [a.text for a in fig.layout.annotations]
    assert titles[:2] == ["G-mean", "selected features"]
    assert not any("time" in t for t in titles[:2])
    assert "xaxis3" not in fig.layout or fig.layout.xaxis3.domain is None
    assert len(fig.data) == 3  # G-mean 1-NN, G-mean SVM, features: no time trace
    # the time is said once, as what it is: one pass for all four values, per split
    said = fig.layout.title.text
    assert "one pass" in said and "0.2 s" in said and "not timed per K" in said


def test_measured_times_keep_their_panel():
    fig = sweep_figure(_k_rows([0.1, 0.2, 0.3, 0.4]), "k", "K")
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["G-mean", "selected features", "selection time (s)"]
    assert list(fig.data[3].y) == [0.1, 0.2, 0.3, 0.4]


def test_the_hold_out_g_mean_is_drawn_as_measured_points():
    """Measured at each refresh (every few hundred features for OFS-FPD): points, not
    slopes between them."""
    curves = {
        "step": list(range(1, 101)),
        "size": [1] * 100,
        "score": [0.3] * 100,
        "gmean_step": [10, 60, 100],
        "gmean": [0.2, 0.8, 0.5],
    }
    fig = stream_figure(curves, total=100)
    gmean = next(t for t in fig.data if "G-mean" in t.name)
    assert gmean.mode == "markers"
    assert list(gmean.x) == [10, 60, 100] and list(gmean.y) == [0.2, 0.8, 0.5]
    assert "measured" in gmean.name


def test_best_sweep_values_by_hand():
    rows = _k_rows([0.05] * 4)
    assert best_sweep_values(rows, "k") == ([3], 0.9)
    rows[3]["gmean_1nn_mean"] = 0.9  # a tie: both values
    assert best_sweep_values(rows, "k") == ([3, 4], 0.9)
    rows[0]["gmean_svm_mean"] = 0.95
    assert best_sweep_values(rows, "k", "gmean_svm") == ([1], 0.95)
    with pytest.raises(ValueError):
        best_sweep_values([], "k")
