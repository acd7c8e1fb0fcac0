"""The session: the current data set (it survives reruns and page switches), the class
names the user gave, and the widgets' remembered values. Imports nothing else of the
dashboard but its messages and the server's data sets (memory): the workspace
(persistence), the widgets and running work (running) build on it."""

from __future__ import annotations

import hashlib
import shlex
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from dashboard import datadir, messages, reruns
from dashboard.memory import DATASETS, reading_key, server_budget, way_out
from dashboard.pages import TASK_STORES
from fsengine import Dataset, FSEngineError, load_dataset
from fsengine.data.preprocess import PREPROCESSING, preprocess, preprocessing_text
from fsengine.data.task import Task, training_size
from fsengine.evaluation import protocol_defaults, training_halves
from fsengine.export.writers import data_arguments
from fsengine.io.footprint import check_fits, footprint

SAMPLE_PATH = Path(__file__).resolve().parent.parent / "sample_data" / "SRBCT.parquet"
#: The sample's class names (sample_data/README.md: Khan et al. 2001).
SAMPLE_CLASS_NAMES = {"0": "EWS", "1": "RMS", "2": "BL", "3": "NB"}


def preprocessing_changes(params: dict | None) -> dict:
    """The :data:`~fsengine.data.preprocess.PREPROCESSING` parameters of ``params`` that differ
    from their defaults, checked (a parameter that does not apply, such as the offset
    without log2, is left out): ``{}`` for no preprocessing.

    Raises
    ------
    FSEngineError
        A bad value, named by the parameter.
    """
    checked = PREPROCESSING.check(dict(params or {}))
    defaults = PREPROCESSING.defaults()
    return {k: v for k, v in PREPROCESSING.record(checked).items() if v != defaults[k]}


@dataclass(frozen=True, kw_only=True)
class LoadedData:
    """What the user loaded: the raw bytes and options (to reload) and the result.

    Attributes
    ----------
    samples, samples_name : bytes or None, str or None
        The sample sheet read with the table (:func:`fsengine.load_dataset`'s
        ``samples``), and its file name.
    preprocessing : dict
        The preprocessing parameters that differ from their defaults
        (:func:`preprocessing_changes`).
    sample_groups : str or None
        The column naming each sample's group (``sample_groups=``).
    anndata : dict
        An AnnData file's ``layer`` and ``gene_names`` (var column) when not X and
        var_names (:func:`fsengine.load_dataset`'s options of those names).
    """

    name: str
    raw: bytes
    label: str | None
    transpose: bool
    drop_constant: bool
    dataset: Dataset
    #: SHA-256 of ``raw``: the data set's key in the workspace and the report's checksum.
    sha256: str = ""
    samples: bytes | None = None
    samples_name: str | None = None
    preprocessing: dict = field(default_factory=dict)
    sample_groups: str | None = None
    anndata: dict = field(default_factory=dict)

    @property
    def source(self):
        """What the file is read from: its bytes, or the path of a data-directory file
        (:mod:`dashboard.datadir`; FSEngineError when it has gone or changed)."""
        return datadir.source(self.raw)

    @property
    def samples_sha256(self) -> str | None:
        """SHA-256 of the sample sheet's bytes (its key in the workspace), or None."""
        return None if self.samples is None else hashlib.sha256(self.samples).hexdigest()

    @property
    def options(self) -> dict:
        """How the bytes were read, as the workspace and the run records keep it: label,
        transpose, drop_constant, the sample sheet (``samples``: its SHA-256, and
        ``samples_name``), ``preprocessing``, ``sample_groups`` and ``anndata``."""
        return {
            "label": self.label,
            "transpose": self.transpose,
            "drop_constant": self.drop_constant,
            "samples": self.samples_sha256,
            "samples_name": self.samples_name,
            "preprocessing": dict(self.preprocessing),
            "sample_groups": self.sample_groups,
            "anndata": dict(self.anndata),
        }


