"""Benchmark studies: the manifest (TOML) that lists data sets and the protocol.

A manifest::

    [study]
    methods = ["kofsd", "osfs", "fisher", "relieff"]   # online selectors and rankers
    splits = 20                  # random stratified 50/50 splits per data set
    seed = 0                     # seed of the splits
    count_from = "kofsd"         # the online selector whose count the rankers get
    # top = 10                   # or a fixed number of features for every ranker
    metrics = ["gmean_1nn", "gmean_svm", "n_features", "seconds"]

    [study.params.kofsd]         # parameters per method (defaults otherwise)
    k = 7

    [[dataset]]
    path = "data/SRBCT.parquet"  # relative to the manifest's folder
    minority = "2"
    # label = "label"            # the label column (default: found as `select` does)
    # genes_in_rows = false      # genes in rows, samples in columns
    # sample_groups = "patient"  # a column naming each sample's patient, donor or batch:
    #                            # the splits keep each group on one side
    # preprocessing = "floor=20.0, transform=log2"  # fsengine.data.preprocess's steps (a run
    #                            # record's line; each --floor / --transform ... option)
    # name = "SRBCT"             # default: the file name without its extension

:func:`load_manifest` checks all of it (method names and parameters by their
specifications, files present, no repeated names) without reading the data.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from fsengine.data.preprocess import preprocessing_params, preprocessing_text
from fsengine.errors import FSEngineError
from fsengine.evaluation import CLASSIFIERS, COUNT_FROM, METRICS
from fsengine.export.codec import to_json
from fsengine.io import file_stem
from fsengine.methods.registry import get_method

__all__ = [
    "DEFAULT_METRICS",
    "HIGHER_IS_BETTER",
    "STUDY_METRICS",
    "Study",
    "StudyDataset",
    "load_manifest",
    "study_from",
    "study_record",
]

#: Metrics a study can compare: per classifier, and the selection's size and time.
STUDY_METRICS = tuple(f"{m}_{c}" for c in CLASSIFIERS for m in METRICS) + (
    "n_features",
    "seconds",
)
#: Whether a larger value of the metric is better (for the ranks).
HIGHER_IS_BETTER = {m: m not in ("n_features", "seconds") for m in STUDY_METRICS}
DEFAULT_METRICS = ("gmean_1nn", "gmean_svm", "n_features", "seconds")

_STUDY_KEYS = {"methods", "splits", "seed", "count_from", "top", "metrics", "params"}
_DATASET_KEYS = {
    "path",
    "minority",
    "label",
    "genes_in_rows",
    "name",
    "sample_groups",
    "preprocessing",
}


@dataclass(frozen=True)
class StudyDataset:
    """One data set of a study: where it is and how to read it (``sample_groups``: the
    column naming each sample's group, :func:`fsengine.load_dataset`'s, or None;
    ``preprocessing``: the steps applied after reading, as a run record states them,
    :func:`fsengine.data.preprocess.preprocessing_text`, "" for none)."""

    name: str
    path: Path | None  # None: the data are given to run_study (e.g. uploaded)
    minority: str
    label: str | None = None
    genes_in_rows: bool = False
    sample_groups: str | None = None
    preprocessing: str = ""


@dataclass(frozen=True)
class Study:
    """A benchmark study: data sets x methods x splits under one protocol."""

    datasets: tuple[StudyDataset, ...]
    methods: tuple[str, ...]
    splits: int = 20
    seed: int = 0
    count_from: str = COUNT_FROM
    top: int | None = None
    metrics: tuple[str, ...] = DEFAULT_METRICS
    params: dict = field(default_factory=dict)

    @property
    def n_tasks(self) -> int:
        """Data sets x methods x splits."""
        return len(self.datasets) * len(self.methods) * self.splits

    def to_dict(self) -> dict:
        """The study as JSON-able values (:func:`study_record`); :meth:`from_dict` takes
        them back."""
        return study_record(self)

    @classmethod
    def from_dict(cls, data: dict) -> Study:
        """The study of :meth:`to_dict`'s values, checked (:func:`study_from`)."""
        return study_from(**data)


def _fail(where: str, problem: str, remedy: str | None = None):
    raise FSEngineError(f"{where}: {problem}", remedy=remedy)


