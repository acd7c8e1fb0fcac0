"""Data page: the loaded data set, its classes and imbalance; upload another one."""

import hashlib

import pandas as pd
import streamlit as st

from dashboard import datadir, messages, persistence, reruns, running, session, widgets
from dashboard.memory import DATASETS, server_budget, way_out
from fsengine import FSEngineError
from fsengine.data.preprocess import (
    PREPROCESSING,
    looks_like_counts,
    looks_unlogged,
    preprocessing_notes,
    preprocessing_text,
    suggested_preprocessing,
)
from fsengine.io.base import size_text
from fsengine.io.footprint import check_fits
from fsengine.io.h5ad import matrix_choices
from fsengine.methods.registry import METHOD_LABELS

AUTO_LABEL = "(automatic)"
NO_GROUPS = "(none: samples split one by one)"
X_MATRIX = "X"
VAR_NAMES = "var_names"
PREFIX = "data"  # the preprocessing widgets' keys: data_preprocess_<parameter>
_NO_SHEET = {"samples": None, "samples_name": None}


def _reload(raw: bytes, name: str, **options) -> None:
    """Load with the given options (:func:`dashboard.session.load_into_session`'s); on
    failure keep the previous data set and say why.

    A failed file is kept as pending, so that changing an option (e.g. the "Genes in
    rows" toggle the error suggests) retries that file, not the previous data set; the
    options keep the user's choice.
    """
    try:
        session.load_into_session(raw, name, **options)
    except FSEngineError as exc:
        sheet = options.get("samples_name")
        with_sheet = f" with the sample sheet {sheet}" if options.get("samples") else ""
        st.session_state["load_error"] = (
            f"Could not load {name}{with_sheet}: {messages.describe(exc)}"
        )
        st.session_state["pending_upload"] = (raw, name)
        st.session_state["pending_label_choices"] = exc.choices  # the file's own, if any
        st.session_state["pending_column"] = exc.column  # a groups column, perhaps
    else:
        for key in ("load_error", "pending_upload", "pending_label_choices", "pending_column"):
            st.session_state.pop(key, None)
        _sync_widgets()


def _sync_widgets(options: dict | None = None) -> None:
    """The option widgets set to ``options`` (:func:`_options`' form), by default to how
    the current data set was read."""
    if options is None:
        options = session.current().options
    anndata = options.get("anndata") or {}
    st.session_state["transpose"] = bool(options.get("transpose"))
    st.session_state["drop_constant"] = bool(options.get("drop_constant"))
    st.session_state["label_column"] = options.get("label") or AUTO_LABEL
    st.session_state["sample_groups"] = options.get("sample_groups") or NO_GROUPS
    st.session_state["anndata_layer"] = anndata.get("layer") or X_MATRIX
    st.session_state["anndata_gene_names"] = anndata.get("gene_names") or VAR_NAMES
    changes = session.preprocessing_changes(options.get("preprocessing"))
    values = {**PREPROCESSING.defaults(), **changes}
    for name, param in PREPROCESSING.parameters.items():
        key = widgets.widget_key(PREFIX, PREPROCESSING.name, name)
        st.session_state[key] = widgets.widget_value(param, values[name])


def _preprocessing_widgets() -> dict:
    """The preprocessing widgets' values (an empty bound box: its default)."""
    values = {}
    for name, param in PREPROCESSING.parameters.items():
        value = st.session_state.get(widgets.widget_key(PREFIX, PREPROCESSING.name, name))
        values[name] = param.default if value is None else value
    return values


def _sheet_key() -> str:
    """The sheet uploader's key: a new one empties it (Streamlit cannot clear an uploader),
    when a new table is uploaded while it holds the previous table's sheet."""
    emptied = st.session_state.get("sheet_uploads", 0)
    return "sheet_uploader" if not emptied else f"sheet_uploader_{emptied}"


