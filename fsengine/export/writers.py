"""Writers shared by the command line and the app, so both produce the same bytes."""

from __future__ import annotations

import io
import shlex
from collections.abc import Iterable

from fsengine.data.preprocess import PREPROCESSING, preprocessing_params
from fsengine.errors import FSEngineError
from fsengine.export.codec import dumps
from fsengine.export.spreadsheet import SafeWriter
from fsengine.methods.online import Selection, StreamEvent
from fsengine.methods.registry import get_method
from fsengine.spec import RUN_FLAGS

__all__ = [
    "best_rows",
    "command_line",
    "data_arguments",
    "DATA_KEYS",
    "events_to_csv",
    "MATRIX_FORMATS",
    "PAIR_COLUMNS",
    "pairs_frame",
    "params_to_json",
    "rank_frame",
    "RANK_ROWS",
    "records_to_csv",
    "reduced_matrix",
    "SAMPLE_COLUMN",
    "select_arguments",
    "SELECTION_COLUMNS",
    "selection_rows",
    "selection_to_csv",
    "stability_to_csv",
    "SUMMARY_COLUMNS",
    "summary_frame",
    "summary_table",
    "trace_columns",
    "TRACE_LEADING",
    "TRACE_TRAILING",
]

#: Header of the selected-features CSV.
SELECTION_COLUMNS = ("rank", "feature", "column_index", "score", "method", "status")


def _format(value) -> str:
    # repr() of a float is the shortest string that reads back to the same float.
    return repr(value) if isinstance(value, float) else str(value)


def selection_rows(selection: Selection) -> list[dict]:
    """The selected features as rows for a table: ``rank``, ``feature``, ``column``,
    ``score`` and ``status`` (``selected`` or ``fallback``, :attr:`Selection.status`), the
    columns the dashboard's tables and the report show.

    Parameters
    ----------
    selection : Selection

    Returns
    -------
    list of dict
    """
    return [
        {
            "rank": rank,
            "feature": name,
            "column": column,
            "score": score,
            "status": selection.status,
        }
        for rank, (name, column, score) in enumerate(
            zip(selection.features, selection.columns, selection.scores), start=1
        )
    ]


def selection_to_csv(selection: Selection) -> str:
    """The selected features as CSV text.

    Columns: ``rank`` (1-based, the selector's order), ``feature`` (column name),
    ``column_index`` (0-based among the feature columns), ``score`` (the method's
    score of the feature; K-OFSD: its single-feature dependency), ``method``, ``status``
    (``selected``, or ``fallback`` when the selector selected nothing and its fallback
    rule listed these features: :attr:`Selection.status`).

    Parameters
    ----------
    selection : Selection

    Returns
    -------
    str
        Lines end with ``\\n``; floats are written with full precision.
    """
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow(SELECTION_COLUMNS)
    for row in selection_rows(selection):
        writer.writerow(
            [row["rank"], row["feature"], row["column"], _format(float(row["score"]))]
            + [selection.method, row["status"]]
        )
    return out.getvalue()


#: The trace columns every method has, before and after its own (:func:`trace_columns`).
TRACE_LEADING = ("step", "feature", "column_index", "score", "action")
TRACE_TRAILING = ("selected_size", "selected_score", "selected")


def trace_columns(method: str) -> tuple[str, ...]:
    """The header of the trace CSV of ``method``: the common columns, ``action_code``
    when the method declares codes for its actions, then its event type's own fields."""
    chosen = get_method(method)
    codes = ("action_code",) if chosen.spec.action_codes else ()
    return TRACE_LEADING + codes + chosen.trace_columns() + TRACE_TRAILING


def _cell(value) -> str:
    """A trace cell: NaN empty, floats in full precision, tuples joined with ``;``."""
    if isinstance(value, tuple):
        return ";".join(_cell(v) for v in value)
    if isinstance(value, float):
        return "" if value != value else _format(value)
    return str(value)


def events_to_csv(events: Iterable[StreamEvent], method: str) -> str:
    """One row per streamed feature: what the selector decided and the state after it.

    Parameters
    ----------
    events : iterable of StreamEvent
        The events of one stream of ``method``.
    method : str
        The online method that made them: its trace columns (:func:`trace_columns`).

    Returns
    -------
    str
        ``action_code`` uses the authors' trace coding where the method has one
        (K-OFSD: 0 discarded by alpha, 1 replaced the set, 2 added, 3 rejected); a
        value not computed (NaN) is empty; tuples (``selected``, the features an
        event removed) are joined with ``;``.
    """
    chosen = get_method(method)
    codes = chosen.spec.action_codes
    own = chosen.trace_columns()
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow(trace_columns(method))
    for e in events:
        row = [e.step, e.feature, e.column, _format(float(e.score)), e.action]
        if codes:
            row.append(codes.get(e.action, ""))
        row += [_cell(getattr(e, name)) for name in own]
        row += [len(e.selected), _format(float(e.selected_score)), ";".join(e.selected)]
        writer.writerow(row)
    return out.getvalue()


