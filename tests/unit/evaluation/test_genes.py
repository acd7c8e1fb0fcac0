"""The Genes view's computations (fsengine.evaluation.genes) and figures (fsengine.pl.gene_figures),
against numbers worked out by hand on tiny data sets."""

import math

import numpy as np
import plotly.graph_objects as go
import pytest
from scipy import stats
from sklearn.decomposition import PCA
from sklearn.preprocessing import StandardScaler

from fsengine.data.dataset import Dataset
from fsengine.errors import FSEngineError
from fsengine.evaluation import Evaluation
from fsengine.evaluation.genes import (
    P_VALUE_NOTE,
    cluster_order,
    gene_statistics,
    p_value_note,
    selection_frequencies,
)
from fsengine.pl.gene_figures import (
    MINORITY_COLOUR,
    frequency_figure,
    gene_box_figure,
    gene_heatmap_figure,
    pca_figure,
)


@pytest.fixture
def tiny():
    """7 samples (class 1 = minority: 3, class 0: 4) x 3 genes: a separates the classes,
    b is constant, c overlaps."""
    X = np.array(
        [
            # a    b    c
            [1.0, 5.0, 0.0],
            [2.0, 5.0, 0.0],
            [3.0, 5.0, 1.0],
            [4.0, 5.0, 0.0],
            [5.0, 5.0, 1.0],
            [6.0, 5.0, 1.0],
            [7.0, 5.0, 1.0],
        ]
    )
    return Dataset(
        X=np.asfortranarray(X),
        labels=np.array([1, 1, 1, 0, 0, 0, 0]),
        feature_names=("a", "b", "c"),
        label_column="class",
        source="tiny",
        sample_names=tuple(f"s{i}" for i in range(7)),
    )