def _sheet(raw: bytes):
    """The sample sheet to read ``raw`` with: the sheet uploader's file, else the current
    data set's sheet when ``raw`` is its table; (bytes, name) or (None, None)."""
    upload = st.session_state.get(_sheet_key())
    if upload is not None:
        return upload.getvalue(), upload.name
    loaded = session.current()
    if loaded.samples is not None and raw == loaded.raw:
        return loaded.samples, loaded.samples_name
    return None, None


def _options(raw: bytes, **changes) -> dict:
    """Every loader option as the widgets hold it, with ``changes``."""
    label = st.session_state.get("label_column", AUTO_LABEL)
    groups = st.session_state.get("sample_groups", NO_GROUPS)
    samples, samples_name = _sheet(raw)
    options = {
        "label": None if label == AUTO_LABEL else label,
        "transpose": st.session_state.get("transpose", False),
        "drop_constant": st.session_state.get("drop_constant", False),
        "samples": samples,
        "samples_name": samples_name,
        "preprocessing": _preprocessing_widgets(),
        "sample_groups": None if groups == NO_GROUPS else groups,
        "anndata": _anndata_widgets(),
    }
    return {**options, **changes}


def _anndata_widgets() -> dict:
    """The AnnData boxes' layer and gene-name column (X and var_names: none)."""
    layer = st.session_state.get("anndata_layer", X_MATRIX)
    genes = st.session_state.get("anndata_gene_names", VAR_NAMES)
    return {
        "layer": None if layer == X_MATRIX else layer,
        "gene_names": None if genes == VAR_NAMES else genes,
    }


def _matrix_choices(raw: bytes) -> dict | None:
    """An AnnData file's layers and var columns (:func:`fsengine.io.h5ad.matrix_choices`),
    kept per file."""
    kept = st.session_state.setdefault("_matrix_choices", {})
    key = hashlib.sha256(raw).hexdigest()
    if key not in kept:
        kept.clear()
        try:  # a data-directory file's header read there
            kept[key] = matrix_choices(datadir.source(raw))
        except FSEngineError:  # gone: the load error says so
            kept[key] = None
    return kept[key]


def _new_file_options(raw: bytes) -> dict:
    """How a file not read here before is read: as the loader finds it (its own label
    column, no groups, no preprocessing, X and var_names), not as the previous data set
    was read. A toggle the user set while the current data set was not read that way (a
    re-read that failed: "Genes in rows" before a genes-in-rows upload) is kept for it,
    and so is a sample sheet given for it; the current table's own sheet is not."""
    loaded = session.current()
    options = _options(
        raw, label=None, sample_groups=None, anndata={}, preprocessing={}, **_NO_SHEET
    )
    for toggle in ("transpose", "drop_constant"):
        chosen = bool(st.session_state.get(toggle, False))
        options[toggle] = chosen and chosen != getattr(loaded, toggle)
    upload = st.session_state.get(_sheet_key())
    if upload is not None:
        given = upload.getvalue()
        if given == loaded.samples:  # the previous table's: emptied, not used
            st.session_state["sheet_uploads"] = st.session_state.get("sheet_uploads", 0) + 1
        else:
            options.update(samples=given, samples_name=upload.name)
    return options


def _on_upload() -> None:
    """A table uploaded: read as it was last read here (a file read before, say after
    another), else as a new file (:func:`_new_file_options`)."""
    upload = st.session_state.get("uploader")
    if upload is None:
        return
    raw = upload.getvalue()
    known = persistence.known_reading(raw)
    options = known if known is not None else _new_file_options(raw)
    _reload(raw, upload.name, **options)
    if "load_error" in st.session_state:
        _sync_widgets(options)  # the boxes say how the failed file was read
    elif known is not None and (text := session.reading_text(known)):
        st.session_state["reading_note"] = (
            f"{upload.name} is read as you last read it here: {text}. Change it below."
        )


