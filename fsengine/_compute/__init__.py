"""The bottom layer of the computation: compiled kernels and when they run.

* :mod:`.kernels`: kernel families built ahead of time for this machine (numba's pycc)
  into a cache, loaded in about a millisecond, or run just in time by numba;
* :mod:`.signatures`: the declared argument types, checked on every call;
* :mod:`.budget`: numpy or compiled, for a process whose kernels are not built;
* :mod:`.jit` and :mod:`._build` (import numba): the declaration of a kernel entry point,
  and the build of a family.

Nothing here imports numba or anything above it in fsengine.
"""