def hand_bh(p):
    """Benjamini-Hochberg by hand: p_(i) * m / i, then the running minimum from the top."""
    p = np.asarray(p, dtype=float)
    m = len(p)
    order = np.argsort(p)
    adjusted = p[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum.accumulate(adjusted[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1)
    return out


# --- gene_statistics ---------------------------------------------------------------------


def test_hedges_g_and_welch_p_by_hand(tiny):
    table = gene_statistics(tiny, 1, ["a", "b", "c"])
    assert list(table["gene"]) == ["a", "b", "c"]
    assert list(table["column"]) == [0, 1, 2]
    a = table.iloc[0]
    # minority [1, 2, 3]: mean 2, var 1; rest [4, 5, 6, 7]: mean 5.5, var 5/3
    assert a["mean_minority"] == pytest.approx(2.0)
    assert a["mean_rest"] == pytest.approx(5.5)
    assert a["sd_minority"] == pytest.approx(1.0)
    assert a["sd_rest"] == pytest.approx(math.sqrt(5 / 3))
    # pooled var (2*1 + 3*5/3) / 5 = 1.4; J = 1 - 3/(4*7 - 9) = 16/19
    assert a["hedges_g"] == pytest.approx(16 / 19 * (2 - 5.5) / math.sqrt(1.4))
    assert a["hedges_g"] == pytest.approx(-2.49098, abs=1e-5)
    # Welch: se^2 = 1/3 + (5/3)/4 = 0.75; df by Welch-Satterthwaite
    t = -3.5 / math.sqrt(0.75)
    df = 0.75**2 / ((1 / 3) ** 2 / 2 + (5 / 12) ** 2 / 3)
    assert a["p_welch"] == pytest.approx(2 * stats.t.sf(abs(t), df))
    # constant gene: no effect size, no test
    b = table.iloc[1]
    assert math.isnan(b["hedges_g"]) and math.isnan(b["p_welch"]) and math.isnan(b["p_bh"])
    assert b["sd_minority"] == 0 and b["sd_rest"] == 0


def test_bh_adjustment_by_hand(tiny):
    assert hand_bh([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.04, 0.04])
    table = gene_statistics(tiny, 1, ["c", "b", "a"])
    tested = table["p_welch"].notna()
    assert list(tested) == [True, False, True]
    assert table.loc[tested, "p_bh"].to_numpy() == pytest.approx(
        hand_bh(table.loc[tested, "p_welch"])
    )
    # over the listed genes only: a alone is not adjusted
    alone = gene_statistics(tiny, 1, ["a"])
    assert alone["p_bh"].iloc[0] == pytest.approx(alone["p_welch"].iloc[0])
    assert table.attrs["p_value_note"] == p_value_note(2)
    assert "Welch" in P_VALUE_NOTE and "Benjamini-Hochberg" in P_VALUE_NOTE
    assert "2 genes" in p_value_note(2) and "1 gene " in p_value_note(1) + " "


def test_minority_sign_and_class_by_text(tiny):
    forward = gene_statistics(tiny, "1", ["a"])["hedges_g"].iloc[0]
    backward = gene_statistics(tiny, 0, ["a"])["hedges_g"].iloc[0]
    assert forward < 0 and backward == pytest.approx(-forward)


@pytest.mark.parametrize("genes", [["a", "nope"], [], "zz"])
def test_unknown_or_no_gene_is_an_error(tiny, genes):
    with pytest.raises(FSEngineError) as error:
        gene_statistics(tiny, 1, genes)
    assert error.value.parameter == "genes"
    if genes:
        assert "nope" in str(error.value) or "zz" in str(error.value)
    for figure in (gene_heatmap_figure, gene_box_figure, pca_figure):
        with pytest.raises(FSEngineError):
            figure(tiny, 1, genes)


# --- cluster_order -----------------------------------------------------------------------


def test_cluster_order_keeps_separated_groups_together():
    rng = np.random.default_rng(0)
    # samples alternate between a group near 0 and a group near 10
    group = np.array([0, 1] * 6)
    X = group[:, None] * 10.0 + rng.normal(0, 0.5, size=(12, 4))
    # genes 0 and 2 go with the groups, 1 and 3 against them
    X[:, [1, 3]] *= -1
    rows, cols = cluster_order(X)
    assert sorted(rows) == list(range(12)) and sorted(cols) == list(range(4))
    ordered = group[rows]
    assert np.count_nonzero(np.diff(ordered)) == 1  # one boundary: two contiguous blocks
    pairs = [set(cols[:2]), set(cols[2:])]
    assert {0, 2} in pairs and {1, 3} in pairs
    again = cluster_order(X)
    assert list(again[0]) == list(rows) and list(again[1]) == list(cols)


@pytest.mark.parametrize(
    "matrix",
    [np.array([[3.0]]), np.arange(5.0)[:, None], np.arange(5.0)[None, :], np.ones((4, 3))],
    ids=["1x1", "one gene", "one sample", "constant"],
)
def test_cluster_order_degenerate_shapes(matrix):
    rows, cols = cluster_order(matrix)
    assert sorted(rows) == list(range(matrix.shape[0]))
    assert sorted(cols) == list(range(matrix.shape[1]))
    again = cluster_order(matrix)
    assert list(again[0]) == list(rows) and list(again[1]) == list(cols)


# --- selection_frequencies ---------------------------------------------------------------


@pytest.fixture
def seven():
    rng = np.random.default_rng(1)
    return Dataset(
        X=np.asfortranarray(rng.normal(size=(8, 7))),
        labels=np.array([1, 1, 0, 0, 0, 0, 0, 0]),
        feature_names=tuple("abcdefg"),
        label_column="class",
        source="seven",
    )


def _records(method, selections):
    return [
        {"method": method, "split": i, "features": ";".join(s)} for i, s in enumerate(selections)
    ]


@pytest.fixture
def evaluation():
    records = _records("m", [["a", "b", "c"], ["a", "b", "c", "e"], ["a"], ["d"]])
    records += _records("other", [["f"], ["f", "g"]])
    return Evaluation(records, {"minority": 1})


def test_selection_frequencies_counts_shares_and_ranks(seven, evaluation):
    table = selection_frequencies(evaluation, seven, 1, "m", whole_data=["c", "a", "g"])
    # a 3 times; c and b twice (c ranked first on the whole data, b not); d and e once (by
    # name); g never selected on a split but ranked 3rd on the whole data
    assert list(table["gene"]) == ["a", "c", "b", "d", "e", "g"]
    assert list(table["times"]) == [3, 2, 2, 1, 1, 0]
    assert list(table["share"]) == pytest.approx([0.75, 0.5, 0.5, 0.25, 0.25, 0.0])
    ranks = table["whole_data_rank"].tolist()
    assert ranks[0] == 2 and ranks[1] == 1 and ranks[5] == 3
    assert all(math.isnan(r) for r in ranks[2:5])
    assert list(table["column"]) == [0, 2, 1, 3, 4, 6]
    assert table.attrs["n_splits"] == 4
    plain = selection_frequencies(evaluation, seven, 1, "other")
    assert list(plain["gene"]) == ["f", "g"] and list(plain["times"]) == [2, 1]
    assert plain["whole_data_rank"].isna().all()


def test_selection_frequencies_errors(seven, evaluation):
    with pytest.raises(FSEngineError) as error:
        selection_frequencies(evaluation, seven, 1, "missing")
    assert error.value.parameter == "method"
    with pytest.raises(FSEngineError) as error:
        selection_frequencies(evaluation, seven, 0, "m")
    assert error.value.parameter == "minority"
    stranger = Evaluation(_records("m", [["a", "zz"]]), {"minority": 1})
    with pytest.raises(FSEngineError, match="zz"):
        selection_frequencies(stranger, seven, 1, "m")


# --- figures -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind,trace_type", [("box", go.Box), ("violin", go.Violin)])
def test_box_figure_one_trace_per_gene(tiny, kind, trace_type):
    statistics = gene_statistics(tiny, 1, ["a", "c"])
    fig = gene_box_figure(tiny, 1, ["a", "c"], kind=kind, statistics=statistics)
    assert len(fig.data) == 2
    assert all(isinstance(t, trace_type) for t in fig.data)
    assert [t.name for t in fig.data] == ["a", "c"]
    for trace, column in zip(fig.data, (0, 2)):
        assert list(trace.x) == ["1", "1", "1", "0", "0", "0", "0"]
        assert list(trace.y) == list(tiny.X[:, column])
    # the panels' titles carry g and the BH p; the minority's category ("1", second of
    # the sorted classes) is shaded in every panel
    titles = [a.text for a in fig.layout.annotations]
    g = statistics["hedges_g"].iloc[0]
    assert titles[0].startswith("a") and f"{g:+.2f}" in titles[0] and "p(BH)" in titles[0]
    shades = [s for s in fig.layout.shapes if s.fillcolor == MINORITY_COLOUR]
    assert len(shades) == 2 and all((s.x0, s.x1) == (0.5, 1.5) for s in shades)
    bare = gene_box_figure(tiny, 1, ["a"], kind=kind)
    assert [a.text for a in bare.layout.annotations] == ["a"]
    with pytest.raises(FSEngineError):
        gene_box_figure(tiny, 1, ["a"], kind="bars")


def test_heatmap_one_row_per_gene_and_class_bar(tiny):
    fig = gene_heatmap_figure(tiny, 1, ["c", "a", "b"])
    bar, heat = fig.data
    rows, cols = cluster_order(tiny.X[:, [2, 0, 1]])
    genes = [["c", "a", "b"][c] for c in cols]
    assert list(heat.y) == genes and np.shape(heat.z) == (3, 7)
    assert list(fig.layout.yaxis2.tickvals) == genes
    assert fig.layout.yaxis2.tickfont.size >= 11
    # gene a's row: its z-scores (ddof=0) in the clustered sample order
    a = tiny.X[:, 0]
    expected = ((a - a.mean()) / a.std())[rows]
    assert np.asarray(heat.z)[genes.index("a")] == pytest.approx(expected)
    assert np.asarray(heat.z)[genes.index("b")] == pytest.approx(np.zeros(7))  # constant
    # class bar: one cell per sample, the class of each sample in the same order
    assert list(bar.text[0]) == [str(tiny.labels[r]) for r in rows]
    codes = np.asarray(bar.z[0])
    minority_code = codes[list(tiny.labels[rows]).index(1)]
    scale = dict((round(v, 6), c) for v, c in bar.colorscale)
    assert scale[round(minority_code / 2, 6)] == MINORITY_COLOUR
    assert len(set(codes[tiny.labels[rows] == 1])) == 1
    assert fig.layout.height >= 320
    taller = gene_heatmap_figure(tiny, 1, ["a"])
    assert taller.layout.height <= fig.layout.height


def _sklearn_pca(X):
    kept = X[:, X.std(axis=0) > 0]
    pca = PCA(n_components=2).fit(StandardScaler().fit_transform(kept))
    return pca


def test_pca_explained_variance_matches_sklearn():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 6))
    X[:, 4] = 2.0  # constant: dropped
    X[:10, 0] += 3
    data = Dataset(
        X=np.asfortranarray(X),
        labels=np.array([1] * 5 + [0] * 15),
        feature_names=tuple(f"g{i}" for i in range(6)),
        label_column="class",
    )
    fig = pca_figure(data, 1, ["g0", "g1", "g2", "g4"])
    left = _sklearn_pca(X[:, [0, 1, 2, 4]]).explained_variance_ratio_
    right = _sklearn_pca(X).explained_variance_ratio_
    assert fig.layout.xaxis.title.text == f"PC1 ({100 * left[0]:.1f}%)"
    assert fig.layout.yaxis.title.text == f"PC2 ({100 * left[1]:.1f}%)"
    assert fig.layout.xaxis2.title.text == f"PC1 ({100 * right[0]:.1f}%)"
    assert fig.layout.yaxis2.title.text == f"PC2 ({100 * right[1]:.1f}%)"
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["selected genes (4)", "all genes (6)"]
    # one trace per class and panel, the minority red; the coordinates are sklearn's
    minority = [t for t in fig.data if t.name == "class 1"]
    assert len(minority) == 2 and all(t.marker.color == MINORITY_COLOUR for t in minority)
    kept = X[:, [0, 1, 2]]
    truth = PCA(n_components=2).fit_transform(StandardScaler().fit_transform(kept))
    assert np.abs(minority[0].x) == pytest.approx(np.abs(truth[:5, 0]))
    assert sum(len(t.x) for t in fig.data) == 2 * 20


