"""The server's data directory (``FSENGINE_DATA_DIR``): data files too large for a browser
upload, listed by name and opened by the server, never copied.

The browser only ever sends a name chosen from :func:`listing`; :func:`resolve` refuses any
other (a path, ``..``, a symbolic link leading out of the folder). An opened file is kept
in the session and the workspace as a *reference* (:func:`reference`): a few bytes naming
the file, its size and modification time, whose SHA-256 stands for the file's, so that a
workspace reopened later finds the file again, or says it has gone or changed.

Imports nothing of Streamlit.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from fsengine import FSEngineError
from fsengine.io.footprint import Footprint, footprint

#: The environment variable naming the folder.
DATA_DIR = "FSENGINE_DATA_DIR"
#: The environment variable of the size (MB) from which an AnnData file or Zarr store is
#: read backed, whatever its in-memory size (below it, ``load_dataset``'s ``backed=None``
#: rule decides: backed when the copy would take more than 1 GiB or a quarter of the memory).
BACKED_FROM_MB = "FSENGINE_BACKED_FROM_MB"
#: :data:`BACKED_FROM_MB`'s default.
DEFAULT_BACKED_FROM_MB = 256
#: The name endings listed: the formats the upload accepts, and Zarr stores (folders).
SUFFIXES = (
    ".h5ad",
    ".zarr",
    ".csv",
    ".tsv",
    ".txt",
    ".csv.gz",
    ".tsv.gz",
    ".txt.gz",
    ".parquet",
    ".pq",
)
#: What a reference's bytes start with (an upload cannot be mistaken for one by chance).
MAGIC = b"fsengine data-directory reference\n"


@dataclass(frozen=True)
class DataFile:
    """A file (or Zarr store) of the data directory.

    Attributes
    ----------
    name : str
        Its name in the folder (no path).
    size : int
        Bytes (a Zarr store's: every file under it).
    mtime_ns : int
        Its modification time (nanoseconds).
    """

    name: str
    size: int
    mtime_ns: int

    @property
    def is_anndata(self) -> bool:
        """Whether it is an AnnData file or a Zarr store (which can be read backed)."""
        return self.name.lower().endswith((".h5ad", ".zarr"))


def data_dir() -> Path | None:
    """The folder ``FSENGINE_DATA_DIR`` names, None when it is not set (or empty)."""
    value = os.environ.get(DATA_DIR, "").strip()
    return Path(value).expanduser() if value else None


def _inside(root: Path, path: Path) -> bool:
    """Whether ``path`` resolves (symbolic links followed) to a place inside ``root``."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except OSError:
        return False


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return path.stat().st_size


def listing(root: Path | None = None) -> list[DataFile]:
    """The readable data files directly in the data directory, by name.

    Parameters
    ----------
    root : Path, optional
        Default: :func:`data_dir`.

    Returns
    -------
    list of DataFile

    Raises
    ------
    FSEngineError
        When the variable is not set, or the folder is missing or unreadable.
    """
    return [entry for path in _names(root).values() if (entry := _entry(root, path))]


def _names(root: Path | None) -> dict[str, Path]:
    """Every name directly in the data directory (``root``, default :func:`data_dir`),
    sorted, with its path; nothing checked or measured yet."""
    root = data_dir() if root is None else root
    if root is None:
        raise FSEngineError(f"{DATA_DIR} is not set")
    if not root.is_dir():
        raise FSEngineError(
            f"the data directory {DATA_DIR}={root} does not exist or is not a folder",
        )
    try:
        return {p.name: p for p in sorted(root.iterdir(), key=lambda p: p.name)}
    except OSError as exc:
        raise FSEngineError(f"the data directory {root} cannot be read ({exc.strerror})") from exc


def _entry(root: Path | None, path: Path) -> DataFile | None:
    """``path``'s :class:`DataFile` when it is a readable data file (or Zarr store) of the
    folder, not hidden and not a link leading out of it; else None."""
    root = data_dir() if root is None else root
    zarr = path.name.lower().endswith(".zarr")
    if path.name.startswith(".") or not path.name.lower().endswith(SUFFIXES):
        return None
    if not _inside(root, path) or not os.access(path, os.R_OK):
        return None
    if not (path.is_dir() if zarr else path.is_file()):
        return None
    try:
        return DataFile(path.name, _size(path), path.stat().st_mtime_ns)
    except OSError:
        return None


def _named(name, root: Path | None = None) -> DataFile | None:
    """The listed :class:`DataFile` called ``name``, measured alone (not the whole
    folder), or None when ``name`` is not one of :func:`listing`'s."""
    names = _names(root)
    if not isinstance(name, str) or name not in names:
        return None
    return _entry(root, names[name])


def resolve(name: str, root: Path | None = None) -> tuple[Path, DataFile]:
    """The path and entry of ``name``, a name of :func:`listing`; any other is refused.

    Raises
    ------
    FSEngineError
        When ``name`` is not one of the listed names (a path, ``..``, a link leading out
        of the folder, a file that has gone).
    """
    root = data_dir() if root is None else root
    entry = _named(name, root)
    if entry is None:
        raise FSEngineError(
            f"{name!r} is not a data file of the data directory; choose one of its list",
        )
    return root / name, entry


def reference(entry: DataFile) -> bytes:
    """The bytes that stand for ``entry`` in the session and the workspace."""
    record = {"name": entry.name, "size": entry.size, "mtime_ns": entry.mtime_ns}
    return MAGIC + json.dumps(record, sort_keys=True).encode()


def is_reference(raw: bytes) -> bool:
    """Whether ``raw`` is a :func:`reference` rather than a file's bytes."""
    return isinstance(raw, (bytes, bytearray)) and bytes(raw[: len(MAGIC)]) == MAGIC


def referenced(raw: bytes) -> tuple[Path, DataFile]:
    """The file a :func:`reference` names, checked to be the same file (size and time).

    Raises
    ------
    FSEngineError
        When it is no longer in the data directory, or has changed since it was opened.
    """
    record = json.loads(bytes(raw[len(MAGIC) :]))
    name = str(record.get("name"))
    try:
        entry = _named(name)
    except FSEngineError as exc:
        raise FSEngineError(f"{name} cannot be found: {exc}") from exc
    if entry is None:
        raise FSEngineError(f"{name} is no longer in the data directory")
    path = data_dir() / name
    if (entry.size, entry.mtime_ns) != (record.get("size"), record.get("mtime_ns")):
        raise FSEngineError(
            f"{name} in the data directory has changed since it was opened; open it again",
        )
    return path, entry


def source(raw: bytes):
    """What to read for ``raw``: the path a :func:`reference` names (checked by
    :func:`referenced`), else the bytes themselves."""
    return referenced(raw)[0] if is_reference(raw) else raw


def backed_option(entry: DataFile) -> bool | None:
    """``load_dataset``'s ``backed`` for ``entry``: True for an AnnData file or Zarr store
    of :data:`BACKED_FROM_MB` or more, None (the size rule) for a smaller one, False for
    the other formats."""
    if not entry.is_anndata:
        return False
    try:
        limit = float(os.environ.get(BACKED_FROM_MB, DEFAULT_BACKED_FROM_MB))
    except ValueError:
        limit = DEFAULT_BACKED_FROM_MB
    return True if entry.size >= limit * 2**20 else None


def footprint_of(name: str, budget: int | None, layer: str | None = None) -> Footprint | None:
    """What opening the data directory's file ``name`` would take in memory
    (:func:`fsengine.io.footprint.footprint`, read as it would be: backed by
    :func:`backed_option`, the size rule measured against ``budget`` bytes; an AnnData
    file's ``layer``); None when it is not known (or the file cannot be read: opening it
    says why). Kept per file, size, time (and, for AnnData, budget and layer)."""
    try:
        path, entry = resolve(name)
    except FSEngineError:
        return None
    if not entry.is_anndata:
        budget = layer = None
    return _footprint(str(path), entry, budget, layer)


@lru_cache(maxsize=64)
def _footprint(
    path: str, entry: DataFile, budget: int | None, layer: str | None
) -> Footprint | None:
    try:
        return footprint(
            Path(path), entry.name, layer=layer, backed=backed_option(entry), budget=budget
        )
    except FSEngineError:
        return None
