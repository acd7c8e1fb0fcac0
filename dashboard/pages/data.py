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


@reruns.whole
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


@reruns.whole
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


def _opening_text(footprint: str, budget: int | None) -> str:
    """What opening a data-directory file takes (``footprint``) and the server's memory
    available (``budget`` bytes; None or 0: not known)."""
    return f"Opening it takes {footprint}" + (
        f"; the server has {size_text(budget)} available." if budget else "."
    )


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
        **session.starting("data_dir_file", "index", list(sizes)),
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
        st.caption(_opening_text(found.text(), budget))


@reruns.whole
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


@reruns.whole
def _on_options() -> None:
    """A toggle or box of the reading changed: the file read again with the widgets' options;
    the label found afresh when the orientation changed (or a failed file's label is not
    one of its columns), and the groups when the orientation changed."""
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


@reruns.whole
def _on_preprocess(params: dict | None = None) -> None:
    """Read the data set again with the preprocessing widgets' values (or ``params``,
    e.g. the suggested steps, which the widgets then show)."""
    loaded = session.current()
    raw, name = st.session_state.get("pending_upload", (loaded.raw, loaded.name))
    chosen = _preprocessing_widgets() if params is None else params
    _reload(raw, name, **_options(raw, preprocessing=chosen))


def _start_here_text(sample_loaded: bool) -> str:
    """The page's three steps, naming the bundled sample while it is the data set."""
    return (
        "**Start here, in three steps:** **1. Upload** your matrix below"
        + (" (until then, the bundled SRBCT sample is loaded)" if sample_loaded else "")
        + " · **2. Choose the minority class**, the rare class to find genes for (the "
        "smallest usable one is chosen for you) · **3. Stream** it on the Stream page: watch a "
        "method select genes one at a time."
    )


def _introduction(loaded) -> None:
    """Draw the title, the three steps to start and what the other pages do."""
    st.title("Data")
    sample = (
        loaded.name == session.SAMPLE_PATH.name and loaded.raw == session.SAMPLE_PATH.read_bytes()
    )
    st.markdown(_start_here_text(sample))
    st.caption(
        "Then Compare, Sweep and Benchmark measure the methods, Genes shows the selected genes "
        "sample by sample, and Export gives the files and the command line that repeats a run."
    )


def _upload_section(loaded) -> None:
    """Draw the matrix and sample-sheet uploaders, the sheet in use and the data
    directory's files."""
    limit = st.get_option("server.maxUploadSize")
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


def _label_options(pending_choices, label_choices, label_column, feature_names) -> list:
    """The label box's columns (besides automatic).

    Parameters
    ----------
    pending_choices : sequence of str or None
        The columns of a file that failed for its label: offered first of all.
    label_choices : sequence of str
        The data set's sample annotations (a GEO series matrix's lines, an AnnData
        file's obs columns), when it has them.
    label_column, feature_names
        The data set's label column and features: offered, the label first, otherwise.
    """
    if pending_choices:
        return list(pending_choices)
    if label_choices:
        return list(label_choices)
    return [label_column, *[c for c in feature_names if c != label_column]]


def _group_options(
    label_choices, label_column, groups_column, feature_names, pending_column, chosen
) -> list:
    """The groups box's columns (besides none), each once.

    Parameters
    ----------
    label_choices : sequence of str
        The data set's sample annotations: all but the label column are offered; without
        them, its groups column (if any) and its features.
    label_column, groups_column, feature_names
        The data set's.
    pending_column : str or None
        A failed file's column (perhaps the groups): put first.
    chosen
        The box's value: put first when not offered (a name typed in the box).
    """
    if label_choices:
        options = [c for c in label_choices if c != label_column]
    else:
        options = [*((groups_column,) if groups_column else ()), *feature_names]
    if pending_column:
        options.insert(0, pending_column)
    options = list(dict.fromkeys(options))
    if chosen not in (NO_GROUPS, *options):
        options.insert(0, chosen)
    return options


