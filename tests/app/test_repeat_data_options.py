"""The Export page's repeat command line and the report name how the data were read (issue
30): a table read with its sample sheet, log2-transformed and grouped by patient on the
Data page gives a command line whose run on the same two files writes the page's CSV."""

import shlex

import numpy as np
import pandas as pd
import pytest
from apptest_helpers import click
from apptest_helpers import session as new_session

from fsengine.cli import main
from fsengine.export.writers import selection_to_csv

N, P = 40, 30
IDS = [f"S{k:02d}" for k in range(N)]
DIAGNOSIS = ["tumour"] * 10 + ["normal"] * 30
PATIENTS = ["t0"] * 4 + ["t1"] * 2 + ["t2"] * 2 + ["t3"] * 2 + [f"n{k // 2}" for k in range(30)]
SUGGESTED = "Apply the suggested preprocessing (transform=log2, offset=0.0)"


def _table() -> bytes:
    """Raw intensities (unlogged), the tumours' first genes raised."""
    rng = np.random.default_rng(5)
    values = np.exp(rng.uniform(3.0, 11.0, size=(N, P)))
    values[:10, :6] *= rng.uniform(1.0, 8.0, size=(10, 6))
    frame = pd.DataFrame(np.round(values, 1), columns=[f"g{j}" for j in range(P)])
    frame.insert(0, "sample", IDS)
    return frame.to_csv(index=False).encode()


def _sheet() -> bytes:
    frame = pd.DataFrame({"sample_id": IDS, "patient": PATIENTS, "diagnosis": DIAGNOSIS})
    return frame.iloc[::-1].to_csv(sep="\t", index=False).encode()


def _upload(at, key: str, name: str, data: bytes):
    at.file_uploader(key=key).set_value((name, data, "text/csv")).run()
    assert not at.exception


@pytest.fixture
def exported():
    """Table, sheet, label 'diagnosis', groups 'patient', the suggested log2; then the
    Export page's Fisher top 10 on class tumour."""
    at = new_session()
    _upload(at, "uploader", "expression.csv", _table())
    _upload(at, "sheet_uploader", "samples.tsv", _sheet())
    if at.session_state["data"].label != "diagnosis":
        at.selectbox(key="label_column").set_value("diagnosis").run()
    at.selectbox(key="sample_groups").set_value("patient").run()
    click(at, SUGGESTED)
    loaded = at.session_state["data"]
    assert loaded.preprocessing == {"transform": "log2"} and loaded.sample_groups == "patient"
    at.session_state["minority"] = "tumour"
    at.switch_page("dashboard/pages/export.py").run()
    at.selectbox(key="export_method").set_value("fisher").run()
    at.number_input(key="export_top").set_value(10).run()
    at.button(key="export_compute").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def _cli(words, cwd, capsys, monkeypatch) -> str:
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    assert main(words) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_the_command_line_reads_the_sheet_groups_and_preprocessing(
    exported, tmp_path, capsys, monkeypatch
):
    at = exported
    [result] = at.session_state["export_results"]["results"].values()
    page_csv = selection_to_csv(result.selection)
    [code] = at.code
    words = shlex.split(code.value)
    assert words[:4] == ["python", "-m", "fsengine", "select"]
    text = " ".join(words)
    for given in (
        "expression.csv",
        "--label diagnosis",
        "--samples samples.tsv",
        "--sample-groups patient",
        "--transform log2 --offset 0.0",
        "--minority tumour",
        "--method fisher",
        "--top 10",
    ):
        assert given in text, (given, text)
    (tmp_path / "expression.csv").write_bytes(_table())
    (tmp_path / "samples.tsv").write_bytes(_sheet())
    assert _cli(words[3:], tmp_path, capsys, monkeypatch) == page_csv
    # not vacuous: without the log2 the selection differs
    plain = [w for w in words[3:] if w not in ("--transform", "log2", "--offset", "0.0")]
    assert _cli(plain, tmp_path, capsys, monkeypatch) != page_csv
    assert "sample sheet samples.tsv" in next(c.value for c in at.caption if "folder" in c.value)


def test_the_report_names_how_the_data_were_read(exported):
    at = exported
    click(at, "Build the report")
    html = at.session_state["export_report_files"][1].decode()
    assert (
        "--label diagnosis --samples samples.tsv --sample-groups patient "
        "--transform log2 --offset 0.0"
    ) in html


def test_a_study_of_the_current_data_set_records_its_preprocessing(exported):
    from conftest import GLIOMA

    at = exported
    at.switch_page("dashboard/pages/benchmark.py").run()
    glioma = ("GLIOMA.parquet", GLIOMA.read_bytes(), "application/octet-stream")
    at.file_uploader[0].set_value([glioma]).run()
    at.multiselect(key="benchmark_methods").set_value(["fisher", "s2n"])
    at.slider(key="benchmark_splits").set_value(2)
    at.radio(key="benchmark_engine").set_value("serial").run()
    click(at, "Run the study")
    assert not at.error, [e.value for e in at.error]
    [result] = at.session_state["benchmark_results"].values()
    first = result["study"]["datasets"][0]
    assert first["name"] == "expression.csv" or first["name"].startswith("expression")
    assert first["preprocessing"] == "transform=log2, offset=0.0"
    assert first["sample_groups"] == "patient"
    assert "preprocessing" not in result["study"]["datasets"][1]  # GLIOMA: none
