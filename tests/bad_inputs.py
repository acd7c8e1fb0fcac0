"""A corpus of bad (and awkward but usable) input files, generated on demand.

``corpus(tmp_dir)`` writes every case into ``tmp_dir`` and returns them as :class:`Case`
records; nothing binary is committed. Each case says what must happen:

* ``expected == "error"``: loading raises :class:`fsengine.FSEngineError` whose message
  contains ``fragment`` and whose fields (``column``, ``row``, ``remedy_option`` ...) are
  ``fields``; the command line exits 2 with one line on stderr; the app shows the message
  and keeps the previous data set. An option the message suggests is written
  ``{transpose}`` in ``fragment``: each front end names it in its own words
  (:meth:`Case.message`): ``transpose=True`` in the library, ``--transpose`` on the command
  line, the 'Genes in rows (transpose)' toggle in the app.
* ``expected == "warning"`` (parameter cases): the file loads; the command line exits 2
  with ``fragment`` in its error line, or exits 0 with ``fragment`` in a warning line.
* ``expected == "usable"``: the file loads to ``shape`` (samples, features) with
  ``class_counts``; the command line exits 0; the app shows the new data set.
* ``kind == "parameter"``: the file is fine, the *parameters* are not (a minority class
  of one sample, K at or above the minority class size). ``cli`` holds the command line
  (after the path) that must exit 2 with ``fragment`` in its one stderr line.

The two large cases (100,000 columns, a file over the upload limit) are only generated
with ``large=True`` (and the upload-limit one only with ``huge=True``: it writes more
than 300 MB).
"""

from __future__ import annotations

import gzip
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

#: The app's upload limit (server.maxUploadSize in .streamlit/config.toml), in MB.
UPLOAD_LIMIT_MB = 300

#: The command line's flags for the options the corpus's messages suggest.
CLI_FLAGS = {
    "transpose": "--transpose",
    "label": "--label",
    "minority": "--minority",
    "drop_constant": "--drop-constant",
}


@dataclass
class Case:
    name: str
    filename: str
    data: bytes | None  # None for cases only written to ``path`` (huge)
    expected: str  # "error", "usable" or "warning" (parameter cases)
    fragment: str = ""  # the error message must contain this ({option}s worded)
    fields: dict = field(default_factory=dict)  # the error's fields ("hint.remedy_option")
    shape: tuple[int, int] | None = None  # usable: (samples, features)
    class_counts: dict | None = None  # usable: as Dataset.class_counts()
    kind: str = "loader"  # "loader" or "parameter"
    cli: list[str] = field(default_factory=list)  # extra CLI arguments after the path
    load_kwargs: dict = field(default_factory=dict)
    X_head: np.ndarray | None = None  # usable: expected first rows of X (exact)
    path: Path | None = None
    large: bool = False

    @property
    def app_label(self) -> str | None:
        return self.load_kwargs.get("label")

    def message(self, words) -> str:
        """``fragment`` with each ``{option}`` spelled by ``words`` (option name -> text)."""
        return re.sub(r"\{(\w+)\}", lambda m: words(m.group(1)), self.fragment)

    def field_values(self, exc) -> dict:
        """The error's values of the fields in ``fields`` (a dotted name reads the hint's)."""
        values = {}
        for name in self.fields:
            value = exc
            for part in name.split("."):
                value = getattr(value, part, None)
            values[name] = value
        return values


# ------------------------------------------------------------------ the base matrix

N, P = 12, 5
CLASSES = ["a", "b", "b", "a", "b", "b", "a", "b", "b", "a", "b", "b"]  # a:4, b:8
GENES = [f"g{j + 1}" for j in range(P)]
BASE_X = np.round(np.random.default_rng(7).normal(size=(N, P)) * 10, 2)
BASE_COUNTS = {"b": 8, "a": 4}


def _cell(v: float) -> str:
    return repr(float(v))


def rows_text(header, rows, sep=",") -> str:
    return "".join(sep.join(map(str, r)) + "\n" for r in [header, *rows])


