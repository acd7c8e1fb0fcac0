"""Export page: a selection, the data reduced to it and the run's parameters, as files."""

from functools import partial

import pandas as pd
import streamlit as st

from dashboard import reruns, running, session, streams
from dashboard.messages import describe
from dashboard.pages import BY_NAME
from dashboard.reporting import report_sections
from dashboard.widgets import method_widgets, widget_defaults
from fsengine import FSEngineError, run_selection
from fsengine.adata import h5ad_bytes
from fsengine.export.report import build_report_html, build_report_zip
from fsengine.export.writers import (
    command_line,
    params_to_json,
    reduced_matrix,
    selection_rows,
    selection_to_csv,
)
from fsengine.io import file_stem
from fsengine.methods.registry import (
    METHOD_LABELS,
    METHODS,
    ONLINE_METHODS,
    RANKER_METHODS,
    get_method,
)

FORMATS = {"CSV": ("csv", "text/csv"), "Parquet": ("parquet", "application/vnd.apache.parquet")}
WIDGETS = BY_NAME["export"].widgets
#: Where the exported selection comes from.
STREAM, COMPUTE = "Last Stream run", "Compute here"


def _method_label(method: str) -> str:
    """A method as the Method box shows it: "K-OFSD (online)", "Fisher (ranker)"."""
    spec = get_method(method).spec
    return f"{spec.label} ({'online' if spec.online else 'ranker'})"


def _stream_result(live):
    """The finished stream's run through the command line's code path (kept per stream)."""
    kept = st.session_state.get("export_stream")
    if kept is None or kept[0] is not live:
        result = run_selection(
            live.task,
            method=live.method,
            order=live.order_name,
            seed=live.seed,
            events=False,
            **live.params,
        )
        kept = (live, result)
        st.session_state["export_stream"] = kept
    return kept[1]


def _flag_text(param, value) -> str:
    """A parameter's value as the command line's option: "--k 5", "--alpha 0.5",
    "--standardise" / "--no-standardise"."""
    if param.kind == "bool":
        return param.cli_flag if value else "--no-" + param.cli_flag[2:]
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return f"{param.cli_flag} {text}"


def _from_the_dashboard(record: dict, adjusted: dict) -> list[str]:
    """A line for every parameter of the run that differs from the command line's default
    (the method's specification): the dashboard's own default for this minority class
    (``adjusted``, :func:`dashboard.session.task_defaults`' parameter -> (value, why): K-OFSD's
    K below a small training half's minority), or a value set in the dashboard. The command
    line gives them all explicitly; this says which ones matter."""
    method = get_method(record["method"])
    lines = []
    for name, param in method.spec.parameters.items():
        value = record.get(name)
        if value is None or value == param.default:
            continue
        default = _flag_text(param, param.default).split(" ", 1)[-1]
        if name in adjusted and adjusted[name][0] == value:
            lines.append(
                f"`{_flag_text(param, value)}` is the dashboard's default for this minority "
                f"class; the command line's default is {default}. {adjusted[name][1]}"
            )
        else:
            lines.append(
                f"`{_flag_text(param, value)}` was set in the dashboard; the command line's "
                f"default is {default}."
            )
    return lines


def _sources(stream_ready: bool) -> list[str]:
    """The selection's sources: the finished stream (when there is one) first."""
    return [STREAM, COMPUTE] if stream_ready else [COMPUTE]


def _finished_stream():
    """The Stream page's run when it went to the end, else None."""
    kept_stream = streams.current()
    live = kept_stream.live if kept_stream is not None else None
    return live if live is not None and live.done else None


def _restore_export_widgets(n_features: int, live, sources: list[str]) -> None:
    """Put back the page's widget values (defaults the first time): a source still offered,
    the stream when it finished since the page last saw it, a Top-N within the features."""
    session.restore_widgets(
        WIDGETS,
        {
            "export_source": sources[0],
            "export_method": "kofsd",
            "export_top": min(10, n_features),
            "export_format": "CSV",
            **widget_defaults("export", METHODS),
        },
    )
    if st.session_state["export_source"] not in sources:
        session.set_widget(WIDGETS, "export_source", sources[0])
    if live is not None and st.session_state.get("export_seen_stream") is not live:
        st.session_state["export_seen_stream"] = live  # a stream finished since: offer it
        session.set_widget(WIDGETS, "export_source", STREAM)
    session.set_widget(WIDGETS, "export_top", min(st.session_state["export_top"], n_features))


