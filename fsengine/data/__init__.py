"""Data sets and tasks, over the readers of :mod:`fsengine.io`.

- :mod:`~fsengine.data.dataset`: :class:`Dataset` (a matrix, its labels and names, how it
  was read) and :func:`load_dataset`, every format;
- :mod:`~fsengine.data.labels`: the one label rule (one class against the rest, the
  default minority class);
- :mod:`~fsengine.data.task`: :class:`Task`, a data set and its minority class, built once
  and taken by every driver;
- :mod:`~fsengine.data.preprocess`: the preprocessing every microarray and RNA-seq
  tutorial starts with (log2, log1p, ...), declared once as a specification.
"""

from fsengine.data.dataset import LABEL_NAMES, Dataset, Source, load_dataset
from fsengine.data.task import Task, as_task, training_size

__all__ = [
    "LABEL_NAMES",
    "Dataset",
    "Source",
    "Task",
    "as_task",
    "load_dataset",
    "training_size",
]