class SessionState:
    """The one owner of what a session keeps across its reruns and pages: the loaded data
    set, the minority class and the class names the user gave, the task and what is
    worked out from it, each page's results, and the workspace. Typed attributes over
    ``st.session_state`` (which holds the values, so that a rerun, a page switch and
    AppTest see them), read and written here and nowhere else by name. Use the module's
    :data:`state`.
    """

    _DATA = "data"
    _MINORITY = "minority"
    _CLASS_NAMES = "class_names"
    _WORKSPACE = "workspace"
    _WORKSPACE_PROBLEM = "workspace_problem"
    _WORKSPACE_NOTICE = "workspace_notice"
    _OF_TASK = "_of_task"
    _BY_TASK = "_by_task"
    _STREAMS = "streams"
    _RUN_STATUS = "_status"
    _EXPORT_RESULTS = "export_results"
    #: Other data sets (or readings) whose Export-page selections are kept aside.
    EXPORT_READINGS_KEPT = 4

    @property
    def data(self) -> LoadedData | None:
        """The loaded data set (None before the first page loads the sample:
        :func:`current` loads it)."""
        return st.session_state.get(self._DATA)

    @data.setter
    def data(self, loaded: LoadedData) -> None:
        st.session_state[self._DATA] = loaded

    @property
    def minority(self):
        """The minority class chosen (a label of the loaded data set), or None."""
        return st.session_state.get(self._MINORITY)

    @minority.setter
    def minority(self, label) -> None:
        st.session_state[self._MINORITY] = label

    def choose_minority(self, label) -> bool:
        """Make ``label`` the minority class when it is a class of the loaded data set;
        returns whether it was (a stored or sent class of another data set is not)."""
        loaded = self.data
        if loaded is None or label not in loaded.dataset.class_counts():
            return False
        self.minority = label
        return True

    @property
    def class_names(self) -> dict:
        """Class code (as text) -> the name the user gave it."""
        return st.session_state.get(self._CLASS_NAMES, {})

    @class_names.setter
    def class_names(self, names: dict) -> None:
        st.session_state[self._CLASS_NAMES] = dict(names)

    def of_task(self, name: str, key: TaskKey, make: Callable[[], Any]) -> Any:
        """The value ``name`` of the task ``key`` (the task itself, its size): ``make()``,
        made once and kept until the task changes. A ``make`` that raises keeps nothing."""
        kept = st.session_state.setdefault(self._OF_TASK, {})
        entry = kept.get(name)
        if entry is None or entry[0] != key:
            entry = (key, make())
            kept[name] = entry
        return entry[1]

    def by_task(self, name: str) -> dict:
        """The values ``name`` worked out per task and settings (keys led by a
        :class:`TaskKey`), kept for every task of the session."""
        return st.session_state.setdefault(self._BY_TASK, {}).setdefault(name, {})

    def results(self, store: str) -> dict:
        """A page's results (:data:`dashboard.pages.RESULT_KINDS`' stores): result key
        (:func:`run_key`) -> result."""
        return st.session_state.setdefault(store, {})

    def streams(self) -> dict:
        """The session's streams (:mod:`dashboard.streams`): stream key -> the stream
        kept with its lock, thread and last snapshot."""
        return st.session_state.setdefault(self._STREAMS, {})

    def run_status(self, store: str) -> dict:
        """The state of a page's runs that their threads write (:mod:`dashboard.running`):
        "stopped", "error", "computed", "problem"."""
        return st.session_state.setdefault(store + self._RUN_STATUS, {})

    def export_results(self, loaded: LoadedData) -> dict:
        """The selections the Export page computed for ``loaded`` as it is read: (minority,
        method, top, parameters) -> :class:`fsengine.methods.runs.RunResult`. They belong
        to one data set at a time; another data set's (or reading's) are put aside when
        this one's are asked for, and come back with it (the newest
        :attr:`EXPORT_READINGS_KEPT`)."""
        kept = st.session_state.get(self._EXPORT_RESULTS)
        if kept is None or kept["data"] is not loaded:
            others = st.session_state.setdefault(f"{self._EXPORT_RESULTS}_by_reading", {})
            if kept is not None and kept["results"]:
                others.pop(kept["reading"], None)
                others[kept["reading"]] = kept["results"]
                while len(others) > self.EXPORT_READINGS_KEPT:
                    others.pop(next(iter(others)))
            reading = (loaded.sha256, repr(sorted(loaded.options.items())))
            kept = {"data": loaded, "reading": reading, "results": others.pop(reading, {})}
            st.session_state[self._EXPORT_RESULTS] = kept
        return kept["results"]

    def export_results_shown(self, loaded: LoadedData) -> dict:
        """:meth:`export_results` of ``loaded`` when the Export page last worked on it,
        else empty; reading them moves nothing (the report and the Genes page)."""
        kept = st.session_state.get(self._EXPORT_RESULTS)
        return kept["results"] if kept is not None and kept["data"] is loaded else {}

    @property
    def workspace(self) -> str | None:
        """This session's workspace id (None when nothing is being saved)."""
        return st.session_state.get(self._WORKSPACE)

    @workspace.setter
    def workspace(self, wid: str) -> None:
        st.session_state[self._WORKSPACE] = wid

    @property
    def workspace_problem(self) -> str | None:
        """Why nothing is being saved, once the store failed; else None."""
        return st.session_state.get(self._WORKSPACE_PROBLEM)

    @workspace_problem.setter
    def workspace_problem(self, text: str) -> None:
        st.session_state[self._WORKSPACE_PROBLEM] = text

    def tell(self, notice: str) -> None:
        """Keep ``notice`` about the workspace for the next page drawn
        (:meth:`take_notice`)."""
        st.session_state[self._WORKSPACE_NOTICE] = notice

    def take_notice(self) -> str | None:
        """The workspace notice kept by :meth:`tell`, once; None when there is none."""
        return st.session_state.pop(self._WORKSPACE_NOTICE, None)


