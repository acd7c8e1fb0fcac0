"""Load, validate, orient and binarise a gene-expression matrix.

One loader for the command line and the app: CSV, TSV, gzip-compressed CSV/TSV and
Parquet, read through pyarrow (the readers, the orientation heuristics and the column
checks are in :mod:`fsengine.io`). Samples are in rows by default; ``transpose=True``
reads matrices with genes in rows and samples in columns. Every problem is raised
as :class:`~fsengine.errors.FSEngineError` with a message that names the column
and row and says what to do.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pyarrow as pa

from fsengine import io as readers
from fsengine._compute.sparse import (
    by_columns,
    column_constant,
    dense_block,
    densified,
    is_backed,
    is_sparse,
)
from fsengine.data.labels import default_minority, default_minority_reason, one_versus_rest
from fsengine.errors import FSEngineError
from fsengine.io.annotated import annotation, choose_annotation, label_table
from fsengine.io.base import Source
from fsengine.io.base import as_number as _as_number
from fsengine.io.columns import (
    LABEL_NAMES,
    check_label_is_a_class,
    choose_label,
    feature_values,
    finite,
    label_values,
)
from fsengine.io.orientation import (
    HintedError,
    genes_in_rows_hint,
    raise_duplicates,
    sample_id_column,
    transposed,
    unnamed_columns,
)
from fsengine.io.sample_sheet import (
    attach_sheet,
    check_sheet_width,
    expression_table,
    sheet_orientation,
)

__all__ = ["LABEL_NAMES", "Dataset", "Source", "load_dataset"]


@dataclass(frozen=True)
class Dataset:
    """A validated matrix of samples x features with one class label per sample.

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Finite feature values (Fortran order: one feature is contiguous); a scipy
        sparse CSC array when the file's matrix is sparse and the loader was asked to
        keep it so (``load_dataset(..., sparse=True)``); a matrix left on disk, read a
        block of columns at a time (:class:`fsengine.io.backed.BackedColumns`), when
        an AnnData file was read backed (``load_dataset(..., backed=True)``).
    labels : ndarray, shape (n_samples,)
        Class labels as given: int64 for integral numbers, float64 for other
        numbers, str otherwise.
    feature_names : tuple of str
        Column names as given in the file.
    label_column : str
        Name of the column the labels came from.
    source : str
        File name the data came from.
    sample_names : tuple of str or None
        Sample identifiers, when the file has them (transposed files, or a
        first column of unique non-numeric identifiers).
    constant_features : tuple of str
        Features with a single value over all samples (still in ``X`` unless
        dropped).
    dropped_features : tuple of str
        Constant features removed by ``drop_constant=True``.
    notes : tuple of str
        How the file was read (delimiter, label column choice, ...).
    label_choices : tuple of str
        Where the class could have come from, when the file keeps it beside the matrix
        (a GEO series matrix's sample lines, an AnnData file's obs columns); empty for a
        table, whose every column could be the label.
    preprocessing : str
        The preprocessing steps applied after reading ("" for none:
        :func:`fsengine.data.preprocess.preprocess`), as run records state them.
    groups : ndarray of str or None
        Each sample's group (patient, donor, batch) when the file names a groups column:
        the protocol's splits keep a group on one side
        (:func:`fsengine.evaluation.stratified_splits`).
    groups_column : str
        The column (or annotation) the groups came from ("" for none).
    samples_source : str
        The sample sheet's file name when the class came from one (``load_dataset``'s
        ``samples``), else "".
    layer : str
        The AnnData layer the matrix came from (``load_dataset``'s ``layer``), else "".
    gene_names_column : str
        The AnnData var column that named the genes (``gene_names``), else "".
    """

    X: np.ndarray
    labels: np.ndarray
    feature_names: tuple[str, ...]
    label_column: str
    source: str = ""
    sample_names: tuple[str, ...] | None = None
    constant_features: tuple[str, ...] = ()
    dropped_features: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())
    label_choices: tuple[str, ...] = ()
    preprocessing: str = ""
    groups: np.ndarray | None = field(default=None, repr=False)
    groups_column: str = ""
    samples_source: str = ""
    layer: str = ""
    gene_names_column: str = ""

    @property
    def n_samples(self) -> int:
        """Number of samples (rows of ``X``)."""
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return self.X.shape[1]

    @property
    def is_sparse(self) -> bool:
        """Whether ``X`` is a scipy sparse (CSC) matrix (not a matrix on disk: see
        :attr:`is_backed`)."""
        return is_sparse(self.X)

    @property
    def is_backed(self) -> bool:
        """Whether ``X`` stays on disk, read a block of columns at a time
        (:class:`fsengine.io.backed.BackedColumns`)."""
        return is_backed(self.X)

    @property
    def matrix_bytes(self) -> int:
        """Bytes of ``X``'s values in memory: a dense array's, or a sparse matrix's stored
        values, row indices and column pointers; none for a matrix on disk."""
        if self.is_backed:
            return self.X.nbytes
        if self.is_sparse:
            return sum(part.nbytes for part in (self.X.data, self.X.indices, self.X.indptr))
        return int(self.X.nbytes)

    def dense_values(self, columns, rows=None) -> np.ndarray:
        """The values of ``columns`` of ``X`` (on ``rows`` only, if given) as a dense
        float64 array: of a sparse ``X``, those columns made dense, never the whole; of
        one on disk, those columns read from the file.

        Parameters
        ----------
        columns : slice or sequence of int
        rows : sequence of int, optional

        Returns
        -------
        ndarray, shape (n_rows, n_columns)
        """
        return dense_block(self.X, columns, rows)

    def class_counts(self) -> dict:
        """Number of samples per class, largest class first (ties by label)."""
        values, counts = np.unique(self.labels, return_counts=True)
        pairs = sorted(zip(values.tolist(), counts.tolist()), key=lambda vc: -vc[1])
        return dict(pairs)  # np.unique sorted the labels; sorted() is stable

    def resolve_class(self, value) -> object:
        """The class label that ``value`` names: ``"2"`` matches a numeric label 2.

        Parameters
        ----------
        value : str, int or float
            A class as typed by a user or taken from the labels.

        Returns
        -------
        The matching label, as stored in ``labels``.

        Raises
        ------
        FSEngineError
            When no class matches; the message lists the classes.
        """
        classes = list(self.class_counts())
        for c in classes:
            if (
                not isinstance(value, (bool, np.bool_))
                and type(c) is not str
                and not isinstance(value, str)
                and c == value
            ):
                return c
            if isinstance(c, str) and c == value:
                return c
        text = str(value).strip()
        for c in classes:
            if str(c) == text:
                return c
        number = _as_number(text)
        if number is not None:
            for c in classes:
                if isinstance(c, (int, float)) and not isinstance(c, bool) and c == number:
                    return c
        raise FSEngineError(
            f"{value!r} is not a class of column {self.label_column!r}; "
            f"the classes are {_format_counts(self.class_counts())}",
            parameter="minority",
        )

    def default_minority(self):
        """The class a selection is for when none is chosen: the smallest class the 50/50
        protocol can use, else the smallest (:func:`fsengine.data.labels.default_minority`)."""
        return default_minority(self.labels)

    def default_minority_reason(self) -> str | None:
        """Why the default class is not simply the smallest, in a sentence, or None
        (:func:`fsengine.data.labels.default_minority_reason`)."""
        return default_minority_reason(self.labels)

    def imbalance_ratio(self, minority=None) -> float:
        """Imbalance ratio of the one-versus-rest problem: majority / minority.

        The two sides are ``minority`` and every other class together; the ratio is the
        larger side's size over the smaller's, so it is at least 1 (the K-OFSD paper's
        ratios: SRBCT, class BL: 72 / 11 = 6.55). A chosen class larger than the rest
        gives its own size over the rest's.

        Parameters
        ----------
        minority : label or str, optional
            Default: :meth:`default_minority`.
        """
        counts = self.class_counts()
        label = self.default_minority() if minority is None else self.resolve_class(minority)
        chosen, rest = counts[label], self.n_samples - counts[label]
        return max(chosen, rest) / min(chosen, rest) if min(chosen, rest) else math.inf

    def is_smallest_class(self, minority) -> bool:
        """Whether ``minority`` is a smallest class (the dashboard flags other choices)."""
        counts = self.class_counts()
        return counts[self.resolve_class(minority)] == min(counts.values())

    def binarise(self, minority) -> np.ndarray:
        """One-versus-rest labels: 1 for the minority class, 0 for every other class.

        Parameters
        ----------
        minority : label or str
            The class to select for; resolved with :meth:`resolve_class`.

        Returns
        -------
        ndarray of int8, shape (n_samples,)

        Raises
        ------
        FSEngineError
            If the class is unknown or breaks the label rule of
            :func:`fsengine.data.labels.one_versus_rest` (fewer than 2 samples, or every sample).
        """
        return one_versus_rest(self.labels, self.resolve_class(minority))

    def summary(self) -> dict:
        """Shape, classes and preprocessing facts, for display."""
        return {
            "source": self.source,
            "samples": self.n_samples,
            "features": self.n_features,
            "label_column": self.label_column,
            "class_counts": self.class_counts(),
            "default_minority": self.default_minority(),
            "imbalance_ratio": self.imbalance_ratio(),
            "constant_features": len(self.constant_features),
            "dropped_features": len(self.dropped_features),
        }


def _format_counts(counts: dict) -> str:
    return ", ".join(f"{c!s} (n={n})" for c, n in counts.items())


def load_dataset(
    source: Source,
    *,
    label: str | None = None,
    transpose: bool = False,
    drop_constant: bool = False,
    name: str | None = None,
    samples: Source | None = None,
    samples_name: str | None = None,
    sample_groups: str | None = None,
    layer: str | None = None,
    gene_names: str | None = None,
    sparse: bool = False,
    backed: bool | None = False,
) -> Dataset:
    """Read and validate a matrix of samples x genes with a class label column.

    Parameters
    ----------
    source : path, bytes or binary file object
        CSV, TSV, gzip-compressed CSV/TSV or Parquet; the format is recognised
        from the content (Parquet and gzip magic bytes; the delimiter from the
        header line).
    label : str, optional
        Name of the label column. Default: a column named label/class/target
        (any case), else the last non-numeric column, else the last column.
    transpose : bool
        The file has genes in rows and samples in columns: its first column
        holds the gene names and one row holds the labels.
    drop_constant : bool
        Remove features with one value over all samples (they carry no
        information; under the standardised distance their distances are NaN).
    name : str, optional
        Name to report for the data (default: the file name).
    samples : path, bytes or binary file object, optional
        A sample sheet (CSV, TSV, Parquet; one row per sample) that holds the class:
        ``source`` is then a table of numbers with the sample identifiers as its first
        column or as its header (genes in rows): when the sheet holds the identifiers of
        one of the two only, that orientation is read, whatever ``transpose`` says, and a
        note says so. The sheet's column of those identifiers matches its rows in any
        order, and ``label`` names the sheet's class column
        (:mod:`fsengine.io.sample_sheet`).
    samples_name : str, optional
        Name to report for the sheet (default: its file name).
    sample_groups : str, optional
        The column (or sample annotation) naming each sample's group (patient, donor,
        batch): it is not a feature, and the protocol's splits keep each group on one
        side (``Dataset.groups``).
    layer : str, optional
        AnnData files: the ``layers`` entry to read instead of ``X`` (raw counts, say).
    gene_names : str, optional
        AnnData files: the ``var`` column that names the genes instead of ``var_names``.
    sparse : bool
        Keep a sparse matrix (an AnnData file's CSR or CSC) sparse, as CSC, for the
        methods that read a block of columns at a time (the rankers that score each gene
        on its own, the online selectors). Default: made dense, when it fits in memory.
    backed : bool or None
        AnnData files and Zarr stores: leave the matrix on disk, read a block of genes at a
        time by the methods that need no more (the online selectors, the rankers that
        score each gene on its own), in bounded memory (:mod:`fsengine.io.backed`); the
        data set's ``X`` is then a :class:`fsengine.io.backed.BackedColumns`, whatever
        ``sparse`` says. None: backed when the matrix in memory would take more than
        1 GiB or a quarter of the available memory
        (:func:`fsengine.io.h5ad.wants_backed`). Default: read into memory. The values,
        and every selection made on them, are the same either way.

    Returns
    -------
    Dataset

    Raises
    ------
    FSEngineError
        For any problem with the file, naming the column and row (also as the fields
        ``column`` and ``row``) and the option that may fix it (``remedy_option``).

    Notes
    -----
    Unnamed columns (an empty header cell, or pandas' ``Unnamed: 0``): an unnamed
    *first* column is the row index or the row names that pandas and R write; its
    values become the sample names and it is not a feature (a note says so). An
    unnamed column anywhere else is an error naming its position.

    The label column is checked for mistakes: a column that is the row index
    (0..n-1 or 1..n), a column with a different value in every row, and a numeric
    column with many distinct values (more than 20 and more than half the samples:
    a measurement, not a class) are errors asking for the class column.

    A file that looks like genes in rows (a first column of unique names containing
    label/class/target, or far more rows than columns with a first column of names)
    loaded without ``transpose`` is an error, or has the hint added to the error
    (:class:`~fsengine.io.orientation.HintedError`), with ``remedy_option="transpose"``.

    A file whose features are all constant is an error, with or without
    ``drop_constant``: no feature can tell the classes apart.
    """
    try:
        if samples is not None:
            dataset = _load_with_sheet(
                source, samples, label, transpose, drop_constant, name, samples_name, sample_groups
            )
        else:
            dataset = _load(
                source,
                label=label,
                transpose=transpose,
                drop_constant=drop_constant,
                name=name,
                groups=sample_groups,
                matrix_options={"layer": layer, "gene_names": gene_names, "backed": backed},
            )
        if layer is not None or gene_names is not None:
            dataset = replace(dataset, layer=layer or "", gene_names_column=gene_names or "")
        if is_sparse(dataset.X) and not sparse:
            dense = densified(dataset.X, dataset.source)
            dataset = replace(dataset, X=dense, notes=(*dataset.notes, "made dense"))
        return dataset
    except FSEngineError:  # a ValueError too: let it through as it is
        raise
    except (
        pa.ArrowException,
        ValueError,
        TypeError,
        OverflowError,
        UnicodeError,
        OSError,
        IndexError,
        KeyError,
    ) as exc:  # a bug or an unforeseen input: still one type
        raise FSEngineError(
            f"cannot read {name or 'the data'}: {type(exc).__name__}: {exc}"
        ) from exc


def _source_name(source: Source) -> str:
    if isinstance(source, (bytes, bytearray)):
        return "uploaded data"
    if hasattr(source, "read"):
        return os.path.basename(str(getattr(source, "name", "uploaded file")))
    return Path(source).name


def _load_with_sheet(
    source, samples, label, transpose, drop_constant, name, samples_name, groups=None
) -> Dataset:
    """An expression table and its sample sheet (:mod:`fsengine.io.sample_sheet`)."""
    source_name = name or _source_name(source)
    sheet_name = samples_name or _source_name(samples)
    readers.refuse_a_bomb(samples, sheet_name)  # a bomb is that, whatever its first line
    check_sheet_width(samples, sheet_name)
    parsed = readers.read(source, source_name, False)
    sheet = readers.read(samples, sheet_name, False).table
    transpose, turned = sheet_orientation(parsed, sheet, transpose, sheet_name)
    expression = expression_table(parsed, transpose, source_name)
    if turned:
        expression = replace(expression, notes=[*expression.notes, turned])
    dataset = annotated_dataset(
        attach_sheet(expression, sheet, sheet_name), label, drop_constant, source_name, groups
    )
    return replace(dataset, samples_source=sheet_name)


def _load(
    source: Source, *, label, transpose, drop_constant, name, groups=None, matrix_options=None
) -> Dataset:
    source_name = name or _source_name(source)
    parsed = readers.read(source, source_name, transpose, **(matrix_options or {}))
    if parsed.annotations is not None:  # the class beside the matrix (GEO, AnnData)
        return annotated_dataset(parsed, label, drop_constant, source_name, groups)
    table, notes, is_text = parsed.table, parsed.notes, parsed.line_numbers
    if table.num_columns == 0:
        raise FSEngineError(f"{source_name} has no columns")
    sample_names = parsed.sample_names
    if not transpose:
        table, sample_names = unnamed_columns(table, label, notes)
    names = [str(n) for n in table.column_names]
    if len(set(names)) != len(names):
        raise_duplicates(names, "column names")
    if transpose:
        if not parsed.transposed:
            table, sample_names = transposed(table)
        notes.append("transposed: genes in rows, samples in columns")
    if table.num_rows == 0:
        raise FSEngineError(f"{source_name} has a header but no data rows")
    if table.num_columns == 0:
        raise FSEngineError(f"{source_name} has no columns besides its row names")
    id_column = None
    if not transpose and sample_names is None:
        id_column = sample_id_column(table)
    hint = None if transpose else genes_in_rows_hint(table, id_column, label, source_name)
    matrix = (parsed.matrix, parsed.matrix_columns) if parsed.matrix is not None else None
    try:
        return _build(
            table,
            label,
            drop_constant,
            notes,
            is_text,
            source_name,
            sample_names,
            id_column,
            matrix,
            groups,
        )
    except FSEngineError as exc:
        if hint is not None and exc.remedy_option != "transpose":
            raise HintedError(exc, hint) from None
        raise


def annotated_dataset(
    parsed, label: str | None, drop_constant: bool, name: str, groups: str | None = None
) -> Dataset:
    """The Dataset of a matrix whose class is one of its sample annotations (a GEO series
    matrix's sample lines, an AnnData object's obs columns), chosen by ``label``
    (:func:`fsengine.io.annotated.label_table`), and its groups another one (``groups``);
    checked as any file is."""
    group_values, groups_column = None, ""
    if groups is not None:
        groups_column, group_values = annotation(parsed, groups, name)
    if by_columns(parsed.matrix):
        dataset = _sparse_dataset(parsed, label, drop_constant, name)
    else:
        labelled, label_column = label_table(parsed, label, name)
        dataset = _build(
            labelled.table,
            label_column,
            drop_constant,
            labelled.notes,
            False,
            name,
            labelled.sample_names,
            None,
            (labelled.matrix, labelled.matrix_columns),
        )
    if group_values is not None:
        group_array, group_note = _group_array(groups_column, group_values, dataset.sample_names)
        dataset = replace(
            dataset,
            groups=group_array,
            groups_column=groups_column,
            notes=dataset.notes + ((group_note,) if group_note else ()),
        )
    return replace(dataset, label_choices=tuple(parsed.annotations))


def _sparse_dataset(parsed, label: str | None, drop_constant: bool, name: str) -> Dataset:
    """The Dataset of a sparse matrix (CSC, checked finite by its reader) or of one on disk
    (checked finite in its first pass, :meth:`fsengine.io.backed.BackedColumns.profile`)
    and the class annotation ``label``: the checks of any file, without a dense copy."""
    label_column = choose_annotation(parsed, label, name)
    values = [None if v is None else str(v) for v in parsed.annotations[label_column]]
    labels = label_values(
        label_column, pa.chunked_array([pa.array(values, pa.string())]), parsed.sample_names, False
    )
    check_label_is_a_class(label_column, labels)
    _check_two_classes(label_column, labels)
    X, features = parsed.matrix, tuple(parsed.matrix_columns)
    constant_mask = column_constant(X)
    _check_not_all_constant(constant_mask, X.shape[0])
    constant = tuple(f for f, c in zip(features, constant_mask) if c)
    dropped: tuple[str, ...] = ()
    if drop_constant and constant:
        keep = np.flatnonzero(~constant_mask)
        X = X.take(keep) if is_backed(X) else X[:, keep]
        features = tuple(features[j] for j in keep)
        dropped, constant = constant, ()
    return Dataset(
        X=X,
        labels=labels,
        feature_names=features,
        label_column=label_column,
        source=name,
        sample_names=parsed.sample_names,
        constant_features=constant,
        dropped_features=dropped,
        notes=tuple(parsed.notes),
    )


def _check_two_classes(label_column: str, labels: np.ndarray) -> None:
    if len(np.unique(labels)) < 2:
        raise FSEngineError(
            f"label column {label_column!r} has a single class "
            f"({labels[0].item()!r}); at least two classes are needed",
            column=label_column,
        )


def _check_not_all_constant(constant_mask: np.ndarray, n_samples: int) -> None:
    if constant_mask.all():
        n = len(constant_mask)
        raise FSEngineError(
            f"every feature is constant ({n} of {n} have one value over all {n_samples} "
            "samples): nothing can tell the classes apart; check that the right file "
            "and columns were loaded"
        )


def _group_array(column: str, values, sample_names) -> tuple[np.ndarray, str | None]:
    """The groups as strings, and a note when some samples have none.

    A sample without a group (an empty or missing cell: a healthy donor in a table of
    patients' tumour and normal pairs, say) cannot share a group with another sample, so it
    is a group of its own; the note names those samples.

    Returns
    -------
    groups : ndarray of str
    note : str or None
    """
    groups, alone = [], []
    for row, value in enumerate(values):
        name = sample_names[row] if sample_names else f"row {row + 1}"
        if value is None or str(value).strip() == "":
            alone.append(name)
            groups.append(None)
        else:
            groups.append(str(value).strip())
    if not alone:
        return np.array(groups, dtype=object), None
    taken = {g for g in groups if g is not None}
    for row, group in enumerate(groups):
        if group is None:
            own = f"(no group) {sample_names[row] if sample_names else f'row {row + 1}'}"
            while own in taken:
                own += "'"
            groups[row] = own
            taken.add(own)
    shown = ", ".join(repr(a) for a in alone[:5]) + (
        f" and {len(alone) - 5} more" if len(alone) > 5 else ""
    )
    note = (
        f"{len(alone)} sample{'s' if len(alone) > 1 else ''} without a group in "
        f"{column!r} ({shown}): each is a group of its own"
    )
    return np.array(groups, dtype=object), note


def _matrix_view(matrix, feature_columns) -> np.ndarray | None:
    """The features as columns ``a:b`` of the parsed matrix (no copy), when they are."""
    if matrix is None:
        return None
    values, names = matrix
    position = {n: k for k, n in enumerate(names)}
    if len(position) != len(names) or any(c not in position for c in feature_columns):
        return None
    first = position[feature_columns[0]]
    if [position[c] for c in feature_columns] != list(range(first, first + len(feature_columns))):
        return None
    return values[:, first : first + len(feature_columns)]


def _build(
    table,
    label,
    drop_constant,
    notes,
    is_text,
    source_name,
    sample_names,
    id_column,
    matrix=None,
    groups=None,
) -> Dataset:
    label_column = choose_label(table, label, notes, id_column)
    feature_columns = [n for n in table.column_names if n != label_column]
    if id_column is not None and id_column != label_column:
        sample_names = tuple(str(v) for v in table.column(id_column).to_pylist())
        feature_columns.remove(id_column)
        notes.append(f"column {id_column!r} holds sample identifiers")
    group_values, groups_column = None, ""
    if groups is not None:
        found = [c for c in feature_columns if c == groups] or [
            c for c in feature_columns if c.lower() == groups.lower()
        ]
        if not found:
            raise FSEngineError(
                f"{source_name} has no column {groups!r}"
                + (" besides the label column" if groups == label_column else ""),
                parameter="sample_groups",
            )
        groups_column = found[0]
        feature_columns.remove(groups_column)
        group_values, group_note = _group_array(
            groups_column, table.column(groups_column).to_pylist(), sample_names
        )
        notes.append(f"column {groups_column!r} holds the samples' groups")
        if group_note:
            notes.append(group_note)
    if not feature_columns:
        raise FSEngineError(
            f"{source_name} has no feature columns besides the label column "
            f"{label_column!r}; a file needs one column per gene and a label "
            "column (samples in rows), separated by commas, tabs or semicolons",
            column=label_column,
        )
    labels = label_values(label_column, table.column(label_column), sample_names, is_text)
    check_label_is_a_class(label_column, labels)
    X = _matrix_view(matrix, feature_columns)
    parsed_into_matrix = X is not None
    if not parsed_into_matrix:
        X = np.empty((table.num_rows, len(feature_columns)), dtype=np.float64, order="F")
    constant_mask = np.empty(len(feature_columns), dtype=bool)
    for j, col in enumerate(feature_columns):
        if parsed_into_matrix:
            values = finite(col, X[:, j], sample_names, is_text)
        else:
            values = feature_values(col, table.column(col), sample_names, is_text)
            X[:, j] = values
        constant_mask[j] = (values == values[0]).all()  # no n x p temporary
    _check_two_classes(label_column, labels)
    _check_not_all_constant(constant_mask, X.shape[0])
    constant = tuple(feature_columns[j] for j in np.flatnonzero(constant_mask))
    dropped: tuple[str, ...] = ()
    if drop_constant and constant:
        keep = ~constant_mask
        X = np.asfortranarray(X[:, keep])
        feature_columns = [c for c, k in zip(feature_columns, keep) if k]
        dropped, constant = constant, ()
    return Dataset(
        X=X,
        labels=labels,
        feature_names=tuple(feature_columns),
        label_column=label_column,
        source=source_name,
        sample_names=sample_names,
        constant_features=constant,
        dropped_features=dropped,
        notes=tuple(notes),
        groups=group_values,
        groups_column=groups_column,
    )
