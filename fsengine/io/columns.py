"""A parsed table's columns as the Dataset's arrays: the label column's choice and check,
feature and label values, and errors that name the column and row at fault."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from fsengine.errors import FSEngineError
from fsengine.io.base import as_number, compute, is_numeric_type, numbers

__all__ = [
    "LABEL_NAMES",
    "check_label_is_a_class",
    "choose_label",
    "feature_values",
    "finite",
    "label_values",
]

#: Column names recognised as the label column, compared case-insensitively.
LABEL_NAMES = ("label", "class", "target")
#: The remedy for a label column that is not a class, and the option it names.
_CHOOSE_LABEL = {"remedy": "choose the class column with", "remedy_option": "label"}


def _where(row: int, sample_names, line_numbers: bool) -> str:
    """Where a cell is: 1-based data row, plus the sample name or the file line when known.

    The errors that use it carry the same 1-based row as their ``row`` field."""
    where = f"row {row + 1}"
    if sample_names is not None:
        return f"{where} (sample {sample_names[row]!r})"
    return where + (f" (line {row + 2} of the file)" if line_numbers else "")


def feature_values(name: str, column: pa.ChunkedArray, sample_names, is_text: bool) -> np.ndarray:
    """One feature column as finite float64, or an error naming the first bad cell."""
    t = column.type
    if pa.types.is_null(t):
        raise FSEngineError(
            f"feature column {name!r} is empty (every value is missing)", column=name
        )
    if pa.types.is_boolean(t):
        raise FSEngineError(
            f"feature column {name!r} holds true/false values, not numbers", column=name
        )
    if not is_numeric_type(t):
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            try:
                column = compute().cast(compute().utf8_trim_whitespace(column), pa.float64())
            except pa.ArrowInvalid:
                values = column.to_pylist()
                for row, value in enumerate(values):
                    if (
                        value is not None
                        and as_number(value.strip()) is None
                        and value.strip().lower() not in ("inf", "-inf", "+inf", "nan")
                    ):
                        hint = ""
                        if "," in value and as_number(value.replace(",", ".")) is not None:
                            hint = " (a comma decimal separator? write 1.5, not 1,5)"
                        raise FSEngineError(
                            f"feature column {name!r}, {_where(row, sample_names, is_text)}: "
                            f"{value!r} is not a number{hint}",
                            column=name,
                            row=row + 1,
                        ) from None
                raise FSEngineError(
                    f"feature column {name!r} holds values that are not numbers", column=name
                ) from None
        else:
            raise FSEngineError(f"feature column {name!r} has type {t}, not numbers", column=name)
    if column.null_count:
        row = int(np.flatnonzero(compute().is_null(column).to_numpy(zero_copy_only=False))[0])
        raise FSEngineError(
            f"feature column {name!r}, {_where(row, sample_names, is_text)}: "
            "missing value; fill or remove it (K-OFSD needs every value)",
            column=name,
            row=row + 1,
        )
    return finite(name, numbers(column).astype(np.float64, copy=False), sample_names, is_text)


def finite(name: str, values: np.ndarray, sample_names, is_text: bool) -> np.ndarray:
    """``values``, or an error naming the first missing or infinite cell."""
    if not np.isfinite(values).all():
        row = int(np.flatnonzero(~np.isfinite(values))[0])
        kind = "missing value (NaN)" if np.isnan(values[row]) else "infinite value"
        raise FSEngineError(
            f"feature column {name!r}, {_where(row, sample_names, is_text)}: {kind}",
            column=name,
            row=row + 1,
        )
    return values


def label_values(name: str, column: pa.ChunkedArray, sample_names, is_text: bool) -> np.ndarray:
    """Class labels: int64 for integral numbers, float64 for other numbers, else str."""
    if column.null_count:
        row = int(np.flatnonzero(compute().is_null(column).to_numpy(zero_copy_only=False))[0])
        raise FSEngineError(
            f"label column {name!r}, {_where(row, sample_names, is_text)}: missing class label",
            column=name,
            row=row + 1,
        )
    t = column.type
    if is_numeric_type(t) or pa.types.is_boolean(t):
        values = np.array(column.to_pylist())
    else:
        text = np.array([str(v).strip() for v in column.to_pylist()], dtype=object)
        parsed = [as_number(v) for v in text]
        if all(x is not None for x in parsed):
            values = np.array(parsed, dtype=np.float64)
        else:
            return text.astype(str)
    values = np.asarray(values)
    if values.dtype.kind == "f":
        bad = ~np.isfinite(values)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise FSEngineError(
                f"label column {name!r}, {_where(row, sample_names, is_text)}: "
                "missing or infinite class label",
                column=name,
                row=row + 1,
            )
        if np.all(values == np.round(values)) and np.all(np.abs(values) < 2.0**53):
            values = values.astype(np.int64)  # integral and exactly representable
    elif values.dtype.kind in "biu":
        values = values.astype(np.int64)
    return values


def check_label_is_a_class(name: str, labels: np.ndarray) -> None:
    """Errors for a label column that is the row index, sample ids or a measurement."""
    n = len(labels)
    distinct = len(np.unique(labels))
    if labels.dtype.kind in "iuf" and n >= 10:
        for start in (0, 1):
            if np.array_equal(labels, np.arange(start, start + n)):
                raise FSEngineError(
                    f"label column {name!r} holds {start}..{start + n - 1}, one number per row: "
                    "it is the row index, not a class",
                    column=name,
                    **_CHOOSE_LABEL,
                )
    if labels.dtype.kind in "iuf" and distinct > 20 and distinct > n / 2:
        raise FSEngineError(
            f"label column {name!r} has {distinct} distinct numeric values: it looks like a "
            "measurement, not a class",
            column=name,
            **_CHOOSE_LABEL,
        )
    if n >= 10 and distinct == n:
        raise FSEngineError(
            f"label column {name!r} has a different value in every row ({n}): it looks like "
            "sample identifiers, not a class",
            column=name,
            **_CHOOSE_LABEL,
        )


def choose_label(
    table: pa.Table, label: str | None, notes: list[str], sample_ids: str | None = None
) -> str:
    """The label column: ``label`` (also in another case), else a column named
    label/class/target, else the last non-numeric column besides ``sample_ids``, else
    the last column; ``notes`` says which rule chose it."""
    names = table.column_names
    if label is not None:
        if label in names:
            return label
        matches = [n for n in names if n.lower() == str(label).lower()]
        if len(matches) == 1:
            return matches[0]
        shown = ", ".join(repr(n) for n in names[:8]) + (" ..." if len(names) > 8 else "")
        raise FSEngineError(f"label column {label!r} not found; the columns are {shown}")
    for n in names:
        if n.strip().lower() in LABEL_NAMES:
            notes.append(f"label column {n!r} (by its name)")
            return n
    non_numeric = [
        n for n in names if n != sample_ids and not is_numeric_type(table.column(n).type)
    ]
    if non_numeric:
        notes.append(f"label column {non_numeric[-1]!r} (the last non-numeric column)")
        return non_numeric[-1]
    notes.append(f"label column {names[-1]!r} (the last column)")
    return names[-1]