#: The session's owner (:class:`SessionState`).
state = SessionState()


def read_options(record: dict | None) -> dict:
    """The keyword arguments of :func:`load_into_session` (but the sheet's bytes) from a
    stored record of :attr:`LoadedData.options`; fields missing from older records take
    their defaults."""
    record = record or {}
    return {
        "label": record.get("label"),
        "transpose": bool(record.get("transpose")),
        "drop_constant": bool(record.get("drop_constant")),
        "samples_name": record.get("samples_name"),
        "preprocessing": dict(record.get("preprocessing") or {}),
        "sample_groups": record.get("sample_groups"),
        "anndata": dict(record.get("anndata") or {}),
    }


def _load(
    raw: bytes,
    name: str,
    label: str | None,
    transpose: bool,
    drop_constant: bool,
    samples: bytes | None = None,
    samples_name: str | None = None,
    preprocessing: tuple = (),
    sample_groups: str | None = None,
    anndata: tuple = (),
    sha256: str | None = None,
) -> Dataset:
    """The data set these bytes and options give, read once per server
    (:data:`dashboard.memory.DATASETS`: one copy for every session, a sparse matrix kept
    sparse); preprocessed from the data set as read, itself kept. A file whose reading
    would take more than half the server's memory (:func:`dashboard.memory.server_budget`)
    is refused before it is read (:func:`fsengine.io.footprint.check_fits`)."""
    sha256 = sha256 or hashlib.sha256(raw).hexdigest()
    sheet = None if samples is None else hashlib.sha256(samples).hexdigest()
    reading = reading_key(
        sha256, name, label, transpose, drop_constant, sheet, samples_name, sample_groups, anndata
    )

    source, backed = raw, False
    if datadir.is_reference(raw):  # a file of the data directory: read there, not copied;
        source, entry = datadir.referenced(raw)  # still there and the same, even when kept
        backed = datadir.backed_option(entry)

    def read() -> Dataset:
        with st.spinner("Reading the data set ..."):
            budget = server_budget()
            layer = dict(anndata).get("layer")
            found = footprint(source, name, layer=layer, backed=backed, budget=budget)
            # before anything is read
            check_fits(found, name, budget, way_out(found, uploaded=source is raw))
            return load_dataset(
                source,
                backed=found.form == "backed" if found is not None and backed is None else backed,
                name=name,
                label=label,
                transpose=transpose,
                drop_constant=drop_constant,
                samples=samples,
                samples_name=samples_name,
                sample_groups=sample_groups,
                sparse=True,
                **dict(anndata),
            )

    dataset = DATASETS.get(reading, read, family=sha256)
    if not preprocessing:
        return dataset

    def preprocessed() -> Dataset:
        with st.spinner("Preprocessing the data set ..."):
            return preprocess(dataset, dict(preprocessing))

    return DATASETS.get((*reading, preprocessing), preprocessed, family=sha256)


