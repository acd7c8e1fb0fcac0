"""The compiled kernels: built once per machine ahead of time, loaded in about a millisecond.

A kernel family is a module of numba functions named ``_<something>_kernels.py`` anywhere
in the package (``methods/online/_roughset/kofsd/_knn_kernels.py``: K-OFSD's single-feature
neighbours, ...), whose entry points declare their signatures
(:func:`fsengine._compute.jit.kernel`). numba's just-in-time compiler would compile them in every
new process that lacks a warm cache (19-42 s before a first ``select``) and load them from its cache
in 0.4-0.6 s otherwise (importing numba and initialising LLVM), longer than most selections. So each
family is compiled ahead of time, for this machine's CPU, into an extension module in the cache
directory (:func:`cache_dir`); loading one imports neither numba nor LLVM.

When a family is needed (:func:`load`):

1. its extension module for the current sources is in the cache: it is loaded;
2. it is not (a fresh install, edited kernels): every missing family is compiled now, once,
   while this process says so on stderr (what and about how long), holding a lock on the
   cache so that other processes (workers of a parallel run) wait and then load it instead
   of compiling in parallel; ``make venv`` and ``fsengine kernels --compile`` do this ahead
   of time;
3. the build failed (no C compiler, say; recorded so it is not retried until the sources
   change) or ``FSENGINE_KERNELS=jit``: numba's just-in-time compiler runs the same source
   (its own cache in ``__pycache__``).

Every call is checked against the declared signatures (:mod:`.signatures`) in every mode.
A build is keyed by a digest of the family's sources (and the kernel modules and build
code they rely on), the Python version, numpy's major version and the CPU's model and
flags, so an edited kernel or another machine never loads a stale build.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import re
import subprocess
import sys
import sysconfig
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fsengine._compute.signatures import checked

#: The package's root directory (``fsengine/``) and its parent (what ``sys.path`` needs).
PACKAGE_DIR = Path(__file__).resolve().parent.parent
#: Bumped when the build's output changes meaning (its layout, names or manifest).
BUILD_FORMAT = 1
#: Files whose content every build depends on, besides the family's own sources.
_BUILD_SOURCES = ("_compute/_build.py", "_compute/jit.py")
#: On a 2-core machine, the seconds a cold build of every family took (said on stderr).
TYPICAL_BUILD_SECONDS = 60
_IMPORT = re.compile(r"^\s*from (fsengine(?:\.\w+)+) import|^\s*import (fsengine(?:\.\w+)+)", re.M)
_EXTENSION_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"


@dataclass
class Family:
    """One loaded kernel family: its checked entry points as attributes.

    Attributes
    ----------
    name : str
        The family (``methods.online._roughset.kofsd._knn_kernels``).
    mode : {"ahead-of-time", "just-in-time"}
        How its kernels were compiled.
    path : str
        The extension module, or the numba source module's file.
    """

    name: str
    mode: str
    path: str

    def __repr__(self) -> str:
        return f"<kernel family {self.name}: {self.mode}, {self.path}>"


_loaded: dict[str, Family] = {}
_lock = threading.RLock()
_digests: dict[str, str] = {}
_environment_key: str | None = None


@functools.cache
def families() -> tuple[str, ...]:
    """Every kernel family of the package (found by file name, nothing imported)."""
    return tuple(
        sorted(
            ".".join(path.relative_to(PACKAGE_DIR).with_suffix("").parts)
            for path in PACKAGE_DIR.rglob("_*_kernels.py")
        )
    )


def mode() -> str:
    """``FSENGINE_KERNELS``: "aot" (default: ahead of time, built when missing) or "jit"."""
    value = os.environ.get("FSENGINE_KERNELS", "aot").strip().lower() or "aot"
    if value not in ("aot", "jit"):
        raise ValueError(f"FSENGINE_KERNELS must be 'aot' or 'jit', got {value!r}")
    return value


def cache_dir() -> Path:
    """Where built kernels are kept: ``FSENGINE_CACHE_DIR``, else the user's cache directory
    (``$XDG_CACHE_HOME/fsengine/kernels``, by default ``~/.cache/fsengine/kernels``): never
    inside the installed package, which may be read-only."""
    explicit = os.environ.get("FSENGINE_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "fsengine" / "kernels"


def _source(module: str) -> Path:
    return PACKAGE_DIR.joinpath(*module.split(".")[1:]).with_suffix(".py")


def _cpu_key() -> str:
    """The CPU's model and flags (Linux: the first processor of /proc/cpuinfo)."""
    import platform

    fields = [platform.machine(), platform.processor()]
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                if not line.strip():
                    break
                key = line.split(":", 1)[0].strip()
                if key in ("vendor_id", "cpu family", "model", "model name", "flags", "Features"):
                    fields.append(line.strip())
    return "\n".join(fields)