def params_to_json(params: dict) -> str:
    """Run parameters as JSON (sorted keys), enough to repeat the run: the lenient
    :func:`fsengine.export.codec.dumps` (numpy numbers as numbers, other objects as text)."""
    return dumps(params, strict=False, indent=2, sort_keys=True) + "\n"


def stability_to_csv(result) -> str:
    """One row per feature order of a stability run: order, seed, size, features (';'-joined)."""
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow(("order", "seed", "size", "features"))
    for r, (seed, features) in enumerate(zip(result.seeds, result.selections)):
        writer.writerow([r, seed, len(features), ";".join(features)])
    return out.getvalue()


def records_to_csv(records: list[dict], first: tuple[str, ...] = ()) -> str:
    """Evaluation or sweep records as CSV: the ``first`` columns, then the rest in order.

    Floats are written with full precision.
    """
    if not records:
        return ""
    columns = list(first) + [c for c in records[0] if c not in first]
    out = io.StringIO()
    writer = SafeWriter(out)
    writer.writerow(columns)
    for record in records:
        writer.writerow(
            [_format(record[c]) if isinstance(record[c], float) else record[c] for c in columns]
        )
    return out.getvalue()


def summary_table(rows: list[dict], key: str = "method") -> str:
    """The evaluation summary as a text table in the K-OFSD paper's layout (mean +- sd).

    Columns: G-mean 1-NN, G-mean SVM, F1 (1-NN), AUC (SVM), number of features and the
    selection time in seconds.
    """
    columns = [
        ("G-mean 1-NN", "gmean_1nn"),
        ("G-mean SVM", "gmean_svm"),
        ("F1 (1-NN)", "f1_1nn"),
        ("AUC (SVM)", "auc_svm"),
        ("#features", "n_features"),
        ("time (s)", "seconds"),
    ]
    width = max(len(key), *(len(str(r[key])) for r in rows))
    lines = [f"{key:<{width}}  " + "  ".join(f"{title:<15}" for title, _ in columns)]
    for row in rows:
        cells = []
        for _title, name in columns:
            digits = 1 if name == "n_features" else 3 if name == "seconds" else 4
            cells.append(f"{row[name + '_mean']:.{digits}f} +- {row[name + '_std']:.{digits}f}")
        lines.append(f"{str(row[key]):<{width}}  " + "  ".join(f"{c:<15}" for c in cells))
    return "\n".join(lines) + "\n"


#: The summary's measures: (title, summary field, decimals, larger is better).
SUMMARY_COLUMNS = (
    ("G-mean 1-NN", "gmean_1nn", 4, True),
    ("G-mean SVM", "gmean_svm", 4, True),
    ("F1 1-NN", "f1_1nn", 4, True),
    ("AUC SVM", "auc_svm", 4, True),
    ("features", "n_features", 1, None),
    ("time (s)", "seconds", 3, False),
)


def summary_frame(rows: list[dict], settings: dict | None = None, key: str = "method"):
    """The evaluation summary as a numeric table: one row per group, for every measure
    a mean column (titled as the measure) and a standard-deviation column ("<title> sd").

    Parameters
    ----------
    rows : list of dict
        ``Evaluation.summary()`` rows.
    settings : dict, optional
        Parameters in effect per method (``Evaluation.params["settings"]``): added as a
        "settings" column, "k=7, alpha=0.5".
    key : str
        The field naming a row.

    Returns
    -------
    pandas.DataFrame
        Numbers stay numbers (sortable); the page or report formats them.
    """
    import pandas as pd

    frame = pd.DataFrame({key: [row[key] for row in rows]})
    if settings is not None:
        frame["settings"] = [
            get_method(row[key]).spec.settings_text(settings.get(row[key], {})) for row in rows
        ]
    for title, field, _digits, _better in SUMMARY_COLUMNS:
        frame[title] = [row[f"{field}_mean"] for row in rows]
        frame[f"{title} sd"] = [row[f"{field}_std"] for row in rows]
    frame["splits"] = [row["splits"] for row in rows]
    return frame


def best_rows(frame) -> dict[str, list[int]]:
    """Row positions holding the best mean of each measure where larger or smaller is
    better (ties: every tied row), by column title."""
    best = {}
    for title, _field, _digits, better in SUMMARY_COLUMNS:
        if better is None or frame.empty:
            continue
        values = frame[title].to_numpy(dtype=float)
        target = values.max() if better else values.min()
        best[title] = [i for i, v in enumerate(values) if v == target]
    return best


