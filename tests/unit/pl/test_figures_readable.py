"""Charts that read (issue 29, point 6): integer ticks for counts, error bars inside the
possible range, a time panel that says what it shows, colour bars sized to their figure,
legible box-plot titles and class names, and method labels from the specs. Every figure is
built from small hand-made rows and checked on its JSON."""

import numpy as np
import pytest

from fsengine.data.dataset import Dataset
from fsengine.evaluation.genes import gene_statistics
from fsengine.evaluation.statistics import compare_methods
from fsengine.methods.registry import REGISTRY, get_method
from fsengine.pl.figures import (
    class_counts_figure,
    comparison_figure,
    count_axis,
    critical_difference_figure,
    error_bars,
    jaccard_figure,
    method_label,
    metric_heatmap_figure,
    stream_figure,
    sweep_figure,
    topk_sweep_figure,
)
from fsengine.pl.gene_figures import gene_box_figure, wrap_text

LABELS = {name: method.spec.label for name, method in REGISTRY.items()}


def _ticks(axis, top):
    """The tick values plotly draws on a linear axis from 0 to ``top``."""
    assert axis.tickmode == "linear"
    return list(np.arange(axis.tick0, top + 1e-9, axis.dtick))


# --- 1. integer ticks for counts ---------------------------------------------------------


def _curves(sizes):
    steps = list(range(1, len(sizes) + 1))
    return {
        "step": steps,
        "size": sizes,
        "score": [0.1] * len(sizes),
        "gmean_step": steps,
        "gmean": [0.5] * len(sizes),
    }


@pytest.mark.parametrize("sizes", [[0, 0, 1, 1, 1], [0, 1, 2, 2], [0] * 4, list(range(85))])
def test_the_stream_size_axis_has_integer_ticks_from_zero(sizes):
    """Fractional ticks formatted "d" read "0, 0, 0, 1, 1, 1": the step is a whole number."""
    axis = stream_figure(_curves(sizes), total=len(sizes)).layout.yaxis
    assert axis.tickformat == "d" and axis.rangemode == "tozero" and axis.tick0 == 0
    assert isinstance(axis.dtick, int) and axis.dtick >= 1
    ticks = _ticks(axis, max(max(sizes), 1))
    assert len(ticks) <= 7 and all(t == int(t) for t in ticks)
    assert len(set(ticks)) == len(ticks)  # no tick printed twice
    if max(sizes) <= 5:
        assert axis.dtick == 1


def test_count_axis_steps_are_whole_and_few():
    assert [count_axis(n)["dtick"] for n in (0, 1, 6, 7, 13, 84, 2308)] == [1, 1, 1, 2, 5, 20, 500]


def test_the_class_counts_axis_has_integer_ticks():
    axis = class_counts_figure({"a": 2, "b": 3}, "a").layout.yaxis
    assert axis.tickformat == "d" and axis.dtick == 1 and axis.tick0 == 0


# --- 2. error bars inside the possible range, and the time panel ---------------------------


def _sweep_rows(values, seconds):
    """Rows whose deviations reach past 0 (counts) and past 0 and 1 (G-mean)."""
    return [
        {
            "k": v,
            "gmean_1nn_mean": g,
            "gmean_1nn_std": 0.3,
            "gmean_svm_mean": 1.0 - g,
            "gmean_svm_std": 0.3,
            "n_features_mean": n,
            "n_features_std": 1.5,
            "seconds_mean": s,
            "seconds_std": 0.2,
        }
        for v, g, n, s in zip(values, (0.1, 0.5, 0.9), (0.5, 1.0, 4.0), seconds)
    ]


def _assert_inside(trace, low, high=None):
    bars = trace.error_y
    assert bars.symmetric is False
    for y, up, down in zip(trace.y, bars.array, bars.arrayminus):
        assert up >= 0 and down >= 0
        assert y - down >= low - 1e-12
        if high is not None:
            assert y + up <= high + 1e-12


def test_sweep_error_bars_never_leave_the_possible_range():
    fig = sweep_figure(_sweep_rows([1, 2, 3], [0.1, 0.3, 0.5]), "k", "K")
    gmean_1nn, gmean_svm, features, seconds = fig.data
    _assert_inside(gmean_1nn, 0.0, 1.0)
    _assert_inside(gmean_svm, 0.0, 1.0)
    _assert_inside(features, 0.0)
    _assert_inside(seconds, 0.0)
    # cut only where the range ends: a bar with room keeps its standard deviation
    assert list(gmean_1nn.error_y.arrayminus) == pytest.approx([0.1, 0.3, 0.3])
    assert list(gmean_1nn.error_y.array) == pytest.approx([0.3, 0.3, 0.1])
    assert list(features.error_y.arrayminus) == pytest.approx([0.5, 1.0, 1.5])
    assert list(features.error_y.array) == pytest.approx([1.5, 1.5, 1.5])


