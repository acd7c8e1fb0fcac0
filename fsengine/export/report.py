"""A downloadable report: one self-contained HTML page, and a ZIP of it with the CSVs.

Plain data in, bytes out; no Streamlit. The page opens offline (plotly.js is inlined once,
nothing is loaded from the network) and every piece of user text is HTML-escaped. Apart
from the creation time, which the page shows, the same input gives the same bytes.

Typical use::

    sections = [
        ReportSection("Protocol", params={"splits": 20, "seed": 0, "rankers keep": "..."}),
        ReportSection("Methods", params={"kofsd": {"k": 5}, "relieff": {"k": 10}}),
        ReportSection("Results", table=summary, figures=[fig], csv={"results.csv": data}),
    ]
    html = build_report_html(title="...", dataset_name="colon.csv",
                             checksum=dataset_checksum(raw), n_samples=62, n_features=2000,
                             class_counts={0: 40, 1: 22}, minority=1, sections=sections)
    archive = build_report_zip(html, sections, stem="colon-report")
"""

from __future__ import annotations

import hashlib
import html as _html
import importlib.metadata
import io
import json
import math
import numbers
import os
import platform
import re
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, BinaryIO

from fsengine.export.codec import to_json
from fsengine.version import __version__

if TYPE_CHECKING:  # pandas and plotly load on first use (the command line starts light)
    import pandas as pd
    import plotly.graph_objects as go

__all__ = [
    "DEPENDENCIES",
    "ReportSection",
    "build_report_html",
    "build_report_zip",
    "dataset_checksum",
    "format_cell",
    "jsonable",
    "report_params",
    "safe_name",
    "versions",
]

#: Distributions whose versions the report lists (after fsengine and python).
DEPENDENCIES = (
    "numpy",
    "scipy",
    "scikit-learn",
    "pandas",
    "plotly",
    "pyarrow",
    "numba",
    "threadpoolctl",
    "streamlit",
)

