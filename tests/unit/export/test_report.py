"""The downloadable report: checked against hashlib, importlib.metadata, an HTML parser
and zipfile, not against the report's own helpers."""

import ast
import hashlib
import html
import importlib.metadata
import io
import json
import platform
import re
import subprocess
import sys
import zipfile
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

import fsengine
from conftest import ROOT, SLOW_SECONDS
from fsengine.export import report
from fsengine.export.report import (
    ReportSection,
    build_report_html,
    build_report_zip,
    dataset_checksum,
    versions,
)

HOSTILE = "<script>alert(1)</script>"
GENE = 'GENE"><img src=x onerror=alert(2)>'
CREATED = datetime(2024, 3, 5, 13, 14, 16, tzinfo=UTC)  # even: ZIP times have 2 s steps
DISTRIBUTIONS = (
    "numpy",
    "scipy",
    "scikit-learn",
    "pandas",
    "plotly",
    "pyarrow",
    "numba",
    "streamlit",
)
VOID = {"meta", "br", "img", "hr", "input", "link", "col", "area", "base", "wbr", "source"}


class _Page(HTMLParser):
    """Collects the page's tables (cell texts), visible text, tags and tag balance."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self._open_tables = [], []
        self.text, self.tags, self.stack, self.errors = [], [], [], []
        self._cell = None
        self._in = None  # inside <script> or <style>

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)
        if tag in ("script", "style"):
            self._in = tag
        elif tag == "table":
            self._open_tables.append([])
        elif tag == "tr":
            self._open_tables[-1].append([])
        elif tag in ("td", "th"):
            self._open_tables[-1][-1].append("")
            self._cell = self._open_tables[-1][-1]

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append((tag, list(self.stack[-3:])))
        else:
            self.stack.pop()
        if tag in ("script", "style"):
            self._in = None
        elif tag == "table":
            self.tables.append(self._open_tables.pop())
            self._cell = None
        elif tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data):
        if self._in:
            return
        self.text.append(data)
        if self._cell is not None:
            self._cell[-1] += data

    def rows(self):
        """Every row of every table (nested ones included), cells stripped."""
        return [[c.strip() for c in row] for table in self.tables for row in table]


def _parse(page: bytes) -> _Page:
    parser = _Page()
    parser.feed(page.decode("utf-8"))
    parser.close()
    return parser


def _figure(labels, title="figure"):
    return go.Figure(go.Bar(x=list(labels), y=list(range(len(labels)))), layout={"title": title})


PARAMS = {
    "kofsd": {"k": np.int64(5), "alpha": np.float64(0.05), "order": "random", "keep": (3, 7)},
    "relieff": {"n_neighbors": 10, "threshold": 1e-06, "label": "<b>bold</b>"},
}
PROTOCOL = {
    "splits": 20,
    "seed": np.int64(7),
    "rankers' number of features": "K-OFSD's selection size on each split",
    "test share": float("nan"),
}
RESULTS = pd.DataFrame(
    {
        "method": ["kofsd", "relieff", GENE],
        "gmean_1nn": [0.812345678, 0.5, np.float64(1 / 3)],
        "n_features": [12, np.int64(7), 3],
        "seconds": [1.23456, 0.000012, 2.0],
    }
)
CSV_A = b"rank,feature\n1,g1\n"
CSV_B = "method,gmean\nkofsd,0.8123456789\n"


def _sections(csv=None):
    return [
        ReportSection("Protocol", text="Twenty splits.\n\nSecond paragraph.", params=PROTOCOL),
        ReportSection(
            "Methods",
            params=PARAMS,
            table=RESULTS,
            figures=[_figure(["a", GENE]), _figure(["c"], title=HOSTILE)],
            csv=csv if csv is not None else {"selected.csv": CSV_A},
        ),
        ReportSection("Sweep", figures=[_figure(["x", "y"])], csv={"sweep.csv": CSV_B}),
    ]


def _html(name=HOSTILE, sections=None, created=CREATED):
    return build_report_html(
        title=f"Report on {name}",
        dataset_name=name,
        checksum=hashlib.sha256(b"data").hexdigest(),
        n_samples=62,
        n_features=2000,
        class_counts={"normal": 40, GENE: 22},
        minority=GENE,
        sections=_sections() if sections is None else sections,
        created=created,
    )


@pytest.fixture(scope="module")
def page():
    return _html()


@pytest.fixture(scope="module")
def parsed(page):
    return _parse(page)


# --- checksum and versions -------------------------------------------------------------


def test_checksum_is_the_sha256_of_the_bytes_the_file_and_the_stream(tmp_path):
    raw = bytes(range(256)) * 5000  # more than one read chunk
    expected = hashlib.sha256(raw).hexdigest()
    path = tmp_path / "data.csv"
    path.write_bytes(raw)
    assert dataset_checksum(raw) == expected
    assert dataset_checksum(bytearray(raw)) == expected
    assert dataset_checksum(path) == expected
    assert dataset_checksum(str(path)) == expected
    assert dataset_checksum(io.BytesIO(raw)) == expected
    assert dataset_checksum(b"") == hashlib.sha256(b"").hexdigest()


def _installed(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def test_versions_are_those_installed_and_missing_ones_say_so(monkeypatch):
    found = versions()
    assert found["fsengine"] == fsengine.__version__
    assert found["python"] == platform.python_version()
    for name in DISTRIBUTIONS:
        assert found[name] == _installed(name), name
    monkeypatch.setattr(report, "DEPENDENCIES", ("no-such-distribution-fsengine",))
    assert versions()["no-such-distribution-fsengine"] == "not installed"


# --- the HTML page -----------------------------------------------------------------------


def test_the_page_parses_with_balanced_tags(parsed):
    assert parsed.errors == []
    assert parsed.stack == []
    assert parsed.tags[0][0] == "html"


def test_the_page_shows_the_data_set(parsed):
    rows = {r[0]: r[1] for r in parsed.rows() if len(r) == 2}
    assert rows["Name"] == HOSTILE
    assert rows["SHA-256"] == hashlib.sha256(b"data").hexdigest()
    assert re.search(r"\b62\b.*\b2000\b", rows["Shape"])
    assert rows["Minority class"] == GENE
    counts = {r[0]: r[1] for r in parsed.rows() if len(r) == 3}
    assert counts["normal"] == "40"
    assert counts[f"{GENE} (minority)"] == "22"


def test_the_page_shows_every_parameter_name_and_value(parsed):
    pairs = {tuple(r) for r in parsed.rows() if len(r) == 2}
    expected = {
        ("k", "5"),
        ("alpha", "0.05"),
        ("order", "random"),
        ("keep", "3, 7"),
        ("n_neighbors", "10"),
        ("threshold", "1e-06"),
        ("label", "<b>bold</b>"),
        ("splits", "20"),
        ("seed", "7"),
        ("rankers' number of features", "K-OFSD's selection size on each split"),
        ("test share", "nan"),
    }
    assert expected <= pairs
    methods = {r[0] for r in parsed.rows() if len(r) == 2}
    assert {"kofsd", "relieff"} <= methods


def test_the_page_shows_every_table_cell(parsed):
    header = list(RESULTS.columns)
    tables = [t for t in parsed.tables if t and [c.strip() for c in t[0]] == header]
    assert len(tables) == 1
    body = [[c.strip() for c in row] for row in tables[0][1:]]
    expected = [
        [
            str(method),
            f"{gmean:.4f}",
            str(int(n)),
            f"{seconds:.4f}" if seconds >= 1e-4 else f"{seconds:.3e}",
        ]
        for method, gmean, n, seconds in RESULTS.itertuples(index=False)
    ]
    assert body == expected
    assert body[1][3] == "1.200e-05"  # not rounded to 0.0000


def test_a_named_index_is_shown_and_records_work_as_a_table():
    frame = pd.DataFrame({"mean": [0.25, 0.75]}, index=pd.Index(["a", "b"], name="method"))
    records = [{"method": "kofsd", "size": 3}]
    parsed = _parse(
        _html(
            sections=[
                ReportSection("Indexed", table=frame),
                ReportSection("Records", table=records),
            ]
        )
    )
    rows = parsed.rows()
    assert ["method", "mean"] in rows and ["a", "0.2500"] in rows and ["b", "0.7500"] in rows
    assert ["method", "size"] in rows and ["kofsd", "3"] in rows


def test_the_page_shows_the_versions(parsed):
    pairs = {tuple(r) for r in parsed.rows() if len(r) == 2}
    assert ("fsengine", fsengine.__version__) in pairs
    assert ("python", platform.python_version()) in pairs
    for name in DISTRIBUTIONS:
        assert (name, _installed(name)) in pairs


def test_plotly_js_is_inlined_once_and_nothing_comes_from_the_network(page, parsed):
    text = page.decode("utf-8")
    assert len(re.findall(r"plotly\.js v\d", text)) == 1
    assert text.count("Plotly.newPlot(") == 3  # one call per figure
    assert text.index("plotly.js v") < text.index("Plotly.newPlot(")
    assert 'src="http' not in text and "src='http" not in text
    assert not [a for tag, a in parsed.tags if tag == "script" and "src" in a]
    assert not [tag for tag, _ in parsed.tags if tag in ("link", "iframe", "img")]
    assert text.count('class="plotly-graph-div"') == 3


def test_a_report_without_figures_has_no_plotly_js():
    text = _html(sections=[ReportSection("Only text", text="Nothing drawn.")]).decode()
    assert "plotly.js v" not in text and "Plotly.newPlot" not in text
    assert "<script" not in text


def test_hostile_names_are_escaped_everywhere(page, parsed):
    text = page.decode("utf-8")
    assert HOSTILE not in text
    assert GENE not in text
    assert "<b>bold</b>" not in text
    assert html.escape(HOSTILE) in text
    assert "onerror=alert(2)>" not in text
    # The only elements are the page's own: no <img> from the gene name, and every
    # <script> belongs to a figure (the bundle, its config line and one per figure).
    assert not [tag for tag, _ in parsed.tags if tag == "img"]
    assert sum(tag == "script" for tag, _ in parsed.tags) == 2 + 3
    assert f"Report on {HOSTILE}" in "".join(parsed.text)  # title and heading, as text


def test_the_page_is_deterministic_apart_from_its_creation_time(page, parsed):
    assert _html() == page
    later = _html(created=CREATED + timedelta(days=400, seconds=3))
    assert later != page
    shown = CREATED.isoformat(sep=" ", timespec="seconds")
    shown_later = (CREATED + timedelta(days=400, seconds=3)).isoformat(sep=" ", timespec="seconds")
    assert shown in "".join(parsed.text)
    assert later.decode().replace(shown_later, shown) == page.decode()


def test_section_titles_must_be_unique():
    twice = [ReportSection("Same"), ReportSection("Same")]
    with pytest.raises(ValueError, match="Same"):
        _html(sections=twice)
    with pytest.raises(ValueError, match="Same"):
        build_report_zip(b"", twice, stem="x")


# --- the ZIP ---------------------------------------------------------------------------


def _open(archive: bytes) -> zipfile.ZipFile:
    opened = zipfile.ZipFile(io.BytesIO(archive))
    assert opened.testzip() is None
    return opened


def test_the_zip_holds_the_report_the_csvs_the_params_and_the_versions(page):
    sections = _sections()
    opened = _open(build_report_zip(page, sections, stem="colon-report", created=CREATED))
    assert opened.namelist() == [
        "colon-report/report.html",
        "colon-report/params.json",
        "colon-report/versions.json",
        "colon-report/selected.csv",
        "colon-report/sweep.csv",
    ]
    assert opened.read("colon-report/report.html") == page
    assert opened.read("colon-report/selected.csv") == CSV_A
    assert opened.read("colon-report/sweep.csv") == CSV_B.encode("utf-8")
    assert json.loads(opened.read("colon-report/versions.json")) == versions()
    params = json.loads(opened.read("colon-report/params.json"))
    assert params == {
        "Protocol": {
            "splits": 20,
            "seed": 7,
            "rankers' number of features": "K-OFSD's selection size on each split",
            "test share": "nan",
        },
        "Methods": {
            "kofsd": {"k": 5, "alpha": 0.05, "order": "random", "keep": [3, 7]},
            "relieff": {"n_neighbors": 10, "threshold": 1e-06, "label": "<b>bold</b>"},
        },
    }
    assert opened.getinfo("colon-report/report.html").date_time == (2024, 3, 5, 13, 14, 16)


def test_the_zip_is_deterministic(page):
    sections = _sections()
    first = build_report_zip(page, sections, stem="r", created=CREATED)
    assert build_report_zip(page, sections, stem="r", created=CREATED) == first


def test_hostile_file_names_and_stem_are_made_safe(page, tmp_path):
    hostile = {
        "../../etc/passwd.csv": b"1\n",
        "a/b\\c.csv": b"2\n",
        "..": b"3\n",
        "report.html": b"4\n",
        "x y.csv": b"5\n",
        "x_y.csv": b"6\n",
        "X_Y.CSV": b"7\n",
        f"{HOSTILE}.csv": b"8\n",
        "/abs.csv": b"9\n",
    }
    opened = _open(
        build_report_zip(page, _sections(hostile), stem="../../evil stem/..", created=CREATED)
    )
    names = opened.namelist()
    stems = {n.split("/", 1)[0] for n in names}
    assert len(stems) == 1
    (stem,) = stems
    assert re.fullmatch(r"[A-Za-z0-9._-]+", stem) and not stem.startswith(".")
    files = [n.split("/", 1)[1] for n in names]
    for name in files:
        assert re.fullmatch(r"[A-Za-z0-9._-]+", name), name
        assert ".." not in name and not name.startswith("."), name
    assert len(set(f.lower() for f in files)) == len(files)  # no two collide, in any case
    assert len(files) == 3 + len(hostile) + 1  # nothing lost (+ the Sweep section's CSV)
    assert opened.read(f"{stem}/report.html") == page  # the reserved name kept its file
    contents = sorted(opened.read(n) for n in names[3:])
    assert contents == sorted([*hostile.values(), CSV_B.encode()])
    opened.extractall(tmp_path / "out")
    extracted = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert len(extracted) == len(names)
    assert all(p.resolve().is_relative_to((tmp_path / "out" / stem).resolve()) for p in extracted)


def test_an_empty_stem_still_gives_a_folder(page):
    names = _open(build_report_zip(page, [], stem="..", created=CREATED)).namelist()
    assert names == ["report/report.html", "report/params.json", "report/versions.json"]


# --- layering ----------------------------------------------------------------------------


def test_the_report_module_never_imports_streamlit():
    source = Path(report.__file__).read_text()
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert "streamlit" not in imported
    assert imported <= {"fsengine", "pandas", "plotly"} | set(sys.stdlib_module_names)


def test_importing_the_report_loads_no_heavy_library():
    probe = (
        "import sys, fsengine.export.report\n"
        "print([m for m in ('streamlit', 'pandas', 'plotly') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=SLOW_SECONDS,
    )
    assert out.stdout.strip() == "[]"