def _label_box(ds) -> None:
    """Draw the label column's box (set back to automatic when its value is not offered)."""
    label_options = _label_options(
        st.session_state.get("pending_label_choices"),
        ds.label_choices,
        ds.label_column,
        ds.feature_names,
    )
    if st.session_state.get("label_column") not in (AUTO_LABEL, *label_options):
        st.session_state["label_column"] = AUTO_LABEL
    st.selectbox(
        messages.label("label"),
        [AUTO_LABEL, *label_options],
        key="label_column",
        **session.starting("label_column", "index", [AUTO_LABEL, *label_options]),
        on_change=_on_options,
        help="Default: a column named label/class/target, else the last non-numeric "
        "column, else the last column. A GEO series matrix keeps the class in a sample "
        "line (a characteristic such as 'disease state', the title or the source name), an "
        "AnnData file in an obs column: choose it here; the default is the only one with "
        "classes.",
    )


def _groups_box(ds) -> None:
    """Draw the sample groups' box, which also takes a typed column name."""
    group_options = _group_options(
        ds.label_choices,
        ds.label_column,
        ds.groups_column,
        ds.feature_names,
        st.session_state.get("pending_column"),
        st.session_state.get("sample_groups"),
    )
    st.selectbox(
        messages.label("sample_groups"),
        [NO_GROUPS, *group_options],
        key="sample_groups",
        **session.starting("sample_groups", "index", [NO_GROUPS, *group_options]),
        on_change=_on_options,
        accept_new_options=True,
        help="The column (or sample annotation) naming each sample's patient, donor or "
        "batch: it is not a feature, and the 50/50 splits of Compare, Sweep and Benchmark "
        "keep each group on one side (as the command line's --sample-groups). Type a "
        "column's name if it is not listed.",
    )


def _anndata_boxes(loaded) -> None:
    """Draw an AnnData file's matrix (X or a layer) and gene-names boxes: those of the
    file that failed to load, else of the loaded one; nothing for another format."""
    pending = st.session_state.get("pending_upload")
    choices = _matrix_choices(pending[0] if pending else loaded.raw)
    if not (choices and (choices["layers"] or choices["var_columns"])):
        return
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
        **session.starting("anndata_layer", "index", [X_MATRIX, *choices["layers"]]),
        on_change=_on_options,
        help="The AnnData file's matrix: X, or one of its layers (raw counts are often "
        "kept in one), as the command line's --layer.",
    )
    st.selectbox(
        messages.label("gene_names"),
        [VAR_NAMES, *choices["var_columns"]],
        key="anndata_gene_names",
        **session.starting("anndata_gene_names", "index", [VAR_NAMES, *choices["var_columns"]]),
        on_change=_on_options,
        help="What names the genes: the file's var_names, or a var column (gene "
        "symbols, say), as the command line's --gene-names.",
    )


def _reading_options_section(loaded) -> None:
    """Draw how the file is read: the two toggles, the label and groups boxes and, for an
    AnnData file, its matrix and gene names."""
    for key in ("transpose", "drop_constant"):
        st.toggle(
            messages.label(key), key=key, on_change=_on_options, **session.starting(key, cast=bool)
        )
    _label_box(loaded.dataset)
    _groups_box(loaded.dataset)
    _anndata_boxes(loaded)


def _load_notice(loaded) -> None:
    """Draw why the last file failed to load, else how a known file was read (once)."""
    if "load_error" in st.session_state:
        st.error(st.session_state["load_error"] + f"  \nStill using {loaded.name}.")
    elif "reading_note" in st.session_state:
        st.info(st.session_state.pop("reading_note"), icon=":material/history:")


def _minority_option_text(code, counts: dict, class_names: dict, default) -> str:
    """A class as the minority box shows it: "2 (RMS): 25 samples, the default"."""
    named = f" ({class_names[str(code)]})" if str(code) in class_names else ""
    return f"{code}{named}: {counts[code]} samples" + (", the default" if code == default else "")


def _minority_box(ds, counts: dict) -> tuple:
    """Draw the minority class's box and why the default is what it is.

    Returns
    -------
    minority, default
        The class chosen and the default minority class.
    """
    # A keyed widget fed from "minority" and starting at it (a keyed widget's identity is
    # its key; 1.3x Streamlit's `index=` alone made a new widget of each choice, and every
    # second choice was lost); the callback also updates "minority" before the sidebar is
    # drawn.
    session.assign_widget("minority_select", session.state.minority)
    default = ds.default_minority()
    class_names = dict(session.state.class_names)
    minority = st.selectbox(
        messages.label("minority"),
        list(counts),
        key="minority_select",
        **session.starting("minority_select", "index", list(counts)),
        # format_func runs again outside the script (e.g. AppTest): no session state in it
        format_func=lambda c: _minority_option_text(c, counts, class_names, default),
        on_change=session.take_minority_choice,
        help="The rare class to select genes for; the others together are the rest. The "
        "default is the smallest class the 50/50 comparison can use (4 samples or more).",
    )
    if reason := ds.default_minority_reason():
        st.info(reason, icon=":material/info:")
    return minority, default