#: Files every ZIP holds besides the sections' CSVs.
REPORT_FILE, PARAMS_FILE, VERSIONS_FILE = "report.html", "params.json", "versions.json"

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 75em; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { margin-bottom: 0.2em; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
.meta { color: #666; margin-top: 0; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; vertical-align: top; }
th { background: #f2f2f2; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.kv th { width: 14em; }
table table { margin: 0; }
.mono { font-family: ui-monospace, monospace; word-break: break-all; }
.figure { margin: 1em 0; }
.minority { font-weight: bold; color: #b22222; }
"""


@dataclass(frozen=True)
class ReportSection:
    """One section of the report, shown in this order: text, parameters, table, figures.

    Parameters
    ----------
    title : str
        The section's heading; titles are unique within a report (they key ``params.json``).
    text : str
        A short explanation; blank lines separate paragraphs. Escaped, not HTML.
    params : mapping, optional
        Name -> value, shown as a two-column table. A value that is itself a mapping is
        shown as a nested table, so ``{"kofsd": {"k": 5}, "relieff": {...}}`` lists each
        method's parameters. Goes into the ZIP's ``params.json`` under ``title``.
    table : pandas.DataFrame or list of dict, optional
        Results; floats shown with 4 decimals (scientific below 1e-4), the index shown
        unless it is the default ``0..n-1``.
    figures : sequence of plotly.graph_objects.Figure
        Drawn below the table.
    csv : mapping of str to bytes or str
        File name -> content, written to the ZIP as they are (str as UTF-8). Names are
        made safe there (:func:`safe_name`).
    """

    title: str
    text: str = ""
    params: Mapping[str, Any] | None = None
    table: pd.DataFrame | Sequence[Mapping[str, Any]] | None = None
    figures: Sequence[go.Figure] = ()
    csv: Mapping[str, bytes | str] = field(default_factory=dict)


def dataset_checksum(raw: bytes | bytearray | memoryview | str | os.PathLike | BinaryIO) -> str:
    """SHA-256 of a data set's file, as 64 lowercase hex digits.

    Parameters
    ----------
    raw : bytes-like, path or binary file object
        The file's bytes, its path, or an open binary file (read from its current
        position to the end, in chunks).

    Returns
    -------
    str
    """
    digest = hashlib.sha256()
    if isinstance(raw, bytes | bytearray | memoryview):
        digest.update(raw)
        return digest.hexdigest()
    if isinstance(raw, str | os.PathLike):
        with open(raw, "rb") as handle:
            return dataset_checksum(handle)
    for chunk in iter(lambda: raw.read(1 << 20), b""):
        digest.update(chunk)
    return digest.hexdigest()


def versions() -> dict[str, str]:
    """Versions of fsengine, Python and the dependencies (:data:`DEPENDENCIES`).

    Returns
    -------
    dict of str to str
        ``"not installed"`` for a distribution that is missing.
    """
    found = {"fsengine": __version__, "python": platform.python_version()}
    for name in DEPENDENCIES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def jsonable(value: Any) -> Any:
    """``value`` with only JSON types, for reports: :func:`fsengine.export.codec.to_json` in its
    lenient mode (non-finite floats as ``"nan"``, ``"inf"``, other objects as text)."""
    return to_json(value, strict=False)


def safe_name(name: str, default: str = "file") -> str:
    """A file name without directories: characters outside ``[A-Za-z0-9._-]`` become
    ``_``, runs of dots become one dot, leading dots go (no ``..``, no hidden files).

    Parameters
    ----------
    name : str
    default : str
        Returned when nothing is left.

    Returns
    -------
    str
        At most 120 characters.
    """
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", str(name))
    cleaned = re.sub(r"\.{2,}", ".", cleaned).lstrip(".")
    return cleaned[-120:] or default


# ---------------------------------------------------------------------------------------
# HTML


def _e(value: Any) -> str:
    """Escaped text of ``value`` (quotes too: safe inside attributes)."""
    return _html.escape(str(value), quote=True)


def _param_text(value: Any) -> str:
    """A parameter value exactly: floats as their shortest repr, sequences comma-joined."""
    value = jsonable(value)
    if isinstance(value, list):
        return ", ".join(_param_text(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _params_html(params: Mapping[str, Any]) -> str:
    rows = []
    for name, value in params.items():
        if isinstance(value, Mapping):
            cell = _params_html(value) if value else "<em>no parameters</em>"
        else:
            cell = f'<span class="mono">{_e(_param_text(value))}</span>'
        rows.append(f"<tr><th>{_e(name)}</th><td>{cell}</td></tr>")
    return '<table class="kv params">' + "".join(rows) + "</table>"


def format_cell(value: Any) -> tuple[str, bool]:
    """Text of a results cell and whether it is a number (right-aligned).

    Floats get 4 decimals (scientific notation below 1e-4 in magnitude, where 4 decimals
    would show 0), integers are exact, NaN and None are ``NaN`` and empty.
    """
    if value is None:
        return "", False
    if hasattr(value, "item") and getattr(value, "shape", None) == ():
        value = value.item()  # numpy scalars
    if isinstance(value, bool):
        return str(value), False
    if isinstance(value, numbers.Integral):
        return str(int(value)), True
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):
            return "NaN", True
        if number != 0 and abs(number) < 1e-4 and math.isfinite(number):
            return f"{number:.3e}", True
        return f"{number:.4f}", True
    return str(value), False


def _label(value: Any) -> str:
    """A column or index label; tuples (MultiIndex) joined with `` / ``."""
    if isinstance(value, tuple):
        return " / ".join(str(v) for v in value)
    return str(value)


def _table_html(table: pd.DataFrame | Sequence[Mapping[str, Any]]) -> str:
    import pandas as pd

    frame = table if isinstance(table, pd.DataFrame) else pd.DataFrame(list(table))
    index = frame.index
    show_index = not (
        isinstance(index, pd.RangeIndex)
        and index.start == 0
        and index.step == 1
        and index.name is None
    )
    head = []
    if show_index:
        names = [n for n in index.names if n is not None]
        head.append(f"<th>{_e(' / '.join(str(n) for n in names))}</th>")
    head += [f"<th>{_e(_label(c))}</th>" for c in frame.columns]
    body = []
    for label, row in zip(index, frame.itertuples(index=False, name=None)):
        cells = [f"<th>{_e(_label(label))}</th>"] if show_index else []
        for value in row:
            text, numeric = format_cell(value)
            cells.append(f'<td class="num">{_e(text)}</td>' if numeric else f"<td>{_e(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        '<table class="results"><thead><tr>'
        + "".join(head)
        + "</tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table>"
    )


def _paragraphs(text: str) -> str:
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text) if b.strip()]
    return "".join(f"<p>{_e(b)}</p>" for b in blocks)


def _check_titles(sections: Sequence[ReportSection]) -> None:
    titles = [s.title for s in sections]
    repeated = sorted({t for t in titles if titles.count(t) > 1})
    if repeated:
        raise ValueError(f"section titles must be unique; repeated: {repeated}")


def _created(created: datetime | None) -> datetime:
    return datetime.now().astimezone() if created is None else created


def _dataset_html(
    dataset_name: str,
    checksum: str,
    shape: str,
    class_counts: Mapping[Any, int],
    minority: Any,
    reading: str,
) -> list[str]:
    """The report's data set section: its name, checksum, shape, minority and reading
    options, and the class counts with each class's share (the minority's row marked)."""
    total = sum(int(c) for c in class_counts.values())
    rows = [
        ("Name", _e(dataset_name)),
        ("SHA-256", f'<span class="mono">{_e(checksum)}</span>'),
        ("Shape", _e(shape)),
        ("Minority class", f'<span class="minority">{_e(minority)}</span>'),
    ]
    if reading:
        rows.append(("Read with", f'<span class="mono">{_e(reading)}</span>'))
    parts = ['<section id="dataset"><h2>Data set</h2><table class="kv">']
    parts += [f"<tr><th>{name}</th><td>{cell}</td></tr>" for name, cell in rows]
    parts.append("</table><h3>Class counts</h3><table><thead><tr>")
    parts.append("<th>class</th><th>samples</th><th>share</th></tr></thead><tbody>")
    for label, count in class_counts.items():
        is_minority = str(label) == str(minority)
        mark = ' class="minority"' if is_minority else ""
        share = f"{100 * int(count) / total:.1f} %" if total else ""
        parts.append(
            f"<tr><td{mark}>{_e(label)}{' (minority)' if is_minority else ''}</td>"
            f'<td class="num">{int(count)}</td><td class="num">{share}</td></tr>'
        )
    parts.append("</tbody></table></section>")
    return parts


def _sections_html(sections: Sequence[ReportSection]) -> list[str]:
    """The report's sections in order (text, parameters, table, figures); plotly.js is
    inlined with the first figure only, and the figures' ids are numbered, so that equal
    inputs give equal bytes (plotly draws a random id otherwise)."""
    parts = []
    n_figures = 0
    for i, section in enumerate(sections, start=1):
        parts.append(f'<section id="section-{i}"><h2>{_e(section.title)}</h2>')
        parts.append(_paragraphs(section.text))
        if section.params:
            parts.append(_params_html(section.params))
        if section.table is not None:
            parts.append(_table_html(section.table))
        for figure in section.figures:
            n_figures += 1
            parts.append('<div class="figure">')
            parts.append(
                figure.to_html(
                    full_html=False,
                    include_plotlyjs=n_figures == 1,
                    div_id=f"figure-{n_figures}",
                    config={"displaylogo": False},
                )
            )
            parts.append("</div>")
        parts.append("</section>")
    return parts


def build_report_html(
    *,
    title: str,
    dataset_name: str,
    checksum: str,
    n_samples: int,
    n_features: int,
    class_counts: Mapping[Any, int],
    minority: Any,
    sections: Sequence[ReportSection],
    created: datetime | None = None,
    reading: str = "",
) -> bytes:
    """The report as one self-contained HTML page.

    Parameters
    ----------
    title : str
        The page's title and heading.
    dataset_name : str
        The data set's name (e.g. its file name).
    checksum : str
        SHA-256 of the data set's file (:func:`dataset_checksum`).
    n_samples, n_features : int
        The shape the methods saw (samples x features).
    class_counts : mapping
        Class label -> number of samples, in the order to show.
    minority : label
        The minority (positive) class; its row is marked in the class counts.
    sections : sequence of ReportSection
        Shown in order after the data set; titles must be unique.
    created : datetime, optional
        The time shown as the report's creation; now (local time) by default.
    reading : str, optional
        The command line's options that read the data set as the results did (label,
        sample sheet, groups, preprocessing: :func:`fsengine.export.writers.data_arguments`),
        shown as a row when given.

    Returns
    -------
    bytes
        UTF-8 HTML. plotly.js is inlined once, with the first figure; the page loads
        nothing from the network. Equal inputs (``created`` included) give equal bytes.

    Raises
    ------
    ValueError
        Two sections have the same title.
    """
    _check_titles(sections)
    stamp = _created(created).isoformat(sep=" ", timespec="seconds")
    shape = f"{int(n_samples)} samples x {int(n_features)} features"

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="meta">Created {_e(stamp)} with fsengine {_e(__version__)}.</p>',
    ]
    # Contents: the anchors are numbered, never made from user text.
    entries = [("dataset", "Data set")]
    entries += [(f"section-{i}", s.title) for i, s in enumerate(sections, start=1)]
    entries.append(("versions", "Software versions"))
    parts.append(
        "<nav><ul>"
        + "".join(f'<li><a href="#{anchor}">{_e(name)}</a></li>' for anchor, name in entries)
        + "</ul></nav>"
    )

    parts += _dataset_html(dataset_name, checksum, shape, class_counts, minority, reading)
    parts += _sections_html(sections)

    parts.append('<section id="versions"><h2>Software versions</h2><table class="kv">')
    parts += [f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in versions().items()]
    parts.append("</table></section></body></html>\n")
    return "\n".join(parts).encode("utf-8")


# ---------------------------------------------------------------------------------------
# ZIP


def _unique(name: str, taken: set[str]) -> str:
    """``name``, or ``name`` with ``-2``, ``-3``, ... before its extension when taken
    (compared without case: the archive may be unpacked on a case-insensitive disk)."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, dot, ext = name, "", ""
    candidate, n = name, 1
    while candidate.lower() in taken:
        n += 1
        candidate = f"{stem}-{n}{dot}{ext}"
    taken.add(candidate.lower())
    return candidate


def report_params(sections: Iterable[ReportSection]) -> dict[str, Any]:
    """The content of ``params.json``: section title -> its parameters (JSON types)."""
    return {s.title: jsonable(s.params) for s in sections if s.params is not None}


def build_report_zip(
    html: bytes,
    sections: Sequence[ReportSection],
    *,
    stem: str,
    created: datetime | None = None,
) -> bytes:
    """A ZIP of the report, the sections' CSVs, their parameters and the versions.

    Parameters
    ----------
    html : bytes
        The report (:func:`build_report_html`), stored as it is.
    sections : sequence of ReportSection
        The report's sections: their ``csv`` files and ``params``.
    stem : str
        The folder every file sits in (``stem/report.html``); made safe with
        :func:`safe_name`.
    created : datetime, optional
        The files' modification time; now by default.

    Returns
    -------
    bytes
        ``stem/report.html``, ``stem/params.json`` (:func:`report_params`),
        ``stem/versions.json`` (:func:`versions`), then every CSV in section order
        under its safe name (``-2``, ``-3``, ... added where two names collide).

    Raises
    ------
    ValueError
        Two sections have the same title.
    """
    _check_titles(sections)
    folder = safe_name(stem, default="report")
    when = _created(created)
    date_time = (max(when.year, 1980), when.month, when.day, when.hour, when.minute, when.second)
    files = [
        (REPORT_FILE, html),
        (PARAMS_FILE, _json_bytes(report_params(sections))),
        (VERSIONS_FILE, _json_bytes(versions())),
    ]
    taken = {name for name, _ in files}
    for section in sections:
        for name, content in section.csv.items():
            data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
            files.append((_unique(safe_name(name), taken), data))

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files:
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16  # rw-r--r--, whoever unpacks it
            archive.writestr(info, data, compresslevel=6)
    return out.getvalue()


def _json_bytes(value: Any) -> bytes:
    text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8")