def load_into_session(
    raw: bytes,
    name: str,
    *,
    label: str | None = None,
    transpose: bool = False,
    drop_constant: bool = False,
    samples: bytes | None = None,
    samples_name: str | None = None,
    preprocessing: dict | None = None,
    sample_groups: str | None = None,
    anndata: dict | None = None,
) -> LoadedData:
    """Load and validate; on success make it the current data set.

    Parameters
    ----------
    raw, name : bytes, str
        The file and its name.
    label, transpose, drop_constant, samples, samples_name, sample_groups
        As :func:`fsengine.load_dataset` takes them (``samples``: the sheet's bytes).
    preprocessing : dict, optional
        Parameters of :data:`fsengine.data.preprocess.PREPROCESSING`, applied after reading.
    anndata : dict, optional
        An AnnData file's ``layer`` and ``gene_names``; None values are left out.

    Raises FSEngineError and leaves the previous data set in place on failure.
    """
    changes = preprocessing_changes(preprocessing)
    sample_groups = sample_groups or None
    anndata = {k: v for k, v in (anndata or {}).items() if v}
    if samples is None:
        samples_name = None
    sha256 = hashlib.sha256(raw).hexdigest()
    dataset = _load(
        raw,
        name,
        label,
        transpose,
        drop_constant,
        samples,
        samples_name,
        tuple(sorted(changes.items())),
        sample_groups,
        tuple(sorted(anndata.items())),
        sha256,
    )
    loaded = LoadedData(
        name=name,
        raw=raw,
        label=label,
        transpose=transpose,
        drop_constant=drop_constant,
        dataset=dataset,
        sha256=sha256,
        samples=samples,
        samples_name=samples_name,
        preprocessing=changes,
        sample_groups=sample_groups,
        anndata=anndata,
    )
    previous = state.data
    state.data = loaded
    same_classes = (
        previous is not None
        and previous.raw == raw
        and previous.samples == samples
        and previous.dataset.label_column == dataset.label_column
    )
    counts = dataset.class_counts()
    # A file read here before with the same label column: its own class and names.
    known = remembered(loaded.sha256, dataset.label_column)
    if not same_classes or state.minority not in counts:
        # Else a new data set (or a new label column): the default class (the smallest
        # the comparison can use), never the previous data set's choice.
        mine = known.get("minority")
        state.minority = mine if mine in counts else dataset.default_minority()
    if not same_classes:
        sample = name == SAMPLE_PATH.name and raw == _sample_bytes()
        names = dict(SAMPLE_CLASS_NAMES) if sample else {}
        if isinstance(known.get("class_names"), dict):
            codes = {str(c) for c in counts}
            names = {k: v for k, v in known["class_names"].items() if k in codes}
        state.class_names = names
    return loaded


#: Session key: data set SHA-256 -> how it was last read here (:attr:`LoadedData.options`,
#: its ``name`` and ``label_column``), its ``minority`` class and ``class_names``; kept in
#: the workspace. A file uploaded again (or reopened) is read as it was last read.
READINGS = "dataset_readings"
#: Most data sets whose reading is remembered (the least recently used is forgotten).
MAX_READINGS = 32


def remember_reading() -> None:
    """Keep how the current data set is read, its minority class and class names
    (:data:`READINGS`), as the newest entry."""
    loaded = state.data
    if loaded is None:
        return
    readings = st.session_state.setdefault(READINGS, {})
    entry = {
        "name": loaded.name,
        **loaded.options,
        "label_column": loaded.dataset.label_column,
        "minority": state.minority,
        "class_names": dict(state.class_names),
    }
    if readings.get(loaded.sha256) == entry and next(reversed(readings)) == loaded.sha256:
        return
    readings.pop(loaded.sha256, None)
    readings[loaded.sha256] = entry
    while len(readings) > MAX_READINGS:
        readings.pop(next(iter(readings)))


def remembered(sha256: str, label_column: str | None = None) -> dict:
    """How the data set of SHA-256 ``sha256`` was last read here (:func:`remember_reading`),
    ``{}`` when it was not; with ``label_column``, ``{}`` unless it was read with that
    label column (its classes are others)."""
    found = st.session_state.get(READINGS, {}).get(sha256) or {}
    if label_column is not None and found.get("label_column") != label_column:
        return {}
    return dict(found)


