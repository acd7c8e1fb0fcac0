"""The server's data directory (FSENGINE_DATA_DIR) under AppTest: listed by name, opened
(an AnnData file read backed), streamed to the same selection as the library; names
outside the list, a missing folder and a file gone since are refused in words."""

import shutil
from types import SimpleNamespace

import anndata
import pytest
from apptest_helpers import figures, open_page, session, stream_at_max_speed, workspace_id
from scipy import sparse

from conftest import ROOT
from dashboard import datadir, running
from fsengine import FSEngineError, load_dataset, run_selection
from fsengine.io.base import size_text

PBMC = ROOT / "tests" / "data" / "pbmc68k_reduced.h5ad"
ATLAS = "atlas.h5ad"
K = 3


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A data directory: the 700-cell PBMC file, a synthetic atlas (CSR, 600 cells x 200
    genes, a rare type of 24 cells), a file of another format and one that is not data."""
    from synthetic import RARE_TYPE, single_cell_anndata

    root = tmp_path_factory.mktemp("data-dir")
    shutil.copy(PBMC, root / PBMC.name)
    cells = single_cell_anndata(n_cells=600, n_genes=200, n_rare=24, n_markers=10, seed=1)
    anndata.AnnData(X=sparse.csr_matrix(cells.X), obs=cells.obs, var=cells.var).write_h5ad(
        root / ATLAS
    )
    (root / "notes.md").write_text("not data")
    (root / "small.csv").write_text("a,b,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n")
    root.joinpath("rare").write_text(RARE_TYPE)  # the rare type's name, for the tests
    return root


@pytest.fixture
def data_dir(folder, monkeypatch):
    monkeypatch.setenv(datadir.DATA_DIR, str(folder))
    monkeypatch.setenv(datadir.BACKED_FROM_MB, "0")  # every AnnData file read backed
    return folder


def _open(at, name):
    at.selectbox(key="data_dir_file").set_value(name).run()
    at.button(key="data_dir_open").click().run()
    assert not at.exception


def test_the_files_are_listed_by_name(data_dir):
    at = open_page("dashboard/pages/data.py")
    box = at.selectbox(key="data_dir_file")
    assert box.options == [
        f"{ATLAS} ({size_text((data_dir / ATLAS).stat().st_size)})",
        f"pbmc68k_reduced.h5ad ({size_text(PBMC.stat().st_size)})",
        "small.csv (34 B)",
    ]
    assert str(data_dir) not in "".join(box.options)  # names only, never the path


def test_pbmc_opens_backed_with_its_obs_columns(data_dir):
    at = open_page("dashboard/pages/data.py")
    _open(at, "pbmc68k_reduced.h5ad")
    assert any("name the obs column that holds the class" in e.value for e in at.error)
    assert "bulk_labels" in at.selectbox(key="label_column").options
    at.selectbox(key="label_column").set_value("bulk_labels").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    loaded = at.session_state["data"]
    assert loaded.name == "pbmc68k_reduced.h5ad" and loaded.dataset.is_backed
    assert len(loaded.raw) < 200  # a reference, not the file's bytes
    metrics = {m.label: m.value for m in at.metric}
    assert (metrics["Samples"], metrics["Features"]) == ("700", "765")
    assert any("block of genes at a time (backed)" in c.value for c in at.caption)
    at.switch_page("dashboard/pages/stream.py").run()  # the sidebar and another page on it
    assert not at.exception and not at.error


def test_atlas_streams_to_the_library_selection(data_dir, monkeypatch):
    rare = (data_dir / "rare").read_text()
    at = open_page("dashboard/pages/data.py")
    _open(at, ATLAS)
    at.selectbox(key="label_column").set_value("cell_type").run()
    at.selectbox(key="minority_select").set_value(rare).run()
    assert not at.exception and not at.error
    assert at.session_state["minority"] == rare
    at.switch_page("dashboard/pages/stream.py").run()
    at.slider(key="stream_kofsd_k").set_value(K).run()
    stream_at_max_speed(at)
    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Features streamed"].startswith("200 /")
    library = load_dataset(data_dir / ATLAS, label="cell_type", backed=True)
    # the dashboard's default for sparse counts ("Tied distances" on the page)
    expected = run_selection(library, rare, "kofsd", k=K, ties="average").selection
    table = next(d.value for d in at.dataframe if "rank" in d.value.columns)
    assert list(table["feature"]) == list(expected.features)

    # Genes: the selected genes' columns only, read from the file
    at.switch_page("dashboard/pages/genes.py").run()
    assert not at.exception and not at.error
    assert f"{len(expected.features)} genes" in [h.value for h in at.subheader]

    # Compare: over the budget for a copy in memory, its halves are read from disk ...
    at.switch_page("dashboard/pages/compare.py").run()
    monkeypatch.setenv(running.RUN_MEMORY_MB, "0.5")
    at.run()
    run = next(b for b in at.button if b.label == "Run comparison")
    assert not run.disabled
    # the default methods, less ReliefF and MI (they score every gene at once)
    assert "mi" not in at.session_state["compare_methods"]
    run.click().run()
    assert not at.exception and not at.error
    assert any(t.get("name") == "1-NN" for f in figures(at) for t in f["data"])


def test_only_a_ranker_of_every_gene_at_once_is_refused_over_the_budget(monkeypatch):
    """Over the budget for a copy, the protocol reads the halves from disk: only a ranker
    that scores every gene at once (mi, relieff, the D- variants) is refused, in words
    naming the memory; within the budget, nothing is."""
    atlas = SimpleNamespace(is_backed=True, n_samples=50_000, n_features=20_000)
    monkeypatch.setattr(running, "current", lambda: SimpleNamespace(dataset=atlas))
    assert running.memory_refusal("Compare", ["kofsd", "welch", "wilcoxon", "fisher"]) is None
    said = running.memory_refusal("Compare", ["kofsd", "mi"])
    assert said.startswith("Compare with MI needs the matrix in memory (50,000 x 20,000: ")
    assert "FSENGINE_RUN_MEMORY_MB" in said and "Leave it out" in said
    assert running.methods_from_disk(["kofsd", "mi", "welch", "relieff"]) == ["kofsd", "welch"]
    monkeypatch.setenv(running.RUN_MEMORY_MB, "9000")
    assert running.memory_refusal("Compare", ["kofsd", "mi"]) is None
    assert running.methods_from_disk(["kofsd", "mi"]) == ["kofsd", "mi"]


def test_a_name_outside_the_list_is_refused(data_dir, tmp_path):
    outside = tmp_path / "secret.h5ad"
    shutil.copy(PBMC, outside)
    (data_dir / "link.h5ad").symlink_to(outside)  # a link leading out of the folder
    try:
        assert "link.h5ad" not in [f.name for f in datadir.listing()]
        for name in ("link.h5ad", "../secret.h5ad", str(outside), "notes.md", ""):
            with pytest.raises(FSEngineError, match="not a data file of the data directory"):
                datadir.resolve(name)
        at = open_page("dashboard/pages/data.py")
        _open(at, "small.csv")
        # a file listed when chosen, gone when Open is pressed (the box holds its name)
        (data_dir / "small.csv").rename(data_dir / "small.csv.kept")
        try:
            at.button(key="data_dir_open").click().run()
        finally:
            (data_dir / "small.csv.kept").rename(data_dir / "small.csv")
        assert not at.exception
        assert any("not a data file of the data directory" in e.value for e in at.error)
        assert at.session_state["data"].name == "small.csv"  # still the one opened
        _open(at, ATLAS)  # and the app keeps working
        at.selectbox(key="label_column").set_value("cell_type").run()
        assert not at.exception and not at.error
        assert at.session_state["data"].name == ATLAS
    finally:
        (data_dir / "link.h5ad").unlink()


def test_a_workspace_finds_its_file_again_or_says_it_has_gone(data_dir):
    copy = data_dir / "gone.csv"
    shutil.copy(data_dir / "small.csv", copy)
    at = open_page("dashboard/pages/data.py")
    _open(at, "gone.csv")
    ws = workspace_id(at)
    again = session(ws, "dashboard/pages/data.py")  # come back later: read from the folder again
    assert again.session_state["data"].name == "gone.csv"
    assert datadir.is_reference(again.session_state["data"].raw)
    copy.unlink()
    gone = session(ws)  # the notice is shown once, on the first page
    assert any("gone.csv is no longer in the data directory" in i.value for i in gone.info)
    assert gone.session_state["data"].name == "SRBCT.parquet"


def test_a_missing_folder_is_said(monkeypatch, tmp_path):
    monkeypatch.setenv(datadir.DATA_DIR, str(tmp_path / "nowhere"))
    at = open_page("dashboard/pages/data.py")
    assert any("does not exist or is not a folder" in e.value for e in at.error)
    monkeypatch.delenv(datadir.DATA_DIR)
    at = open_page("dashboard/pages/data.py")
    assert not at.error
    assert any(datadir.DATA_DIR in c.value for c in at.caption)