def _stream_caption(method_label: str, minority, order: str) -> str:
    """What the stream's selection is: its method, minority class and order."""
    return (
        f"The Stream page's {method_label} run on minority class {minority}, "
        f"{order} order, parameters as set there."
    )


def _stream_selection(live):
    """Draw the finished stream's run repeated on the command line's code path, or why it
    could not be; return its result (None: it failed)."""
    try:
        result = _stream_result(live)
    except FSEngineError as exc:
        st.error(f"Could not repeat the stream's run: {describe(exc)}")
        return None
    if tuple(result.selection.features) != tuple(live.selection().features):
        st.warning(
            "The command line's selection differs from the one the stream showed; "
            "the export is the command line's."
        )
    st.caption(_stream_caption(METHOD_LABELS[live.method], live.minority, live.order_name))
    return result


def _selection_key(minority, method: str, top: int | None, params: dict) -> tuple:
    """The key of a selection computed here: minority class, method, Top-N and the
    parameters sorted by name."""
    return (minority, method, top, tuple(sorted(params.items(), key=lambda kv: kv[0])))


def _computed_selection(loaded, minority, stream_ready: bool):
    """Draw the method, Top-N (a ranker's), parameters and Compute button; return the
    selection computed with them (None: not yet)."""
    ds = loaded.dataset
    if not stream_ready:
        st.caption(
            "Run a stream to the end on the Stream page to export it here, or compute "
            "a selection here with any method and its parameters."
        )
    cols = st.columns([2, 1, 1], vertical_alignment="bottom")
    method = cols[0].selectbox(
        "Method",
        list(METHODS),
        **session.persisted(WIDGETS, "export_method", start="index", options=list(METHODS)),
        format_func=_method_label,
        help=f"Online selectors: {', '.join(ONLINE_METHODS)}. Rankers: "
        f"{', '.join(RANKER_METHODS)}.",
    )
    top = None
    if method in RANKER_METHODS:
        top = int(
            cols[1].number_input(
                "Top-N (features kept)",
                1,
                ds.n_features,
                step=1,
                **session.persisted(WIDGETS, "export_top", (1, ds.n_features)),
            )
        )
    params = method_widgets("export", WIDGETS, method, ds.n_samples)
    running.show_counts_warning([method])
    results = session.state.export_results(loaded)
    key = _selection_key(minority, method, top, params)
    if reruns.lasting_button(
        "Compute selection",
        key="export_compute",
        scope=(session.task_key(), key),
        container=cols[2],
        type="primary",
        width="stretch",
    ):
        try:
            with reruns.uninterrupted():  # a link clicked meanwhile: the selection is kept
                reruns.done("export_compute")
                with st.spinner(f"Running {METHOD_LABELS[method]} ..."):
                    results[key] = run_selection(
                        session.current_task(), method=method, top=top, **params
                    )
        except FSEngineError as exc:
            st.error(describe(exc))
    result = results.get(key)
    if result is None:
        st.info(
            f"Press Compute selection to run {METHOD_LABELS[method]} on minority class {minority}."
        )
    return result


def _selection_section(loaded, live, sources: list[str], minority):
    """Draw the choice of selection (the finished stream's, or one computed here) and its
    source's widgets; return the selection's result (None: none yet)."""
    st.radio(
        "Selection",
        sources,
        **session.persisted(WIDGETS, "export_source", start="index", options=sources),
        horizontal=True,
        help="The last Stream run that went to the end (on this data set), or any method "
        "computed here with the parameters set below it.",
    )
    if st.session_state["export_source"] == STREAM:
        return _stream_selection(live)
    return _computed_selection(loaded, minority, stream_ready=live is not None)


def _run_record(params: dict, transpose: bool, drop_constant: bool) -> dict:
    """The run's record as the files keep it: its parameters and how the data were read."""
    return {**params, "transpose": transpose, "drop_constant": drop_constant}