#: The rows of :func:`rank_frame` after the data sets.
RANK_ROWS = ("mean", "average rank")


def rank_frame(comparison):
    """A :class:`fsengine.evaluation.statistics.RankComparison` as a table: a row per data set with
    the metric of each method (the mean over splits), then its mean over the data sets and
    the average rank (1 = best); the methods as columns, best average rank first (ties in
    the comparison's order).

    Returns
    -------
    pandas.DataFrame
        Index "data set": the data sets, then :data:`RANK_ROWS`.
    """
    import numpy as np
    import pandas as pd

    order = np.argsort(comparison.average_ranks, kind="stable")
    values = np.vstack(
        [comparison.values, comparison.values.mean(axis=0), comparison.average_ranks]
    )[:, order]
    index = pd.Index([*comparison.datasets, *RANK_ROWS], name="data set")
    return pd.DataFrame(values, index=index, columns=[comparison.methods[j] for j in order])


#: Columns of :func:`pairs_frame`.
PAIR_COLUMNS = (
    "method",
    "versus",
    "rank difference",
    "Nemenyi p",
    "Nemenyi significant",
    "Wilcoxon T",
    "Wilcoxon p",
    "Holm p",
    "Holm significant",
)


def pairs_frame(comparison):
    """Every pair of methods of a :class:`fsengine.evaluation.statistics.RankComparison`: the
    difference of their average ranks, the Nemenyi p-value, the Wilcoxon signed-rank test
    over the data sets (T and p) and its Holm-adjusted p-value, and whether each test finds
    the pair different at the comparison's alpha (p < alpha; for Nemenyi the same as a rank
    difference above the critical difference).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`PAIR_COLUMNS`, one row per pair in the comparison's order.
    """
    import pandas as pd

    alpha = comparison.alpha
    return pd.DataFrame(
        [
            (
                p.first,
                p.second,
                p.rank_difference,
                p.nemenyi_p,
                p.nemenyi_p < alpha,
                p.wilcoxon_statistic,
                p.wilcoxon_p,
                p.wilcoxon_p_holm,
                p.wilcoxon_p_holm < alpha,
            )
            for p in comparison.pairs
        ],
        columns=list(PAIR_COLUMNS),
    )


#: Name of the sample-identifier column of :func:`reduced_matrix` (suffixed with ``_`` until
#: it clashes with no feature or label column).
SAMPLE_COLUMN = "sample"
#: Formats of :func:`reduced_matrix`.
MATRIX_FORMATS = ("csv", "parquet")


