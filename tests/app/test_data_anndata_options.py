"""The Data page's AnnData boxes (issue 30): an uploaded .h5ad file offers its layers and
its var columns; choosing the counts layer and the gene symbols reads the data set as the
library does with --layer / --gene-names, the run record names them, a later session
reloads them, and a table has no such boxes. A sparse file is held sparse, once per server
(issue 40)."""

import anndata
import numpy as np
import pandas as pd
import pytest
from apptest_helpers import click, figures, stream_at_max_speed, workspace_id
from apptest_helpers import session as new_session
from scipy import sparse

from dashboard import workspace
from fsengine import load_dataset
from synthetic import RARE_TYPE, single_cell_anndata

N, P = 40, 12


@pytest.fixture(scope="module")
def h5ad_bytes(tmp_path_factory) -> bytes:
    rng = np.random.default_rng(5)
    counts = rng.poisson(3.0, size=(N, P)).astype(float)
    counts[:8, :3] += 6
    adata = anndata.AnnData(
        X=sparse.csr_matrix(np.log1p(counts)),
        obs=pd.DataFrame(
            {"cell_type": ["rare"] * 8 + ["common"] * 32}, index=[f"c{i}" for i in range(N)]
        ),
        var=pd.DataFrame(
            {"symbol": [f"SYM{j}" for j in range(P)]}, index=[f"ENSG{j:03d}" for j in range(P)]
        ),
    )
    adata.layers["counts"] = sparse.csr_matrix(counts)
    path = tmp_path_factory.mktemp("h5ad") / "cells.h5ad"
    adata.write_h5ad(path)
    return path.read_bytes()


def test_an_anndata_file_offers_its_layers_and_gene_columns(h5ad_bytes):
    at = new_session()
    keys = [b.key for b in at.selectbox]
    assert "anndata_layer" not in keys  # the bundled sample is a table
    at.file_uploader(key="uploader").set_value(
        ("cells.h5ad", h5ad_bytes, "application/octet-stream")
    ).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.selectbox(key="anndata_layer").options == ["X", "counts"]
    assert at.selectbox(key="anndata_gene_names").options == ["var_names", "symbol"]
    loaded = at.session_state["data"]
    assert loaded.dataset.feature_names[0] == "ENSG000"
    # held sparse, as read: the values of the dense matrix
    assert np.array_equal(loaded.dataset.X.toarray(), load_dataset(h5ad_bytes, name="cells.h5ad").X)

    at.selectbox(key="anndata_layer").set_value("counts").run()
    at.selectbox(key="anndata_gene_names").set_value("symbol").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    loaded = at.session_state["data"]
    expected = load_dataset(h5ad_bytes, name="cells.h5ad", layer="counts", gene_names="symbol")
    assert np.array_equal(loaded.dataset.X.toarray(), expected.X)
    assert (
        loaded.dataset.feature_names == expected.feature_names == tuple(f"SYM{j}" for j in range(P))
    )
    assert loaded.anndata == {"layer": "counts", "gene_names": "symbol"}
    assert at.session_state["_of_task"]["task"][1].record()["layer"] == "counts"

    wid = workspace_id(at)
    workspace.reset_default_store()  # as after a server restart
    again = new_session(wid)
    assert again.session_state["data"].anndata == {"layer": "counts", "gene_names": "symbol"}
    assert again.selectbox(key="anndata_layer").value == "counts"
    assert np.array_equal(again.session_state["data"].dataset.X.toarray(), expected.X)


@pytest.fixture(scope="module")
def cells_bytes(tmp_path_factory) -> bytes:
    """A reduced copy of issue 40's single-cell file: counts, 92 % zeros, a rare type of 40
    of 600 cells, two class-like obs columns (cell_type, donor)."""
    adata = single_cell_anndata(n_cells=600, n_genes=60, n_rare=40, n_markers=6, n_donors=5)
    path = tmp_path_factory.mktemp("cells") / "cells.h5ad"
    adata.write_h5ad(path)
    return path.read_bytes()


def test_a_sparse_file_is_held_sparse_and_once_per_server(cells_bytes):
    """Issue 40, point 7: the server grew by gigabytes on a 10 MB file. Its matrix stays
    sparse (never a dense copy of the whole), choosing the groups keeps the same matrix, a
    second session reading the same file gets the same data set (no copy), and the pages
    run on it: a stream, a comparison, the Genes page."""
    at = new_session()
    at.file_uploader(key="uploader").set_value(
        ("cells.h5ad", cells_bytes, "application/octet-stream")
    ).run()
    at.selectbox(key="label_column").set_value("cell_type").run()  # two class-like columns
    assert not at.exception and not at.error, [e.value for e in at.error]
    first = at.session_state["data"].dataset
    assert sparse.issparse(first.X) and first.X.format == "csc"
    assert np.array_equal(first.X.toarray(), load_dataset(cells_bytes, label="cell_type").X)
    at.selectbox(key="minority_select").set_value(RARE_TYPE).run()
    at.selectbox(key="sample_groups").set_value("donor").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    grouped = at.session_state["data"].dataset
    assert grouped.groups_column == "donor" and grouped.X is first.X
    assert np.shares_memory(at.session_state["_of_task"]["task"][1].X.data, first.X.data)

    other = new_session()
    other.file_uploader(key="uploader").set_value(
        ("cells.h5ad", cells_bytes, "application/octet-stream")
    ).run()
    other.selectbox(key="label_column").set_value("cell_type").run()
    assert other.session_state["data"].dataset is first

    at.switch_page("dashboard/pages/stream.py").run()
    at.selectbox(key="stream_method").set_value("saola").run()
    stream_at_max_speed(at)
    assert not at.exception
    [kept] = at.session_state["streams"].values()
    assert kept.live.method == "saola" and kept.live.done
    at.switch_page("dashboard/pages/compare.py").run()
    at.multiselect(key="compare_methods").set_value(["fisher", "saola"])
    at.slider(key="compare_splits").set_value(2).run()
    click(at, "Run comparison")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.dataframe, "no results table"
    at.switch_page("dashboard/pages/genes.py").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert len(figures(at)) >= 3  # heat map, box plots, PCA
    assert at.session_state["data"].dataset.X is first.X  # still the one matrix
