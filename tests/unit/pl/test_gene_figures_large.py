"""The Genes figures on many samples (issue 40, point 8): above a size they draw a seeded
sample of each class and say how many, the box plots summarise every sample without
drawing each point, class names on the axes are never cut, and the table, the heat map and
the PCA read the selected genes' columns (and a sample's rows), never a dense copy of the
whole matrix. Checked against counts, percentiles and z-scores computed here by hand."""

import collections
import tracemalloc

import numpy as np
import plotly.graph_objects as go
import pytest
from scipy import sparse

from fsengine.data.dataset import Dataset
from fsengine.evaluation.genes import class_sample, gene_statistics
from fsengine.pl.gene_figures import (
    gene_box_figure,
    gene_heatmap_figure,
    pca_figure,
)
from synthetic import CELL_TYPES

RARE = "Plasmacytoid_DC"
#: Samples per class of the "many" data set: the rare class first.
SIZES = {RARE: 30, "Monocyte": 500, "Dendritic": 300}


@pytest.fixture(scope="module")
def many():
    """830 samples of three classes x 40 genes; g0 is up in the rare class."""
    rng = np.random.default_rng(7)
    labels = np.repeat(list(SIZES), list(SIZES.values()))
    order = rng.permutation(len(labels))  # classes interleaved, as in a real file
    labels = labels[order]
    X = rng.normal(size=(len(labels), 40))
    X[labels == RARE, 0] += 4.0
    return Dataset(
        X=np.asfortranarray(X),
        labels=labels,
        feature_names=tuple(f"g{i}" for i in range(40)),
        label_column="cell_type",
        source="many",
        sample_names=tuple(f"cell{i:04d}" for i in range(len(labels))),
    )


def _drawn_samples(heat):
    """The sample names of a heat map's columns (its hover data's first field)."""
    return list(np.asarray(heat.customdata, dtype=object)[0, :, 0])


def _rows_of(fig_names, dataset):
    index = {name: i for i, name in enumerate(dataset.sample_names)}
    return np.array([index[name] for name in fig_names])


# --- the seeded sample of each class -------------------------------------------------------


def test_class_sample_shares_the_budget_equally_and_gives_leftovers_to_larger_classes():
    labels = np.array(["a"] * 5 + ["b"] * 50 + ["c"] * 100)
    drawn = class_sample(labels, 60, seed=0)
    # by hand: 60 / 3 = 20 each, "a" has only 5; the 55 left: 27 for "b", 28 for "c"
    assert drawn.shown == {"a": 5, "b": 27, "c": 28}
    assert drawn.counts == {"a": 5, "b": 50, "c": 100}
    assert collections.Counter(labels[drawn.rows].tolist()) == drawn.shown
    assert list(drawn.rows) == sorted(set(drawn.rows.tolist()))  # distinct, in row order
    assert drawn.sampled
    again = class_sample(labels, 60, seed=0)
    assert list(again.rows) == list(drawn.rows)  # seeded
    assert list(class_sample(labels, 60, seed=1).rows) != list(drawn.rows)
    whole = class_sample(labels, 155)
    assert not whole.sampled and list(whole.rows) == list(range(155))
    assert "60 of 155" in drawn.text() and "seed 0" in drawn.text()


# --- the heat map ---------------------------------------------------------------------------


def test_the_heat_map_draws_a_seeded_sample_of_each_class_and_says_how_many(many):
    genes = ["g0", "g1", "g2"]
    fig = gene_heatmap_figure(many, RARE, genes, most=90, seed=0)
    bar, heat = fig.data
    assert np.shape(heat.z) == (3, 90)
    shown = collections.Counter(bar.text[0])
    assert shown == {RARE: 30, "Monocyte": 30, "Dendritic": 30}
    said = fig.layout.title.text + " " + fig.layout.xaxis2.title.text
    assert "90 of 830" in said and "seeded" in said
    # grouped by class, the minority first: the class bar changes colour twice
    classes = list(bar.text[0])
    assert classes[:30] == [RARE] * 30
    assert sum(a != b for a, b in zip(classes, classes[1:])) == 2
    # z-scores of every gene over ALL samples (ddof 0, clipped at 3), then sampled
    rows = _rows_of(_drawn_samples(heat), many)
    assert collections.Counter(many.labels[rows].tolist()) == shown
    names = list(heat.y)
    for gene in genes:
        x = many.X[:, int(gene[1:])]
        z = np.clip((x - x.mean()) / x.std(), -3, 3)
        assert np.asarray(heat.z)[names.index(gene)] == pytest.approx(z[rows])
    # the same seed draws the same cells; another seed others
    again = gene_heatmap_figure(many, RARE, genes, most=90, seed=0)
    assert _drawn_samples(again.data[1]) == _drawn_samples(heat)
    other = gene_heatmap_figure(many, RARE, genes, most=90, seed=1)
    assert set(_drawn_samples(other.data[1])) != set(_drawn_samples(heat))


def test_below_the_size_the_heat_map_keeps_every_sample(many):
    fig = gene_heatmap_figure(many, RARE, ["g0", "g1"], most=1000)
    assert np.shape(fig.data[1].z) == (2, 830)
    assert "sample" not in (fig.layout.title.text or "")
    assert fig.layout.xaxis2.title.text == "samples (830, clustered)"


# --- box and violin plots ---------------------------------------------------------------------


def _fences(values):
    """Plotly's box by hand: linear quartiles, whiskers at the furthest values within
    1.5 IQR of the box."""
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    iqr = q3 - q1
    low = values[values >= q1 - 1.5 * iqr].min()
    high = values[values <= q3 + 1.5 * iqr].max()
    return q1, median, q3, low, high


