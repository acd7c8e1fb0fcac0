"""The ``bench-results`` directive: the speed page written from ``make bench``'s results.

Each benchmark of ``make bench`` writes ``benchmarks/results/<name>.json`` (its figures,
the machine's facts and the date, ``benchmarks/_common.finish_report``). The directive
renders every such file as a section: what the benchmark measures (its module docstring's
first paragraph), when and where it ran, whether the engine agreed with its baselines and
met its targets, and every figure it recorded, as a table. A benchmark of the Makefile
with no result yet is listed as such. Nothing on the page is typed by hand.

The ``bench-table`` directive draws chosen figures of one result as a table, for the pages
that explain them (``PERFORMANCE.md``): one row per case of a record, one column per
figure named by its key path, and the run's date under it.
"""

from __future__ import annotations

import ast
import json
import math
import re
import statistics
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
FACTS = ("date", "cpu_count", "python", "numpy", "machine", "agree", "problems", "targets_met")


def _benchmarks_of_make_bench() -> list[str]:
    """The benchmark scripts ``make bench`` runs, in its order (read from the Makefile)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8").split("\nbench:", 1)[1]
    body = text.split("\n\n", 1)[0]
    return re.findall(r"benchmarks/(bench_\w+)\.py", body)


def _summary(script: str) -> str:
    """The first paragraph of a benchmark script's module docstring, on one line."""
    path = ROOT / "benchmarks" / f"{script}.py"
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())


def _number(value) -> str:
    if isinstance(value, bool) or not isinstance(value, float):
        return str(value)
    return f"{value:.4g}"


def _cell(value) -> str:
    """A leaf of a record in one table cell: numbers to 4 significant digits; a list of
    more than 6 measurements (floats) as its median and count; a long list of anything
    else (indices, names) as its first 10 and its length."""
    if isinstance(value, list) and len(value) > 6:
        if all(isinstance(v, float) for v in value):
            return f"median {_number(float(statistics.median(value)))} of {len(value)}"
        return ", ".join(_number(v) for v in value[:10]) + f", ... ({len(value)} in all)"
    if isinstance(value, list):
        return ", ".join(_number(v) for v in value) if value else "none"
    return _number(value)


def _rows(record, path: str = ""):
    """(key path, cell) for every leaf of a nested record; a list of records is labelled by
    each one's name, label or case when it has one, else its position."""
    if isinstance(record, dict):
        for key, value in record.items():
            yield from _rows(value, f"{path} / {key}" if path else str(key))
    elif isinstance(record, list) and record and all(isinstance(v, dict) for v in record):
        for i, item in enumerate(record):
            key = next((k for k in ("name", "label", "case", "data") if k in item), None)
            rest = {k: v for k, v in item.items() if k != key}
            yield from _rows(rest, f"{path} [{item[key] if key else i}]")
    else:
        yield path, _cell(record)


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("*", "\\*").replace("`", "\\`")


def render(script: str, path: Path) -> list[str]:
    """reStructuredText lines of one benchmark's section."""
    name = script.removeprefix("bench_")
    title = f"``{script}.py``"
    lines = [title, "-" * len(title), "", _escape(_summary(script)), ""]
    if not path.exists():
        return [*lines, "No result recorded yet: ``make bench`` writes it.", ""]
    record = json.loads(path.read_text(encoding="utf-8"))
    facts = [
        f"run {record.get('date', 'undated')}",
        f"{record.get('cpu_count', '?')} CPUs",
        f"Python {record.get('python', '?')}",
        f"numpy {record.get('numpy', '?')}",
    ]
    agree = (
        "the engine agreed with its baselines"
        if record.get("agree", True)
        else ("**the engine and a baseline disagreed**: " + _escape("; ".join(record["problems"])))
    )
    met = record.get("targets_met")
    targets = "" if met is None else ("; targets met" if met else "; **a target was not met**")
    lines += [f"{', '.join(facts)}; {agree}{targets} (``results/{name}.json``).", ""]
    rows = [(k, v) for k, v in _rows({k: v for k, v in record.items() if k not in FACTS})]
    if rows:
        lines += [".. list-table::", "   :header-rows: 1", "", "   * - figure", "     - value"]
        for key, value in rows:
            lines += [f"   * - {_escape(key)}", f"     - {_escape(value) or ' '}"]
        lines.append("")
    return lines


def _at(record, path: str):
    """The value at a ``/``-separated key path of a nested record, None when absent."""
    for key in path.split("/"):
        if not isinstance(record, dict) or key.strip() not in record:
            return None
        record = record[key.strip()]
    return record


def _figure(case, column: str):
    """The figure of a case at a column's key path; ``ratio(a, b)`` is the figure at ``a``
    over the one at ``b`` (None when either is missing or ``b`` is 0)."""
    match = re.fullmatch(r"ratio\((.+),(.+)\)", column.strip())
    if not match:
        return _at(case, column)
    top, bottom = (_at(case, part) for part in match.groups())
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (top, bottom))
    return f"{_three_digits(top / bottom)}x" if numbers and bottom else None