def _environment() -> str:
    global _environment_key
    if _environment_key is None:
        _environment_key = "\n".join(
            [
                f"format {BUILD_FORMAT}",
                sys.implementation.cache_tag or "",
                _EXTENSION_SUFFIX,
                f"numpy {np.__version__.split('.')[0]}",
                _cpu_key(),
            ]
        )
    return _environment_key


def digest(name: str) -> str:
    """The key of a family's build: its sources, the fsengine modules they import
    (transitively), the build code, and this environment (Python, numpy, CPU)."""
    if name in _digests:
        return _digests[name]
    modules, pending = set(), [f"fsengine.{name}"]
    while pending:
        module = pending.pop()
        if module in modules:
            continue
        modules.add(module)
        path = _source(module)
        if not path.is_file():
            path = path.with_suffix("") / "__init__.py"
        if path.is_file():
            for match in _IMPORT.finditer(path.read_text(encoding="utf-8")):
                pending.append(match.group(1) or match.group(2))
    sha = hashlib.sha256(_environment().encode())
    files = sorted({_source(m) for m in modules} | {PACKAGE_DIR / s for s in _BUILD_SOURCES})
    for path in files:
        if path.is_file():
            sha.update(str(path.relative_to(PACKAGE_DIR)).encode())
            sha.update(path.read_bytes())
    _digests[name] = sha.hexdigest()[:24]
    return _digests[name]


def _stem(name: str) -> str:
    return f"_fsengine_{name.replace('.', '_').strip('_')}_{digest(name)}"


def _files(name: str) -> tuple[Path, Path]:
    """(extension module, manifest) of a family's current build."""
    stem = _stem(name)
    directory = cache_dir()
    return directory / f"{stem}{_EXTENSION_SUFFIX}", directory / f"{stem}.json"


def built(name: str) -> bool:
    """Whether the cache holds a build of the family for the current sources."""
    extension, manifest = _files(name)
    return manifest.is_file() and extension.is_file()


def _failure_marker() -> Path:
    key = hashlib.sha256("".join(digest(f) for f in families()).encode()).hexdigest()[:16]
    return cache_dir() / f"build-failed-{key}.txt"


def loaded() -> dict[str, str]:
    """The families this process has loaded, and how each was compiled."""
    return {name: family.mode for name, family in _loaded.items()}


def ready(name: str) -> bool:
    """Whether the family is loaded or loads at once (built ahead of time): cheap to use."""
    return name in _loaded or (mode() == "aot" and built(name))


def _load_built(name: str) -> Family | None:
    extension, manifest_path = _files(name)
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        return None
    stem = extension.name[: -len(_EXTENSION_SUFFIX)]
    loader = importlib.machinery.ExtensionFileLoader(stem, str(extension))
    spec = importlib.util.spec_from_file_location(stem, extension, loader=loader)
    try:
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except ImportError:
        return None
    family = Family(name, "ahead-of-time", str(extension))
    for entry, signatures in manifest["entries"].items():
        variants = [(getattr(module, f"{entry}__{i}"), s) for i, s in enumerate(signatures)]
        setattr(family, entry, checked(entry, variants))
    return family


def _load_jit(name: str) -> Family:
    from fsengine._compute.jit import entry_points

    module = importlib.import_module(f"fsengine.{name}")
    family = Family(name, "just-in-time", str(module.__file__))
    for entry, (dispatcher, signatures) in entry_points(module).items():
        setattr(family, entry, checked(entry, [(dispatcher, s) for s in signatures]))
    return family