def test_comparison_and_top_k_error_bars_stay_within_0_and_1():
    rows = [
        {"method": m, "gmean_1nn_mean": g, "gmean_1nn_std": 0.2, "gmean_svm_mean": g,
         "gmean_svm_std": 0.2}
        for m, g in (("kofsd", 0.05), ("fisher", 0.95))
    ]  # fmt: skip
    for trace in comparison_figure(rows).data:
        _assert_inside(trace, 0.0, 1.0)
    top = [{**r, "top": t} for r in rows for t in (1, 2)]
    for trace in topk_sweep_figure(top).data:
        _assert_inside(trace, 0.0, 1.0)


def test_error_bars_without_a_deviation_draw_none():
    bars = error_bars([0.5, float("nan"), 2.0], [float("nan"), 0.1, None], 0.0, 1.0)
    assert bars["array"] == [0.0, 0.0, 0.0] and bars["arrayminus"] == [0.0, 0.0, 0.0]


def test_the_time_panel_is_not_drawn_when_the_time_was_not_taken_per_value():
    """A sweep that times one run over all values and divides it by their number gives the
    same time at every value: no panel for that flat line (issue 40); the title says what
    the run took instead of showing it as measured per value."""
    shared = sweep_figure(_sweep_rows([1, 2, 3], [0.2, 0.2, 0.2]), "k", "K")
    titles = [a.text for a in shared.layout.annotations]
    assert titles == ["G-mean", "selected features"]
    assert "one pass serves all 3 values of K, 0.6 s a split" in shared.layout.title.text
    assert len(shared.data) == 3
    measured = sweep_figure(_sweep_rows([1, 2, 3], [0.1, 0.3, 0.5]), "k", "K")
    assert [a.text for a in measured.layout.annotations][2] == "selection time (s)"
    assert list(measured.data[3].y) == [0.1, 0.3, 0.5]  # the measured times, per value
    assert measured.data[3].line.dash is None and measured.data[3].hovertemplate is None


# --- 3. the benchmark heat map's colour bar ----------------------------------------------


def _comparison(n_datasets, spread=0.2):
    rng = np.random.default_rng(0)
    values = 0.7 + spread * rng.random((n_datasets, 4))
    return compare_methods(
        values,
        ["kofsd", "fisher", "s2n", "mi"],
        [f"set {i}" for i in range(n_datasets)],
        metric="gmean_1nn",
    )


@pytest.mark.parametrize("n_datasets", [2, 3, 12])
def test_the_heat_map_colour_bar_fits_its_figure(n_datasets):
    fig = metric_heatmap_figure(_comparison(n_datasets))
    bar = fig.data[0].colorbar
    plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    assert plot >= 190  # two data sets still leave the bar room
    assert bar.lenmode == "fraction" and bar.len == 1 and bar.yanchor == "middle"
    assert 10 <= bar.thickness <= 20
    assert 2 <= bar.nticks <= plot // 40  # at least 40 px a tick: no overlap
    assert bar.tickformat == ".2f"  # values 0.7 .. 0.9: two decimals tell the ticks apart
    assert bar.title.side == "right"


def test_the_colour_bar_shows_the_decimals_a_narrow_range_needs():
    fig = metric_heatmap_figure(_comparison(3, spread=0.02))
    assert fig.data[0].colorbar.tickformat == ".3f"


# --- 4. the box plots' titles and class names ---------------------------------------------

LONG_GENE = "AFFX-HUMISGF3A/M97935_MA_at_long_probe_set_name_of_a_gene"
LONG_CLASS = "Malignant fibrous histiocytoma"


@pytest.fixture
def named():
    """8 samples, two classes with long names, five genes, the last with a long name."""
    X = np.column_stack([np.arange(8.0) + i for i in range(4)] + [[0, 1, 0, 1, 5, 6, 5, 6.0]])
    return Dataset(
        X=np.asfortranarray(X),
        labels=np.array([LONG_CLASS] * 3 + ["Well differentiated liposarcoma"] * 5),
        feature_names=("g1", "g2", "g3", "g4", LONG_GENE),
        label_column="class",
        source="named",
        sample_names=tuple(f"s{i}" for i in range(8)),
    )


def test_box_titles_are_legible_and_long_names_wrap(named):
    genes = list(named.feature_names)
    fig = gene_box_figure(
        named, LONG_CLASS, genes, statistics=gene_statistics(named, LONG_CLASS, genes)
    )
    titles = list(fig.layout.annotations)
    assert all(a.font.size >= 12 for a in titles)
    assert all("<sub>" not in a.text and "<sup>" not in a.text for a in titles)
    assert "g = " in titles[0].text and "p(BH) = " in titles[0].text
    lines = titles[4].text.split("<br>")
    assert len(lines) >= 3  # the long name broke (4 panels a row), then g and p
    assert all(len(line) <= 32 for line in lines[:-1])
    assert lines[-1].startswith("g = ")
    # the margin and the gap between rows hold the extra lines
    assert fig.layout.margin.t >= 17 * len(lines)