def reduced_matrix(dataset, selection: Selection, fmt: str = "csv") -> bytes:
    """The data set reduced to the selected features, as CSV or Parquet bytes.

    Parameters
    ----------
    dataset : Dataset
        The data the selection was made on.
    selection : Selection
        Its ``columns`` index the data set's feature columns.
    fmt : {"csv", "parquet"}

    Returns
    -------
    bytes
        One row per sample. Columns: the sample identifiers (``sample``) when the data
        set has them, the selected features in the selection's order, then the label
        column under its original name. CSV lines end with ``\\n`` and floats are written
        with full precision; Parquet keeps float64 features and the labels' type. Both
        read back with :func:`fsengine.load_dataset`.

    Raises
    ------
    ValueError
        For an unknown format, or a selection that does not fit the data set.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if fmt not in MATRIX_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(MATRIX_FORMATS)}")
    columns = [int(c) for c in selection.columns]
    if any(not 0 <= c < dataset.n_features for c in columns):
        raise ValueError(
            f"the selection's columns {columns} do not fit a data set of "
            f"{dataset.n_features} features"
        )
    names = [dataset.feature_names[c] for c in columns]
    if names != list(selection.features):
        raise ValueError(
            "the selection's feature names are not the data set's: was it made on another data set?"
        )
    arrays: dict[str, object] = {}
    if dataset.sample_names is not None:
        sample = SAMPLE_COLUMN
        while sample in names or sample == dataset.label_column:
            sample += "_"
        arrays[sample] = pa.array(list(dataset.sample_names), type=pa.string())
    values = dataset.dense_values(columns)  # the selected columns only
    for j, name in enumerate(names):
        arrays[name] = pa.array(values[:, j], type=pa.float64())
    labels = dataset.labels
    arrays[dataset.label_column] = pa.array(
        labels.tolist() if labels.dtype.kind in "OU" else labels
    )
    table = pa.table(arrays)
    if fmt == "parquet":
        out = io.BytesIO()
        pq.write_table(table, out)
        return out.getvalue()
    text = io.StringIO()
    writer = SafeWriter(text)
    writer.writerow(table.column_names)
    rows = zip(*(column.to_pylist() for column in table.columns))
    writer.writerows([_format(v) for v in row] for row in rows)
    return text.getvalue().encode("utf-8")


#: Keys of a run's record that say how the data were read, in the command line's order
#: (:func:`data_arguments`): the loader's options, then the preprocessing.
DATA_KEYS = (
    "label_column",
    "transpose",
    "drop_constant",
    "samples",
    "sample_groups",
    "layer",
    "gene_names",
    "preprocessing",
)
#: Keys of a run's record that are not method parameters (see :func:`select_arguments`).
_RUN_KEYS = ("method", "data", *DATA_KEYS, "minority", "order", "seed", "top")


def _option(flag: str, value) -> list[str]:
    """``[flag, value]`` as the command line reads it back (numpy scalars as Python ones;
    ``flag=value`` when the value starts with a dash, which argparse would take for a flag)."""
    text = _format(value.item() if hasattr(value, "item") else value)
    return [f"{flag}={text}"] if text.startswith("-") else [flag, text]


def data_arguments(params: dict) -> list[str]:
    """The command line's options that read the data as a run's record says they were read:
    ``--label``, ``--transpose``, ``--drop-constant``, ``--samples`` (the sheet's file name),
    ``--sample-groups``, ``--layer``, ``--gene-names`` and the preprocessing's flags (from
    :data:`fsengine.data.preprocess.PREPROCESSING`, for the record's ``preprocessing`` line).

    Parameters
    ----------
    params : dict
        A run's record (:meth:`fsengine.data.task.Task.record` and the loader's ``transpose`` and
        ``drop_constant``); the keys it lacks are not given.

    Returns
    -------
    list of str

    Raises
    ------
    FSEngineError
        A ``preprocessing`` line that is not :func:`fsengine.data.preprocess.preprocessing_text`'s.
    """
    args = []
    if params.get("label_column") is not None:
        args += _option(RUN_FLAGS["label"], params["label_column"])
    for option in ("transpose", "drop_constant"):
        if params.get(option):
            args.append(RUN_FLAGS[option])
    for key in ("samples", "sample_groups", "layer", "gene_names"):
        if params.get(key):
            args += _option(RUN_FLAGS[key], params[key])
    for name, value in preprocessing_params(params.get("preprocessing") or "").items():
        args += _option(PREPROCESSING.parameters[name].cli_flag, value)
    return args


def select_arguments(params: dict, data: str | None = None) -> list[str]:
    """The ``python -m fsengine`` arguments that repeat a run: ``select DATA --minority ...``.

    Parameters
    ----------
    params : dict
        A run's record (:attr:`fsengine.methods.runs.RunResult.params`), optionally with the
        loader's ``transpose`` and ``drop_constant`` flags; its data options
        (:data:`DATA_KEYS`) are given as :func:`data_arguments` writes them.
    data : str, optional
        Path of the data file (default: the record's ``data``, the file name).

    Returns
    -------
    list of str
        Every parameter is given explicitly (defaults included), each with the flag its
        specification declares, so the command does not depend on the defaults of a
        later version.

    Raises
    ------
    FSEngineError
        For a key of the record that is neither a run key nor a parameter of the method.
    """
    method = params["method"]
    spec = get_method(method).spec
    data = str(params["data"] if data is None else data)
    args = ["select", "./" + data if data.startswith("-") else data, *data_arguments(params)]
    args += [*_option(RUN_FLAGS["minority"], params["minority"]), RUN_FLAGS["method"], method]
    if params.get("order", "natural") != "natural":
        args += [RUN_FLAGS["order"], str(params["order"])]
    for key in ("seed", "top"):
        if params.get(key) is not None:
            args += _option(RUN_FLAGS[key], params[key])
    for name, value in params.items():
        if name in _RUN_KEYS or value is None:
            continue
        if name not in spec.parameters:
            raise FSEngineError(
                f"is not a parameter of {method}: the record cannot be repeated",
                parameter=name,
                method=method,
            )
        parameter = spec.parameters[name]
        if parameter.kind == "bool":
            args.append(parameter.cli_flag if value else "--no-" + parameter.cli_flag[2:])
        else:
            args += _option(parameter.cli_flag, value)
    return args


def command_line(params: dict, data: str | None = None) -> str:
    """The shell command that repeats a run (see :func:`select_arguments`), quoted for a
    POSIX shell: ``python -m fsengine select DATA --minority M --method NAME`` and the
    method's options."""
    return shlex.join(["python", "-m", "fsengine", *select_arguments(params, data)])