def reading_text(options: dict) -> str:
    """How a data set was read (:attr:`LoadedData.options`), in words, its defaults left
    out: "preprocessing transform=log2, offset=0.0; groups: patient"; "" for the
    defaults."""
    parts = []
    if options.get("label"):
        parts.append(f"label column {options['label']}")
    if options.get("transpose"):
        parts.append("genes in rows")
    if options.get("drop_constant"):
        parts.append("constant features dropped")
    if options.get("samples_name"):
        parts.append(f"sample sheet {options['samples_name']}")
    if options.get("preprocessing"):
        parts.append(f"preprocessing {preprocessing_text(options['preprocessing'])}")
    if options.get("sample_groups"):
        parts.append(f"groups: {options['sample_groups']}")
    for name, value in (options.get("anndata") or {}).items():
        if value:
            parts.append(f"{name.replace('_', ' ')} {value}")
    return "; ".join(parts)


def _sample_bytes() -> bytes:
    try:
        return SAMPLE_PATH.read_bytes()
    except OSError:
        return b""


def class_text(label) -> str:
    """A class as the pages show it: "2 (BL)" when the user named it, else "2"."""
    name = state.class_names.get(str(label))
    return f"{label} ({name})" if name and name != str(label) else str(label)


def current() -> LoadedData:
    """The current data set; the bundled sample is loaded on first use."""
    if state.data is None:
        try:
            load_into_session(SAMPLE_PATH.read_bytes(), SAMPLE_PATH.name)
        except (OSError, FSEngineError) as exc:
            st.error(f"The bundled sample data set could not be loaded: {messages.describe(exc)}")
            st.stop()
    return state.data


#: A thread's task fixed by :func:`pin_task` (a run computing off the page).
_PINNED = threading.local()


def pin_task(task: Task | None) -> None:
    """Make ``task`` what :func:`current_task` returns on the calling thread (a run's own
    thread, which must compute on the task of its start whatever the session moves to
    meanwhile); None: the session's current task again."""
    _PINNED.task = task


def current_task() -> Task:
    """The task of the current data set and minority class (:class:`fsengine.data.task.Task`),
    built once per (data set, loader options, minority) and kept in the session; on a
    thread given one by :func:`pin_task`, that one.

    Raises
    ------
    FSEngineError
        When the minority class breaks the label rule (too few samples, or every sample).
    """
    pinned = getattr(_PINNED, "task", None)
    if pinned is not None:
        return pinned
    loaded = current()
    return state.of_task(
        "task", task_key(), lambda: Task.from_dataset(loaded.dataset, state.minority)
    )


def training_half(n_splits: int, seed: int) -> tuple[int, str]:
    """Samples of the smallest training half the protocol draws on the current task with
    ``n_splits`` and ``seed`` (:func:`fsengine.evaluation.training_halves`: ceil(n / 2)
    without sample groups, the smallest drawn half with them), and how a caption names
    it. Kept per task and protocol.

    A task the label rule or the groups refuse gets ceil(n / 2): the pages say why.
    """
    kept = state.by_task("training_half")
    key = (task_key(), int(n_splits), int(seed))
    if key not in kept:
        n = training_size(current().dataset.n_samples)
        grouped = False
        try:
            task = current_task()
            if task.groups is not None:
                n, grouped = training_halves(task.y, n_splits, seed, task.groups)[0], True
        except FSEngineError:
            pass
        text = (
            f"training halves of {n} samples or more (the groups' {n_splits} splits, seed {seed})"
            if grouped
            else f"a training half of {n} samples"
        )
        kept[key] = (n, text)
    return kept[key]


def reading_arguments() -> str:
    """The command line's options that read the current data set as it was read here
    (:func:`fsengine.export.writers.data_arguments`: label, sheet, groups, preprocessing), for
    the report; "" when the minority class is refused (no task)."""
    loaded = current()
    try:
        record = current_task().record()
    except FSEngineError:
        return ""
    record.update(transpose=loaded.transpose, drop_constant=loaded.drop_constant)
    return shlex.join(data_arguments(record))


def task_defaults(method: str) -> dict:
    """``method``'s defaults that suit the current task better than its specification's,
    for the protocol's training halves (:func:`fsengine.evaluation.protocol_defaults`:
    K-OFSD's K below a small minority class): parameter -> (value, why). Kept per task."""
    kept = state.by_task("task_defaults")
    key = (task_key(), method)
    if key not in kept:
        try:
            task = current_task()
        except FSEngineError:
            kept[key] = {}  # a class the label rule refuses: the pages say so
        else:
            kept[key] = protocol_defaults(task.y, method, groups=task.groups, X=task.X)
    return kept[key]


