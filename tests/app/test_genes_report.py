"""The Genes page and the report under AppTest, on the bundled SRBCT sample (minority BL)."""

import io
import zipfile
from html.parser import HTMLParser

import pytest
from apptest_helpers import SAMPLE_K
from apptest_helpers import click as _click
from apptest_helpers import figures as _figures
from apptest_helpers import open_page as _open

from conftest import SAMPLE
from fsengine import run_selection
from fsengine.evaluation.genes import gene_statistics
from fsengine.export.report import dataset_checksum


@pytest.fixture(scope="module")
def genes_page():
    """Compare (kofsd, fisher; 2 splits) then the Genes page."""
    at = _open("dashboard/pages/compare.py")
    at.multiselect(key="compare_methods").set_value(["kofsd", "fisher"])
    at.slider(key="compare_splits").set_value(2).run()
    _click(at, "Run comparison")
    at.switch_page("dashboard/pages/genes.py").run()
    assert not at.exception
    return at


def test_genes_lists_every_selection_of_the_session(genes_page):
    options = genes_page.selectbox(key="genes_source").options
    assert options == ["Compare: K-OFSD (whole data set)", "Compare: Fisher (whole data set)"]


def test_genes_table_heat_map_and_box_plots_have_one_row_or_trace_per_gene(genes_page, srbct):
    genes = list(run_selection(srbct, 2, "kofsd", k=SAMPLE_K).selection.features)
    table = genes_page.dataframe[0].value
    assert list(table["gene"]) == genes
    expected = gene_statistics(srbct, 2, genes)
    assert list(table["p_bh"]) == pytest.approx(list(expected["p_bh"]), nan_ok=True)
    heat, box, pca = _figures(genes_page)[:3]
    assert sorted(heat["data"][1]["y"]) == sorted(genes)  # one row per gene
    assert len(box["data"]) == len(genes)  # one trace per gene
    assert {t["type"] for t in box["data"]} == {"box"}
    assert any("Benjamini-Hochberg" in c.value for c in genes_page.caption)
    genes_page.radio(key="genes_kind").set_value("violin").run()
    assert {t["type"] for t in _figures(genes_page)[1]["data"]} == {"violin"}


def test_genes_shows_a_fisher_selection_too(genes_page, srbct):
    genes_page.selectbox(key="genes_source").set_value("Compare: Fisher (whole data set)").run()
    kofsd = run_selection(srbct, 2, "kofsd", k=SAMPLE_K).selection
    fisher = run_selection(srbct, 2, "fisher", top=len(kofsd)).selection
    assert list(genes_page.dataframe[0].value["gene"]) == list(fisher.features)


def test_order_stability_in_the_app_equals_the_library(genes_page, srbct):
    from fsengine.evaluation.stability import order_stability

    genes_page.slider(key="genes_stability_orders").set_value(3).run()
    _click(genes_page, "Run the orders")
    expected = order_stability(srbct, 2, "kofsd", orders=3, seed=0, k=SAMPLE_K)
    metrics = {m.label: m.value for m in genes_page.metric}
    assert metrics["Mean Jaccard"] == f"{expected.mean_jaccard:.3f}"


def test_genes_without_a_selection_says_where_to_make_one():
    at = _open("dashboard/pages/genes.py")
    assert any("No selection yet" in i.value for i in at.info)


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.text = []

    def handle_data(self, data):
        self.text.append(data)


def test_the_report_names_the_checksum_and_holds_the_comparison(genes_page):
    genes_page.switch_page("dashboard/pages/export.py").run()
    _click(genes_page, "Build the report")
    stem, html, archive, sections = genes_page.session_state["export_report_files"]
    assert sections == 1
    parser = _Text()
    parser.feed(html.decode())
    text = " ".join(parser.text)
    assert dataset_checksum(SAMPLE.read_bytes()) in text
    assert "SRBCT.parquet" in text and "83" in text and "2308" in text
    assert "seuclidean" in text and "imbalanced" in text  # K-OFSD's parameters
    assert html.count(b"plotly.js v") == 1 and b'src="http' not in html
    with zipfile.ZipFile(io.BytesIO(archive)) as opened:
        names = opened.namelist()
        assert f"{stem}/report.html" in names
        assert opened.read(f"{stem}/report.html") == html
        records = [n for n in names if n.endswith("_records.csv")]
        assert len(records) == 1
        header = opened.read(records[0]).decode().splitlines()[0]
        assert header.startswith("method,split,") and "settings" in header
    labels = [d.label for d in genes_page.get("download_button")]
    assert "Download the report (ZIP: HTML and CSVs)" in labels
