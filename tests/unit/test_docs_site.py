"""The documentation site builds from the sources with no warning, documents every public
name of every namespace, and its speed page is written from ``make bench``'s results."""

import importlib
import importlib.util
import json
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, SLOW_SECONDS

DOCS = ROOT / "docs"


def _extension(name):
    spec = importlib.util.spec_from_file_location(name, DOCS / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built as ``make docs`` builds it (warnings are errors), from a copy of
    docs/ without what a build writes (as in a fresh clone), beside the checkout's
    package, Makefile and benchmarks: the build writes nothing into the checkout."""
    out = tmp_path_factory.mktemp("site")
    generated = ("_build", "generated", "fsengine*.rst", "__pycache__")
    shutil.copytree(DOCS, out / "docs", ignore=shutil.ignore_patterns(*generated))
    for name in ("fsengine", "Makefile", "benchmarks", "sample_data"):
        (out / name).symlink_to(ROOT / name)
    # a page an older build wrote for a namespace no longer listed (fsengine.online, before
    # the methods moved): it must leave, not fail the build as a page outside the index
    stale = out / "docs" / "api" / "fsengine.online.rst"
    stale.write_text("fsengine.online\n===============\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-E", "-W", "--keep-going", "-q",
         "-d", str(out / "doctrees"), str(out / "docs"), str(out / "html")],
        cwd=out,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=SLOW_SECONDS,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stderr.strip() == "", done.stderr[-4000:]
    assert not stale.exists()
    return out / "html"


def test_the_site_has_the_pages_a_newcomer_looks_for(site):
    for page in (
        "index", "getting_started", "dashboard", "command_line", "library", "studies",
        "DATA_FORMATS", "SCALE", "reliability", "api/index", "METHODS", "ALGORITHMS",
        "REPRODUCTION", "speed", "development",
    ):  # fmt: skip
        assert (site / f"{page}.html").is_file(), page
    dashboard = (site / "dashboard.html").read_text(encoding="utf-8")
    for shot in ("data", "stream", "compare", "sweep", "export"):
        assert f'src="_images/{shot}.png"' in dashboard, shot
        assert (site / "_images" / f"{shot}.png").stat().st_size > 10_000, shot


def test_every_public_name_of_every_namespace_is_documented(site):
    """Each name in a namespace's ``__all__`` is on its page, and the function or class
    has a page of its own (under the most specific namespace exporting it) carrying the
    first line of its docstring."""
    namespaces = _extension("namespaces")
    for modname, _ in namespaces.NAMESPACES:
        module = importlib.import_module(modname)
        text = (site / "api" / f"{modname}.html").read_text(encoding="utf-8")
        for name in module.__all__:
            obj = getattr(module, name)
            if not callable(obj) or isinstance(obj, type(sys)):
                continue
            shown = {name, obj.__name__}
            assert any(re.search(rf"[>.]{n}<", text) for n in shown), (modname, name)
            namespace, exported = namespaces.home(obj, modname)
            own = site / "api" / "generated" / f"{namespace}.{exported}.html"
            assert own.is_file(), (modname, name, own.name)
            words = re.findall(r"[A-Za-z]{3,}", obj.__doc__.strip().splitlines()[0])[:3]
            page = own.read_text(encoding="utf-8")
            assert words and all(word in page for word in words), (name, words)


def test_the_speed_page_lists_every_benchmark_of_make_bench(site):
    text = (site / "speed.html").read_text(encoding="utf-8")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    scripts = [line.split("/")[1].split(".py")[0] for line in makefile.splitlines()
               if line.startswith("\t$(PY) benchmarks/bench_")]  # fmt: skip
    assert len(scripts) >= 20
    for script in scripts:
        assert f"{script}.py" in text, script
    recorded = sorted((ROOT / "benchmarks" / "results").glob("*.json"))
    assert text.count("<table") == len(recorded)  # a table of figures for each result
    for path in recorded:
        record = json.loads(path.read_text(encoding="utf-8"))
        assert f"results/{path.name}" in text
        assert record["date"] in text


def test_a_benchmark_result_is_rendered_as_recorded(tmp_path):
    """The speed page's section for a result file, against a record written here: the
    facts line and one row per leaf, numbers to 4 significant digits, long lists as their
    median."""
    bench_results = _extension("bench_results")
    record = {
        "cases": {"select sample": {"warm": [0.31, 0.35, 0.33], "ratio": 2.345678}},
        "results": [{"name": "SRBCT", "seconds": 1.5}, {"name": "GLIOMA", "seconds": 2.0}],
        "sweep": [{"k": 0, "splits": 0}, {"k": 1, "splits": 1}],
        "times": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        "selected": list(range(12)),
        "date": "2026-11-30 22:00 UTC",
        "cpu_count": 2,
        "python": "3.11.7",
        "numpy": "2.3.5",
        "agree": True,
        "problems": [],
        "targets_met": False,
    }
    path = tmp_path / "kofsd.json"
    path.write_text(json.dumps(record))
    lines = bench_results.render("bench_kofsd", path)
    assert lines[0] == "``bench_kofsd.py``"
    facts = next(line for line in lines if line.startswith("run "))
    assert facts.startswith("run 2026-11-30 22:00 UTC, 2 CPUs, Python 3.11.7, numpy 2.3.5;")
    assert "agreed with its baselines" in facts and "**a target was not met**" in facts
    rows = [(lines[i][7:], lines[i + 1][7:]) for i, line in enumerate(lines)
            if line.startswith("   * - ") and line != "   * - figure"]  # fmt: skip
    assert rows == [
        ("cases / select sample / warm", "0.31, 0.35, 0.33"),
        ("cases / select sample / ratio", "2.346"),
        ("results [SRBCT] / seconds", "1.5"),
        ("results [GLIOMA] / seconds", "2"),
        ("sweep [0] / k", "0"),
        ("sweep [0] / splits", "0"),
        ("sweep [1] / k", "1"),
        ("sweep [1] / splits", "1"),
        ("times", "median 4 of 7"),
        ("selected", "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ... (12 in all)"),
    ]
    missing = bench_results.render("bench_kofsd", tmp_path / "absent.json")
    assert "No result recorded yet: ``make bench`` writes it." in missing


def test_a_table_of_chosen_figures_is_rendered_from_the_record(tmp_path):
    """``bench-table``: a row per case (a mapping's keys or a list's labels, filtered by
    ``only``), a column per key path, ratios of two figures, blanks where a case lacks a
    figure."""
    bench_results = _extension("bench_results")
    record = {
        "cases": {
            "select SRBCT": {"warm": {"wall_s": 0.39238}, "floor": {"argsort_s": 0.0018}},
            "select rounded": {"warm": {"wall_s": 0.9}, "floor": {"argsort_s": 0.045}},
            "first tasks": {"first_tasks_s": 0.5},
        },
        "records": [
            {"case": "GLIOMA", "kofsd_s": 0.013, "argsort_s": 0.0026},
            {"case": "SRBCT", "kofsd_s": 0.006, "peak_mb": 3.2},
        ],
        "date": "2026-12-04 09:00 UTC",
        "cpu_count": 2,
    }
    path = tmp_path / "startup.json"
    path.write_text(json.dumps(record))
    columns = [("warm/wall_s", "warm"), ("floor/argsort_s", "argsort"),
               ("ratio(warm/wall_s, floor/argsort_s)", "warm / argsort")]  # fmt: skip
    cells, read = bench_results.table_cells(path, "cases", columns, only="^select")
    assert cells == [["case", "warm", "argsort", "warm / argsort"],
                     ["select SRBCT", "0.392", "0.0018", "218x"],
                     ["select rounded", "0.9", "0.045", "20x"]]  # fmt: skip
    assert read == record
    listed, _ = bench_results.table_cells(
        path, "records", [("kofsd_s", "select"), ("peak_mb", "MB")], label="case"
    )
    assert listed == [["case", "select", "MB"], ["GLIOMA", "0.013", ""], ["SRBCT", "0.006", "3.2"]]
    assert bench_results.table_cells(tmp_path / "absent.json", "cases", columns) is None
    with pytest.raises(ValueError, match="no cases under 'nothing'"):
        bench_results.table_cells(path, "nothing", columns)
    with pytest.raises(ValueError, match="matches '\\^selected'"):  # an :only: typo
        bench_results.table_cells(path, "cases", columns, only="^selected")
    with pytest.raises(ValueError, match="has 'warm/wall'"):  # a column's path typo
        bench_results.table_cells(path, "cases", [("warm/wall", "warm")], only="^select")
    three = [bench_results._three_digits(v) for v in (0.0000875, 1234.5, 9.996, 0.0018, 20.0, 0.0)]
    assert three == ["0.0000875", "1234", "10", "0.0018", "20", "0"]


def test_the_speed_history_draws_its_current_tables_from_the_results(site):
    """PERFORMANCE.md's current figures are the recorded ones (no hand-kept table): its
    tables hold the recorded cases and figures, with the results' dates under them."""
    text = (site / "PERFORMANCE.html").read_text(encoding="utf-8")
    for name in ("startup", "dashboard_browser", "real"):
        record = json.loads((ROOT / "benchmarks" / "results" / f"{name}.json").read_text())
        assert f"Recorded {record['date']}" in text, name
        assert f"results/{name}.json" in text
    cells = [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td><p>(.*?)</p></td>", text)]
    assert "--help" in cells  # a label as recorded, not typeset
    startup = json.loads((ROOT / "benchmarks" / "results" / "startup.json").read_text())
    srbct = startup["cases"]["select SRBCT 83 x 2308"]
    row = cells.index("select SRBCT 83 x 2308")
    assert cells[row + 1] == f"{srbct['built warm']['wall_s']:.3g}"
    real = json.loads((ROOT / "benchmarks" / "results" / "real.json").read_text())
    glioma = next(r for r in real["records"] if r["case"] == "GLIOMA")
    row = cells.index("GLIOMA")
    assert cells[row + 1] == f"{glioma['kofsd_s']:.3g}"
    assert cells[row + 5] == f"{glioma['kofsd_s'] / glioma['argsort_s']:.3g}x"
    assert 'href="speed.html"' in text  # the link to every figure of the run