@dataclass(frozen=True)
class TaskKey:
    """What identifies a task in the session and the workspace without building it: the
    data set's bytes (SHA-256), how they were read (the sample sheet's SHA-256, the
    preprocessing, the groups column, the AnnData options) and the minority class. Frozen
    and hashable: the key of every per-task store of the session.

    Build it with :meth:`of` (from the loader options as a record keeps them),
    :func:`task_key` (the current task) or :func:`stored_task_key` (a stored run's).
    """

    sha256: str
    label: str | None
    transpose: bool
    drop_constant: bool
    #: ``repr`` of the minority class (a numeric label 2 and the text "2" differ).
    minority: str
    samples: str | None
    #: The preprocessing steps, sorted: (name, ``repr`` of its value).
    preprocessing: tuple[tuple[str, str], ...]
    sample_groups: str | None
    #: The AnnData options (layer, gene names), sorted; empty for other files.
    anndata: tuple = ()

    @classmethod
    def of(
        cls,
        sha256: str,
        label: str | None,
        transpose: bool,
        drop_constant: bool,
        minority,
        *,
        samples: str | None = None,
        preprocessing: dict | None = None,
        sample_groups: str | None = None,
        anndata: dict | None = None,
    ) -> TaskKey:
        """The key of a task read with these options, for the class ``minority``."""
        return cls(
            sha256,
            label,
            bool(transpose),
            bool(drop_constant),
            repr(minority),
            samples or None,
            tuple(sorted((str(k), repr(v)) for k, v in (preprocessing or {}).items())),
            sample_groups or None,
            tuple(sorted(anndata.items())) if anndata else (),
        )

    def as_tuple(self) -> tuple:
        """The key as the tuple it was before it had a type, whose ``repr`` names the task
        in the workspace's stored settings (:func:`task_mark`): kept, so that they still
        match."""
        head = (
            self.sha256,
            self.label,
            self.transpose,
            self.drop_constant,
            self.minority,
            self.samples,
            self.preprocessing,
            self.sample_groups,
        )
        return head + ((self.anndata,) if self.anndata else ())


def stored_task_key(sha256: str, record: dict) -> TaskKey:
    """:func:`task_key` of a stored stream: its data set's SHA-256 and its record's
    loader options (``record["dataset"]``, :attr:`LoadedData.options`; older records
    without the sheet, preprocessing and groups read as without them) and minority
    class."""
    data = record.get("dataset") or {}
    return TaskKey.of(
        sha256,
        data.get("label"),
        bool(data.get("transpose")),
        bool(data.get("drop_constant")),
        record.get("minority"),
        samples=data.get("samples"),
        preprocessing=data.get("preprocessing"),
        sample_groups=data.get("sample_groups"),
        anndata=data.get("anndata"),
    )


def task_key() -> TaskKey:
    """The current task's :class:`TaskKey`: the loaded data set, how it was read, and the
    minority class chosen."""
    loaded = current()
    return TaskKey.of(
        loaded.sha256,
        loaded.label,
        loaded.transpose,
        loaded.drop_constant,
        state.minority,
        samples=loaded.samples_sha256,
        preprocessing=loaded.preprocessing,
        sample_groups=loaded.sample_groups,
        anndata=loaded.anndata,
    )


#: Key inside a page's store of widget values: the task the values belong to
#: (:func:`task_mark`).
TASK_OF = "_task"
#: Most other tasks whose widget values a page keeps (the least recently left goes).
MAX_TASK_SETTINGS = 16


def task_mark() -> str:
    """A short name of the current task (:func:`task_key`) for the stores of widget
    values and the workspace's JSON: 32 hex digits of the SHA-256 of its ``repr`` (a
    64-digit string in a workspace state names a stored data set)."""
    return hashlib.sha256(repr(task_key().as_tuple()).encode()).hexdigest()[:32]


def other_tasks(store: str) -> dict:
    """The widget values ``store`` keeps for tasks other than the current one: task mark ->
    values, least recently left first."""
    return st.session_state.setdefault(f"{store}_by_task", {})


def _stash(store: str, saved: dict) -> None:
    owner = saved.get(TASK_OF)
    if owner is None:
        return
    kept = other_tasks(store)
    kept.pop(owner, None)
    kept[owner] = saved
    while len(kept) > MAX_TASK_SETTINGS:
        kept.pop(next(iter(kept)))