def _class_names_text(class_names: dict) -> str:
    """Class names as the box holds them: "0=EWS, 1=RMS"."""
    return ", ".join(f"{k}={v}" for k, v in class_names.items())


def _parse_class_names(text: str, classes) -> tuple[dict, list]:
    """The box's "code=name" parts: (code -> name of the classes named, the parts that
    name no class or no name)."""
    parsed, unknown = {}, []
    for part in filter(None, (p.strip() for p in text.split(","))):
        code, _, name = part.partition("=")
        if str(code).strip() not in {str(c) for c in classes} or not name.strip():
            unknown.append(part)
        else:
            parsed[code.strip()] = name.strip()
    return parsed, unknown


def _class_names_error(unknown: list, classes) -> str:
    """What is wrong with the box's ``unknown`` parts."""
    return (
        f"Class names: {', '.join(repr(u) for u in unknown)} do not name a class as "
        f"code=name; the classes are {', '.join(map(str, classes))}."
    )


def _class_names_box(loaded, classes: list) -> None:
    """Draw the class names' box; names given that all name a class are kept (a rerun
    shows them), else the error says which do not."""
    names_text = _class_names_text(session.state.class_names)
    # (the file's hash too: another file of the same name does not take these names)
    key = f"class_names_{loaded.name}_{loaded.sha256[:12]}_{loaded.dataset.label_column}"
    named = st.text_input(
        "Class names (optional)",
        key=key,
        placeholder=", ".join(f"{c}=name" for c in classes[:3]),
        help="Names for coded classes, shown beside the codes on every page, e.g. "
        "'0=EWS, 1=RMS'. The library and the exports keep the codes.",
        **{"value": names_text, **session.starting(key, cast=str)},
    )
    parsed, unknown = _parse_class_names(named, classes)
    if unknown:
        st.error(_class_names_error(unknown, classes))
    elif _class_names_text(parsed) != names_text:  # (as written: "1 = a" names "1=a")
        session.state.class_names = parsed
        reruns.rerun()


def _memory_text(
    n_samples: int, n_features: int, matrix_bytes: int, is_sparse: bool, is_backed: bool
) -> str:
    """Where the matrix is read from and the memory it takes (a backed one: its dense
    copy would)."""
    if is_backed:
        return (
            f"Read from disk a block of genes at a time (backed): {n_samples:,} x "
            f"{n_features:,}, whose dense copy would take "
            f"{size_text(8 * n_samples * n_features)} of memory. Stream reads a "
            "block of genes at a time and Genes the selected genes only; Compare and Sweep say "
            "before they start whether a run's copy in memory fits."
        )
    return (
        f"In memory: {size_text(matrix_bytes)} ({'sparse' if is_sparse else 'dense'} "
        f"{n_samples:,} x {n_features:,}), one copy for every session that reads it."
    )


def _short_class_text(text: str) -> str:
    """A class's text cut to 14 characters (13 and an ellipsis) for a metric."""
    return text if len(text) <= 14 else text[:13] + "\u2026"


def _imbalance_help(minority_samples: int, n_samples: int) -> str:
    """The imbalance ratio's terms: the larger side of one versus rest over the smaller."""
    rest = n_samples - minority_samples
    return (
        "Majority / minority of the one-versus-rest problem: "
        f"{max(minority_samples, rest)} / {min(minority_samples, rest)}."
    )


def _larger_minority_warning(minority, minority_samples: int, default, default_samples) -> str:
    """The warning that the minority class chosen is larger than the default one."""
    return (
        f"Class {minority} ({minority_samples} samples) is larger than the default, class "
        f"{default} ({default_samples} samples), the smallest class the 50/50 comparison "
        "can use. The methods are built for a rare minority: choose class "
        f"{default} in the '{messages.label('minority')}' box unless class {minority} is "
        "the one you study."
    )