def _on_open_data_file() -> None:
    """A file of the data directory opened: read there (never copied), as it was last
    read here, else as a new file; a name not in the directory's list is refused."""
    name = st.session_state.get("data_dir_file")
    try:
        _, entry = datadir.resolve(name)
    except FSEngineError as exc:
        st.session_state["load_error"] = f"Could not open {name}: {messages.describe(exc)}"
        return
    raw = datadir.reference(entry)
    known = persistence.known_reading(raw)
    _reload(raw, entry.name, **(known if known is not None else _new_file_options(raw)))


def _reference_of(name: str) -> bytes | None:
    """The reference of the data directory's file ``name`` (None when it has gone)."""
    try:
        return datadir.reference(datadir.resolve(name)[1])
    except FSEngineError:
        return None


def _data_dir_section() -> None:
    """The data directory's files, a box to choose one and Open; or how to set one up."""
    if datadir.data_dir() is None:
        st.caption(
            f"Larger files (an atlas as a backed .h5ad): set `{datadir.DATA_DIR}` to a folder "
            "on the server and restart the app; its files are listed here."
        )
        return
    try:
        files = datadir.listing()
    except FSEngineError as exc:
        st.error(f"Data directory: {messages.describe(exc)}.")
        return
    if not files:
        st.info(f"The data directory {datadir.data_dir()} holds no data file.")
        return
    sizes = {f.name: size_text(f.size) for f in files}
    if st.session_state.get("data_dir_file") not in sizes:
        st.session_state["data_dir_file"] = files[0].name
    choose, press = st.columns([4, 1], vertical_alignment="bottom")
    choose.selectbox(
        "Or open a file of the server's data directory",
        list(sizes),
        key="data_dir_file",
        format_func=lambda name: f"{name} ({sizes.get(name, '?')})",
        help="Files too large to upload, in the server's folder FSENGINE_DATA_DIR: read "
        "there, never copied. An AnnData file or Zarr store of "
        f"{datadir.DEFAULT_BACKED_FROM_MB} MB or more stays on disk (backed) and is read "
        "a block of genes at a time.",
    )
    budget = server_budget()
    chosen = st.session_state["data_dir_file"]
    reference = _reference_of(chosen)
    sha256 = hashlib.sha256(reference).hexdigest() if reference else None
    layer = session.read_options(session.remembered(sha256))["anndata"].get("layer")
    found = datadir.footprint_of(chosen, budget, layer)
    refused = None
    if found is not None and not DATASETS.holds(sha256):
        try:
            check_fits(found, chosen, budget, way_out(found, False))
        except FSEngineError as exc:
            refused = messages.describe(exc)
    press.button(
        "Open file", key="data_dir_open", on_click=_on_open_data_file, disabled=bool(refused)
    )
    if refused:
        st.error(f"Cannot open: {refused}.")
    elif found is not None:
        st.caption(
            f"Opening it takes {found.text()}"
            + (f"; the server has {size_text(budget)} available." if budget else ".")
        )


def _on_sheet() -> None:
    """A sample sheet given (or removed): the table read again with it, keeping the label
    and groups columns chosen (a corrected sheet has them; else the error lists its
    columns), or without it, the label and groups found afresh."""
    loaded = session.current()
    raw, name = st.session_state.get("pending_upload", (loaded.raw, loaded.name))
    if st.session_state.get(_sheet_key()) is None:
        options = _options(raw, label=None, sample_groups=None, **_NO_SHEET)
    else:
        options = _options(raw)
    _reload(raw, name, **options)


def _on_options() -> None:
    loaded = session.current()
    label = st.session_state["label_column"]
    transpose = st.session_state["transpose"]
    raw, name = st.session_state.get("pending_upload", (loaded.raw, loaded.name))
    pending_choices = st.session_state.get("pending_label_choices") or ()
    changes = {}
    if transpose != loaded.transpose or (
        "pending_upload" in st.session_state and label not in pending_choices
    ):
        changes["label"] = None
    if transpose != loaded.transpose:
        changes["sample_groups"] = None
    _reload(raw, name, **_options(raw, **changes))