def widget_store(store: str) -> dict:
    """The remembered widget values of the page store ``store`` for the current task.

    A page whose settings belong to a task (:data:`dashboard.pages.TASK_STORES`) keeps
    them per task: when the task has changed since the store was last used, its values
    are put aside under their task and the current task's own come back (none for a task
    not seen: the page's defaults, which may depend on the task), with the keys shared
    across tasks (preferences such as the stream's speed). Values with no task (an
    older workspace) are taken as the current task's.
    """
    saved = st.session_state.setdefault(store, {})
    shared = TASK_STORES.get(store)
    if shared is None:
        return saved
    mark = task_mark()
    owner = saved.get(TASK_OF)
    if owner == mark:
        return saved
    if owner is None:
        saved[TASK_OF] = mark
        return saved
    _stash(store, saved)
    own = other_tasks(store).pop(mark, {})
    current_values = {**own, **{k: saved[k] for k in shared if k in saved}, TASK_OF: mark}
    st.session_state[store] = current_values
    return current_values


def replace_widgets(store: str, values: dict) -> None:
    """Make ``values`` the current task's remembered widget values of ``store`` (History's
    Reopen), the values they replace kept with their own task."""
    saved = st.session_state.get(store) or {}
    if TASK_STORES.get(store) is None:
        st.session_state[store] = dict(values)
        return
    mark = task_mark()
    if saved.get(TASK_OF) != mark:
        _stash(store, saved)
    shared = {k: saved[k] for k in TASK_STORES[store] if k in saved}
    st.session_state[store] = {**shared, **values, TASK_OF: mark}


def restore_widgets(store: str, defaults: dict) -> None:
    """Set every widget (by key) to its remembered value before the widgets are drawn.

    Pair with ``on_change=remember(store, key)`` on each widget: the callback runs
    before the script, so a fresh change is what gets restored. This survives page
    switches and widgets that are only drawn sometimes (another method's parameters).
    The remembered values are the current task's (:func:`widget_store`).

    A widget already holding its value is left alone (:func:`assign_widget`).
    """
    saved = widget_store(store)
    for key, default in defaults.items():
        assign_widget(key, saved.get(key, default))


_MISSING = object()


def assign_widget(key: str, value) -> None:
    """``st.session_state[key] = value`` unless ``key`` already holds ``value`` (of the
    same type).

    A widget's value set from the code is sent to the browser with the run's elements
    and replaces the one the browser shows. Set in every run, it undid a user's second
    click made while the first click's run was still drawing (that run sent the first
    click's value back): the choice was lost.

    Parameters
    ----------
    key : str
        The widget's key.
    value
        Its value from now on.
    """
    try:
        held = st.session_state[key] if key in st.session_state else _MISSING
        same = type(held) is type(value) and bool(held == value)
    except (TypeError, ValueError):  # values that do not compare as one truth value
        same = False
    if not same:
        st.session_state[key] = value


def remember(store: str, key: str):
    """An ``on_change`` callback keeping widget ``key``'s new value under ``store``."""

    def callback():
        widget_store(store)[key] = st.session_state[key]

    return reruns.whole(callback)


#: Session key: widget key -> the bounds or options it was last drawn with (:func:`persisted`).
DRAWN_BOUNDS = "_drawn_bounds"


@reruns.whole
def take_minority_choice() -> None:
    """The Data page's class box's ``on_change``: its class becomes the minority class,
    when it is a class of the loaded data set. A value from the browser that is not (a
    request sent before the browser had the page of a data set just loaded, carrying the
    previous data set's class) is no choice of the user's, and is dropped: the class
    stays the new data set's."""
    state.choose_minority(st.session_state.get("minority_select"))


