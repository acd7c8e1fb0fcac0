"""The Data page's AnnData boxes (issue 30): an uploaded .h5ad file offers its layers and
its var columns; choosing the counts layer and the gene symbols reads the data set as the
library does with --layer / --gene-names, the run record names them, a later session
reloads them, and a table has no such boxes."""

import anndata
import numpy as np
import pandas as pd
import pytest
from apptest_helpers import session as new_session
from apptest_helpers import workspace_id
from scipy import sparse

from dashboard import workspace
from fsengine import load_dataset

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
    assert np.array_equal(loaded.dataset.X, load_dataset(h5ad_bytes, name="cells.h5ad").X)

    at.selectbox(key="anndata_layer").set_value("counts").run()
    at.selectbox(key="anndata_gene_names").set_value("symbol").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    loaded = at.session_state["data"]
    expected = load_dataset(h5ad_bytes, name="cells.h5ad", layer="counts", gene_names="symbol")
    assert np.array_equal(loaded.dataset.X, expected.X)
    assert (
        loaded.dataset.feature_names == expected.feature_names == tuple(f"SYM{j}" for j in range(P))
    )
    assert loaded.anndata == {"layer": "counts", "gene_names": "symbol"}
    assert at.session_state["_task"][1].record()["layer"] == "counts"

    wid = workspace_id(at)
    workspace.reset_default_store()  # as after a server restart
    again = new_session(wid)
    assert again.session_state["data"].anndata == {"layer": "counts", "gene_names": "symbol"}
    assert again.selectbox(key="anndata_layer").value == "counts"
    assert np.array_equal(again.session_state["data"].dataset.X, expected.X)
