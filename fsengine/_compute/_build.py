"""Compile one kernel family ahead of time: ``python -m fsengine._compute._build MODULE STEM DIR``.

Run by :func:`fsengine._compute.kernels.compile_kernels` in a process of its own (it imports
numba and LLVM, and adjusts two settings of numba's pycc for this process only). Writes
``DIR/STEM<extension suffix>``, an extension module that exports every signature of every
entry point of ``MODULE`` (see :mod:`fsengine._compute.jit`) as ``<name>__<i>``, then
``DIR/STEM.json``, its manifest; both appear at once (written aside, then renamed), the
manifest last, so a reader never sees half a build.

numba's pycc (pending deprecation since numba 0.57, still shipped and working in the
pinned 0.68.1; the README says why it is used) compiles the same numba source the
just-in-time path runs, with the same LLVM, so both give the same numbers. Two of its
defaults are changed here:

* the exported functions release the GIL around the compiled call, as ``nogil=True``
  does for the just-in-time kernels (:func:`fsengine._compute.parallel.run_chunks` runs kernels
  on several threads), and each keeps the error model its ``kernel`` declaration gives;
* the code is generated for this machine's CPU with its exact features, as numba's
  just-in-time compiler does (pycc's default is a generic CPU: 10-25% slower here), so a
  build is only ever loaded on the machine kind it was built on (the cache key has the
  CPU's flags).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import sysconfig
import tempfile
import time
from pathlib import Path


def _configure_pycc() -> None:
    """Exports that release the GIL and keep their function's error model, and code for
    this CPU with its exact features."""
    import numba.pycc.compiler as pycc_compiler
    from numba.core.codegen import AOTCPUCodegen
    from numba.core.compiler import Flags

    class _FlagsWithoutGil(Flags):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    compile_extra = pycc_compiler.compile_extra

    def compile_with_error_model(typing_context, context, function, *args, **kwargs):
        flags = args[2].copy()
        flags.error_model = getattr(function, "kernel_error_model", "python")
        return compile_extra(
            typing_context, context, function, *args[:2], flags, *args[3:], **kwargs
        )

    pycc_compiler.Flags = _FlagsWithoutGil
    pycc_compiler.compile_extra = compile_with_error_model
    AOTCPUCodegen._customize_tm_features = lambda self: self._get_host_cpu_features()


def build(module_name: str, stem: str, directory: Path) -> dict:
    """Compile every entry point of ``module_name`` into ``directory/stem``.

    Parameters
    ----------
    module_name : str
        The kernel module (``fsengine.methods.online._roughset.kofsd._knn_kernels``).
    stem : str
        The extension module's name and the files' stem.
    directory : Path
        Where the files go (created if missing).

    Returns
    -------
    dict
        The manifest: the module, the entry points and their signatures, the CPU and
        feature string the code was generated for, numba's version and the seconds taken.
    """
    start = time.perf_counter()
    _configure_pycc()
    import llvmlite.binding as llvm
    import numba
    from numba.core.codegen import get_host_cpu_features
    from numba.pycc import CC

    from fsengine._compute.jit import entry_points

    module = importlib.import_module(module_name)
    entries = entry_points(module)
    if not entries:
        raise SystemExit(f"{module_name} declares no kernel entry point")
    directory.mkdir(parents=True, exist_ok=True)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    with tempfile.TemporaryDirectory(prefix=f".{stem}-", dir=directory) as aside:
        compiler = CC(stem)
        compiler.output_dir = aside
        compiler.target_cpu = "host"
        for name, (dispatcher, signatures) in entries.items():
            for i, signature in enumerate(signatures):
                compiler.export(f"{name}__{i}", signature)(dispatcher.py_func)
        compiler.compile()
        manifest = {
            "module": module_name,
            "entries": {name: list(signatures) for name, (_, signatures) in entries.items()},
            "cpu": llvm.get_host_cpu_name(),
            "cpu_features": get_host_cpu_features(),
            "numba": numba.__version__,
            "python": sys.version.split()[0],
            "seconds": round(time.perf_counter() - start, 2),
        }
        (Path(aside) / f"{stem}.json").write_text(json.dumps(manifest, indent=1) + "\n")
        os.replace(Path(aside) / f"{stem}{suffix}", directory / f"{stem}{suffix}")
        os.replace(Path(aside) / f"{stem}.json", directory / f"{stem}.json")
    return manifest


def main(argv: list[str]) -> int:
    """``MODULE STEM DIR``: build, print the seconds taken; 0 on success."""
    if len(argv) != 3:
        print("usage: python -m fsengine._compute._build MODULE STEM DIR", file=sys.stderr)
        return 2
    manifest = build(argv[0], argv[1], Path(argv[2]))
    print(f"{argv[0]}: {len(manifest['entries'])} entry points in {manifest['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
