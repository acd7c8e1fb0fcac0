"""The app's session state: the loaded data set survives reruns and page switches."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from fsengine import Dataset, FSEngineError, load_dataset

SAMPLE_PATH = Path(__file__).resolve().parent.parent / "sample_data" / "SRBCT.parquet"
#: The paper's minority class for the bundled sample (SRBCT class 2 = BL).
SAMPLE_MINORITY = 2


@dataclass(frozen=True)
class LoadedData:
    """What the user loaded: the raw bytes and options (to reload) and the result."""

    name: str
    raw: bytes
    label: str | None
    transpose: bool
    drop_constant: bool
    dataset: Dataset


@st.cache_data(max_entries=4, show_spinner="Reading the data set ...")
def _load(raw: bytes, name: str, label: str | None, transpose: bool,
          drop_constant: bool) -> Dataset:
    return load_dataset(raw, name=name, label=label, transpose=transpose,
                        drop_constant=drop_constant)


def load_into_session(raw: bytes, name: str, *, label: str | None = None,
                      transpose: bool = False, drop_constant: bool = False) -> LoadedData:
    """Load and validate; on success make it the current data set.

    Raises FSEngineError and leaves the previous data set in place on failure.
    """
    dataset = _load(raw, name, label, transpose, drop_constant)
    loaded = LoadedData(name, raw, label, transpose, drop_constant, dataset)
    st.session_state["data"] = loaded
    counts = dataset.class_counts()
    if st.session_state.get("minority") not in counts:
        st.session_state["minority"] = (SAMPLE_MINORITY if name == SAMPLE_PATH.name
                                        and SAMPLE_MINORITY in counts else list(counts)[-1])
    return loaded


def current() -> LoadedData:
    """The current data set; the bundled sample is loaded on first use."""
    if "data" not in st.session_state:
        try:
            load_into_session(SAMPLE_PATH.read_bytes(), SAMPLE_PATH.name)
        except (OSError, FSEngineError) as exc:
            st.error(f"The bundled sample data set could not be loaded: {exc}")
            st.stop()
    return st.session_state["data"]
