"""Writers shared by the command line and the app, so both produce the same bytes."""

from __future__ import annotations

import csv
import io
import json
from typing import Iterable

from fsengine.online import ACTION_CODES, Selection, StreamEvent

#: Header of the selected-features CSV.
SELECTION_COLUMNS = ("rank", "feature", "column_index", "score", "method")


def _format(value) -> str:
    # repr() of a float is the shortest string that reads back to the same float.
    return repr(value) if isinstance(value, float) else str(value)


def selection_to_csv(selection: Selection) -> str:
    """The selected features as CSV text.

    Columns: ``rank`` (1-based, the selector's order), ``feature`` (column name),
    ``column_index`` (0-based among the feature columns), ``score`` (the method's
    score of the feature; K-OFSD: its single-feature dependency), ``method``.

    Parameters
    ----------
    selection : Selection

    Returns
    -------
    str
        Lines end with ``\\n``; floats are written with full precision.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SELECTION_COLUMNS)
    for rank, (name, column, score) in enumerate(
            zip(selection.features, selection.columns, selection.scores), start=1):
        writer.writerow([rank, name, column, _format(float(score)), selection.method])
    return out.getvalue()


#: Header of the per-step trace CSV.
TRACE_COLUMNS = ("step", "feature", "column_index", "score", "action", "action_code",
                 "set_score_with_feature", "selected_size", "selected_score", "selected")


def events_to_csv(events: Iterable[StreamEvent]) -> str:
    """One row per streamed feature: what the selector decided and the state after it.

    ``action_code`` uses the authors' trace coding for K-OFSD (0 discarded by
    alpha, 1 replaced the set, 2 added, 3 rejected); ``set_score_with_feature``
    is empty when it was not computed; ``selected`` joins names with ``;``.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(TRACE_COLUMNS)
    for e in events:
        with_feature = getattr(e, "set_score_with_feature", float("nan"))
        writer.writerow([
            e.step, e.feature, e.column, _format(float(e.score)), e.action,
            ACTION_CODES.get(e.action, ""),
            "" if with_feature != with_feature else _format(float(with_feature)),
            len(e.selected), _format(float(e.selected_score)), ";".join(e.selected)])
    return out.getvalue()


def params_to_json(params: dict) -> str:
    """Run parameters as JSON (sorted keys), enough to repeat the run."""
    return json.dumps(params, indent=2, sort_keys=True, default=str) + "\n"


def stability_to_csv(result) -> str:
    """One row per feature order of a stability run: order, seed, size, features (';'-joined)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
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
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for record in records:
        writer.writerow([_format(record[c]) if isinstance(record[c], float) else record[c]
                         for c in columns])
    return out.getvalue()


def summary_table(rows: list[dict], key: str = "method") -> str:
    """The evaluation summary as a text table in the K-OFSD paper's layout (mean +- sd).

    Columns: G-mean 1-NN, G-mean SVM, F1 (1-NN), AUC (SVM), number of features and the
    selection time in seconds.
    """
    columns = [("G-mean 1-NN", "gmean_1nn"), ("G-mean SVM", "gmean_svm"),
               ("F1 (1-NN)", "f1_1nn"), ("AUC (SVM)", "auc_svm"),
               ("#features", "n_features"), ("time (s)", "seconds")]
    width = max(len(key), *(len(str(r[key])) for r in rows))
    lines = [f"{key:<{width}}  " + "  ".join(f"{title:<15}" for title, _ in columns)]
    for row in rows:
        cells = []
        for title, name in columns:
            digits = 1 if name == "n_features" else 3 if name == "seconds" else 4
            cells.append(f"{row[name + '_mean']:.{digits}f} +- {row[name + '_std']:.{digits}f}")
        lines.append(f"{str(row[key]):<{width}}  " + "  ".join(f"{c:<15}" for c in cells))
    return "\n".join(lines) + "\n"