def _summary_section(loaded, counts: dict, minority, default) -> None:
    """Draw the data set's name, memory, sizes, minority class and imbalance, and a
    warning when the minority class is larger than the default."""
    ds = loaded.dataset
    st.subheader(loaded.name)
    st.caption(
        _memory_text(ds.n_samples, ds.n_features, ds.matrix_bytes, ds.is_sparse, ds.is_backed)
    )
    cols = st.columns([1, 1, 1, 2, 1])
    cols[0].metric("Samples", ds.n_samples)
    cols[1].metric("Features", ds.n_features)
    cols[2].metric("Classes", len(counts))
    minority_text = session.class_text(minority)
    cols[3].metric(
        "Minority class",
        _short_class_text(minority_text),
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
        help=_imbalance_help(counts[minority], ds.n_samples),
    )
    if counts[minority] > counts[default]:
        st.warning(_larger_minority_warning(minority, counts[minority], default, counts[default]))


def _compare_refusal_text(refused: str, minority, groups_column, splits: int, seed: int) -> str:
    """Why Compare and Sweep cannot run on the minority class: ``refused`` and what it was
    checked with (the groups on Compare's splits, else the 50/50 halves)."""
    why = (
        f"with the groups of '{groups_column}' (checked on the Compare page's "
        f"{splits} splits, seed {seed}; Sweep checks its own)"
        if groups_column
        else "their 50/50 splits need at least 2 of it in each half"
    )
    return f"{refused} Compare and Sweep cannot run on class {minority}: {why}."


def _usability_section(ds, minority) -> None:
    """Draw why no run, or no Compare and Sweep, can use the minority class, and the
    protocol's warnings."""
    unusable = running.refusal(protocol=False)  # the label rule: no run at all
    compare_splits, compare_seed = running.compare_protocol()  # the groups' check: Compare's splits
    refused = running.refusal(True, compare_splits, compare_seed)
    if unusable:
        st.error(unusable)
    elif refused:
        st.warning(
            _compare_refusal_text(
                refused, minority, ds.groups_column, compare_splits, compare_seed
            ),
            icon=":material/warning:",
        )
    running.show_protocol_warnings(n_splits=compare_splits, seed=compare_seed)


def _unlogged_check(ds) -> tuple:
    """Whether the matrix looks unlogged (raw intensities or counts, else single cells' raw
    counts) and the preprocessing suggested for it, scanned once per task.

    Returns
    -------
    unlogged : str
        What the matrix looks like (empty when it looks logged).
    suggested : dict
        The preprocessing parameters suggested (empty when it looks logged).
    """
    checked = st.session_state.setdefault("_unlogged", {})  # a scan of X: once per data set
    key = session.task_key()
    if key not in checked:
        said = looks_unlogged(ds.X) or looks_like_counts(ds.X, METHOD_LABELS)
        checked[key] = (said, suggested_preprocessing(ds.X) if said else {})
    return checked[key]


def _suggestion_text(unlogged: str, steps: str, flags: str) -> str:
    """The notice of an unlogged matrix: what it looks like and the steps suggested."""
    return (
        f"{unlogged[0].upper()}{unlogged[1:]}. Suggested preprocessing: **{steps}** (the "
        f"command line's {flags}); apply it below, or with the button."
    )


def _suggestion_notice(unlogged: str, suggested: dict) -> None:
    """Draw what an unlogged matrix looks like and a button applying the suggested steps."""
    steps = preprocessing_text(suggested)
    st.info(_suggestion_text(unlogged, steps, _flags(suggested)), icon=":material/info:")
    st.button(
        f"Apply the suggested preprocessing ({steps})",
        key="apply_suggested",
        on_click=_on_preprocess,
        args=(suggested,),
    )


def _preprocessing_expander(loaded, unlogged: str) -> None:
    """Draw the preprocessing widgets in an expander, open when the matrix looks unlogged
    or the data set is preprocessed."""
    ds = loaded.dataset
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


def _class_table(labels: list, counts: dict, n_samples: int, minority, default) -> pd.DataFrame:
    """The classes' table: each class's text (``labels``, in ``counts``' order), samples,
    share of all samples and role (the minority, the default minority)."""
    return pd.DataFrame(
        {
            "class": labels,
            "samples": list(counts.values()),
            "share": [counts[c] / n_samples for c in counts],
            "role": [
                "minority" if c == minority else "default minority" if c == default else ""
                for c in counts
            ],
        }
    )