def starting(
    key: str,
    start: str = "value",
    options=None,
    bounds: tuple | None = None,
    cast=None,
) -> dict:
    """The widget keyword that starts widget ``key`` at the value its key holds.

    Streamlit sends a value set from the code (:func:`restore_widgets`,
    :func:`set_widget`) only with the run that set it. A browser that never got that
    run's element (a click ended the run, or the next run's start cleared its unsent
    messages) draws the widget at its default, the first option or the lowest value,
    and sends that back as the user's change: a class, a K or a list of methods the
    user did not choose. With the default equal to the held value, that browser starts
    where the key is; one that holds the widget keeps the user's value (a keyed
    widget's identity does not depend on its default).

    Parameters
    ----------
    key : str
        The widget's key.
    start : {"value", "index", "default"}
        The keyword the widget starts by: "value" (slider, select_slider, number_input,
        checkbox, toggle, text_input), "index" (selectbox, radio) or "default"
        (multiselect).
    options : sequence, optional
        The widget's options (required by "index" and "default"): a value not among
        them starts nothing (Streamlit's own default then).
    bounds : tuple, optional
        The lowest and highest value (a slider, a number box; None: no bound): a value
        outside them starts nothing (Streamlit refuses such a default).
    cast : callable, optional
        The type the widget takes its value in (``float`` for a box of reals).

    Returns
    -------
    dict
        The keyword and its value, or empty (the key holds no value the widget can
        start at).
    """
    if key not in st.session_state:
        return {}
    held = st.session_state[key]
    if held is None:  # (a box that may be empty is given value=None by its caller)
        return {}
    low, high = (None, None) if bounds is None else bounds
    try:
        if start == "default":
            return {"default": [value for value in held if value in options]}
        if cast is not None:
            held = cast(held)
        values = held if isinstance(held, (tuple, list)) else (held,)
        if options is not None and not all(value in options for value in values):
            return {}
        if not all(
            (low is None or low <= value) and (high is None or value <= high) for value in values
        ):
            return {}
        if start == "index":
            return {"index": list(options).index(held)}
    except (TypeError, ValueError):  # another type than the options or bounds, not offered
        return {}
    return {"value": held}


def persisted(
    store: str,
    key: str,
    bounds: tuple | None = None,
    *,
    start: str = "value",
    options=None,
    cast=None,
    slider: bool = False,
) -> dict:
    """Widget keywords: ``key``, the ``on_change`` callback that remembers its value, and
    the default that starts it at the value its key holds (:func:`starting`).

    Parameters
    ----------
    store : str
        The page's store of remembered values.
    key : str
        The widget's key.
    bounds : tuple, optional
        A slider's or a number box's lowest and highest value.
    start, options, cast
        How the widget takes its first value (:func:`starting`).
    slider : bool
        A slider: Streamlit names a keyed slider by its key and its bounds (its other
        widgets by their key alone), so with new bounds it is a new widget. When the
        bounds differ from the last drawing's, the value is set again, to be drawn with
        them.

    Returns
    -------
    dict
        ``key``, ``on_change`` and the widget's starting keyword (when the key holds a
        value it can start at).
    """
    if slider and bounds is not None:
        drawn = st.session_state.setdefault(DRAWN_BOUNDS, {})
        if drawn.get(key) != bounds and key in st.session_state:
            st.session_state[key] = st.session_state[key]
        drawn[key] = bounds
    return {
        "key": key,
        "on_change": remember(store, key),
        **starting(key, start, options, bounds, cast),
    }


def set_widget(store: str, key: str, value) -> None:
    """Change a remembered widget's value from the page's code (before it is drawn);
    a widget that holds ``value`` already is left alone (:func:`assign_widget`)."""
    assign_widget(key, value)
    widget_store(store)[key] = value


#: The first field of a study's result key (the Benchmark page's): over data sets of its
#: own, not the current task (a study stored before 2026-11-25 names the Data page's data
#: set in its record all the same).
STUDY_KEY = "benchmark"


def run_key(*params) -> tuple:
    """Key of a run's result on the current task: the task's :class:`TaskKey` followed by
    the run's own parameters. A result is shown only under the task it ran on; the
    workspace stores the parameters alone (:func:`stored_run_key`), the task being the
    run's record's (:func:`stored_task_key`)."""
    return (task_key(), *params)


def settings_key(params: dict) -> tuple:
    """Methods' settings as a result key holds them: (method, ``str`` of its values)
    pairs, sorted by method."""
    return tuple(sorted((m, str(p)) for m, p in params.items()))


def stored_run_key(key: tuple) -> tuple:
    """A result key as the workspace stores it: without its :class:`TaskKey` (a run's
    record names its data set, reading and minority class); a study's key, over data sets
    of its own, whole."""
    return tuple(key[1:]) if key and isinstance(key[0], TaskKey) else tuple(key)


def current_results(store: str) -> list:
    """The results kept in ``store`` that were computed on the current data set and
    minority class (their keys start with its :class:`TaskKey`, :func:`run_key`)."""
    prefix = run_key()
    return [  # (a copy: a run's thread may add a result meanwhile)
        result
        for key, result in list(state.results(store).items())
        if tuple(key[: len(prefix)]) == prefix
    ]
