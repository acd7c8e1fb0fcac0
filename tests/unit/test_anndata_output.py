"""Selections back into AnnData (issue 30, point 5): the library call on an AnnData object
and the command line's ``--out result.h5ad`` write var columns and an uns entry that
scanpy's own getter (``sc.get.rank_genes_groups_df``) and plot
(``sc.pl.rank_genes_groups_dotplot``) read; the input object's other content is kept."""

import warnings

import anndata
import matplotlib
import numpy as np
import pytest
import scanpy as sc

from conftest import ROOT
from fsengine import load_dataset, run_selection
from fsengine.adata import select, uns_key
from fsengine.cli import main
from fsengine.data.task import Task
from fsengine.methods.rankers import marker_table

matplotlib.use("Agg")
PBMC = ROOT / "tests" / "data" / "pbmc68k_reduced.h5ad"
SERIES = ROOT / "tests" / "data" / "glioma_series_matrix.txt.gz"
RARE = "CD4+/CD45RA+/CD25- Naive T"


def _read(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anndata.read_h5ad(path)


def _scanpy_table(adata, group, method):
    return sc.get.rank_genes_groups_df(adata, group=group, key=uns_key(method))


@pytest.mark.parametrize(("method", "top"), [("kofsd", None), ("welch", 12), ("fisher", 8)])
def test_the_library_writes_what_scanpy_reads(method, top):
    adata = _read(PBMC)
    result = select(adata, "bulk_labels", RARE, method, top=top)
    selection = result.selection
    expected = run_selection(load_dataset(PBMC, label="bulk_labels"), RARE, method, top=top)
    assert selection.features == expected.selection.features and len(selection) > 0
    # var: selected, rank 1.., the method's score
    chosen = adata.var[adata.var[f"{method}_selected"]]
    assert list(chosen.sort_values(f"{method}_rank").index) == list(selection.features)
    assert chosen[f"{method}_rank"].sort_values().tolist() == list(range(1, len(selection) + 1))
    # uns, read by scanpy's getter: the genes in the method's order, with Welch's p-values
    table = _scanpy_table(adata, RARE, method)
    assert list(table["names"]) == list(selection.features)
    task = Task.from_dataset(load_dataset(PBMC, label="bulk_labels"), RARE)
    welch = marker_table(task.X, task.y, "welch")
    columns = list(selection.columns)
    assert np.allclose(table["pvals_adj"], welch["pvals_adj"][columns], equal_nan=True)
    if method == "welch":  # the signed t, as rank_genes_groups writes it
        assert np.allclose(table["scores"], welch["scores"][columns], rtol=1e-6)
    else:
        assert np.allclose(table["scores"], selection.scores, rtol=1e-6)
    assert adata.uns[uns_key(method)]["params"]["groupby"] == "bulk_labels"
    axes = sc.pl.rank_genes_groups_dotplot(adata, key=uns_key(method), show=False)
    assert "mainplot_ax" in axes


def test_the_command_line_adds_the_selection_to_the_input_object(tmp_path, capsys):
    out = tmp_path / "result.h5ad"
    argv = ["select", str(PBMC), "--label", "bulk_labels", "--minority", RARE, "--out", str(out)]
    assert main(argv) == 0
    assert "selected" in capsys.readouterr().err
    before, after = _read(PBMC), _read(out)
    assert after.shape == before.shape and np.array_equal(after.X, before.X)
    assert "X_umap" in after.obsm and "rank_genes_groups" in after.uns  # kept as they were
    assert list(after.obs["bulk_labels"].astype(str)) == list(before.obs["bulk_labels"].astype(str))
    expected = run_selection(load_dataset(PBMC, label="bulk_labels"), RARE, "kofsd").selection
    assert list(_scanpy_table(after, RARE, "kofsd")["names"]) == list(expected.features)
    assert after.var["kofsd_selected"].sum() == len(expected)


def test_the_command_line_builds_an_object_from_another_format(tmp_path):
    out = tmp_path / "glioma.h5ad"
    argv = ["select", str(SERIES), "--label", "glioma class", "--minority", "2"]
    assert main([*argv, "--method", "wilcoxon", "--top", "5", "--out", str(out)]) == 0
    adata = _read(out)
    assert adata.shape == (50, 4434) and adata.obs_names[0] == "GSM900001"
    assert set(adata.obs["glioma class"]) == {"1", "2", "3", "4"}
    table = _scanpy_table(adata, "2", "wilcoxon")
    expected = run_selection(load_dataset(SERIES, label="glioma class"), 2, "wilcoxon", top=5)
    assert list(table["names"]) == list(expected.selection.features)
    # 50 samples: too few for the dendrogram's default 50-component PCA, so none
    sc.pl.rank_genes_groups_dotplot(adata, key=uns_key("wilcoxon"), dendrogram=False, show=False)


def test_the_export_pages_file_is_the_command_lines(tmp_path, srbct):
    """The Export page's download (h5ad_bytes, the uploaded file's bytes as the source) and
    the command line's --out hold the same selection, in the same places."""
    from fsengine.adata import h5ad_bytes

    out = tmp_path / "cli.h5ad"
    argv = ["select", str(PBMC), "--label", "bulk_labels", "--minority", RARE]
    assert main([*argv, "--method", "s2n", "--top", "6", "--out", str(out)]) == 0
    task = Task.from_dataset(load_dataset(PBMC, label="bulk_labels"), RARE)
    selection = run_selection(task, None, "s2n", top=6).selection
    page = tmp_path / "page.h5ad"
    page.write_bytes(h5ad_bytes(task, selection, PBMC.read_bytes()))
    cli, downloaded = _read(out), _read(page)
    for column in ("s2n_selected", "s2n_rank", "s2n_score"):
        assert np.array_equal(cli.var[column], downloaded.var[column], equal_nan=True)
    assert list(_scanpy_table(cli, RARE, "s2n")["names"]) == list(selection.features)
    assert list(_scanpy_table(downloaded, RARE, "s2n")["names"]) == list(selection.features)
    # the bundled sample (a Parquet file): an object built from the data
    built = tmp_path / "srbct.h5ad"
    sample = Task.from_dataset(srbct, 2)
    chosen = run_selection(sample, None, "kofsd").selection
    built.write_bytes(h5ad_bytes(sample, chosen))
    adata = _read(built)
    assert adata.shape == (83, 2308) and adata.var["kofsd_selected"].sum() == len(chosen)
    assert list(_scanpy_table(adata, "2", "kofsd")["names"]) == list(chosen.features)