def load_manifest(path) -> Study:
    """Read and check a study manifest (TOML; the format is in this module's docstring).

    Parameters
    ----------
    path : str or Path
        The manifest; data set paths in it are relative to its folder.

    Returns
    -------
    Study

    Raises
    ------
    FSEngineError
        Naming the file, the entry and the key at fault: a TOML syntax error (with its
        line), an unknown key, a missing data set file, an unknown method or parameter,
        a value out of range, two data sets with one name.
    """
    path = Path(path)
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        _fail(where, "no such manifest file")
    except (OSError, UnicodeDecodeError) as error:
        _fail(where, f"cannot be read ({error})")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        _fail(where, f"is not valid TOML ({error})")
    unknown = set(data) - {"study", "dataset"}
    if unknown:
        _fail(
            where, f"unknown section(s) {', '.join(sorted(unknown))}; use [study] and [[dataset]]"
        )
    study = data.get("study")
    if not isinstance(study, dict):
        _fail(where, "has no [study] section (methods, splits, seed, ...)")
    unknown = set(study) - _STUDY_KEYS
    if unknown:
        _fail(
            f"{where} [study]",
            f"unknown key(s) {', '.join(sorted(unknown))}; "
            f"the keys are {', '.join(sorted(_STUDY_KEYS))}",
        )
    protocol = _checked_protocol(study, lambda key: _manifest_at(where, key))
    datasets = data.get("dataset")
    if not (isinstance(datasets, list) and datasets):
        _fail(where, "lists no data set; add [[dataset]] entries with path and minority")
    entries, names = [], set()
    for i, entry in enumerate(datasets, start=1):
        entries.append(_dataset_entry(entry, f"{where} [[dataset]] #{i}", path.parent, names))
        names.add(entries[-1].name)
    return Study(datasets=tuple(entries), **protocol)


def _manifest_at(where: str, key: str) -> str:
    """Where a [study] key is in a manifest: "study.toml [study] splits", "study.toml
    [study.params.kofsd]"."""
    if key == "params" or key.startswith("params."):
        return f"{where} [study.{key}]"
    return f"{where} [study] {key}"


def _checked_protocol(study: dict, at) -> dict:
    """The protocol's keys of ``study`` (methods, splits, seed, count_from, top, metrics,
    params; defaults for those missing) checked, as :class:`Study`'s keywords; ``at(key)``
    says where a key is, for the messages."""
    methods = study.get("methods")
    if not (
        isinstance(methods, (list, tuple)) and methods and all(isinstance(m, str) for m in methods)
    ):
        _fail(at("methods"), "must be a non-empty list of method names")
    if len(set(methods)) != len(methods):
        _fail(at("methods"), "names a method twice")
    for m in methods:
        try:
            get_method(m)
        except FSEngineError as error:
            _fail(at("methods"), error.problem)
    splits = study.get("splits", 20)
    if not (isinstance(splits, int) and not isinstance(splits, bool) and splits >= 1):
        _fail(at("splits"), f"must be a positive integer, got {splits!r}")
    seed = study.get("seed", 0)
    if not (isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0):
        _fail(at("seed"), f"must be a non-negative integer, got {seed!r}")
    count_from = study.get("count_from", COUNT_FROM)
    try:
        if not get_method(count_from).online:
            _fail(at("count_from"), f"{count_from} is not an online selector")
    except FSEngineError as error:
        _fail(at("count_from"), error.problem)
    top = study.get("top")
    if top is not None and not (isinstance(top, int) and not isinstance(top, bool) and top >= 1):
        _fail(at("top"), f"must be a positive integer, got {top!r}")
    metrics = study.get("metrics", list(DEFAULT_METRICS))
    if not (isinstance(metrics, (list, tuple)) and metrics):
        _fail(at("metrics"), "must be a non-empty list")
    for m in metrics:
        if m not in STUDY_METRICS:
            _fail(
                at("metrics"),
                f"{m!r} is not a metric; choose from {', '.join(STUDY_METRICS)}",
            )
    params = study.get("params", {})
    if not isinstance(params, dict):
        _fail(at("params"), "must be a table of tables, e.g. [study.params.kofsd]")
    checked = {}
    for method, values in params.items():
        if method not in methods and method != count_from:
            _fail(at(f"params.{method}"), f"{method} is not among the study's methods")
        if not isinstance(values, dict):
            _fail(at(f"params.{method}"), "must be a table of parameter = value")
        try:
            checked[method] = get_method(method).spec.check(values)
        except FSEngineError as error:
            subject = f" {error.parameter}" if error.parameter else ""
            _fail(at(f"params.{method}") + subject, error.problem)
    return {
        "methods": tuple(methods),
        "splits": splits,
        "seed": seed,
        "count_from": count_from,
        "top": top,
        "metrics": tuple(metrics),
        "params": checked,
    }


def _dataset_entry(entry: dict, here: str, folder: Path, names: set) -> StudyDataset:
    """One [[dataset]] entry checked (``here`` names it in messages; ``folder`` is the
    manifest's; ``names`` those already taken)."""
    unknown = set(entry) - _DATASET_KEYS
    if unknown:
        _fail(
            here,
            f"unknown key(s) {', '.join(sorted(unknown))}; "
            f"the keys are {', '.join(sorted(_DATASET_KEYS))}",
        )
    if not isinstance(entry.get("path"), str):
        _fail(here, 'needs path = "file.csv" (relative to the manifest\'s folder)')
    file = (folder / entry["path"]).resolve()
    if not file.is_file():
        _fail(f"{here} path", f"{file} does not exist")
    if "minority" not in entry or isinstance(entry["minority"], (bool, float)):
        _fail(f"{here} minority", 'must name the minority class, e.g. minority = "2"')
    name = entry.get("name", file_stem(file.name))
    if name in names:
        _fail(f"{here} name", f"{name!r} is already the name of another data set")
    label = entry.get("label")
    if label is not None and not isinstance(label, str):
        _fail(f"{here} label", "must be the label column's name")
    genes_in_rows = entry.get("genes_in_rows", False)
    if not isinstance(genes_in_rows, bool):
        _fail(f"{here} genes_in_rows", "must be true or false")
    groups = entry.get("sample_groups")
    if groups is not None and not (isinstance(groups, str) and groups):
        _fail(f"{here} sample_groups", "must be the name of the column naming the groups")
    steps = _preprocessing(entry.get("preprocessing", ""), f"{here} preprocessing")
    return StudyDataset(name, file, str(entry["minority"]), label, genes_in_rows, groups, steps)


