"""Files far wider than their kind ever is are refused from their first bytes, before a
parser spends minutes and gigabytes on them (issue 43, point 3: a sample sheet or GEO
file of 10^6 columns took 150 s and 8 GB, or over 10 minutes and 7 GB); a series matrix
whose lines are longer than Arrow's 1 MB block is read."""

import gzip
import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fsengine import FSEngineError, load_dataset
from fsengine.cli import main
from fsengine.io.geo import MAX_SERIES_SAMPLES
from fsengine.io.sample_sheet import MAX_SHEET_COLUMNS

IDS = [f"s{i}" for i in range(6)]
TABLE = ("id,g1,g2\n" + "".join(f"{i},{k}.5,{k % 2}.25\n" for k, i in enumerate(IDS))).encode()


def _sheet(columns: int) -> bytes:
    """A sheet of the 6 samples: id, label, then ``columns - 2`` more annotation columns."""
    extra = [f"c{j}" for j in range(columns - 2)]
    lines = [",".join(["id", "label", *extra])]
    lines += [",".join([i, "ab"[k % 2], *("x" * len(extra))]) for k, i in enumerate(IDS)]
    return ("\n".join(lines) + "\n").encode()


def _parquet_sheet(columns: int) -> bytes:
    arrays = {"id": IDS, "label": ["a", "b"] * 3}
    arrays.update({f"c{j}": ["x"] * 6 for j in range(columns - 2)})
    out = io.BytesIO()
    pq.write_table(pa.table(arrays), out)
    return out.getvalue()


def test_a_sheet_at_the_limit_is_read():
    ds = load_dataset(TABLE, name="t.csv", samples=_sheet(MAX_SHEET_COLUMNS), label="label")
    assert ds.class_counts() == {"a": 3, "b": 3}


@pytest.mark.parametrize("form", ["csv", "gzip", "parquet"])
def test_a_sheet_over_the_limit_is_refused_before_it_is_parsed(form):
    columns = MAX_SHEET_COLUMNS + 1
    sheet = {
        "csv": lambda: _sheet(columns),
        "gzip": lambda: gzip.compress(_sheet(columns)),
        "parquet": lambda: _parquet_sheet(columns),
    }[form]()
    with pytest.raises(FSEngineError) as refused:
        load_dataset(TABLE, name="t.csv", samples=sheet, samples_name="wide", label="label")
    message = str(refused.value)
    assert message.startswith("samples wide has ") and " columns; a sample sheet holds" in message
    assert "10,001 columns" in message or "at least" in message


def test_the_command_line_refuses_a_wide_sheet_in_one_line(tmp_path, capsys):
    (tmp_path / "t.csv").write_bytes(TABLE)
    (tmp_path / "sheet.csv").write_bytes(_sheet(MAX_SHEET_COLUMNS + 1))
    argv = ["select", str(tmp_path / "t.csv"), "--samples", str(tmp_path / "sheet.csv")]
    assert main([*argv, "--label", "label", "--minority", "a"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--samples sheet.csv has" in err


def _series(samples: int, id_length: int = 8) -> bytes:
    names = [f"GSM{j:0{id_length}d}" for j in range(samples)]
    classes = "\t".join(f'"class: {"ab"[j % 2]}"' for j in range(samples))
    lines = ['!Series_title\t"wide"', f"!Sample_characteristics_ch1\t{classes}"]
    lines += ["!series_matrix_table_begin", '"ID_REF"\t' + "\t".join(f'"{n}"' for n in names)]
    rng = np.random.default_rng(0)
    for p in range(2):
        lines.append(f'"p{p}"\t' + "\t".join(f"{v:.6f}" for v in rng.normal(size=samples)))
    lines.append("!series_matrix_table_end")
    return ("\n".join(lines) + "\n").encode()


def test_a_series_matrix_of_lines_over_a_megabyte_is_read():
    text = _series(40_000, id_length=24)  # a header line of 1.2 MB
    assert text.index(b"\n", text.index(b'"ID_REF"')) - text.index(b'"ID_REF"') > 2**20
    ds = load_dataset(text, name="GSE9_series_matrix.txt", label="class")
    assert ds.X.shape == (40_000, 2) and ds.class_counts() == {"a": 20_000, "b": 20_000}


def test_a_series_matrix_of_too_many_samples_is_refused():
    with pytest.raises(
        FSEngineError, match=r"table has 50,001 sample columns, more than the 50,000"
    ):
        load_dataset(_series(MAX_SERIES_SAMPLES + 1), name="GSE9_series_matrix.txt", label="class")
