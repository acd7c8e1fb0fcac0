"""Data page: the loaded data set, its classes and imbalance; upload another one."""

import pandas as pd
import streamlit as st

from dashboard import messages, running, session
from fsengine import FSEngineError
from fsengine.preprocess import looks_unlogged

AUTO_LABEL = "(automatic)"


def _reload(raw: bytes, name: str, *, label=None, transpose=False, drop_constant=False) -> None:
    """Load with the given options; on failure keep the previous data set and say why.

    A failed file is kept as pending, so that changing an option (e.g. the "Genes in
    rows" toggle the error suggests) retries that file, not the previous data set; the
    options keep the user's choice.
    """
    try:
        session.load_into_session(
            raw, name, label=label, transpose=transpose, drop_constant=drop_constant
        )
    except FSEngineError as exc:
        st.session_state["load_error"] = f"Could not load {name}: {messages.describe(exc)}"
        st.session_state["pending_upload"] = (raw, name)
        st.session_state["pending_label_choices"] = exc.choices  # the file's own, if any
    else:
        st.session_state.pop("load_error", None)
        st.session_state.pop("pending_upload", None)
        st.session_state.pop("pending_label_choices", None)
        _sync_widgets()


def _sync_widgets() -> None:
    loaded = session.current()
    st.session_state["transpose"] = loaded.transpose
    st.session_state["drop_constant"] = loaded.drop_constant
    st.session_state["label_column"] = loaded.label or AUTO_LABEL


def _on_upload() -> None:
    upload = st.session_state.get("uploader")
    if upload is not None:
        _reload(
            upload.getvalue(),
            upload.name,
            transpose=st.session_state.get("transpose", False),
            drop_constant=st.session_state.get("drop_constant", False),
        )


def _on_minority() -> None:
    st.session_state["minority"] = st.session_state["minority_select"]


def _on_options() -> None:
    loaded = session.current()
    label = st.session_state["label_column"]
    transpose = st.session_state["transpose"]
    raw, name = st.session_state.get("pending_upload", (loaded.raw, loaded.name))
    pending_choices = st.session_state.get("pending_label_choices") or ()
    if transpose != loaded.transpose or (
        "pending_upload" in st.session_state and label not in pending_choices
    ):
        label = AUTO_LABEL
    _reload(
        raw,
        name,
        label=None if label == AUTO_LABEL else label,
        transpose=transpose,
        drop_constant=st.session_state["drop_constant"],
    )


loaded = session.current()
if "transpose" not in st.session_state:
    _sync_widgets()
ds = loaded.dataset

st.title("Data")
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
with option_col:
    st.toggle(messages.label("transpose"), key="transpose", on_change=_on_options)
    st.toggle(messages.label("drop_constant"), key="drop_constant", on_change=_on_options)
    if st.session_state.get("pending_label_choices"):  # a file that failed for its label
        label_options = list(st.session_state["pending_label_choices"])
    elif ds.label_choices:  # a GEO series matrix's sample lines, an AnnData file's obs
        label_options = list(ds.label_choices)
    else:
        label_options = [ds.label_column, *[c for c in ds.feature_names if c != ds.label_column]]
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

if "load_error" in st.session_state:
    st.error(st.session_state["load_error"] + f"  \nStill using {loaded.name}.")

counts = ds.class_counts()
classes = list(counts)
# A keyed widget fed from "minority": with `index=` instead, the widget's identity changed
# with the previous choice and every second choice was lost; the callback also updates
# "minority" before the sidebar is drawn.
st.session_state["minority_select"] = st.session_state["minority"]
default = ds.default_minority()
class_names = dict(st.session_state.get("class_names", {}))
minority = st.selectbox(
    messages.label("minority"),
    classes,
    key="minority_select",
    # format_func runs again outside the script (e.g. AppTest): no session state in it
    format_func=lambda c: (
        f"{c}{f' ({class_names[str(c)]})' if str(c) in class_names else ''}: {counts[c]} samples"
        + (", the default" if c == default else "")
    ),
    on_change=_on_minority,
    help="The rare class to select genes for; the others together are the rest. The "
    "default is the smallest class the 50/50 comparison can use (4 samples or more).",
)
if reason := ds.default_minority_reason():
    st.info(reason, icon=":material/info:")
names_text = ", ".join(f"{k}={v}" for k, v in st.session_state.get("class_names", {}).items())
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
        st.session_state["class_names"] = parsed
        st.rerun()

st.subheader(loaded.name)
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
refused = running.refusal()
if unusable:
    st.error(unusable)
elif refused:
    st.warning(
        f"{refused} Compare and Sweep cannot run on class {minority}: their 50/50 splits "
        "need at least 2 of it in each half.",
        icon=":material/warning:",
    )
running.show_protocol_warnings()
checked = st.session_state.setdefault("_unlogged", {})  # a scan of X: once per data set
key = session.task_key()
if key not in checked:
    checked[key] = looks_unlogged(ds.X)
unlogged = checked[key]
if unlogged:
    st.info(
        f"{unlogged[0].upper()}{unlogged[1:]}. The command line preprocesses them "
        "(`--floor 20 --transform log2`, or `--transform log-cpm` for counts; see the README); "
        "the pages read the values as they are.",
        icon=":material/info:",
    )

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
st.markdown(
    f"- label column: **{ds.label_column}**\n"
    f"- constant features: **{len(ds.constant_features)}**"
    + (" (their distances are undefined; consider dropping them)" if ds.constant_features else "")
    + f"\n- dropped features: **{len(ds.dropped_features)}**\n"
    + "".join(f"- {note}\n" for note in ds.notes)
)
if ds.constant_features or ds.dropped_features:
    with st.expander("Constant / dropped features"):
        st.write(", ".join(ds.constant_features or ds.dropped_features))
with st.expander("Preview (first 10 samples, first 20 features)"):
    st.dataframe(pd.DataFrame(ds.X[:10, :20], columns=list(ds.feature_names[:20])))
