"""Kernel signatures as numba writes them, read without numba: which arguments a compiled
kernel takes, and a check that a call passes exactly those.

A kernel compiled ahead of time (numba's pycc) does not check its arguments: an int8 array
where int64 is compiled, or a Fortran-ordered block where a C-ordered one is, would be read
as the wrong memory. So every call goes through :func:`checked`, which compares each array
argument's dtype, dimensions and layout with the declared signature (about a microsecond
a call) and raises ``TypeError`` naming the kernel and the argument otherwise.

The grammar is the part of numba's signature strings the kernels use:
``RETURN(ARG, ARG, ...)`` where an argument is a scalar (``f8``, ``i8``, ``b1`` or their
long names) or an array ``DTYPE[DIMS]``: ``[::1]`` and ``[:, ::1]`` are C-contiguous,
``[::1, :]`` Fortran-contiguous, ``[:]`` and ``[:, :]`` any layout.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: numba's names of the scalar types the kernels use, as numpy dtypes.
DTYPES = {
    "f8": np.float64,
    "float64": np.float64,
    "f4": np.float32,
    "float32": np.float32,
    "i8": np.int64,
    "int64": np.int64,
    "intp": np.intp,
    "i4": np.int32,
    "int32": np.int32,
    "i1": np.int8,
    "int8": np.int8,
    "u1": np.uint8,
    "uint8": np.uint8,
    "b1": np.bool_,
    "boolean": np.bool_,
}


@dataclass(frozen=True)
class ArrayArg:
    """An array argument: its dtype, number of dimensions and layout ('C', 'F' or 'A')."""

    dtype: np.dtype
    ndim: int
    layout: str

    def accepts(self, value) -> bool:
        """Whether ``value`` is an ndarray the compiled code reads correctly as this type."""
        if type(value) is not np.ndarray or value.dtype != self.dtype or value.ndim != self.ndim:
            return False
        if self.layout == "C":
            return value.flags.c_contiguous
        if self.layout == "F":
            return value.flags.f_contiguous
        return True

    def __str__(self) -> str:
        order = {"C": "C-contiguous", "F": "Fortran-contiguous", "A": "any layout"}
        return f"{self.dtype} array, {self.ndim}-D, {order[self.layout]}"


def _split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def _argument(text: str) -> ArrayArg | None:
    """The array type ``text`` declares, or None for a scalar."""
    if "[" not in text:
        if text not in DTYPES:
            raise ValueError(f"unknown scalar type {text!r} in a kernel signature")
        return None
    name, dims = text.split("[", 1)
    name = name.strip()
    if name not in DTYPES or not dims.endswith("]"):
        raise ValueError(f"cannot read the array type {text!r} of a kernel signature")
    dims = [d.strip() for d in dims[:-1].split(",")]
    if any(d not in (":", "::1") for d in dims):
        raise ValueError(f"cannot read the dimensions of {text!r} in a kernel signature")
    contiguous = [i for i, d in enumerate(dims) if d == "::1"]
    if not contiguous:
        layout = "A"
    elif contiguous == [len(dims) - 1]:
        layout = "C"
    elif contiguous == [0]:
        layout = "F"
    else:
        raise ValueError(f"{text!r}: only the first or the last dimension can be '::1'")
    return ArrayArg(np.dtype(DTYPES[name]), len(dims), layout)


def arguments(signature: str) -> list[ArrayArg | None]:
    """The arguments of a numba signature string, in order (None for a scalar).

    Parameters
    ----------
    signature : str
        ``RETURN(ARG, ...)``, e.g. ``"f8(f8[:, ::1], i8[::1], b1)"``.

    Returns
    -------
    list of ArrayArg or None
    """
    text = signature.strip()
    if not text.endswith(")"):
        raise ValueError(f"a kernel signature ends with its argument list: {signature!r}")
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        depth += text[i] == ")"
        depth -= text[i] == "("
        if depth == 0:
            return [_argument(a) for a in _split_top_level(text[i + 1 : -1])]
    raise ValueError(f"unbalanced parentheses in the kernel signature {signature!r}")


def _matches(arrays: Sequence[tuple[int, ArrayArg]], n_args: int, args: tuple) -> bool:
    if len(args) != n_args:
        return False
    for position, declared in arrays:
        if not declared.accepts(args[position]):
            return False
    return True


def _describe(value) -> str:
    if isinstance(value, np.ndarray):
        order = "C" if value.flags.c_contiguous else "F" if value.flags.f_contiguous else "A"
        return f"{value.dtype} array, {value.ndim}-D, layout {order}"
    return type(value).__name__


def _without_memmaps(args: tuple) -> tuple | None:
    """``args`` with each :class:`numpy.memmap` as a plain array of the same memory (a
    view, no copy), or None when none is one. joblib hands a worker process the large
    arrays of its task (over 1 MB: a sparse matrix's values, a dense matrix) as memmaps,
    which the compiled code reads as any array."""
    if not any(isinstance(a, np.memmap) for a in args):
        return None
    return tuple(a.view(np.ndarray) if isinstance(a, np.memmap) else a for a in args)


def checked(name: str, variants: Sequence[tuple[Callable, str]]) -> Callable:
    """A function that calls the first variant whose signature the arguments match.

    Parameters
    ----------
    name : str
        The kernel's name, for the error message.
    variants : sequence of (callable, str)
        Compiled functions and the signature each was compiled for.

    Returns
    -------
    callable
        Takes the kernel's positional arguments (a memmap as the array it maps,
        :func:`_without_memmaps`); raises ``TypeError`` when no variant's signature
        matches them (the first mismatched argument of the first variant named).
    """
    compiled = []
    for function, signature in variants:
        args = arguments(signature)
        arrays = tuple((i, a) for i, a in enumerate(args) if a is not None)
        compiled.append((function, arrays, len(args)))

    def mismatch(args: tuple) -> TypeError:
        _, arrays, n_args = compiled[0]
        if len(args) != n_args:
            return TypeError(f"kernel {name} takes {n_args} arguments, got {len(args)}")
        for position, declared in arrays:
            if not declared.accepts(args[position]):
                return TypeError(
                    f"kernel {name}, argument {position}: compiled for a {declared}, "
                    f"got a {_describe(args[position])}"
                )
        return TypeError(f"kernel {name}: no compiled signature matches the arguments")

    if len(compiled) == 1:
        function, arrays, n_args = compiled[0]

        def call(*args):
            if len(args) != n_args:
                raise mismatch(args)
            for position, declared in arrays:
                if not declared.accepts(args[position]):
                    plain = _without_memmaps(args)
                    if plain is None:
                        raise mismatch(args)
                    return call(*plain)
            return function(*args)

    else:

        def call(*args):
            for function, arrays, n_args in compiled:
                if _matches(arrays, n_args, args):
                    return function(*args)
            plain = _without_memmaps(args)
            if plain is None:
                raise mismatch(args)
            return call(*plain)

    call.__name__ = call.__qualname__ = name
    return call
