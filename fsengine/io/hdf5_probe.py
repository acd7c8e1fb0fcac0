"""An HDF5 file from outside is first opened in a child process.

A damaged HDF5 file can crash the HDF5 library, not raise: one byte changed in an
attribute's datatype message ends the process with a segmentation fault inside
``h5py``'s attribute read (found by fuzzing .h5ad files, tests/unit/io/test_reader_fuzz.py).
On the dashboard that process is the server of every user. :func:`probe` therefore walks
the file's metadata in a child process first (every group, every attribute, every
dataset's type and shape, and the small datasets' values: what anndata reads besides the
matrix) and turns the child's death into a message; the file is read in the process only
once the child has read it whole. A file probed once is not probed again (its path, size
and modification time, or its bytes' hash, are remembered)."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from fsengine.errors import FSEngineError

__all__ = ["HDF5_MAGIC", "probe"]

#: HDF5's signature, the first bytes of an .h5ad file.
HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
#: Datasets up to this many bytes are read whole by the child (obs, var, uns: all but X).
SMALL_DATASET_BYTES = 2**24
#: Seconds the child may take: a file whose metadata takes longer is refused.
PROBE_SECONDS = 300

# The child: h5py only (no fsengine, no numpy work), the file from argv[1] or stdin ("-").
_CHILD = f"""
import io, sys
import h5py

source = io.BytesIO(sys.stdin.buffer.read()) if sys.argv[1] == "-" else sys.argv[1]

def visit(name, obj):
    for key in obj.attrs:
        obj.attrs[key]
    if isinstance(obj, h5py.Dataset):
        obj.shape, obj.dtype
        if obj.size * obj.dtype.itemsize <= {SMALL_DATASET_BYTES}:
            obj[()]

try:
    with h5py.File(source, "r") as f:
        for key in f.attrs:
            f.attrs[key]
        f.visititems(visit)
except Exception:
    pass  # an error the reader raises as a message in the process too
"""

_probed: set = set()


def _in_memory(source) -> bool:
    return isinstance(source, (bytes, bytearray, memoryview))


def _identity(source) -> tuple:
    if _in_memory(source):
        return ("bytes", hashlib.blake2b(source, digest_size=16).hexdigest())
    stat = os.stat(source)
    return ("path", str(Path(source).resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino)


def probe(source, name: str) -> None:
    """Open the HDF5 file ``source`` in a child process and read its metadata; refuse it
    when that crashes the child (or takes over :data:`PROBE_SECONDS`).

    Parameters
    ----------
    source : path or bytes-like
        An HDF5 file (an .h5ad).
    name : str
        The file's name, for the message.

    Raises
    ------
    FSEngineError
        The HDF5 library crashed (or hung) reading the file: it is damaged.
    """
    identity = _identity(source)
    if identity in _probed:
        return
    from_memory = _in_memory(source)
    try:
        child = subprocess.run(
            [sys.executable, "-c", _CHILD, "-" if from_memory else os.fspath(source)],
            input=source if from_memory else None,
            capture_output=True,
            timeout=PROBE_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise FSEngineError(
            f"{name} is a damaged HDF5 file: reading its structure took over "
            f"{PROBE_SECONDS} s; save it again from its source"
        ) from None
    if child.returncode < 0:
        try:
            how = signal.Signals(-child.returncode).name
        except ValueError:
            how = f"signal {-child.returncode}"
        raise FSEngineError(
            f"{name} is a damaged HDF5 file: the HDF5 library crashed reading its "
            f"structure ({how}); save it again from its source"
        )
    _probed.add(identity)
