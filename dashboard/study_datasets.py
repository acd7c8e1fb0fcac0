"""The Benchmark page's data sets: the current one, the workspace's, and uploads kept in the
workspace (or in the session when it cannot save them), each with its reading options and
minority class, read by the library's loader. The page (dashboard/pages/benchmark.py) lays them out
and builds the study."""

import hashlib

import streamlit as st

from dashboard import messages, persistence, reruns, session
from dashboard.memory import DATASETS, reading_key
from dashboard.pages import BY_NAME
from fsengine import FSEngineError, load_dataset
from fsengine.io import file_stem

#: The page's store of widget values (:func:`dashboard.session.persisted`).
WIDGETS = BY_NAME["benchmark"].widgets
AUTO_LABEL = "(automatic)"


def file_size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    return f"{n / 1024:.0f} KB" if n < 1024**2 else f"{n / 1024**2:.1f} MB"


def uploader_key() -> str:
    # A new key empties the uploader once its files are in the list below.
    return f"benchmark_uploader_{st.session_state.setdefault('benchmark_uploads', 0)}"


@reruns.whole
def on_upload() -> None:
    """Keep each uploaded file in the workspace (in this session when it cannot be
    saved) and add it to the study."""
    files = st.session_state.get(uploader_key()) or []
    found, wid = persistence.store(), persistence.workspace_id()
    kept = st.session_state.setdefault("benchmark_files", {})
    chosen = list(st.session_state.get("benchmark_workspace", []))
    problems = []
    for upload in files:
        raw = upload.getvalue()
        try:
            if found is None or wid is None:
                raise OSError("nothing is being saved in this session")
            sha = found.put_dataset(raw, upload.name, workspace_id=wid)
        except Exception as exc:  # noqa: BLE001 - no store, too large for it, disk full
            sha = hashlib.sha256(raw).hexdigest()
            kept[sha] = (raw, upload.name)
            problems.append(f"{upload.name} is used but not saved in the workspace: {exc}")
        if sha not in chosen and sha != persistence.dataset_sha():
            chosen.append(sha)
    session.set_widget(WIDGETS, "benchmark_workspace", chosen)
    st.session_state["benchmark_upload_problems"] = problems
    st.session_state["benchmark_uploads"] += 1


def stored_datasets() -> dict[str, tuple[str, int]]:
    """The workspace's data sets and this session's uploads: hash -> (name, size)."""
    found, wid = persistence.store(), persistence.workspace_id()
    listed = {}
    if found is not None and wid is not None:
        try:
            listed = {d.sha: (d.name, d.size) for d in found.list_datasets(wid)}
        except Exception:  # noqa: BLE001 - the store failed: this session's uploads only
            listed = {}
    for sha, (raw, name) in st.session_state.get("benchmark_files", {}).items():
        listed.setdefault(sha, (name, len(raw)))
    return listed


def fetcher(sha: str):
    """A chosen data set's bytes: this session's upload, else the workspace's copy."""

    def fetch() -> bytes | None:
        kept = st.session_state.get("benchmark_files", {}).get(sha)
        if kept is not None:
            return kept[0]
        found = persistence.store()
        stored = found.get_dataset(sha) if found is not None else None
        return None if stored is None else stored[0]

    return fetch


def _read(sha: str, name: str, label: str | None, transpose: bool, fetch) -> object:
    """The data set of hash ``sha`` read by the library's loader as the Data page reads
    it, once per server (:data:`dashboard.memory.DATASETS`: the Data page's copy when
    it has read the file with these options)."""

    def read():
        raw = fetch()
        if raw is None:
            raise FSEngineError(f"{name} is no longer stored in this workspace; upload it again")
        with st.spinner("Reading the data set ..."):
            return load_dataset(raw, name=name, label=label, transpose=transpose, sparse=True)

    return DATASETS.get(reading_key(sha, name, label, transpose), read, family=sha)


def _option_keys(sha: str) -> dict[str, str]:
    return {o: f"benchmark_{sha[:16]}_{o}" for o in ("transpose", "label", "minority")}


def dataset_options(sha: str, name: str, size: int):
    """One workspace data set: its options drawn, read; (dataset, label, transpose,
    minority) or None when it cannot be read (said in an error box)."""
    keys = _option_keys(sha)
    session.restore_widgets(WIDGETS, {keys["transpose"]: False, keys["label"]: AUTO_LABEL})
    transpose = bool(st.session_state[keys["transpose"]])
    label = st.session_state[keys["label"]]
    label = None if label == AUTO_LABEL else label
    with st.container(border=True):
        name_col, rows_col, label_col, minority_col = st.columns([3, 3, 2, 3])
        try:
            ds = _read(sha, name, label, transpose, fetcher(sha))
        except FSEngineError as exc:
            ds, problem = None, messages.describe(exc)
        name_col.markdown(
            f"**{name}**  \n"
            + (f"{ds.n_samples} samples x {ds.n_features} features, " if ds else "")
            + file_size(size)
        )
        rows_col.toggle(
            messages.label("transpose"),
            **session.persisted(WIDGETS, keys["transpose"], cast=bool),
            help="The file has genes in rows and samples in columns.",
        )
        columns = [AUTO_LABEL]
        if ds is not None:
            columns += [ds.label_column, *[c for c in ds.feature_names if c != ds.label_column]]
        elif label is not None:
            columns.append(label)
        label_col.selectbox(
            messages.label("label"),
            columns,
            **session.persisted(WIDGETS, keys["label"], start="index", options=columns),
            help="Default: a column named label/class/target, else the last non-numeric "
            "column, else the last column.",
        )
        if ds is None:
            st.error(
                f"Could not read {name}: {problem}  \nIt is left out of the study: change "
                "its options here, or remove it from the list above.",
                icon=":material/error:",
            )
            return None
        counts = ds.class_counts()
        default = ds.default_minority()
        saved = st.session_state.get(WIDGETS, {}).get(keys["minority"])
        if saved not in counts:
            session.set_widget(WIDGETS, keys["minority"], default)
        else:
            st.session_state[keys["minority"]] = saved
        minority = minority_col.selectbox(
            messages.label("minority"),
            list(counts),
            **session.persisted(WIDGETS, keys["minority"], start="index", options=list(counts)),
            format_func=lambda c: (
                f"{c}: {counts[c]} samples" + (", the default" if c == default else "")
            ),
        )
    return ds, label, transpose, minority


def unique_name(name: str, taken: set) -> str:
    stem, n = file_stem(name), 2
    unique = stem
    while unique in taken:
        unique, n = f"{stem} ({n})", n + 1
    taken.add(unique)
    return unique