def _result_summary(result) -> None:
    """Draw the selection's method, size, minority class and time, its fallback, and its
    table."""
    selection = result.selection
    metrics = st.columns(4)
    metrics[0].metric("Method", METHOD_LABELS.get(result.params["method"], result.params["method"]))
    metrics[1].metric(
        "Listed features (fallback)" if selection.fallback else "Selected features",
        len(selection),
    )
    metrics[2].metric("Minority class", str(result.params["minority"]))
    metrics[3].metric(
        "Selection time (s)",
        f"{result.seconds:.2f}",
        help="Of the command line's code path (run_selection) on this machine.",
    )
    if selection.fallback:
        st.warning(
            selection.fallback_text(METHOD_LABELS[selection.method]), icon=":material/warning:"
        )
    st.dataframe(pd.DataFrame(selection_rows(selection)), hide_index=True, width="stretch")


def _selection_downloads(loaded, result, method: str) -> None:
    """Draw the selected features' downloads: as CSV and as an AnnData file."""
    selection = result.selection
    st.subheader("Selected features")
    st.download_button(
        "Download selected features (CSV)",
        selection_to_csv(selection),
        file_name=f"{method}-selected.csv",
        mime="text/csv",
        on_click="ignore",
        key="export_selection",
    )
    st.caption(
        "rank, feature, column_index, score, method: the bytes of the command line's `select`."
    )
    task = session.current_task()
    source = loaded.source if loaded.name.lower().endswith(".h5ad") else None
    st.download_button(
        "Download as AnnData (.h5ad)",
        partial(h5ad_bytes, task, selection, source, result.params),
        file_name=f"{method}-selected.h5ad",
        mime="application/x-hdf5",
        on_click="ignore",
        key="export_h5ad",
    )
    st.caption(
        "The data set (an uploaded .h5ad file: that object, all of it) with the selection "
        f"in var columns ({method}_selected, _rank, _score) and in "
        f"uns['fsengine_{method}'], "
        "the layout of scanpy's rank_genes_groups: `sc.get.rank_genes_groups_df(adata, "
        f"group, key='fsengine_{method}')` and `sc.pl.rank_genes_groups_dotplot` read it. "
        "The same file as `fsengine select ... --out result.h5ad`."
    )


def _reduced_matrix_caption(has_sample_names: bool, n_selected: int, label_column: str) -> str:
    """What the reduced matrix holds: the sample identifiers (when the data set has them),
    the selected features and the label column."""
    return (
        "sample identifiers, " if has_sample_names else ""
    ) + f"the {n_selected} selected features in rank order and the label column {label_column!r}."


def _reduced_matrix_download(ds, selection, method: str) -> None:
    """Draw the format's choice and the download of the data reduced to the selection."""
    st.subheader("Reduced matrix")
    fmt = st.radio(
        "Format",
        list(FORMATS),
        horizontal=True,
        **session.persisted(WIDGETS, "export_format", start="index", options=list(FORMATS)),
    )
    extension, mime = FORMATS[fmt]
    try:
        matrix = reduced_matrix(ds, selection, extension)
    except ValueError as exc:
        st.error(describe(exc))
        return
    st.download_button(
        f"Download reduced matrix ({fmt})",
        matrix,
        file_name=f"{method}-reduced.{extension}",
        mime=mime,
        on_click="ignore",
        key="export_matrix",
    )
    st.caption(
        _reduced_matrix_caption(ds.sample_names is not None, len(selection), ds.label_column)
    )


def _parameters_download(record: dict, method: str) -> None:
    """Draw the download of the run's parameters as JSON."""
    st.subheader("Parameters")
    st.download_button(
        "Download parameters (JSON)",
        params_to_json(record),
        file_name=f"{method}-params.json",
        mime="application/json",
        on_click="ignore",
        key="export_params",
    )
    st.caption(
        "Method, data file, label column, minority class, how the data were read "
        "(sample sheet, groups, preprocessing) and every parameter of the method."
    )


def _run_it_text(record: dict) -> str:
    """Where to run the command line: beside the data file (and its sample sheet)."""
    files_needed = record["data"] + (
        f" and its sample sheet {record['samples']}" if record.get("samples") else ""
    )
    return (
        f"Run it in the folder that holds {files_needed}: it reads them as this page "
        "did (label, sample sheet, groups, preprocessing) and writes the same CSV to "
        "standard output (`--out FILE` for a file)."
    )


