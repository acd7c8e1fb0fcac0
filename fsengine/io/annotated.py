"""Files whose class sits beside the matrix, not in it: a GEO series matrix's sample lines,
an AnnData file's ``obs`` columns. Their reader returns the matrix and the sample
annotations (:attr:`fsengine.io.base.Table.annotations`); :func:`label_table` picks the
one the user names as the class and makes the table the rest of the loader reads."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa

from fsengine.errors import FSEngineError
from fsengine.io.base import Table, assemble

__all__ = ["annotation", "choose_annotation", "label_table"]


def _key(name: str) -> str:
    """A name as compared: case, a leading '!' and 'Sample_' do not matter."""
    key = name.strip().lstrip("!").strip().lower()
    return key[len("sample_") :] if key.startswith("sample_") else key


def describe_annotations(annotations: dict[str, list]) -> str:
    """Each annotation with its values, for a list of choices: "'disease state' (2 values:
    tumour (40), normal (22))", "'title' (62 values, one per sample)", "'individual' (41
    values, one per sample; 2 empty)", "'characteristics_ch1' (empty in every sample)"."""
    parts = []
    for name, values in annotations.items():
        present = [v for v in values if v is not None and str(v).strip() != ""]
        if not present:
            parts.append(f"{name!r} (empty in every sample)")
            continue
        counts = Counter(present)
        empty = len(values) - len(present)
        blank = f"; {empty} empty" if empty else ""
        if len(counts) > 1 and len(counts) == len(present):
            parts.append(f"{name!r} ({len(counts)} values, one per sample{blank})")
            continue
        shown = ", ".join(f"{v} ({n})" for v, n in counts.most_common(4))
        more = ", ..." if len(counts) > 4 else ""
        plural = "value" if len(counts) == 1 else "values"
        parts.append(f"{name!r} ({len(counts)} {plural}: {shown}{more}{blank})")
    return "; ".join(parts)


def annotation(parsed: Table, name: str, source_name: str) -> tuple[str, list]:
    """The annotation called ``name`` (case, '!' and 'Sample_' aside): (its name, its
    values in the samples' order), or an error listing the annotations."""
    annotations = parsed.annotations or {}
    found = [a for a in annotations if _key(a) == _key(name)]
    if not found:
        kind = parsed.annotation_kind
        raise FSEngineError(
            f"{source_name} has no {kind} {name!r}; its {kind}s: "
            + (describe_annotations(annotations) or "none"),
            parameter="sample_groups",
            choices=tuple(annotations),
        )
    return found[0], annotations[found[0]]


def choose_annotation(parsed: Table, label: str | None, source_name: str) -> str:
    """The annotation that holds the class: the one named ``label`` (case, a leading '!'
    and 'Sample_' aside: "disease state", "title", "!Sample_source_name_ch1"), or for
    None the only annotation with 2 to n - 1 values, if there is exactly one.

    Raises
    ------
    FSEngineError
        When ``label`` names no annotation, or is None and not exactly one could be the
        class: the message lists every annotation with its values (also as ``choices``).
    """
    annotations = parsed.annotations or {}
    kind = parsed.annotation_kind
    n = len(parsed.sample_names or ())
    choose = {
        "remedy": f"name the {kind} that holds the class with",
        "remedy_option": "label",
        "choices": tuple(annotations),
    }
    listed = describe_annotations(annotations) or "none"
    if label is None:
        classes = [a for a, v in annotations.items() if 2 <= len(set(v) - {None}) < n]
        if len(classes) != 1:
            raise FSEngineError(
                f"{source_name} keeps the class in one of its {kind}s: {listed}", **choose
            )
        parsed.notes.append(f"the only {kind} with classes holds them")
        chosen = classes[0]
    else:
        found = [a for a in annotations if _key(a) == _key(label)]
        if not found:
            raise FSEngineError(
                f"{source_name} has no {kind} {label!r}; its {kind}s: {listed}", **choose
            )
        chosen = found[0]
    if chosen in parsed.matrix_columns:
        raise FSEngineError(
            f"{source_name}: the {kind} {chosen!r} has the name of a gene; rename one of them"
        )
    parsed.notes.append(f"class from the {kind} {chosen!r}")
    return chosen


def label_table(parsed: Table, label: str | None, source_name: str) -> tuple[Table, str]:
    """The parsed matrix with the annotation named ``label`` as its last column.

    Parameters
    ----------
    parsed : Table
        A reader's result with :attr:`~fsengine.io.base.Table.annotations`.
    label : str or None
        The annotation that holds the class (:func:`choose_annotation`).
    source_name : str

    Returns
    -------
    (Table, str)
        The table (the features, views of the parsed matrix, then the label) and the
        label column's name.

    Raises
    ------
    FSEngineError
        As :func:`choose_annotation`.
    """
    chosen = choose_annotation(parsed, label, source_name)
    names = [*parsed.matrix_columns, chosen]
    values = [None if v is None else str(v) for v in parsed.annotations[chosen]]
    table = assemble(
        names,
        list(range(len(parsed.matrix_columns))),
        parsed.matrix,
        {len(names) - 1: pa.chunked_array([pa.array(values, pa.string())])},
    )
    return (
        Table(
            table,
            parsed.notes,
            False,
            parsed.matrix,
            parsed.matrix_columns,
            parsed.sample_names,
        ),
        chosen,
    )
