"""Names that are spreadsheet formulas come out of every CSV export as text a spreadsheet
shows and never runs (a leading ``'``, OWASP's advice on CSV injection); exports without
such a name are the bytes a plain ``csv.writer`` writes."""

import csv
import io

import numpy as np
import pandas as pd
import pytest

from fsengine import load_dataset, run_selection
from fsengine.cli import main
from fsengine.export.spreadsheet import spreadsheet_safe, spreadsheet_safe_frame
from fsengine.export.writers import (
    events_to_csv,
    records_to_csv,
    reduced_matrix,
    selection_to_csv,
)
from fsengine.methods.online import Selection

#: The names the issue tried from outside, and their cells as a spreadsheet must get them.
FORMULAS = {
    '=HYPERLINK("http://example.org","x")': '\'=HYPERLINK("http://example.org","x")',
    "+1+cmd": "'+1+cmd",
    "@SUM(A1)": "'@SUM(A1)",
    "-2+3": "'-2+3",
    "\tTAB": "'\tTAB",
}


@pytest.mark.parametrize(
    "value, cell",
    [
        *FORMULAS.items(),
        ("-", "'-"),
        ("-0.5", "-0.5"),  # numbers, also as text, are numbers to a spreadsheet
        ("-inf", "-inf"),
        ("+1e-3", "+1e-3"),
        ("gene=1", "gene=1"),  # only the first character counts
        ("TP53", "TP53"),
        (-2.5, -2.5),
        (3, 3),
        (None, None),
    ],
)
def test_a_cell_starting_like_a_formula_is_quoted(value, cell):
    assert spreadsheet_safe(value) == cell


def _formula_table(rng) -> bytes:
    """12 samples, 2 classes; the formula-named genes carry the class, 3 others noise."""
    y = np.repeat([0, 1], [8, 4])
    names = [*FORMULAS, "noise_a", "noise_b", "noise_c"]
    X = rng.normal(size=(12, len(names)))
    X[:, : len(FORMULAS)] += 3.0 * y[:, None] * np.arange(1, len(FORMULAS) + 1)
    frame = pd.DataFrame(X, columns=names)
    frame.insert(0, "class", y)
    return frame.to_csv(index=False).encode()


def _cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_the_command_line_writes_formula_names_as_text(tmp_path, capsys):
    data = tmp_path / "formulas.csv"
    data.write_bytes(_formula_table(np.random.default_rng(0)))
    out, trace = tmp_path / "selected.csv", tmp_path / "trace.csv"
    code = main(
        ["select", str(data), "--minority", "1", "--method", "ofs-fpd"]
        + ["--out", str(out), "--trace", str(trace)]
    )
    assert code == 0, capsys.readouterr().err
    selected = [row[1] for row in _cells(out.read_text())[1:]]
    assert selected and set(selected) <= set(FORMULAS.values()) | {"noise_a", "noise_b"}
    traced = [row[1] for row in _cells(trace.read_text())[1:]]
    assert traced == [FORMULAS.get(n, n) for n in (*FORMULAS, "noise_a", "noise_b", "noise_c")]
    for text in (out.read_text(), trace.read_text()):
        for row in _cells(text):
            assert not any(c.startswith(("=", "+", "@", "\t")) for c in row), row
            assert not any(c.startswith("-") and not _number(c) for c in row), row


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_the_reduced_matrix_quotes_names_labels_and_sample_names():
    frame = pd.DataFrame(
        {"sample": ["=cmd|' /C calc'!A0", "s2", "s3", "s4"], "class": ["@x", "b", "@x", "b"]}
    )
    frame["-2+3"] = [1.0, -2.0, 3.0, -4.0]
    frame["TP53"] = [0.5, -0.5, 0.25, -0.25]
    ds = load_dataset(frame.to_csv(index=False).encode(), name="m.csv", label="class")
    both = Selection("ofs-fpd", ("-2+3", "TP53"), (0, 1), (0.9, 0.8))
    assert reduced_matrix(ds, both, "csv").decode() == (
        "sample,'-2+3,TP53,class\n"
        "'=cmd|' /C calc'!A0,1.0,0.5,'@x\n"
        "s2,-2.0,-0.5,b\n"
        "s3,3.0,0.25,'@x\n"
        "s4,-4.0,-0.25,b\n"
    )


def test_exports_without_such_a_name_are_a_plain_csv_writers_bytes(srbct):
    """SRBCT's exports, written again here with the standard library's writer."""
    result = run_selection(srbct, 2, "kofsd")
    plain = io.StringIO()
    writer = csv.writer(plain, lineterminator="\n")
    writer.writerow(("rank", "feature", "column_index", "score", "method", "status"))
    for rank, (name, column, score) in enumerate(
        zip(result.selection.features, result.selection.columns, result.selection.scores), 1
    ):
        writer.writerow([rank, name, column, repr(float(score)), "kofsd", "selected"])
    assert selection_to_csv(result.selection) == plain.getvalue()
    trace = events_to_csv(result.events, "kofsd")
    assert all(not c.startswith("'") for row in _cells(trace) for c in row)
    records = [{"method": "kofsd", "split": 0, "gmean": -0.0, "note": "-"}]
    assert records_to_csv(records) == "method,split,gmean,note\nkofsd,0,-0.0,'-\n"


def test_a_frame_is_quoted_in_cells_columns_and_index():
    frame = pd.DataFrame({"=a": ["+b", "c"], "d": [-1.0, 2.0]}, index=["@i", "j"])
    safe = spreadsheet_safe_frame(frame)
    assert safe.to_csv() == ",'=a,d\n'@i,'+b,-1.0\nj,c,2.0\n"
    assert frame.columns.tolist() == ["=a", "d"]  # the frame itself is unchanged