def _preprocessing(text, where: str) -> str:
    """A data set's preprocessing line, checked and written as run records write it."""
    if not isinstance(text, str):
        _fail(where, 'must be a line like "floor=20.0, transform=log2"')
    try:
        return preprocessing_text(preprocessing_params(text)) if text else ""
    except FSEngineError as exc:
        _fail(where, exc.describe())


def study_from(
    datasets,
    methods,
    *,
    splits: int = 20,
    seed: int = 0,
    count_from: str = COUNT_FROM,
    top: int | None = None,
    metrics=DEFAULT_METRICS,
    params: dict | None = None,
) -> Study:
    """A study built from values (a dashboard's widgets, a script), checked as a manifest is.

    Parameters
    ----------
    datasets : sequence of StudyDataset or dict
        The data sets; a dict has StudyDataset's fields (``path`` may be None or a string,
        as :func:`study_record` writes it). The files are not looked at: give the data to
        :func:`fsengine.evaluation.benchmark.run_study` when there are none.
    methods : sequence of str
    splits, seed, count_from, top, metrics, params
        As in a manifest's [study] section (see the module's docstring).

    Returns
    -------
    Study
        ``study_from(**study_record(study)) == study``.

    Raises
    ------
    FSEngineError
        Naming the value at fault: an unknown method, metric or parameter, a value out of
        range, no data set, two data sets with one name, a data set without a minority class.
    """
    protocol = _checked_protocol(
        {
            "methods": methods,
            "splits": splits,
            "seed": seed,
            "count_from": count_from,
            "top": top,
            "metrics": metrics,
            "params": {} if params is None else params,
        },
        _python_at,
    )
    entries, names = [], set()
    for i, entry in enumerate(datasets, start=1):
        if isinstance(entry, dict):
            unknown = set(entry) - _DATASET_KEYS
            if unknown or "name" not in entry or "minority" not in entry:
                _fail(
                    f"study data set #{i}",
                    "needs a name and a minority, and no keys but "
                    + ", ".join(sorted(_DATASET_KEYS)),
                )
            path = entry.get("path")
            entry = StudyDataset(
                entry["name"],
                None if path is None else Path(path),
                entry["minority"],
                entry.get("label"),
                bool(entry.get("genes_in_rows", False)),
                entry.get("sample_groups"),
                entry.get("preprocessing") or "",
            )
        if not isinstance(entry, StudyDataset):
            _fail(f"study data set #{i}", "must be a StudyDataset or a dict of its fields")
        if not (isinstance(entry.name, str) and entry.name):
            _fail(f"study data set #{i} name", "must be a non-empty text")
        if entry.name in names:
            _fail(f"study data set #{i} name", f"{entry.name!r} is already another data set's")
        if entry.minority is None or isinstance(entry.minority, (bool, float)):
            _fail(f"study data set {entry.name!r} minority", "must name the minority class")
        entries.append(
            StudyDataset(
                entry.name,
                entry.path,
                str(entry.minority),
                entry.label,
                entry.genes_in_rows,
                entry.sample_groups or None,
                _preprocessing(
                    entry.preprocessing or "", f"study data set {entry.name!r} preprocessing"
                ),
            )
        )
        names.add(entry.name)
    if not entries:
        _fail("study", "has no data set")
    return Study(datasets=tuple(entries), **protocol)


def _python_at(key: str) -> str:
    """Where a value of :func:`study_from` is: "study splits", "study params['kofsd']"."""
    if key.startswith("params."):
        return f"study params[{key.removeprefix('params.')!r}]"
    return f"study {key}"


def study_record(study: Study) -> dict:
    """The study as JSON-able values (lists, strings, numbers, None; a path as a string),
    for storing it beside its table: :func:`study_from` takes them back.

    Returns
    -------
    dict
        Through :func:`fsengine.export.codec.to_json` (strict): parameters given as numpy
        numbers are plain numbers.
    """
    return to_json(
        {
            "datasets": [
                {
                    "name": d.name,
                    "path": None if d.path is None else str(d.path),
                    "minority": d.minority,
                    "label": d.label,
                    "genes_in_rows": d.genes_in_rows,
                    **({"sample_groups": d.sample_groups} if d.sample_groups else {}),
                    **({"preprocessing": d.preprocessing} if d.preprocessing else {}),
                }
                for d in study.datasets
            ],
            "methods": list(study.methods),
            "splits": study.splits,
            "seed": study.seed,
            "count_from": study.count_from,
            "top": study.top,
            "metrics": list(study.metrics),
            "params": {m: dict(values) for m, values in study.params.items()},
        }
    )
