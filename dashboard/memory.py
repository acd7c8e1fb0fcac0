"""What the server holds in memory: the data sets, each read once per set of reading
options and one copy shared by every session that reads it (a sparse file kept sparse),
and the memory freed by a script run given back to the system.

``st.cache_data`` keeps a pickled copy of what it caches and gives every call a new
unpickled copy: for a 20,000 x 3,000 matrix (480 MB dense) each choice on the Data page
added two copies. Here a data set is the same object for every session and every rerun
(a :class:`~fsengine.data.dataset.Dataset` is frozen; nothing in the library writes into its
matrix), and data sets read from the same bytes with other options (another label,
another groups column) share one matrix when their matrices are equal. What no session
uses any more is dropped, least recently used first, beyond :data:`MAX_ENTRIES` data sets
or :data:`MAX_BYTES` of matrices.

Imports nothing of Streamlit: the pages' spinners are the callers'.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import replace

import numpy as np

from fsengine import Dataset
from fsengine.io.footprint import Footprint, available_memory

#: Environment variable: the memory (MB) the server may give the data sets it reads (a
#: shared machine's share); default: the memory available when a file is read.
SERVER_MEMORY_MB = "FSENGINE_SERVER_MEMORY_MB"
#: Data sets kept for later reads, the least recently used dropped first (the newest always
#: stays; one that a session still holds is found again anyway).
MAX_ENTRIES = 4
#: Bytes of the matrices kept for later reads, as for :data:`MAX_ENTRIES`.
MAX_BYTES = 1 << 30


def same_matrix(a: Dataset, b: Dataset) -> bool:
    """Whether two data sets' matrices hold the same values in the same form (both dense,
    or both sparse of one format with the same stored entries)."""
    if a.X is b.X:
        return True
    if a.is_sparse != b.is_sparse or a.X.shape != b.X.shape or a.X.dtype != b.X.dtype:
        return False
    if a.is_sparse:
        return a.X.format == b.X.format and all(
            np.array_equal(getattr(a.X, part), getattr(b.X, part))
            for part in ("indptr", "indices", "data")
        )
    return np.array_equal(a.X, b.X)


class DatasetCache:
    """Data sets by key, each read once; bounded by :data:`MAX_ENTRIES` and
    :data:`MAX_BYTES` over the entries kept for later (thread-safe: a server's sessions
    run in threads).

    Every data set handed out is also remembered weakly, so that one a session still
    holds is found again (and its matrix shared) after the bound dropped it.

    Parameters
    ----------
    max_entries, max_bytes : int
        The bound on the data sets kept (the newest always stays).
    """

    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES):
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._kept: OrderedDict[Hashable, Dataset] = OrderedDict()
        self._alive: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self._family: dict[Hashable, Hashable] = {}  # key -> family, of the data sets alive
        self._lock = threading.Lock()

    def get(self, key: Hashable, read: Callable[[], Dataset], family: Hashable = None) -> Dataset:
        """The data set of ``key``, read with ``read()`` the first time.

        Parameters
        ----------
        key : hashable
            What identifies the data set: its bytes' SHA-256 and every reading option.
        read : callable
            Reads it (its exception is raised through; nothing is kept).
        family : hashable, optional
            Data sets of one family (read from the same bytes) share one matrix when
            their matrices are equal.

        Returns
        -------
        Dataset
        """
        with self._lock:
            found = self._found(key)
        if found is not None:
            return found
        dataset = read()  # outside the lock: the other sessions go on meanwhile
        with self._lock:
            found = self._found(key)  # another session may have read it meanwhile
            if found is not None:
                return found
            if family is not None:
                dataset = self._with_shared_matrix(dataset, family)
                self._family[key] = family
            self._alive[key] = dataset
            self._keep(key, dataset)
            return dataset

    def _found(self, key: Hashable) -> Dataset | None:
        found = self._kept.get(key)
        if found is None:
            found = self._alive.get(key)
        if found is not None:
            self._keep(key, found)
        return found

    def _with_shared_matrix(self, dataset: Dataset, family: Hashable) -> Dataset:
        """``dataset`` with the matrix of a data set of its family when they are equal."""
        for key in [k for k in self._family if k not in self._alive]:
            del self._family[key]
        for key, other in list(self._alive.items()):
            if self._family.get(key) == family and same_matrix(other, dataset):
                return replace(dataset, X=other.X)
        return dataset

    def _keep(self, key: Hashable, dataset: Dataset) -> None:
        self._kept[key] = dataset
        self._kept.move_to_end(key)
        while len(self._kept) > 1 and (
            len(self._kept) > self.max_entries or self.kept_bytes() > self.max_bytes
        ):
            self._kept.popitem(last=False)

    def holds(self, family: Hashable) -> bool:
        """Whether a data set of ``family`` (a file's SHA-256) is in memory now."""
        with self._lock:
            return any(self._family.get(key) == family for key in list(self._alive.keys()))

    def kept_bytes(self) -> int:
        """Bytes of the kept data sets' matrices, a shared matrix counted once."""
        matrices = {id(d.X): d.matrix_bytes for d in self._kept.values()}
        return sum(matrices.values())

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        """Forget every data set (those the sessions hold stay theirs)."""
        with self._lock:
            self._kept.clear()
            self._alive = weakref.WeakValueDictionary()
            self._family.clear()


def reading_key(
    sha256: str,
    name: str,
    label: str | None = None,
    transpose: bool = False,
    drop_constant: bool = False,
    samples_sha256: str | None = None,
    samples_name: str | None = None,
    sample_groups: str | None = None,
    anndata: tuple = (),
) -> tuple:
    """The key of the data set read from the bytes of SHA-256 ``sha256`` with these
    options (:func:`fsengine.load_dataset`'s; the sample sheet by its SHA-256, AnnData's
    layer and gene names as sorted pairs)."""
    return (
        sha256,
        name,
        label,
        bool(transpose),
        bool(drop_constant),
        samples_sha256,
        samples_name,
        sample_groups,
        tuple(anndata),
    )


#: The server's data sets (the Data page's, the Benchmark page's).
DATASETS = DatasetCache()


def give_back_freed_memory() -> None:
    """Return the memory freed inside the process's heap to the system (glibc's
    ``malloc_trim``; elsewhere nothing). Reading a file, a comparison or a figure leaves
    large freed blocks in the heap, which glibc keeps (80 MB after reading the 20,000 x
    3,000 AnnData file); trimming takes about a millisecond."""
    global _malloc_trim
    if _malloc_trim is None:
        try:
            _malloc_trim = ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim
        except (OSError, AttributeError, TypeError):  # not glibc
            _malloc_trim = False
    if _malloc_trim:
        _malloc_trim(0)


_malloc_trim = None

#: glibc's ``mallopt`` parameter for the size from which a block gets its own mapping.
M_MMAP_THRESHOLD = -3
#: The server's threshold (bytes): a block this large or larger is mapped on its own and
#: unmapped when freed.
SERVER_MMAP_THRESHOLD = 1 << 20


def map_large_blocks() -> bool:
    """Have glibc map every block of :data:`SERVER_MMAP_THRESHOLD` bytes or more on its own,
    in the server's process, so that a freed one goes back to the system at once.

    glibc's default raises that size to each freed mapped block's (up to 32 MB): once a
    stream's snapshot (tens of MB) is freed, the streams' 8 MB temporaries are carved out
    of the heaps of the server's many threads, whose small live objects then keep them
    (the server grew by 3.2 to 3.6 x the sparse matrix on the 20,000-cell file from a
    stream on; with this 1.8 to 2.3 x: docs/MEMORY.md). A threshold the user gave glibc
    (``MALLOC_MMAP_THRESHOLD_``, or ``glibc.malloc.mmap_threshold`` in ``GLIBC_TUNABLES``)
    is kept. Idempotent; nothing where glibc is not the allocator.

    Returns
    -------
    bool
        Whether the threshold is set (False: not glibc, or the user's own in force).
    """
    global _mapped
    if _mapped is None:
        _mapped = False
        if not user_mmap_threshold():
            try:
                mallopt = ctypes.CDLL(ctypes.util.find_library("c")).mallopt
            except (OSError, AttributeError, TypeError):  # not glibc
                mallopt = None
            _mapped = bool(mallopt and mallopt(M_MMAP_THRESHOLD, SERVER_MMAP_THRESHOLD) == 1)
    return _mapped


_mapped: bool | None = None


def user_mmap_threshold() -> bool:
    """Whether the user set glibc's mmap threshold for this process (the environment
    variable ``MALLOC_MMAP_THRESHOLD_`` or the tunable ``glibc.malloc.mmap_threshold``)."""
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    return "MALLOC_MMAP_THRESHOLD_" in os.environ or "glibc.malloc.mmap_threshold" in tunables


def server_budget() -> int | None:
    """The memory (bytes) against which a file about to be read is measured: the memory
    available now, or :data:`SERVER_MEMORY_MB` when set (and smaller); None when neither
    is known. A data set may take half of it at the peak of its reading
    (:func:`fsengine.io.footprint.check_fits`)."""
    available = available_memory()
    try:
        given = int(float(os.environ.get(SERVER_MEMORY_MB, "")) * 2**20)
    except (ValueError, OverflowError):  # not a number, inf
        return available
    if given <= 0:
        return available
    return given if available is None else min(given, available)


def way_out(found: Footprint | None, uploaded: bool) -> str:
    """What the message of a file refused for its memory (:func:`check_fits`) tells the
    user to do: an upload, or a file of the data directory read into memory or from disk."""
    if found is not None and found.form == "backed":
        return "the server needs more free memory (or a larger FSENGINE_SERVER_MEMORY_MB)"
    if uploaded:
        return (
            "upload a smaller file (fewer genes or samples), or have it put in the server's "
            "data directory as an AnnData file (.h5ad), which is read from disk a block of "
            "genes at a time"
        )
    return (
        "choose a smaller file, or convert it to an AnnData file (.h5ad), which is read "
        "from disk a block of genes at a time"
    )
