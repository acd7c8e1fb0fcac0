"""The selection task: one data set's matrix and its minority class versus the rest.

Every driver (:func:`fsengine.methods.runs.run_selection`,
:func:`fsengine.evaluation.evaluate`, the sweeps,
:func:`fsengine.evaluation.stability.order_stability`,
:class:`fsengine.methods.live.LiveStream`,
the study's tasks, the gene table and the dashboard's pages) takes a :class:`Task`, built
once from (data set, minority) by :meth:`Task.from_dataset`; the drivers that also take a
data set and a minority build it with :func:`as_task`. The task carries what the
methods need (the matrix, the 0/1 labels, the names), what a record says of the data
(:meth:`Task.record`), the size of a protocol's training half (:attr:`Task.n_train`) and a
content digest (:attr:`Task.digest`) that identifies the data a result was computed on.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from fsengine._compute.sparse import as_columns, by_columns, densified, is_backed, is_sparse
from fsengine.data.dataset import Dataset
from fsengine.data.labels import check_binary
from fsengine.errors import FSEngineError

__all__ = ["Task", "as_task", "training_size"]


def training_size(n_samples: int) -> int:
    """The size of a split's training half in the protocol: ceil(n / 2) samples (the
    K-OFSD paper, section 4.1), the rest being the test half.

    Parameters
    ----------
    n_samples : int

    Returns
    -------
    int
    """
    return math.ceil(n_samples / 2)


@dataclass(frozen=True, eq=False)
class Task:
    """One selection problem: samples x features, 1 for the minority class, 0 for the rest.

    Build it with :meth:`from_dataset` (a loaded data set and its minority class) or
    :meth:`from_arrays` (a matrix and 0/1 labels). Frozen: its fields are not reassigned
    (the arrays are shared with the data set, not copied).

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Or a scipy sparse CSC array (a sparse matrix given sparse, CSR converted), or a
        matrix on disk (:class:`fsengine.io.backed.BackedColumns`): the rankers that score
        each gene on its own and the online selectors read it a block of columns at a
        time; :meth:`dense` gives the task other drivers take.
    y : ndarray of int8, shape (n_samples,)
        1 for the minority class, 0 for every other class.
    names : tuple of str
        Feature names, one per column of ``X``.
    label_column : str
        The column the classes came from ("" for arrays).
    minority : object
        The minority class as stored in the data set's labels (1 for arrays).
    source : str
        The file the data came from ("" for arrays).
    dataset : Dataset or None
        The data set it was built from (None for arrays, and in worker processes: a task
        pickles without it).
    sample_groups : ndarray or None
        Each sample's group (patient, donor, batch), from the data set's
        :attr:`~fsengine.data.dataset.Dataset.groups`; kept when the task pickles (read it as
        :attr:`groups`).
    """

    X: np.ndarray
    y: np.ndarray
    names: tuple[str, ...]
    label_column: str = ""
    minority: object = 1
    source: str = ""
    dataset: Dataset | None = field(default=None, repr=False)
    sample_groups: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        X = as_columns(self.X) if by_columns(self.X) else np.asarray(self.X, dtype=np.float64)
        if X.ndim != 2:
            raise FSEngineError(f"X must be two-dimensional, got shape {X.shape}")
        y = check_binary(self.y)
        if len(y) != X.shape[0]:
            raise FSEngineError(f"X has {X.shape[0]} rows but y has {len(y)} labels")
        if len(self.names) != X.shape[1]:
            raise FSEngineError(f"X has {X.shape[1]} columns but there are {len(self.names)} names")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "names", tuple(self.names))

    @classmethod
    def from_dataset(cls, dataset: Dataset, minority=None) -> Task:
        """The task of selecting for ``minority`` versus the rest of ``dataset``'s classes.

        Parameters
        ----------
        dataset : Dataset
        minority : label or str, optional
            The class to select for, as :meth:`Dataset.resolve_class` takes it ("2"
            matches a numeric label 2). Default: :meth:`Dataset.default_minority`, the
            smallest class the 50/50 comparison can use.

        Returns
        -------
        Task

        Raises
        ------
        FSEngineError
            For an unknown class, or one that breaks the label rule of
            :func:`fsengine.data.labels.one_versus_rest`.
        """
        label = dataset.default_minority() if minority is None else dataset.resolve_class(minority)
        return cls(
            dataset.X,
            dataset.binarise(label),
            tuple(dataset.feature_names),
            dataset.label_column,
            label,
            dataset.source,
            dataset,
            dataset.groups,
        )

    @classmethod
    def from_arrays(cls, X, y, names=None) -> Task:
        """The task of a matrix (dense, or a scipy sparse matrix kept sparse) and its 0/1
        labels (1: minority); ``names`` default to ``x0``, ``x1``, ..."""
        X = X if by_columns(X) else np.asarray(X, dtype=np.float64)
        if names is None:
            names = tuple(f"x{j}" for j in range(X.shape[1] if X.ndim == 2 else 0))
        return cls(X, y, tuple(str(n) for n in names))

    @property
    def n_samples(self) -> int:
        """Number of samples (rows of ``X``)."""
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        """Number of features (columns of ``X``)."""
        return self.X.shape[1]

    @property
    def n_minority(self) -> int:
        """Number of minority samples."""
        return int(self.y.sum())

    @property
    def n_train(self) -> int:
        """The size of a protocol split's training half (:func:`training_size`). With
        sample groups (:attr:`groups`) the drawn halves vary around it: the checks of K
        use the smallest drawn (:func:`fsengine.evaluation.training_halves`)."""
        return training_size(self.n_samples)

    @cached_property
    def digest(self) -> str:
        """SHA-256 of what a result depends on: the matrix, the labels, the names and,
        when the splits keep sample groups apart, each sample's group (a task without
        groups has the digest it had before groups existed). A matrix on disk is hashed a
        dense block of columns at a time (a pass over the file)."""
        h = hashlib.sha256()
        if self.is_backed:
            stored = ()
            h.update(f"backed{self.X.shape}".encode())
            for _, _, block in self.X.blocks():
                h.update(memoryview(np.ascontiguousarray(block).reshape(-1).view(np.uint8)))
        elif self.is_sparse:
            stored = (self.X.data, self.X.indices, self.X.indptr)
        else:
            stored = (self.X,)
        for array in (*stored, self.y):
            h.update(f"{array.dtype}{array.shape}".encode())
            _hash_c_order(h, array)
        h.update("\x00".join(self.names).encode())
        if self.groups is not None:  # other splits, other results
            h.update(b"\x00groups\x00" + "\x00".join(map(str, self.groups)).encode())
        return h.hexdigest()

    @property
    def is_sparse(self) -> bool:
        """Whether ``X`` is a sparse (CSC) matrix."""
        return is_sparse(self.X)

    @property
    def is_backed(self) -> bool:
        """Whether ``X`` stays on disk (:class:`fsengine.io.backed.BackedColumns`)."""
        return is_backed(self.X)

    def dense(self) -> Task:
        """This task with a dense ``X`` (itself when it is dense): for the drivers that
        read whole rows (the evaluation's classifiers, the sweeps, the figures).

        Raises
        ------
        FSEngineError
            When the dense float64 copy would take more than half the available memory.
        """
        if not by_columns(self.X):  # a sparse matrix, or one on disk: read into memory
            return self
        what = self.source or "the task"
        return replace(self, X=densified(self.X, what))

    def is_for(self, minority) -> bool:
        """Whether ``minority`` (a label or its text) names this task's minority class."""
        if self.dataset is not None:
            try:
                return self.dataset.resolve_class(minority) == self.minority
            except FSEngineError:
                return False
        return str(minority) == str(self.minority)

    def record(self) -> dict:
        """What a run record says of the data: ``data`` (the file), ``label_column`` and
        ``minority`` (the class as stored), ``samples`` (the sample sheet's file name) when
        the class came from one, ``layer`` and ``gene_names`` when an AnnData file's
        layer and var column were read, ``preprocessing`` when the data set was
        preprocessed (:func:`fsengine.data.preprocess.preprocess`) and ``sample_groups`` (the
        column) when its splits keep groups apart (not ``groups``: Group-SAOLA's parameter)."""
        record = {"data": self.source, "label_column": self.label_column, "minority": self.minority}
        if self.dataset is not None and self.dataset.samples_source:
            record["samples"] = self.dataset.samples_source
        if self.dataset is not None and self.dataset.layer:
            record["layer"] = self.dataset.layer
        if self.dataset is not None and self.dataset.gene_names_column:
            record["gene_names"] = self.dataset.gene_names_column
        if self.dataset is not None and self.dataset.preprocessing:
            record["preprocessing"] = self.dataset.preprocessing
        if self.dataset is not None and self.dataset.groups_column:
            record["sample_groups"] = self.dataset.groups_column
        return record

    @property
    def groups(self):
        """Each sample's group (patient, donor, batch) when the data set has them
        (:attr:`fsengine.data.dataset.Dataset.groups`), else None: the protocol's splits keep a
        group on one side."""
        if self.sample_groups is not None:
            return self.sample_groups
        return None if self.dataset is None else self.dataset.groups

    def __reduce__(self):
        # Workers get the arrays and the facts (the groups too: the splits depend on
        # them), not the data set (its labels and notes).
        return (
            type(self),
            (
                self.X,
                self.y,
                self.names,
                self.label_column,
                self.minority,
                self.source,
                None,
                self.groups,
            ),
        )


#: Bytes of a matrix hashed at a time by :func:`_hash_c_order` (a row block's C copy).
HASH_BLOCK_BYTES = 8 * 2**20


def _hash_c_order(h, array: np.ndarray) -> None:
    """Feed ``h`` the bytes of ``array`` in C order (those of ``array.tobytes()``) without
    a copy of the whole: a C-contiguous array as it is, another one block of rows at a
    time (a Fortran-ordered matrix of 480 MB would otherwise be copied whole)."""
    if array.flags.c_contiguous:
        h.update(memoryview(array.reshape(-1).view(np.uint8)))
        return
    rows = max(1, HASH_BLOCK_BYTES // max(array[:1].nbytes, 1))
    for lo in range(0, array.shape[0], rows):
        h.update(memoryview(np.ascontiguousarray(array[lo : lo + rows]).reshape(-1).view(np.uint8)))


def as_task(data, minority=None) -> Task:
    """``data`` as a :class:`Task`: a task as it is, a data set with ``minority``.

    Parameters
    ----------
    data : Task or Dataset
    minority : label or str, optional
        With a data set: the class to select for (default:
        :meth:`Dataset.default_minority`). With a task:
        None, or the task's own minority class.

    Returns
    -------
    Task

    Raises
    ------
    FSEngineError
        A task given another minority class than its own.
    TypeError
        For anything else than a task or a data set.
    """
    if isinstance(data, Task):
        if minority is not None and not data.is_for(minority):
            raise FSEngineError(
                f"the task is for minority class {data.minority!r}, not {minority!r}",
                parameter="minority",
                remedy="build a task for that class with Task.from_dataset(dataset, minority)",
            )
        return data
    if isinstance(data, Dataset):
        return Task.from_dataset(data, minority)
    raise TypeError(f"expected a Task or a Dataset, got {type(data).__name__}")