def test_above_the_size_boxes_summarise_every_sample_without_drawing_each(many):
    genes = ["g0", "g5"]
    fig = gene_box_figure(many, RARE, genes, most=100)
    assert len(fig.data) == 2 and all(isinstance(t, go.Box) for t in fig.data)
    order = sorted(SIZES)  # the classes in sorted order, as on the axis
    for trace, gene in zip(fig.data, genes):
        assert trace.y is None and not trace.boxpoints  # no 830 points
        assert list(trace.x) == order
        x = many.X[:, int(gene[1:])]
        for i, label in enumerate(order):
            q1, median, q3, low, high = _fences(x[many.labels == label])
            assert trace.q1[i] == pytest.approx(q1)
            assert trace.median[i] == pytest.approx(median)
            assert trace.q3[i] == pytest.approx(q3)
            assert trace.lowerfence[i] == pytest.approx(low)
            assert trace.upperfence[i] == pytest.approx(high)
    assert "all 830 samples" in fig.layout.title.text


def test_above_the_size_violins_draw_a_seeded_sample_and_say_how_many(many):
    fig = gene_box_figure(many, RARE, ["g0"], kind="violin", most=100, seed=0)
    (trace,) = fig.data
    # 100 / 3 = 33 for the rare class (it has 30), the 70 left: 35 and 35
    assert collections.Counter(trace.x) == {RARE: 30, "Dendritic": 35, "Monocyte": 35}
    rows = _rows_of(trace.text, many)
    assert list(trace.y) == pytest.approx(many.X[rows, 0])
    assert "100 of 830" in fig.layout.title.text and "seeded" in fig.layout.title.text


def test_below_the_size_every_point_is_drawn(many):
    fig = gene_box_figure(many, RARE, ["g0"], most=1000)
    assert len(fig.data[0].y) == 830 and fig.data[0].boxpoints == "all"


# --- class names on the axes ------------------------------------------------------------------


@pytest.fixture(scope="module")
def cell_types():
    """The six cell types of the single-cell file, 24 genes: the Genes page's 24 panels."""
    rng = np.random.default_rng(0)
    labels = np.repeat(CELL_TYPES, 20)
    return Dataset(
        X=np.asfortranarray(rng.normal(size=(len(labels), 24))),
        labels=labels,
        feature_names=tuple(f"g{i}" for i in range(24)),
        label_column="cell_type",
    )


#: What the checks below take a tick label's character to be wide (11 px font).
CHAR_PX = 6.5


@pytest.mark.parametrize("kind", ["box", "violin"])
def test_class_names_on_the_box_axes_are_never_cut(cell_types, kind):
    genes = list(cell_types.feature_names)
    fig = gene_box_figure(cell_types, RARE, genes, kind=kind)
    axes = [fig.layout[name] for name in fig.layout if name.startswith("xaxis")]
    assert len(axes) == 24
    for axis in axes:
        shown = [t.replace("<b>", "").replace("</b>", "") for t in axis.ticktext]
        assert all("…" not in t for t in shown)
        # every name whole: its lines put together again ("Dendri" was all of "Dendritic")
        assert [t.replace("<br>", "") for t in shown] == [str(c) for c in axis.tickvals]
    axis = fig.layout.xaxis
    longest = max(len(c) for c in CELL_TYPES)
    if axis.tickangle in (None, 0):
        # horizontal: every line fits its category's share of a panel (a 1000 px figure)
        category = 1000 * (axis.domain[1] - axis.domain[0]) / len(CELL_TYPES)
        lines = [line for t in axis.ticktext for line in t.split("<br>")]
        assert (
            max(len(line.replace("<b>", "").replace("</b>", "")) for line in lines) * (CHAR_PX)
            <= category
        )
    else:
        # angled: the margin below the last row holds the longest name
        reach = longest * CHAR_PX * abs(np.sin(np.radians(axis.tickangle)))
        assert fig.layout.margin.b >= reach


# --- no dense copy of the whole matrix ---------------------------------------------------------


def _peak_bytes(function):
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def wide():
    """20,000 samples x 1,000 genes at 1 % non-zeros (160 MB dense), a rare class of 200."""
    rng = np.random.default_rng(1)
    n, p = 20_000, 1_000
    X = sparse.random(n, p, density=0.01, format="csc", random_state=rng, dtype=np.float64)
    labels = np.array(["rest"] * (n - 200) + ["rare"] * 200)
    return X, labels


@pytest.mark.parametrize("as_sparse", [True, False])
def test_the_table_and_the_projection_read_the_selected_columns_only(wide, as_sparse):
    X, labels = wide
    matrix = sparse.csc_array(X) if as_sparse else np.asfortranarray(X.toarray())
    data = Dataset(
        X=matrix,
        labels=labels,
        feature_names=tuple(f"g{i}" for i in range(X.shape[1])),
        label_column="class",
    )
    genes = [f"g{i}" for i in range(30)]
    dense_bytes = 8 * X.shape[0] * X.shape[1]
    assert _peak_bytes(lambda: gene_statistics(data, "rare", genes)) < dense_bytes / 4
    assert _peak_bytes(lambda: pca_figure(data, "rare", genes)) < dense_bytes / 2
    assert _peak_bytes(lambda: gene_heatmap_figure(data, "rare", genes)) < dense_bytes / 4
    # the numbers are the dense matrix's
    table = gene_statistics(data, "rare", genes)
    dense = X[:, :30].toarray()
    rare = labels == "rare"
    assert table["mean_minority"].to_numpy() == pytest.approx(dense[rare].mean(axis=0))
    assert table["mean_rest"].to_numpy() == pytest.approx(dense[~rare].mean(axis=0))