def test_pca_with_one_gene_plots_it_against_the_index(tiny):
    fig = pca_figure(tiny, 1, ["a"])
    assert "against sample index" in fig.layout.annotations[0].text
    assert fig.layout.xaxis.title.text == "a"
    minority = next(t for t in fig.data if t.name == "class 1")
    assert list(minority.x) == [1.0, 2.0, 3.0] and list(minority.y) == [0, 1, 2]


def test_frequency_figure_bars_equal_the_table(seven, evaluation):
    table = selection_frequencies(evaluation, seven, 1, "m", whole_data=["c", "a", "g"])
    fig = frequency_figure(table, 4)
    (bar,) = fig.data
    assert bar.orientation == "h"
    assert list(bar.y) == list(table["gene"]) and list(bar.x) == list(table["times"])
    assert list(fig.layout.xaxis.range) == [0, 4] and fig.layout.xaxis.dtick == 1
    top = frequency_figure(table, 4, top=2)
    assert list(top.data[0].y) == ["a", "c"]


# --- the bundled data --------------------------------------------------------------------


def test_srbct_ten_genes(srbct):
    genes = list(srbct.feature_names[:10])
    table = gene_statistics(srbct, 2, genes)
    assert table.shape == (10, 9) and list(table["gene"]) == genes
    assert table["p_welch"].between(0, 1).all() and (table["p_bh"] >= table["p_welch"]).all()
    rows, cols = cluster_order(srbct.X[:, :10])
    assert sorted(rows) == list(range(83)) and sorted(cols) == list(range(10))
    heat = gene_heatmap_figure(srbct, 2, genes)
    assert np.shape(heat.data[1].z) == (10, 83) and len(heat.data[0].text[0]) == 83
    for kind in ("box", "violin"):
        box = gene_box_figure(srbct, 2, genes, kind=kind, statistics=table)
        assert len(box.data) == 10
    pca = pca_figure(srbct, 2, genes)
    assert len(pca.data) == 2 * 4
    assert [a.text for a in pca.layout.annotations] == ["selected genes (10)", "all genes (2308)"]
    records = _records("m", [genes[:3], genes[2:5], genes[:1]])
    evaluation = Evaluation(records, {"minority": 2})
    frequencies = selection_frequencies(evaluation, srbct, 2, "m", whole_data=genes[4:6])
    assert frequencies["times"].tolist()[:3] == [2, 2, 1]
    assert len(frequency_figure(frequencies, 3).data[0].y) == len(frequencies) == 6