def _command_line_section(record: dict) -> None:
    """Draw the command line that repeats the run, the parameters set in the dashboard and
    where to run it; or why no command line repeats it."""
    st.subheader("Command line")
    try:
        st.code(command_line(record), language="bash", wrap_lines=True)
    except FSEngineError as exc:
        st.warning(f"No command line repeats this run: {describe(exc)}")
        return
    differences = _from_the_dashboard(record, session.task_defaults(record["method"]))
    if differences:
        st.info("  \n".join(differences), icon=":material/info:")
    st.caption(_run_it_text(record))


def _result_section(loaded, result) -> None:
    """Draw the selection's summary, its files (selection, reduced matrix, parameters) and
    the command line that repeats it."""
    record = _run_record(result.params, loaded.transpose, loaded.drop_constant)
    _result_summary(result)
    method = record["method"]
    files = st.columns(3)
    with files[0]:
        _selection_downloads(loaded, result, method)
    with files[1]:
        _reduced_matrix_download(loaded.dataset, result.selection, method)
    with files[2]:
        _parameters_download(record, method)
    _command_line_section(record)


def _report_stem(name: str) -> str:
    """The report files' name without suffix, from the data set's name."""
    return f"fsengine-report-{file_stem(name)}"


def _sections_text(n_sections: int) -> str:
    """How many sections the report holds (none: nothing has run)."""
    return f"{n_sections} sections" + ("" if n_sections else ": nothing has run yet")


def _build_report(loaded, minority) -> None:
    """Build the report of this session's work (HTML, and a ZIP with its CSVs) and keep it
    with the task it was built for."""
    ds = loaded.dataset
    sections = report_sections()
    html = build_report_html(
        title=f"fsengine report: {loaded.name}",
        dataset_name=loaded.name,
        checksum=loaded.sha256,
        n_samples=ds.n_samples,
        n_features=ds.n_features,
        class_counts=ds.class_counts(),
        minority=minority,
        sections=sections,
        reading=session.reading_arguments(),
    )
    stem = _report_stem(loaded.name)
    st.session_state["export_report_files"] = (
        stem,
        html,
        build_report_zip(html, sections, stem=stem),
        len(sections),
    )
    st.session_state["export_report_task"] = session.task_key()


def _report_downloads(loaded) -> None:
    """Draw the report's downloads when one was built for this data set and task."""
    files = st.session_state.get("export_report_files")
    if (
        files is None
        or files[0] != _report_stem(loaded.name)
        or st.session_state.get("export_report_task") != session.task_key()  # built for another
    ):
        return
    stem, html, archive, n_sections = files
    st.caption(_sections_text(n_sections))
    left, right = st.columns(2)
    left.download_button(
        "Download the report (ZIP: HTML and CSVs)",
        archive,
        file_name=f"{stem}.zip",
        mime="application/zip",
        on_click="ignore",
        key="export_report_zip",
    )
    right.download_button(
        "Download the report (HTML only)",
        html,
        file_name=f"{stem}.html",
        mime="text/html",
        on_click="ignore",
        key="export_report_html",
    )


def _report_section(loaded, minority) -> None:
    """Draw what the report holds, its Build button and, once built, its downloads."""
    st.divider()
    st.subheader("Report")
    st.caption(
        f"One download holding this session's work on {loaded.name} with minority class "
        f"{minority}: the data set's name, SHA-256 checksum and shape, every comparison, sweep, "
        "finished stream and selection with its parameters, protocol, results table and figures, "
        "and the versions of fsengine and its dependencies; a ZIP with the report (one HTML file "
        "that opens offline) and every CSV."
    )
    if st.button("Build the report", key="export_report"):
        _build_report(loaded, minority)
    _report_downloads(loaded)


def render() -> None:
    """Draw the Export page: the selections and results of this session as files, and
    the report."""
    loaded = session.current()
    minority = session.state.minority
    live = _finished_stream()
    sources = _sources(stream_ready=live is not None)
    _restore_export_widgets(loaded.dataset.n_features, live, sources)
    st.title("Export")
    st.caption(
        f"{loaded.name}: the selected features as CSV (the bytes of `python -m fsengine "
        "select`), the data reduced to them as CSV or Parquet, and the run's parameters "
        "as JSON with the command line that repeats it."
    )
    result = _selection_section(loaded, live, sources, minority)
    if result is not None:
        _result_section(loaded, result)
    _report_section(loaded, minority)


# Streamlit runs a page as __main__; imported (a test), the page only defines.
if __name__ == "__main__":
    render()
