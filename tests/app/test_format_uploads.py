"""A GEO series matrix and an AnnData file uploaded on the Data page (issue 30, point 1):
the class from the only sample line with classes, the label box listing the file's sample
lines or obs columns, and, for a file with several, an error box listing them and the
choice in the box loading it."""

import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SLOW_SECONDS

SERIES = ROOT / "tests" / "data" / "glioma_series_matrix.txt.gz"
PBMC = ROOT / "tests" / "data" / "pbmc68k_reduced.h5ad"
AMBIGUOUS = "\n".join(
    [
        '!Series_title\t"two candidate lines"',
        '!Sample_geo_accession\t"GSM1"\t"GSM2"\t"GSM3"\t"GSM4"\t"GSM5"\t"GSM6"',
        '!Sample_characteristics_ch1\t"disease state: tumour"\t"disease state: tumour"'
        '\t"disease state: tumour"\t"disease state: tumour"\t"disease state: normal"'
        '\t"disease state: normal"',
        '!Sample_characteristics_ch1\t"batch: a"\t"batch: b"\t"batch: a"\t"batch: b"'
        '\t"batch: a"\t"batch: b"',
        "!series_matrix_table_begin",
        '"ID_REF"\t"GSM1"\t"GSM2"\t"GSM3"\t"GSM4"\t"GSM5"\t"GSM6"',
        '"p1"\t1\t2\t3\t4\t5\t6',
        '"p2"\t6\t5\t4\t3\t2\t1',
        '"p3"\t1\t1\t2\t2\t3\t3',
        "!series_matrix_table_end",
        "",
    ]
).encode()


@pytest.fixture
def app():
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=SLOW_SECONDS).run()


def _metrics(at):
    return {m.label: m.value for m in at.metric}


def test_a_series_matrix_loads_with_its_class_line(app):
    data = SERIES.read_bytes()
    app.file_uploader(key="uploader").set_value((SERIES.name, data, "application/gzip")).run()
    assert not app.exception and not app.error
    assert _metrics(app)["Samples"] == "50" and _metrics(app)["Features"] == "4434"
    assert app.session_state["minority"] == 2  # GLIOMA's 7-sample class
    box = app.selectbox(key="label_column")
    assert box.options == ["(automatic)", "title", "source_name_ch1", "tissue", "glioma class"]
    assert "class from the sample line 'glioma class'" in " ".join(m.value for m in app.markdown)


def test_several_class_lines_are_listed_and_the_box_chooses_one(app):
    app.file_uploader(key="uploader").set_value(("GSE1.txt", AMBIGUOUS, "text/plain")).run()
    assert not app.exception
    (error,) = [e.value for e in app.error]
    assert "GSE1.txt keeps the class in one of its sample lines:" in error
    assert "'disease state' (2 values: tumour (4), normal (2))" in error
    assert "Still using SRBCT.parquet" in error
    box = app.selectbox(key="label_column")
    assert box.options == ["(automatic)", "disease state", "batch"]
    box.set_value("disease state").run()
    assert not app.exception and not app.error
    assert _metrics(app)["Samples"] == "6" and _metrics(app)["Classes"] == "2"
    assert app.session_state["minority"] == "normal"


def test_an_h5ad_file_lists_its_obs_columns_and_loads_with_the_one_chosen(app):
    upload = (PBMC.name, PBMC.read_bytes(), "application/x-hdf5")
    app.file_uploader(key="uploader").set_value(upload).run()
    assert not app.exception
    (error,) = [e.value for e in app.error]
    assert "pbmc68k_reduced.h5ad keeps the class in one of its obs columns:" in error
    box = app.selectbox(key="label_column")
    assert box.options == ["(automatic)", "bulk_labels", "n_genes", "phase", "louvain"]
    box.set_value("bulk_labels").run()
    assert not app.exception and not app.error
    assert _metrics(app)["Samples"] == "700" and _metrics(app)["Features"] == "765"
    assert app.session_state["minority"] == "CD4+/CD45RA+/CD25- Naive T"