def _classes_section(ds, counts: dict, minority, default) -> None:
    """Draw the classes as a table with a bar per row."""
    # No chart: the first page draws without loading a chart library in the browser,
    # about 0.7 s of the first page.
    table = _class_table(
        [session.class_text(c) for c in counts], counts, ds.n_samples, minority, default
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
                max_value=max(counts.values()),
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


def _groups_line(groups_column: str, n_groups: int, splits_text: str) -> str:
    """The report's line on the sample groups."""
    return (
        f"- sample groups: column **{groups_column}**, {n_groups} groups "
        f"(each kept on one side of a split{splits_text})\n"
    )


def _report_markdown(
    label_column: str,
    samples_name: str | None,
    preprocessing: str,
    steps: list,
    groups_line: str,
    n_constant: int,
    n_dropped: int,
    notes: list,
) -> str:
    """The preprocessing report: how the data set was read, as a Markdown list.

    Parameters
    ----------
    label_column, samples_name, preprocessing
        The label column, the sample sheet's name (None: no sheet) and the preprocessing
        line (empty: none).
    steps : list of str
        The preprocessing's steps, shown after its line.
    groups_line : str
        :func:`_groups_line`'s, or empty without groups.
    n_constant, n_dropped : int
        The constant features kept and the features dropped.
    notes : list of str
        The reading's notes, a line each.
    """
    return (
        f"- label column: **{label_column}**\n"
        + (f"- sample sheet: **{samples_name}**\n" if samples_name else "")
        + f"- preprocessing: **{preprocessing or 'none'}**"
        + (f" ({'; '.join(steps)})" if steps else "")
        + "\n"
        + groups_line
        + f"- constant features: **{n_constant}**"
        + (" (their distances are undefined; consider dropping them)" if n_constant else "")
        + f"\n- dropped features: **{n_dropped}**\n"
        + "".join(f"- {note}\n" for note in notes)
    )


def _report_section(loaded) -> None:
    """Draw the preprocessing report, the constant or dropped features and a preview of
    the matrix."""
    ds = loaded.dataset
    st.subheader("Preprocessing report")
    reading_notes, steps = preprocessing_notes(ds)  # the steps once, on the preprocessing line
    groups_line = (
        _groups_line(ds.groups_column, len(set(ds.groups.tolist())), running.group_splits_text())
        if ds.groups_column
        else ""
    )
    st.markdown(
        _report_markdown(
            ds.label_column,
            loaded.samples_name,
            ds.preprocessing,
            steps,
            groups_line,
            len(ds.constant_features),
            len(ds.dropped_features),
            reading_notes,
        )
    )
    if ds.constant_features or ds.dropped_features:
        with st.expander("Constant / dropped features"):
            st.write(", ".join(ds.constant_features or ds.dropped_features))
    with st.expander("Preview (first 10 samples, first 20 features)"):
        shown = range(min(20, ds.n_features))
        preview = ds.dense_values(list(shown), list(range(min(10, ds.n_samples))))
        st.dataframe(pd.DataFrame(preview, columns=list(ds.feature_names[: len(shown)])))


def render() -> None:
    """Draw the Data page: load a file (upload, data directory, sample sheet, AnnData
    options), read it, pick the label and the minority class, name the classes,
    preprocess."""
    loaded = session.current()
    if "transpose" not in st.session_state:
        _sync_widgets()
    ds = loaded.dataset
    _introduction(loaded)
    upload_col, option_col = st.columns([3, 2])
    with upload_col:
        _upload_section(loaded)
    with option_col:
        _reading_options_section(loaded)
    _load_notice(loaded)
    counts = ds.class_counts()
    minority, default = _minority_box(ds, counts)
    _class_names_box(loaded, list(counts))
    _summary_section(loaded, counts, minority, default)
    _usability_section(ds, minority)
    unlogged, suggested = _unlogged_check(ds)
    if unlogged:
        _suggestion_notice(unlogged, suggested)
    _preprocessing_expander(loaded, unlogged)
    _classes_section(ds, counts, minority, default)
    _report_section(loaded)


# Streamlit runs a page as __main__; imported (a test), the page only defines.
if __name__ == "__main__":
    render()