def _three_digits(value: float) -> str:
    """``value`` to 3 significant digits in positional notation (0.0000875, 218, 1234),
    without trailing zeros."""
    if value == 0:
        return "0"
    if not math.isfinite(value):
        return str(value)
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    text = f"{round(value, decimals):.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _seconds(value) -> str:
    """A figure in a table of chosen figures: numbers to 3 significant digits, a missing
    figure blank."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return _three_digits(value)


def table_cells(
    path: Path,
    rows: str,
    columns: list[tuple[str, str]],
    label: str | None = None,
    only: str | None = None,
) -> tuple[list[list[str]], dict] | None:
    """The cells of a table of chosen figures of one result file.

    Parameters
    ----------
    path : Path
        The result file (``benchmarks/results/<name>.json``).
    rows : str
        Key path of the record's cases: a mapping (a row per key, labelled by the key) or
        a list of records (a row per record, labelled by its field ``label``).
    columns : list of (str, str)
        (key path inside a case, heading) of each column after the label; the path
        ``ratio(a, b)`` gives the figure at ``a`` over the one at ``b``.
    label : str, optional
        The field that labels a row of a list of records.
    only : str, optional
        A regular expression: only the rows whose label it matches (``re.search``).

    Returns
    -------
    (list of list of str, dict) or None
        The rows of cells, the headings first, and the whole record (its date and
        machine); None for a result not recorded yet.

    Raises
    ------
    ValueError
        No cases at ``rows``, none that ``only`` matches, or a column no case has.
    """
    if not path.exists():
        return None
    record = json.loads(path.read_text(encoding="utf-8"))
    cases = _at(record, rows)
    if isinstance(cases, dict):
        cases = [(key, value) for key, value in cases.items()]
    elif isinstance(cases, list):
        cases = [(case.get(label or "label", i), case) for i, case in enumerate(cases)]
    else:
        raise ValueError(f"{path.name} has no cases under {rows!r}")
    if only:
        cases = [(key, case) for key, case in cases if re.search(only, str(key))]
        if not cases:
            raise ValueError(f"no case of {path.name} under {rows!r} matches {only!r}")
    cells = [["case", *(heading for _, heading in columns)]]
    for key, case in cases:
        cells.append([str(key), *(_seconds(_figure(case, column)) for column, _ in columns)])
    for i, (column, _) in enumerate(columns, start=1):
        if all(row[i] == "" for row in cells[1:]):  # a typo in the path, most likely
            raise ValueError(f"no case of {path.name} under {rows!r} has {column!r}")
    return cells, record


def _table(cells: list[list[str]]) -> nodes.table:
    """A docutils table of text cells, the first row its headings, the first column the
    cases' labels (literal text)."""
    table = nodes.table(classes=["bench-table"])
    group = nodes.tgroup(cols=len(cells[0]))
    table += group
    group += [nodes.colspec(colwidth=1) for _ in cells[0]]
    for part, part_rows, headings in (
        (nodes.thead(), cells[:1], True),
        (nodes.tbody(), cells[1:], False),
    ):
        for values in part_rows:
            row = nodes.row()
            label, *figures = values
            # a case's label as literal text: "--help" stays two hyphens
            first = nodes.Text(label) if headings else nodes.literal(text=label)
            row += nodes.entry("", nodes.paragraph("", "", first))
            row += [nodes.entry("", nodes.paragraph(text=value)) for value in figures]
            part += row
        group += part
    return table


class BenchTable(SphinxDirective):
    """``bench-table NAME`` with ``:rows:``, ``:columns:`` (``path = heading; ...``),
    ``:label:`` and ``:only:``: chosen figures of ``results/NAME.json`` as a table
    (:func:`table_cells`), built as nodes, so that a Markdown page and a
    reStructuredText one draw it alike."""

    required_arguments = 1
    option_spec = {
        "rows": directives.unchanged_required,
        "columns": directives.unchanged_required,
        "label": directives.unchanged,
        "only": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        path = RESULTS / f"{name}.json"
        self.env.note_dependency(str(path))
        missing = [option for option in ("rows", "columns") if option not in self.options]
        if missing:
            raise self.error(f"bench-table {name}: give :{missing[0]}:")
        columns = []
        for item in filter(str.strip, self.options["columns"].split(";")):
            column, _, heading = item.partition("=")
            columns.append((column.strip(), heading.strip() or column.strip()))
        try:
            found = table_cells(
                path,
                self.options["rows"],
                columns,
                self.options.get("label"),
                self.options.get("only"),
            )
        except (ValueError, re.error) as error:  # re.error: an :only: that is no pattern
            raise self.error(f"bench-table {name}: {error}") from None
        source = nodes.literal(text=f"results/{name}.json")
        if found is None:
            text = nodes.Text(" recorded yet: make bench writes it.")
            return [nodes.paragraph("", "", nodes.Text("No result "), source, text)]
        cells, record = found
        speed = addnodes.pending_xref(
            "",
            nodes.inline("", "the speed page"),
            refdomain="std",
            reftype="doc",
            reftarget="/speed",
            refexplicit=True,
            refwarn=True,
            refdoc=self.env.docname,
        )
        date = f"Recorded {record.get('date', 'undated')} on {record.get('cpu_count', '?')} CPUs ("
        note = nodes.paragraph("", "", nodes.Text(date), source)
        note += [nodes.Text("; every figure of the run on "), speed, nodes.Text(").")]
        return [_table(cells), note]


class BenchResults(SphinxDirective):
    """``.. bench-results::``: every benchmark of ``make bench`` with its recorded result."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        lines: list[str] = []
        for script in _benchmarks_of_make_bench():
            path = RESULTS / f"{script.removeprefix('bench_')}.json"
            self.env.note_dependency(str(path))
            lines += render(script, path)
        container = nodes.section()
        container.document = self.state.document
        nested_parse_with_titles(self.state, StringList(lines, "bench-results"), container)
        return container.children


def setup(app):
    app.add_directive("bench-results", BenchResults)
    app.add_directive("bench-table", BenchTable)
    return {"parallel_read_safe": True, "version": "1"}