def load(name: str) -> Family:
    """The kernels of family ``name`` (``methods.online._roughset.kofsd._knn_kernels``),
    compiled ahead of time when possible (building every missing family first, once), else just in
    time.

    Returns
    -------
    Family
        Its entry points as attributes, each checking its arguments' types.
    """
    family = _loaded.get(name)
    if family is not None:
        return family
    with _lock:
        if name in _loaded:
            return _loaded[name]
        if name not in families():
            raise ValueError(f"no kernel family {name!r}; the families: {families()}")
        family = None
        if mode() == "aot":
            family = _load_built(name)
            if family is None and not _failure_marker().is_file():
                with contextlib.suppress(RuntimeError, OSError):  # said on stderr
                    compile_kernels()
                family = _load_built(name)
        if family is None:
            family = _load_jit(name)
        _loaded[name] = family
        return family


@contextlib.contextmanager
def _build_lock(directory: Path):
    """An exclusive lock on the cache directory's builds (other processes wait here)."""
    import fcntl

    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / "build.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build_one(name: str) -> tuple[str, str | None]:
    """Build a family in a process of its own: (name, None) or (name, the error's last line)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PACKAGE_DIR.parent)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    done = subprocess.run(
        [sys.executable, "-m", "fsengine._compute._build", f"fsengine.{name}", _stem(name)]
        + [str(cache_dir())],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    if done.returncode == 0:
        return name, None
    lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
    return name, lines[-1] if lines else f"exit status {done.returncode}"


def _prune(directory: Path, keep: int = 3) -> None:
    """Remove all but the ``keep`` newest builds of each family (earlier sources)."""
    for name in families():
        prefix = f"_fsengine_{name.replace('.', '_').strip('_')}_"
        manifests = sorted(
            directory.glob(f"{prefix}*.json"), key=lambda p: p.stat().st_mtime, reverse=True
        )
        for old in manifests[keep:]:
            for path in (old, old.with_suffix("").with_name(old.stem + _EXTENSION_SUFFIX)):
                with contextlib.suppress(OSError):
                    path.unlink()


def compile_kernels(names=None, *, quiet: bool = False, jobs: int | None = None) -> list[str]:
    """Build every family (or ``names``) missing from the cache, once, on up to ``jobs``
    processes (default: the available cores), saying so on stderr unless ``quiet``.

    Other processes that need a family meanwhile wait for this build and load it.

    Returns
    -------
    list of str
        The families built now (empty when all were there).

    Raises
    ------
    RuntimeError
        If a family could not be built (the message names it and numba's last line); the
        failure is recorded, so that later processes use the just-in-time compiler at once
        until the sources change.
    """
    names = families() if names is None else list(names)
    directory = cache_dir()
    with _build_lock(directory):
        missing = [name for name in names if not built(name)]
        if not missing:
            return []
        # The longest builds first (the largest sources: the set tests take about as long
        # as all the others together), so that the others fill the other cores meanwhile.
        missing.sort(key=lambda name: _source(f"fsengine.{name}").stat().st_size, reverse=True)
        if jobs is None:
            try:
                jobs = len(os.sched_getaffinity(0))
            except AttributeError:
                jobs = os.cpu_count() or 1
        start = time.perf_counter()
        if not quiet:
            print(
                f"fsengine: compiling {len(missing)} kernel families for this machine, once "
                f"(about {TYPICAL_BUILD_SECONDS} s on 2 cores) into {directory}; later runs "
                "load them at once",
                file=sys.stderr,
                flush=True,
            )
        with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(missing)))) as pool:
            failed = [(n, err) for n, err in pool.map(_build_one, missing) if err]
        if failed:
            reason = "; ".join(f"{n}: {err}" for n, err in failed)
            _failure_marker().write_text(reason + "\n")
            if not quiet:
                print(
                    f"fsengine: could not compile the kernels ahead of time ({reason}); numba "
                    "compiles each one when first used instead",
                    file=sys.stderr,
                    flush=True,
                )
            raise RuntimeError(f"kernel build failed: {reason}")
        _prune(directory)
        if not quiet:
            print(
                f"fsengine: kernels compiled in {time.perf_counter() - start:.0f} s",
                file=sys.stderr,
                flush=True,
            )
        return missing


def status() -> list[dict]:
    """Per family: its name, whether it is built for the current sources, where, and the
    manifest's CPU, numba version and build seconds (when built)."""
    rows = []
    for name in families():
        extension, manifest = _files(name)
        row = {"family": name, "built": built(name), "path": str(extension)}
        if row["built"]:
            with contextlib.suppress(OSError, ValueError):
                info = json.loads(manifest.read_text())
                row.update(cpu=info["cpu"], numba=info["numba"], seconds=info["seconds"])
        rows.append(row)
    return rows