def test_the_view_imports_are_all_the_gene_views_import():
    """A server imports VIEW_IMPORTS ahead so that a first Genes page does not wait for them:
    after they are imported, the views (statistics, clustering, PCA dense and sparse, the
    figures) import no more of scipy or scikit-learn. Checked in a new process."""
    import subprocess
    import sys

    from conftest import SAMPLE, SLOW_SECONDS

    script = (
        "import importlib, sys\n"
        "import scipy.sparse as sp\n"
        "from fsengine import load_dataset\n"
        "from fsengine.data import Task\n"
        "from fsengine.evaluation.genes import VIEW_IMPORTS, gene_statistics, pca_coordinates\n"
        "from fsengine.pl.gene_figures import gene_box_figure, gene_heatmap_figure, pca_figure\n"
        "for name in VIEW_IMPORTS:\n"
        "    importlib.import_module(name)\n"
        "ds = load_dataset(sys.argv[1])\n"
        "genes = tuple(ds.feature_names[:6])\n"
        "before = set(sys.modules)\n"
        "statistics = gene_statistics(Task.from_dataset(ds, 2), None, genes)\n"
        "gene_heatmap_figure(ds, 2, genes)\n"
        "pca_figure(ds, 2, genes)\n"
        "gene_box_figure(ds, 2, genes, statistics=statistics)\n"
        "pca_coordinates(sp.csc_matrix(ds.X))\n"
        "new = sorted(m for m in set(sys.modules) - before if m.split('.')[0] in "
        "('scipy', 'sklearn'))\n"
        "print(new)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(SAMPLE)],
        capture_output=True,
        text=True,
        timeout=SLOW_SECONDS,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
