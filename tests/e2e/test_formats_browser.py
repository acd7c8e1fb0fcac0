"""Users' own formats through the uploader and back, in Chromium against `streamlit run app.py`
(issue 30, point 1): a GEO series matrix loads with its class line; an AnnData file is
refused with its obs columns listed, choosing one in the 'Label column' box loads it, and
the Export page's .h5ad download is that object with the selection in it (point 5)."""

from __future__ import annotations

import anndata
import pytest

from conftest import ROOT
from fsengine import load_dataset, run_selection
from tests.e2e.test_browser import (
    TIMEOUT_MS,
    choose,
    download,
    idle,
    no_exception,
    open_app,
    open_page,
    screenshot,
    upload,
    wait_for_metric,
)

pytestmark = pytest.mark.e2e

DATA = ROOT / "tests" / "data"
PBMC = DATA / "pbmc68k_reduced.h5ad"
RARE = "CD4+/CD45RA+/CD25- Naive T"


def test_a_series_matrix_and_an_h5ad_file_through_the_uploader(page, server, screenshots, tmp_path):
    open_app(page, server)
    upload(page, DATA / "glioma_series_matrix.txt.gz")
    wait_for_metric(page, "Features", "4434")
    assert "class from the sample line 'glioma class'" in page.get_by_test_id("stMain").inner_text()
    no_exception(page, "Data, series matrix")

    upload(page, PBMC)
    error = page.get_by_test_id("stAlertContentError").filter(has_text="pbmc68k_reduced.h5ad")
    error.first.wait_for(timeout=TIMEOUT_MS)
    text = error.first.inner_text()
    assert "keeps the class in one of its obs columns" in text and "'bulk_labels'" in text
    idle(page)
    screenshot(page, screenshots, "issue30-h5ad-obs-columns")
    choose(page, "Label column", "bulk_labels")
    wait_for_metric(page, "Features", "765")
    wait_for_metric(page, "Samples", "700")
    sidebar = page.get_by_test_id("stSidebar").inner_text()
    assert "minority class: CD4+/CD45RA+/CD25- Naive T" in sidebar  # the default: 8 cells
    screenshot(page, screenshots, "issue30-h5ad-loaded")
    no_exception(page, "Data, AnnData")

    # Export: K-OFSD's selection back into the uploaded object, as the command line writes it
    open_page(page, "Export")
    page.get_by_role("button", name="Compute selection").click()
    idle(page)
    path = tmp_path / "downloaded.h5ad"
    path.write_bytes(download(page, "Download as AnnData (.h5ad)"))
    adata = anndata.read_h5ad(path)
    assert adata.shape == (700, 765) and "X_umap" in adata.obsm  # the uploaded object
    expected = run_selection(load_dataset(PBMC, label="bulk_labels"), RARE, "kofsd").selection
    assert list(adata.var.index[adata.var["kofsd_selected"]]) == sorted(
        expected.features, key=list(adata.var.index).index
    )
    assert list(adata.uns["fsengine_kofsd"]["names"][RARE]) == list(expected.features)
    no_exception(page, "Export, AnnData")