def _flags(params: dict) -> str:
    """The command line's options for preprocessing ``params`` ("`--floor 20 ...`")."""
    parts = [
        f"{PREPROCESSING.parameters[k].cli_flag} {v:g}"
        if isinstance(v, float)
        else f"{PREPROCESSING.parameters[k].cli_flag} {v}"
        for k, v in params.items()
    ]
    return "`" + " ".join(parts) + "`"


def _on_preprocess(params: dict | None = None) -> None:
    """Read the data set again with the preprocessing widgets' values (or ``params``,
    e.g. the suggested steps, which the widgets then show)."""
    loaded = session.current()
    raw, name = st.session_state.get("pending_upload", (loaded.raw, loaded.name))
    chosen = _preprocessing_widgets() if params is None else params
    _reload(raw, name, **_options(raw, preprocessing=chosen))


def render() -> None:
    """Draw the Data page: load a file (upload, data directory, sample sheet, AnnData
    options), read it, pick the label and the minority class, name the classes,
    preprocess."""
    loaded = session.current()
    if "transpose" not in st.session_state:
        _sync_widgets()
    ds = loaded.dataset

    st.title("Data")
    sample = (
        loaded.name == session.SAMPLE_PATH.name and loaded.raw == session.SAMPLE_PATH.read_bytes()
    )
    st.markdown(
        "**Start here, in three steps:** **1. Upload** your matrix below"
        + (" (until then, the bundled SRBCT sample is loaded)" if sample else "")
        + " · **2. Choose the minority class**, the rare class to find genes for (the "
        "smallest usable one is chosen for you) · **3. Stream** it on the Stream page: watch a "
        "method select genes one at a time."
    )
    st.caption(
        "Then Compare, Sweep and Benchmark measure the methods, Genes shows the selected genes "
        "sample by sample, and Export gives the files and the command line that repeats a run."
    )
    limit = st.get_option("server.maxUploadSize")
    upload_col, option_col = st.columns([3, 2])
    with upload_col:
        # No type= filter: Streamlit's own refusal is a red "!" with a MIME type; the
        # library names the format and what to do (e.g. an Excel workbook: save as CSV).
        st.file_uploader(
            f"Upload a matrix: CSV, TSV, gzip-compressed CSV, Parquet, a GEO series matrix or an "
            f"AnnData .h5ad file (up to {limit} MB)",
            key="uploader",
            on_change=_on_upload,
            help="Samples in rows and genes in columns, with one label column; "
            "use the toggle for genes in rows.",
        )
        st.file_uploader(
            messages.label("samples"),
            key=_sheet_key(),
            on_change=_on_sheet,
            help="A CSV, TSV or Parquet table of the samples: the class, and perhaps the "
            "patient or batch, of each. With a sheet, the matrix above holds numbers only, "
            "with the sample ids as its first column (or, genes in rows, as its header). "
            "The sheet's column of those ids is found by itself and its rows are matched in "
            "any order; choose the class in the label box and, if any, the groups in the "
            "groups box.",
        )
        if loaded.samples_name:
            st.caption(
                f"Sample sheet in use: **{loaded.samples_name}** (remove it above to read "
                "the table alone, after giving it again)"
            )
        _data_dir_section()
    with option_col:
        st.toggle(messages.label("transpose"), key="transpose", on_change=_on_options)
        st.toggle(messages.label("drop_constant"), key="drop_constant", on_change=_on_options)
        if st.session_state.get("pending_label_choices"):  # a file that failed for its label
            label_options = list(st.session_state["pending_label_choices"])
        elif ds.label_choices:  # a GEO series matrix's sample lines, an AnnData file's obs
            label_options = list(ds.label_choices)
        else:
            label_options = [
                ds.label_column,
                *[c for c in ds.feature_names if c != ds.label_column],
            ]
        if st.session_state.get("label_column") not in (AUTO_LABEL, *label_options):
            st.session_state["label_column"] = AUTO_LABEL
        st.selectbox(
            messages.label("label"),
            [AUTO_LABEL, *label_options],
            key="label_column",
            on_change=_on_options,
            help="Default: a column named label/class/target, else the last non-numeric "
            "column, else the last column. A GEO series matrix keeps the class in a sample "
            "line (a characteristic such as 'disease state', the title or the source name), an "
            "AnnData file in an obs column: choose it here; the default is the only one with "
            "classes.",
        )
        if ds.label_choices:  # a sheet's, a series matrix's or an AnnData file's annotations
            group_options = [c for c in ds.label_choices if c != ds.label_column]
        else:
            group_options = [*((ds.groups_column,) if ds.groups_column else ()), *ds.feature_names]
        if st.session_state.get("pending_column"):  # a failed file's column, perhaps the groups
            group_options.insert(0, st.session_state["pending_column"])
        group_options = list(dict.fromkeys(group_options))
        if st.session_state.get("sample_groups") not in (NO_GROUPS, *group_options):
            group_options.insert(0, st.session_state["sample_groups"])
        st.selectbox(
            messages.label("sample_groups"),
            [NO_GROUPS, *group_options],
            key="sample_groups",
            on_change=_on_options,
            accept_new_options=True,
            help="The column (or sample annotation) naming each sample's patient, donor or "
            "batch: it is not a feature, and the 50/50 splits of Compare, Sweep and Benchmark "
            "keep each group on one side (as the command line's --sample-groups). Type a "
            "column's name if it is not listed.",
        )

        pending = st.session_state.get("pending_upload")
        choices = _matrix_choices(pending[0] if pending else loaded.raw)
        if choices and (choices["layers"] or choices["var_columns"]):  # an AnnData file's
            for key, first, found in (
                ("anndata_layer", X_MATRIX, choices["layers"]),
                ("anndata_gene_names", VAR_NAMES, choices["var_columns"]),
            ):
                if st.session_state.get(key) not in (first, *found):
                    st.session_state[key] = first
            st.selectbox(
                messages.label("layer"),
                [X_MATRIX, *choices["layers"]],
                key="anndata_layer",
                on_change=_on_options,
                help="The AnnData file's matrix: X, or one of its layers (raw counts are often "
                "kept in one), as the command line's --layer.",
            )
            st.selectbox(
                messages.label("gene_names"),
                [VAR_NAMES, *choices["var_columns"]],
                key="anndata_gene_names",
                on_change=_on_options,
                help="What names the genes: the file's var_names, or a var column (gene "
                "symbols, say), as the command line's --gene-names.",
            )

    if "load_error" in st.session_state:
        st.error(st.session_state["load_error"] + f"  \nStill using {loaded.name}.")
    elif "reading_note" in st.session_state:
        st.info(st.session_state.pop("reading_note"), icon=":material/history:")

    counts = ds.class_counts()
    classes = list(counts)
    # A keyed widget fed from "minority": with `index=` instead, the widget's identity changed
    # with the previous choice and every second choice was lost; the callback also updates
    # "minority" before the sidebar is drawn.
    session.assign_widget("minority_select", session.state.minority)
    default = ds.default_minority()
    class_names = dict(session.state.class_names)
    minority = st.selectbox(
        messages.label("minority"),
        classes,
        key="minority_select",
        # format_func runs again outside the script (e.g. AppTest): no session state in it
        format_func=lambda c: (
            f"{c}{f' ({class_names[str(c)]})' if str(c) in class_names else ''}: "
            f"{counts[c]} samples" + (", the default" if c == default else "")
        ),
        on_change=session.take_minority_choice,
        help="The rare class to select genes for; the others together are the rest. The "
        "default is the smallest class the 50/50 comparison can use (4 samples or more).",
    )
    if reason := ds.default_minority_reason():
        st.info(reason, icon=":material/info:")
    names_text = ", ".join(f"{k}={v}" for k, v in session.state.class_names.items())
    named = st.text_input(
        "Class names (optional)",
        value=names_text,
        key=f"class_names_{loaded.name}_{ds.label_column}",
        placeholder=", ".join(f"{c}=name" for c in classes[:3]),
        help="Names for coded classes, shown beside the codes on every page, e.g. "
        "'0=EWS, 1=RMS'. The library and the exports keep the codes.",
    )
    if named != names_text:
        parsed, unknown = {}, []
        for part in filter(None, (p.strip() for p in named.split(","))):
            code, _, name = part.partition("=")
            if str(code).strip() not in {str(c) for c in classes} or not name.strip():
                unknown.append(part)
            else:
                parsed[code.strip()] = name.strip()
        if unknown:
            st.error(
                f"Class names: {', '.join(repr(u) for u in unknown)} do not name a class as "
                f"code=name; the classes are {', '.join(map(str, classes))}."
            )
        else:
            session.state.class_names = parsed
            reruns.rerun()

    st.subheader(loaded.name)
    if ds.is_backed:
        st.caption(
            f"Read from disk a block of genes at a time (backed): {ds.n_samples:,} x "
            f"{ds.n_features:,}, whose dense copy would take "
            f"{size_text(8 * ds.n_samples * ds.n_features)} of memory. Stream reads a "
            "block of genes at a time and Genes the selected genes only; Compare and Sweep say "
            "before they start whether a run's copy in memory fits."
        )
    else:
        st.caption(
            f"In memory: {size_text(ds.matrix_bytes)} ({'sparse' if ds.is_sparse else 'dense'} "
            f"{ds.n_samples:,} x {ds.n_features:,}), one copy for every session that reads it."
        )
    cols = st.columns([1, 1, 1, 2, 1])
    cols[0].metric("Samples", ds.n_samples)
    cols[1].metric("Features", ds.n_features)
    cols[2].metric("Classes", len(counts))
    minority_text = session.class_text(minority)
    short = minority_text if len(minority_text) <= 14 else minority_text[:13] + "\u2026"
    cols[3].metric(
        "Minority class",
        short,
        delta=f"{counts[minority]} samples",
        delta_color="off",
        delta_arrow="off",
        help=f"**{minority_text}**: the class to select genes for, against all other classes "
        "together (one versus rest). Default on every new data set: the smallest class the "
        "50/50 comparison can use.",
    )
    cols[4].metric(
        "Imbalance ratio",
        f"{ds.imbalance_ratio(minority):.2f}",
        help="Majority / minority of the one-versus-rest problem: "
        f"{max(counts[minority], ds.n_samples - counts[minority])} / "
        f"{min(counts[minority], ds.n_samples - counts[minority])}.",
    )
    if counts[minority] > counts[default]:
        st.warning(
            f"Class {minority} ({counts[minority]} samples) is larger than the default, class "
            f"{default} ({counts[default]} samples), the smallest class the 50/50 comparison "
            "can use. The methods are built for a rare minority: choose class "
            f"{default} in the '{messages.label('minority')}' box unless class {minority} is "
            "the one you study."
        )
    unusable = running.refusal(protocol=False)  # the label rule: no run at all
    compare_splits, compare_seed = running.compare_protocol()  # the groups' check: Compare's splits
    refused = running.refusal(True, compare_splits, compare_seed)
    if unusable:
        st.error(unusable)
    elif refused:
        why = (
            f"with the groups of '{ds.groups_column}' (checked on the Compare page's "
            f"{compare_splits} splits, seed {compare_seed}; Sweep checks its own)"
            if ds.groups_column
            else "their 50/50 splits need at least 2 of it in each half"
        )
        st.warning(
            f"{refused} Compare and Sweep cannot run on class {minority}: {why}.",
            icon=":material/warning:",
        )
    running.show_protocol_warnings(n_splits=compare_splits, seed=compare_seed)
    checked = st.session_state.setdefault("_unlogged", {})  # a scan of X: once per data set
    key = session.task_key()
    if key not in checked:  # raw intensities or counts, else single cells' raw counts
        said = looks_unlogged(ds.X) or looks_like_counts(ds.X, METHOD_LABELS)
        checked[key] = (said, suggested_preprocessing(ds.X) if said else {})
    unlogged, suggested = checked[key]
    if unlogged:
        steps = preprocessing_text(suggested)
        st.info(
            f"{unlogged[0].upper()}{unlogged[1:]}. Suggested preprocessing: **{steps}** (the "
            f"command line's {_flags(suggested)}); apply it below, or with the button.",
            icon=":material/info:",
        )
        st.button(
            f"Apply the suggested preprocessing ({steps})",
            key="apply_suggested",
            on_click=_on_preprocess,
            args=(suggested,),
        )
    with st.expander(
        "Preprocessing: " + (ds.preprocessing or "none"),
        expanded=bool(unlogged or loaded.preprocessing),
    ):
        st.caption(
            "Thresholds, then a log transform, then a variance filter, in that order (the "
            "command line's options of the same names); the defaults change nothing. The steps "
            "applied are kept in every run's record."
        )
        widgets.spec_widgets(PREPROCESSING, PREFIX, ds.n_samples, columns=5)
        st.button("Apply preprocessing", key="apply_preprocessing", on_click=_on_preprocess)

    # The classes as a table with a bar per row (no chart: the first page draws without
    # loading a chart library in the browser, about 0.7 s of the first page).
    largest = max(counts.values())
    table = pd.DataFrame(
        {
            "class": [session.class_text(c) for c in classes],
            "samples": list(counts.values()),
            "share": [counts[c] / ds.n_samples for c in classes],
            "role": [
                "minority" if c == minority else "default minority" if c == default else ""
                for c in classes
            ],
        }
    )
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        column_config={
            "class": st.column_config.TextColumn(
                "class", width="large", help="The class label (and the name you gave it)."
            ),
            "samples": st.column_config.ProgressColumn(
                "samples",
                format="%d",
                min_value=0,
                max_value=largest,
                help="Samples of the class; the bar is its size against the largest class.",
            ),
            "share": st.column_config.NumberColumn(format="percent", width="small"),
            "role": st.column_config.TextColumn(
                "role",
                help="The minority class chosen above (one versus rest), and the default when "
                "you chose another.",
            ),
        },
    )

    st.subheader("Preprocessing report")
    reading_notes, steps = preprocessing_notes(ds)  # the steps once, on the preprocessing line
    groups_line = (
        f"- sample groups: column **{ds.groups_column}**, {len(set(ds.groups.tolist()))} groups "
        f"(each kept on one side of a split{running.group_splits_text()})\n"
        if ds.groups_column
        else ""
    )
    st.markdown(
        f"- label column: **{ds.label_column}**\n"
        + (f"- sample sheet: **{loaded.samples_name}**\n" if loaded.samples_name else "")
        + f"- preprocessing: **{ds.preprocessing or 'none'}**"
        + (f" ({'; '.join(steps)})" if steps else "")
        + "\n"
        + groups_line
        + f"- constant features: **{len(ds.constant_features)}**"
        + (
            " (their distances are undefined; consider dropping them)"
            if ds.constant_features
            else ""
        )
        + f"\n- dropped features: **{len(ds.dropped_features)}**\n"
        + "".join(f"- {note}\n" for note in reading_notes)
    )
    if ds.constant_features or ds.dropped_features:
        with st.expander("Constant / dropped features"):
            st.write(", ".join(ds.constant_features or ds.dropped_features))
    with st.expander("Preview (first 10 samples, first 20 features)"):
        shown = range(min(20, ds.n_features))
        preview = ds.dense_values(list(shown), list(range(min(10, ds.n_samples))))
        st.dataframe(pd.DataFrame(preview, columns=list(ds.feature_names[: len(shown)])))


# Streamlit runs a page as __main__; imported (a test), the page only defines.
if __name__ == "__main__":
    render()