def test_long_class_names_are_wrapped_on_the_axis_and_whole_in_the_hover(named):
    """Wrapped at their spaces, never cut (issue 40: "Dendri", "Monocy")."""
    fig = gene_box_figure(named, LONG_CLASS, list(named.feature_names))
    axis = fig.layout.xaxis
    assert list(axis.tickvals) == [LONG_CLASS, "Well differentiated liposarcoma"]
    for full, shown in zip(axis.tickvals, axis.ticktext):
        plain = shown.replace("<b>", "").replace("</b>", "")
        assert "…" not in plain
        assert plain.replace("<br>", " ") == full  # broken at its spaces only
        assert plain != full and all(len(line) <= 20 for line in plain.split("<br>"))
    assert axis.ticktext[0].startswith("<b>")  # the minority in bold, on every line
    assert fig.layout.margin.b >= 14 * 3  # room for three lines
    trace = fig.data[0]
    assert list(trace.x) == [LONG_CLASS] * 3 + ["Well differentiated liposarcoma"] * 5
    assert trace.hovertext[0] == f"s0<br>class {LONG_CLASS}"


def test_wrap_text_breaks_at_separators_and_cuts_past_its_lines():
    assert wrap_text("short", 10) == "short"
    assert wrap_text("Malignant fibrous histiocytoma", 12) == "Malignant<br>fibrous<br>histiocytoma"
    assert wrap_text("abcdefghijkl", 5) == "abcde<br>fghij<br>kl"  # no break: mid-word
    assert wrap_text("Malignant fibrous histiocytoma", 10, lines=2) == "Malignant<br>fibrous…"


# --- 5. method labels from the specs -----------------------------------------------------


def test_method_label_maps_ids_and_composites_and_leaves_the_rest():
    assert method_label("kofsd", LABELS) == get_method("kofsd").spec.label == "K-OFSD"
    assert method_label("s2n top 10", LABELS) == "S2N top 10"
    assert method_label("C4.5+m", LABELS) == "C4.5+m"
    assert method_label("kofsd") == "kofsd"  # no labels given: as given


def test_top_k_legend_names_are_the_specs_labels():
    rows = [
        {"method": m, "top": t, "gmean_1nn_mean": 0.5, "gmean_1nn_std": 0.1,
         "gmean_svm_mean": 0.6, "gmean_svm_std": 0.1}
        for m in ("s2n", "pcc", "mi")
        for t in (1, 2)
    ]  # fmt: skip
    rows = [{**r, "gmean_svm_mean": 0.6 + 0.1 * i} for i, r in enumerate(rows)]  # distinct
    fig = topk_sweep_figure(rows, labels=LABELS)
    legend = [t.name for t in fig.data if t.showlegend]
    assert legend == [get_method(m).spec.label for m in ("s2n", "pcc", "mi")]
    assert [t.legendgroup for t in fig.data[::2]] == ["s2n", "pcc", "mi"]  # ids kept
    assert fig.data[0].hovertemplate.startswith("S2N, 1-NN")
    assert fig.data[1].hovertemplate.startswith("S2N, SVM")


def test_comparison_and_overlap_axes_show_the_labels():
    rows = [
        {"method": m, "gmean_1nn_mean": 0.5, "gmean_1nn_std": 0.1, "gmean_svm_mean": 0.5,
         "gmean_svm_std": 0.1}
        for m in ("kofsd", "s2n", "pcc", "mi")
    ]  # fmt: skip
    bars = comparison_figure(rows, labels=LABELS).data[0]
    assert list(bars.x) == ["K-OFSD", "S2N", "PCC", "MI"]
    assert list(bars.customdata) == ["kofsd", "s2n", "pcc", "mi"]
    overlap = jaccard_figure(["kofsd", "mi top 10", "custom"], [{"a"}, {"a"}, {"b"}], LABELS)
    assert list(overlap.data[0].x) == ["K-OFSD", "MI top 10", "custom"]
    assert list(overlap.data[0].y) == list(overlap.data[0].x)


def test_benchmark_figures_show_the_labels():
    comparison = _comparison(3)
    cd = critical_difference_figure(comparison, labels=LABELS)
    names = {a.text.rsplit(" (", 1)[0] for a in cd.layout.annotations}
    assert names == {"K-OFSD", "Fisher", "S2N", "MI"}
    heat = metric_heatmap_figure(comparison, labels=LABELS)
    assert list(heat.data[0].x) == ["K-OFSD", "Fisher", "S2N", "MI"]
