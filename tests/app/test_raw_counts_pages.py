"""Raw counts on the pages (issue 40, point 2): the Data page says that a 90 %-zero integer
matrix looks like raw counts and suggests log1p-CPM with its Apply button, as it does for
unlogged values; Compare and Export warn when a ranker that assumes normalised values
would run on them. Before, the single-cell file's counts passed without a word."""

import numpy as np
import pytest
from apptest_helpers import click
from apptest_helpers import session as new_session

from synthetic import RARE_TYPE, single_cell_anndata

SUGGESTED = "Apply the suggested preprocessing (transform=log1p-cpm)"


@pytest.fixture(scope="module")
def counts_bytes(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("cells") / "cells.h5ad"
    single_cell_anndata(n_cells=1500, n_genes=60).write_h5ad(path)
    return path.read_bytes()


def _warnings(at, text):
    return [w.value for w in at.warning if text in w.value]


def test_the_data_page_suggests_log1p_cpm_for_raw_counts(counts_bytes):
    at = new_session()
    at.file_uploader(key="uploader").set_value(
        ("cells.h5ad", counts_bytes, "application/octet-stream")
    ).run()
    at.selectbox(key="label_column").set_value("cell_type").run()  # obs: cell_type, donor
    assert not at.exception and not at.error, [e.value for e in at.error]
    note = next(i.value for i in at.info if "look like raw counts" in i.value)
    assert note.startswith("The values are non-negative integers, ")
    assert (
        "of them zeros" in note
        and "Fisher, S2N, PCC, Welch t, D-Fisher, D-PCC and D-S2N assume" in note
    )
    assert "**transform=log1p-cpm**" in note and "`--transform log1p-cpm`" in note
    raw = at.session_state["data"].dataset.X  # sparse: the dashboard keeps it so
    raw = raw.toarray() if hasattr(raw, "toarray") else raw
    at.session_state["minority"] = RARE_TYPE
    at.run()

    # Compare with Welch (assumes normalised values) and Wilcoxon (ranks only) chosen
    at.switch_page("dashboard/pages/compare.py").run()
    at.multiselect(key="compare_methods").set_value(["welch", "wilcoxon"]).run()
    assert not at.exception
    [warning] = _warnings(at, "raw counts")
    assert warning.startswith("Welch t assumes normalised values")
    at.multiselect(key="compare_methods").set_value(["wilcoxon"]).run()
    assert _warnings(at, "raw counts") == []

    at.switch_page("dashboard/pages/data.py").run()
    click(at, SUGGESTED)
    loaded = at.session_state["data"]
    assert loaded.preprocessing == {"transform": "log1p-cpm"}
    totals = np.maximum(raw.sum(axis=1, keepdims=True), 1)
    after = loaded.dataset.X
    after = after.toarray() if hasattr(after, "toarray") else after
    assert np.allclose(after, np.log1p(raw / totals * 1e6))  # by hand
    assert not any("raw counts" in i.value for i in at.info)
    at.switch_page("dashboard/pages/compare.py").run()
    at.multiselect(key="compare_methods").set_value(["welch"]).run()
    assert not at.exception and _warnings(at, "raw counts") == []
