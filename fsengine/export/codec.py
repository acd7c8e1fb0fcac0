"""The one JSON codec: run records, results, reports, study records and the workspace.

:func:`to_json` turns a value into JSON types in one of two modes:

- **strict** (the workspace store, the study journal): NaN and infinities stay floats
  (``json`` writes ``NaN``), and an object the codec does not know raises ``TypeError``
  naming where it is, so nothing is saved that cannot be read back.
- **lenient** (reports and exported parameters, read by people and by other tools): NaN
  and infinities become ``"nan"``, ``"inf"``, ``"-inf"`` (valid JSON everywhere), and
  unknown objects (paths, dates) become their text.

In both modes numpy scalars and arrays become Python numbers and lists, tuples become
lists, sets become lists sorted by their text, and mapping keys become strings by
``json.dumps``'s rule (1 -> "1", True -> "true", None -> "null"). A result type with a
``json_tag`` and ``to_dict()`` is written as ``{"__<tag>__": to_dict()}``, and
:func:`from_json` turns such a mapping back with the type's ``from_dict``.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

__all__ = ["dumps", "from_json", "to_json"]


def to_json(value: Any, *, strict: bool = True, where: str = "value") -> Any:
    """``value`` as JSON types (dict, list, str, int, float, bool, None).

    Parameters
    ----------
    value : object
        JSON types, numpy scalars and arrays, tuples, sets, mappings with str or number
        keys, and result types (with ``json_tag`` and ``to_dict``).
    strict : bool, default True
        Strict: non-finite floats kept, unknown objects raise. Lenient: non-finite
        floats and unknown objects as text.
    where : str, default "value"
        The name of ``value`` in error messages ("state": ``state['k'][1] is a ...``).

    Returns
    -------
    object

    Raises
    ------
    TypeError
        Strict mode: an object of another type, or a key that is not a str or a number;
        the message names where it is (``value['params'][2]``).
    """
    return _to_json(value, strict, where)


def _to_json(value: Any, strict: bool, where: str) -> Any:
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, np.generic):  # np.float32, np.int64, np.bool_, np.str_, ...
        return _to_json(value.item(), strict, where)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        return number if strict or math.isfinite(number) else str(number)
    if isinstance(value, Mapping):
        return {
            _key(k, strict, where): _to_json(v, strict, f"{where}[{k!r}]") for k, v in value.items()
        }
    if isinstance(value, (list, tuple, range, np.ndarray)):
        items = value.tolist() if isinstance(value, np.ndarray) else value
        return [_to_json(v, strict, f"{where}[{i}]") for i, v in enumerate(items)]
    if isinstance(value, (set, frozenset)):
        return sorted((_to_json(v, strict, where) for v in value), key=str)
    tag = getattr(type(value), "json_tag", None)
    if tag is not None and hasattr(value, "to_dict"):
        return {f"__{tag}__": _to_json(value.to_dict(), strict, where)}
    if not strict:
        if hasattr(value, "tolist"):  # pandas' array-likes
            return _to_json(value.tolist(), strict, where)
        return str(value)
    raise TypeError(
        f"{where} is a {type(value).__name__}, which cannot be saved as JSON; "
        "convert it to a dict, list or number first"
    )


def _key(key: Any, strict: bool, where: str) -> str:
    if isinstance(key, np.generic):
        key = key.item()
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)
    if not strict:
        return str(key)
    raise TypeError(f"{where} has a key of type {type(key).__name__}; keys must be str or numbers")


def dumps(value: Any, *, strict: bool = True, where: str = "value", **options) -> str:
    """``json.dumps(to_json(value, strict=strict, where=where), **options)``; lenient
    output is valid JSON for every reader (it holds no NaN)."""
    return json.dumps(to_json(value, strict=strict, where=where), allow_nan=strict, **options)


def from_json(data: Any, types: Iterable[type] = ()) -> Any:
    """``data`` (parsed JSON) with the tagged results of ``types`` turned back into objects.

    Parameters
    ----------
    data : object
        What :func:`to_json` gave, after a JSON round trip.
    types : iterable of type
        Result types with ``json_tag`` and a ``from_dict`` class method.

    Returns
    -------
    object
        Lists stay lists (tuples are not restored, except by a type's ``from_dict``).
    """
    tags = {f"__{t.json_tag}__": t for t in types}
    return _from_json(data, tags)


def _from_json(data: Any, tags: dict[str, type]) -> Any:
    if isinstance(data, dict):
        if len(data) == 1:
            [(key, inner)] = data.items()
            if key in tags:
                return tags[key].from_dict(inner)
        return {k: _from_json(v, tags) for k, v in data.items()}
    if isinstance(data, list):
        return [_from_json(v, tags) for v in data]
    return data