def base_rows(X=BASE_X, labels=CLASSES):
    return [[*map(_cell, x), c] for x, c in zip(X, labels)]


def base_csv(sep=",", header=None, X=BASE_X, labels=CLASSES) -> str:
    return rows_text(header or [*GENES, "label"], base_rows(X, labels), sep)


def _parquet(table: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def _set(text: str, row: int, col: int, value: str, sep=",") -> str:
    """Replace one data cell (0-based data row, column) of delimited text."""
    lines = text.split("\n")
    cells = lines[row + 1].split(sep)
    cells[col] = value
    lines[row + 1] = sep.join(cells)
    return "\n".join(lines)


def _genes_in_rows(
    n_genes=120, labels=CLASSES, numeric_labels=False, label_row="class", gene_suffix="_at"
) -> str:
    rng = np.random.default_rng(3)
    samples = [f"GSM{100 + i}" for i in range(len(labels))]
    lines = [",".join(["ID_REF", *samples])]
    for g in range(n_genes):
        lines.append(
            ",".join(
                [f"{1000 + g}{gene_suffix}", *map(_cell, np.round(rng.normal(size=len(labels)), 3))]
            )
        )
    cells = [str(int(c == "a")) for c in labels] if numeric_labels else labels
    lines.append(",".join([label_row, *cells]))
    return "\n".join(lines) + "\n"


def _wide(n_columns=100_000, n_rows=10) -> bytes:
    rng = np.random.default_rng(5)
    X = rng.integers(0, 1000, size=(n_rows, n_columns - 1))
    header = ",".join([f"g{j}" for j in range(n_columns - 1)] + ["label"])
    labels = ["a", "b"] * (n_rows // 2)
    body = "\n".join(",".join(map(str, x)) + "," + c for x, c in zip(X, labels))
    return (header + "\n" + body + "\n").encode()


def _write_over_limit(path: Path, limit_mb: int = UPLOAD_LIMIT_MB) -> tuple[int, int]:
    """A valid CSV a little over ``limit_mb`` MB, written in blocks; returns its shape."""
    p = 200
    rng = np.random.default_rng(11)
    block_rows = 200
    header = ",".join([f"g{j}" for j in range(p)] + ["label"]) + "\n"
    values = rng.integers(100000, 999999, size=(block_rows, p)) / 1000  # 7 characters each
    block = "".join(
        ",".join(f"{v:.3f}" for v in x) + ("," + ("a" if i % 4 == 0 else "b")) + "\n"
        for i, x in enumerate(values)
    ).encode()
    target = limit_mb * 1024 * 1024 + 1
    n_blocks = -(-(target - len(header)) // len(block))
    with open(path, "wb") as handle:
        handle.write(header.encode())
        for _ in range(n_blocks):
            handle.write(block)
    return n_blocks * block_rows, p


def gzip_bomb(expanded: int, member: int = 2**26) -> bytes:
    """A gzip file of ``b"0,0,..."`` (a table's worth of zeros) that expands to at least
    ``expanded`` bytes: members of ``member`` bytes, each compressed once and repeated
    (gzip reads concatenated members as one stream); about 1/1000 of its size."""
    one = gzip.compress(b"0," * (member // 2), compresslevel=9, mtime=0)
    return one * -(-expanded // member)


# ------------------------------------------------------------------ the corpus


def corpus(tmp_dir, large: bool = False, huge: bool = False) -> list[Case]:
    """Every case, written to ``tmp_dir`` (``Case.path``)."""
    tmp_dir = Path(tmp_dir)
    csv = base_csv()
    head = BASE_X[:3]
    base_parquet = _parquet(
        pa.table({**{g: BASE_X[:, j] for j, g in enumerate(GENES)}, "label": CLASSES})
    )
    E, U = "error", "usable"
    cases = [
        Case("empty", "empty.csv", b"", E, "is empty"),
        Case(
            "header-only",
            "header.csv",
            (",".join([*GENES, "label"]) + "\n").encode(),
            E,
            "has a header but no data rows",
        ),
        Case(
            "one-column",
            "one_column.csv",
            ("g1\n" + "\n".join(map(_cell, BASE_X[:, 0])) + "\n").encode(),
            E,
            "no feature columns besides the label column 'g1'",
            fields={"column": "g1"},
        ),
        Case(
            "only-label",
            "only_label.csv",
            ("label\n" + "\n".join(CLASSES) + "\n").encode(),
            E,
            "no feature columns besides the label column 'label'",
            fields={"column": "label"},
        ),
        Case(
            "text-in-feature",
            "text.csv",
            _set(csv, 4, 2, "high").encode(),
            E,
            "feature column 'g3', row 5 (line 6 of the file): 'high' is not a number",
            fields={"column": "g3", "row": 5},
        ),
        Case(
            "comma-decimal",
            "comma_decimal.csv",
            base_csv(sep=";").replace(".", ",").encode(),
            E,
            "comma decimal separator",
        ),
        Case(
            "semicolon",
            "semicolon.csv",
            base_csv(sep=";").encode(),
            U,
            shape=(N, P),
            class_counts=BASE_COUNTS,
            X_head=head,
        ),
        Case(
            "nan",
            "nan.csv",
            _set(csv, 2, 1, "NaN").encode(),
            E,
            "feature column 'g2', row 3 (line 4 of the file): missing value",
            fields={"column": "g2", "row": 3},
        ),
        Case(
            "inf",
            "inf.csv",
            _set(csv, 6, 0, "inf").encode(),
            E,
            "feature column 'g1', row 7 (line 8 of the file): infinite value",
            fields={"column": "g1", "row": 7},
        ),
        Case(
            "identical-rows",
            "identical.csv",
            base_csv(X=np.repeat(BASE_X[:1], N, axis=0)).encode(),
            E,
            "every feature is constant",
        ),
        Case(
            "constant-features",
            "constant.csv",
            base_csv(X=np.tile(BASE_X[0], (N, 1)) * 0 + np.arange(P)).encode(),
            E,
            "every feature is constant",
        ),
        Case(
            "constant-features-dropped",
            "constant.csv",
            base_csv(X=np.tile(BASE_X[0], (N, 1)) * 0 + np.arange(P)).encode(),
            E,
            "every feature is constant",
            cli=["--drop-constant"],
            load_kwargs={"drop_constant": True},
        ),
        Case(
            "one-class",
            "one_class.csv",
            base_csv(labels=["a"] * N).encode(),
            E,
            "single class ('a'); at least two classes are needed",
            fields={"column": "label"},
        ),
        Case(
            "minority-of-one",
            "minority_one.csv",
            base_csv(labels=["c"] + CLASSES[1:]).encode(),
            E,
            "'c' names a class of only 1 sample",
            kind="parameter",
            fields={"parameter": "minority"},
            cli=["--minority", "c"],
        ),
        # K-OFSD with K >= the minority class size: a parameter problem, the CLI must
        # exit 2 or warn (one "fsengine: warning:" line naming K); the file itself is fine.
        Case(
            "k-at-minority-size",
            "k_minority.csv",
            csv.encode(),
            "warning",
            "K = 4",
            shape=(N, P),
            class_counts=BASE_COUNTS,
            kind="parameter",
            cli=["--minority", "a", "--k", "4"],
        ),
        Case(
            "k-above-minority-size",
            "k_above.csv",
            csv.encode(),
            "warning",
            "K = 9",
            shape=(N, P),
            class_counts=BASE_COUNTS,
            kind="parameter",
            cli=["--minority", "a", "--k", "9"],
        ),
        Case(
            "duplicate-columns",
            "duplicates.csv",
            base_csv(header=["g1", "g2", "g1", "g4", "g5", "label"]).encode(),
            E,
            "duplicate column names: 'g1'",
        ),
        Case(
            "unnamed-middle-column",
            "unnamed.csv",
            base_csv(header=["g1", "g2", "", "g4", "g5", "label"]).encode(),
            E,
            "column 3 (after 'g2') has no name",
            fields={"column": ""},
        ),
        Case(
            "unnamed-first-column-row-index",
            "pandas_index.csv",
            rows_text(["", *GENES, "label"], [[i, *r] for i, r in enumerate(base_rows())]).encode(),
            U,
            shape=(N, P),
            class_counts=BASE_COUNTS,
            X_head=head,
        ),
        Case(
            "numeric-label-60-values",
            "survival.csv",
            rows_text(
                [*GENES, "survival_months"],
                [
                    [*map(_cell, x), 3 + 2 * i]
                    for i, x in enumerate(np.random.default_rng(2).normal(size=(60, P)).round(2))
                ],
            ).encode(),
            E,
            "label column 'survival_months' has 60 distinct numeric values: it looks like "
            "a measurement, not a class; choose the class column with {label}",
            fields={"column": "survival_months", "remedy_option": "label"},
        ),
        Case(
            "label-is-row-index",
            "row_index.csv",
            rows_text(
                ["index", *GENES, "label"], [[i, *r] for i, r in enumerate(base_rows())]
            ).encode(),
            E,
            "label column 'index' holds 0..11, one number per row: it is the row index, not "
            "a class; choose the class column with {label}",
            fields={"column": "index", "remedy_option": "label"},
            cli=["--label", "index"],
            load_kwargs={"label": "index"},
        ),
        Case(
            "utf8-bom",
            "bom.csv",
            b"\xef\xbb\xbf" + csv.encode(),
            U,
            shape=(N, P),
            class_counts=BASE_COUNTS,
            X_head=head,
        ),
        Case(
            "utf16",
            "utf16.csv",
            csv.encode("utf-16"),
            U,
            shape=(N, P),
            class_counts=BASE_COUNTS,
            X_head=head,
        ),
        Case(
            "latin1-names",
            "latin1.csv",
            base_csv(
                header=["gène1", "g2", "Müller", "g4", "g5", "label"],
                labels=["tumeur bénigne" if c == "a" else "tumeur maligne" for c in CLASSES],
            ).encode("latin-1"),
            U,
            shape=(N, P),
            class_counts={"tumeur maligne": 8, "tumeur bénigne": 4},
            X_head=head,
        ),
        Case(
            "gzip",
            "data.csv.gz",
            gzip.compress(csv.encode(), mtime=0),
            U,
            shape=(N, P),
            class_counts=BASE_COUNTS,
            X_head=head,
        ),
        Case(
            "gzip-bomb",  # about 2 MB that expand past the 2 GiB limit
            "bomb.csv.gz",
            gzip_bomb(2**31 + 2**26),
            E,
            "bomb.csv.gz expands to more than 2.0 GB when decompressed",
        ),
        Case(
            "parquet-really-csv",
            "data.parquet",
            csv.encode(),
            U,
            shape=(N, P),
            class_counts=BASE_COUNTS,
            X_head=head,
        ),
        Case(
            "excel-named-csv",
            "book.csv",
            b"PK\x03\x04\x14\x00\x06\x00\x08\x00" + bytes(200) + b"[Content_Types].xml",
            E,
            "looks like an Excel workbook",
        ),
        Case(
            "old-excel-named-csv",
            "book97.csv",
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504),
            E,
            "looks like an Excel workbook",
        ),
        Case(
            "random-bytes",
            "random.csv",
            b"\x07" + np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes(),
            E,
            "not a text table",
        ),
        Case(
            "truncated-parquet",
            "cut.parquet",
            base_parquet[:300],
            E,
            "cut.parquet is a damaged or unreadable Parquet file (pyarrow: Parquet magic bytes "
            "not found in footer)",
        ),
        # issue 40: a .parquet file that does not start like Parquet was read as text and
        # answered "not a text table ... give a CSV, TSV or Parquet file"
        Case(
            "corrupt-parquet",
            "broken.parquet",
            b"\x07" + np.random.default_rng(1).integers(0, 256, 4096, dtype=np.uint8).tobytes(),
            E,
            "broken.parquet is a damaged or unreadable Parquet file (pyarrow: Parquet magic "
            "bytes not found in footer); save it again from its source, or give a CSV or TSV "
            "file",
        ),
        Case(
            "parquet-damaged-pages",
            "damaged.parquet",
            base_parquet[:4] + bytes(200) + base_parquet[204:],
            E,
            "damaged.parquet is a damaged or unreadable Parquet file (pyarrow: Couldn't "
            "deserialize thrift: TProtocolException: Invalid data)",
        ),
        Case(  # its first bytes overwritten, its footer whole: pyarrow reads it
            "parquet-head-lost",
            "headless.parquet",
            bytes(4) + base_parquet[4:],
            U,
            shape=(N, P),
            class_counts=BASE_COUNTS,
            X_head=head,
        ),
        Case(
            "genes-in-rows-named-label-row",
            "genes_in_rows.csv",
            _genes_in_rows().encode(),
            E,
            "looks like genes in rows and samples in columns",
            fields={"row": 121, "column": "ID_REF", "remedy_option": "transpose"},
        ),
        Case(
            "genes-in-rows-numeric-labels",
            "genes_in_rows_numeric.csv",
            _genes_in_rows(numeric_labels=True).encode(),
            E,
            "13 columns); load it with {transpose}",
            fields={"row": 121, "column": "ID_REF", "remedy_option": "transpose"},
        ),
        # The file's own error (the label row's text in a sample's column), then the hint.
        Case(
            "genes-in-rows-label-row-not-named",
            "genes_in_rows_diagnosis.csv",
            _genes_in_rows(label_row="diagnosis").encode(),
            E,
            "feature column 'GSM100', row 121 (sample 'diagnosis'): 'a' is not a number; "
            "the file looks like genes in rows (121 rows x 13 columns); load it with "
            "{transpose}",
            fields={
                "column": "GSM100",
                "row": 121,
                "remedy_option": None,
                "hint.remedy_option": "transpose",
            },
        ),
        Case(
            "genes-in-rows-numeric-gene-ids",
            "genes_in_rows_entrez.csv",
            _genes_in_rows(gene_suffix="").encode(),
            E,
            "genes_in_rows_entrez.csv looks like genes in rows and samples in columns (row 121 "
            "of the first column is named 'class'; 121 rows x 13 columns); load it with "
            "{transpose}",
            fields={"row": 121, "column": "ID_REF", "remedy_option": "transpose"},
        ),
        Case(
            "genes-in-rows-with-transpose",
            "genes_in_rows_ok.csv",
            _genes_in_rows().encode(),
            U,
            shape=(N, 120),
            class_counts=BASE_COUNTS,
            cli=["--transpose"],
            load_kwargs={"transpose": True},
        ),
    ]
    if large:
        cases.append(
            Case(
                "100000-columns",
                "wide.csv",
                _wide(),
                U,
                shape=(10, 99_999),
                class_counts={"a": 5, "b": 5},
                large=True,
            )
        )
    if huge:
        path = tmp_dir / "over_limit.csv"
        shape = _write_over_limit(path)
        cases.append(
            Case(
                "over-upload-limit",
                path.name,
                None,
                U,
                shape=shape,
                class_counts={"b": shape[0] * 3 // 4, "a": shape[0] // 4},
                path=path,
                large=True,
            )
        )
    for case in cases:
        if case.path is None:
            # keep the case's own file name (extension matters: .parquet, .csv.gz)
            case.path = tmp_dir / case.name / case.filename
            case.path.parent.mkdir(parents=True, exist_ok=True)
            case.path.write_bytes(case.data)
    return cases


def mime(filename: str) -> str:
    if filename.endswith(".parquet"):
        return "application/octet-stream"
    if filename.endswith(".gz"):
        return "application/gzip"
    return "text/csv"


if __name__ == "__main__":  # list the cases: python tests/bad_inputs.py DIR
    import sys

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "bad_inputs")
    out.mkdir(exist_ok=True)
    for c in corpus(out):
        print(f"{c.name:34} {c.expected:7} {c.path}")
