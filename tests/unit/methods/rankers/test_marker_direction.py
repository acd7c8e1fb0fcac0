"""Welch's t and the Wilcoxon rank-sum test rank by a direction (issue 40, point 2): "up"
(higher in the minority first, as scanpy's rank_genes_groups ranks a group's genes), "down",
or "both" (|t|, |z|: the old ranking). On raw counts |t| put first the genes the rare
class does not express (zero variance in it: |t| about 31), and none of the 30 planted
markers was in Welch's top 30.

The expectations are computed here per gene with scipy's tests (a slow definition), on
tests/synthetic.py's single-cell counts (raw, and log1p of counts per million)."""

import anndata
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import SAMPLE
from fsengine import FSEngineError, load_dataset, run_selection
from fsengine.adata import select, uns_key
from fsengine.cli import main
from fsengine.export.writers import select_arguments
from fsengine.methods.rankers import marker_table, score_features
from synthetic import RARE_TYPE, single_cell_counts

MARKERS = {f"g{j}" for j in range(30)}


@pytest.fixture(scope="module")
def counts():
    """20,000 cells x 300 genes of the synthetic counts: g0..g29 up in the rare type,
    g30..g179 each common type's own genes (silent in the rare type)."""
    X, obs, names = single_cell_counts(n_genes=300)
    y = (obs["cell_type"] == RARE_TYPE).to_numpy().astype(np.int8)
    return X.toarray().astype(np.float64), y, names


def _log_cpm(X):
    """log1p of counts per million (a cell without counts in these genes: zeros)."""
    return np.log1p(X / np.maximum(X.sum(axis=1, keepdims=True), 1) * 1e6)


def _top(scores, names, k=30):
    return [names[j] for j in np.argsort(-scores, kind="stable")[:k]]


def _slow_welch(X, y):
    """Welch's t per gene with scipy (minority minus rest), NaN as 0 (scanpy's rule)."""
    t = [
        stats.ttest_ind(X[y == 1, j], X[y == 0, j], equal_var=False).statistic
        for j in range(X.shape[1])
    ]
    return np.nan_to_num(np.array(t), nan=0.0)


def _slow_wilcoxon(X, y):
    """The rank-sum z per gene from scipy's Mann-Whitney U of the minority (no tie
    correction of the variance: scanpy's default)."""
    n1, n0 = int(y.sum()), int(len(y) - y.sum())
    u = np.array(
        [stats.mannwhitneyu(X[y == 1, j], X[y == 0, j]).statistic for j in range(X.shape[1])]
    )
    return (u - n1 * n0 / 2) / np.sqrt(n1 * n0 * (n1 + n0 + 1) / 12)


@pytest.mark.parametrize("scale", ["raw", "log-cpm"])
def test_welch_up_finds_the_planted_markers(counts, scale):
    X, y, names = counts
    X = X if scale == "raw" else _log_cpm(X)
    up = _top(score_features("welch", X, y), names)  # the default: up
    assert len(MARKERS & set(up)) >= 25, sorted(MARKERS & set(up))
    wilcoxon = _top(score_features("wilcoxon", X, y), names)
    assert len(MARKERS & set(wilcoxon)) >= 25
    if scale == "raw":
        both = _top(score_features("welch", X, y, direction="both"), names)
        assert len(MARKERS & set(both)) <= 5  # the genes silent in the rare type first
        assert all(X[y == 1, names.index(g)].max() == 0 for g in both[:10])


@pytest.mark.parametrize("scale", ["raw", "log-cpm"])
def test_the_signed_rankings_are_scipys_statistics_per_gene(counts, scale):
    X, y, names = counts
    X = (X if scale == "raw" else _log_cpm(X))[:, :200]
    for method, slow in (("welch", _slow_welch), ("wilcoxon", _slow_wilcoxon)):
        statistic = slow(X, y)
        for direction, expected in (
            ("up", statistic),
            ("down", -statistic),
            ("both", np.abs(statistic)),
        ):
            scores = score_features(method, X, y, direction=direction)
            assert np.allclose(scores, expected, rtol=1e-9, atol=1e-12), (method, direction)
            ranking = np.argsort(-scores, kind="stable")  # ours: down the expected values
            assert np.all(np.diff(expected[ranking]) <= 1e-9 * np.abs(expected).max())
    # "down" of the raw counts: the genes of the common types, silent in the rare type
    down = _top(score_features("welch", X, y, direction="down"), names[:200])
    assert all(30 <= int(g[1:]) < 180 for g in down)


def test_the_direction_is_a_parameter_of_the_spec_the_cli_and_the_record(counts, tmp_path, capsys):
    X, y, names = counts
    with pytest.raises(FSEngineError, match="direction must be one of up, down, both"):
        score_features("welch", X[:, :5], y, direction="higher")
    result = run_selection(load_dataset(SAMPLE), 2, "wilcoxon", top=5)
    assert result.params["direction"] == "up"
    assert select_arguments(result.params)[-4:] == ["--top", "5", "--direction", "up"]
    out = tmp_path / "down.csv"
    argv = ["select", str(SAMPLE), "--minority", "2", "--method", "welch", "--top", "5"]
    assert main([*argv, "--direction", "down", "--out", str(out)]) == 0
    expected = run_selection(load_dataset(SAMPLE), 2, "welch", top=5, direction="down")
    assert [line.split(",")[1] for line in out.read_text().splitlines()[1:]] == list(
        expected.selection.features
    )
    capsys.readouterr()
    assert main([*argv, "--direction", "sideways"]) == 2
    assert "--direction" in capsys.readouterr().err


def test_the_marker_table_and_the_anndata_output_carry_the_direction(counts):
    X, y, names = counts
    X = _log_cpm(X[:3000, :120])
    y = y[:3000]
    for direction, sign in (("up", 1), ("down", -1)):
        table = marker_table(X, y, "welch", direction=direction)
        assert np.allclose(table["rank_scores"], sign * np.nan_to_num(table["scores"]))
    both = marker_table(X, y, "wilcoxon", direction="both")
    assert np.allclose(both["rank_scores"], np.abs(both["scores"]))
    obs = pd.DataFrame({"cell": np.where(y == 1, "rare", "other")})
    adata = anndata.AnnData(X=X, obs=obs, var=pd.DataFrame(index=names[:120]))
    result = select(adata, "cell", "rare", "welch", top=10, direction="down")
    entry = adata.uns[uns_key("welch")]
    assert entry["params"]["direction"] == "down" and result.params["direction"] == "down"
    t = marker_table(X, y, "welch")["scores"]
    columns = list(result.selection.columns)
    assert columns == list(np.argsort(t, kind="stable")[:10])  # most negative t first
    assert np.allclose(entry["scores"]["rare"], t[columns], rtol=1e-6)  # signed, as scanpy
    assert np.allclose(adata.var["welch_score"].iloc[columns], -t[columns])
