"""A started selector's state as JSON data, and back: what a stopped stream needs to go on
from where it was, without streaming its features again.

:func:`encode_state` writes an object graph of plain values (None, bool, int, float, str),
lists, tuples, dicts, sets, numpy arrays and scalars, and instances of fsengine's own
classes (their attributes, ``__dict__`` and slots) as JSON types; an object met twice is
written once and referred to (``{"@": k}``), so shared and cyclic references come back
shared. Functions and other module-level objects of fsengine (a compiled kernel a selector
keeps) are written by name. A class's caches named in its ``snapshot_reset`` attribute are
written as the values given there (an empty cache). :func:`decode_state` reads it back:
classes and named objects are looked up in fsengine's modules only, instances are made
with ``object.__new__`` and their attributes set directly, so reading a state runs no code
but fsengine's imports.
Anything else (a file, a lock, another package's object) is refused with a TypeError naming
where it is.
"""

from __future__ import annotations

import base64
import enum
import importlib
from typing import Any

import numpy as np

from fsengine._moved import new_name

#: The class attribute naming caches a state leaves out: {attribute: the value written
#: instead} (a cache the object makes again when it needs it).
SNAPSHOT_RESET = "snapshot_reset"
#: The version of the format (a state of another version is refused). 2: the average
#: rule's set keeps its cards as ``PointCards`` (a state of 1 holds a bare array).
FORMAT = 2
_PACKAGE = "fsengine"


def encode_state(value: Any) -> dict:
    """``value`` (a selector, say) as JSON data: ``{"format": FORMAT, "value": ...}``.

    Raises
    ------
    TypeError
        For an object the format cannot hold (the message says where it is).
    """
    return {"format": FORMAT, "value": _Encoder().encode(value, "state")}


def decode_state(data: dict) -> Any:
    """The value of :func:`encode_state`'s data.

    Raises
    ------
    ValueError
        For data of another format, or naming something outside fsengine.
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("not a selector state of this version")
    return _Decoder().decode(data["value"])


def _name_of(obj: Any) -> str:
    module = getattr(obj, "__module__", None) or ""
    qualname = getattr(obj, "__qualname__", None) or ""
    if not (module == _PACKAGE or module.startswith(_PACKAGE + ".")) or "<" in qualname:
        raise TypeError
    return f"{module}:{qualname}"


def _resolve(name: str) -> Any:
    module, _, qualname = name.partition(":")
    if not (module == _PACKAGE or module.startswith(_PACKAGE + ".")) or not qualname:
        raise ValueError(f"{name!r} is not fsengine's")
    # a state stored before the selector families moved (0.2) names their old modules
    found: Any = importlib.import_module(new_name(module) or module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _slots(cls: type) -> list[str]:
    names = []
    for klass in cls.__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if slot not in ("__dict__", "__weakref__") and slot not in names:
                names.append(slot)
    return names


class _Encoder:
    def __init__(self) -> None:
        self.seen: dict[int, int] = {}
        self.keep: list[Any] = []  # the encoded objects stay alive: their ids stay theirs

    def _mark(self, value: Any) -> int | None:
        """The reference of an object met before (None the first time, then numbered)."""
        key = id(value)
        if key in self.seen:
            return self.seen[key]
        self.seen[key] = len(self.seen)
        self.keep.append(value)
        return None

    def encode(self, value: Any, where: str) -> Any:
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, enum.Enum):
            return {"e": _named(type(value), where), "v": value.name}
        if isinstance(value, int) and type(value) is int:
            return value
        if isinstance(value, float) and type(value) is float:
            return value
        if isinstance(value, np.generic):
            return {"n": value.dtype.str, "v": _b64(np.asarray(value).tobytes())}
        if isinstance(value, tuple) and type(value) is tuple:
            return {"t": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        ref = self._mark(value)
        if ref is not None:
            return {"@": ref}
        number = self.seen[id(value)]
        if isinstance(value, np.random.RandomState):
            return {"#": number, "rs": self.encode(value.get_state(legacy=True), where)}
        if isinstance(value, np.random.Generator):
            state = value.bit_generator.state
            if not hasattr(np.random, state["bit_generator"]):
                raise TypeError(f"{where} is a generator a state cannot hold")
            return {"#": number, "rg": self.encode(state, where)}
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                raise TypeError(f"{where} is an array of objects")
            root = value
            while isinstance(root.base, np.ndarray):
                root = root.base
            # A view shares its memory with what it views, which is written with it;
            # a small view of a large array (a column of a block of features) is copied.
            if root is not value and root.nbytes <= 4 * max(value.nbytes, 1):
                offset = value.__array_interface__["data"][0] - root.__array_interface__["data"][0]
                return {
                    "#": number,
                    "view": self.encode(root, f"{where}.base"),
                    "dtype": value.dtype.str,
                    "shape": list(value.shape),
                    "strides": list(value.strides),
                    "offset": offset,
                }
            value = value if root is value else value.copy(order="K")
            order = "F" if value.flags.f_contiguous and not value.flags.c_contiguous else "C"
            return {  # in its memory order: compiled kernels are typed by layout
                "#": number,
                "a": _b64(value.tobytes(order=order)),
                "dtype": value.dtype.str,
                "shape": list(value.shape),
                "order": order,
            }
        if type(value) is list:
            return {
                "#": number,
                "l": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)],
            }
        if type(value) is dict:
            return {
                "#": number,
                "d": [
                    [self.encode(k, f"{where} key"), self.encode(v, f"{where}[{k!r}]")]
                    for k, v in value.items()
                ],
            }
        if type(value) in (set, frozenset):
            items = [self.encode(v, f"{where} item") for v in value]
            return {"#": number, "s" if type(value) is set else "fs": items}
        if isinstance(value, type) or (callable(value) and _is_module_level(value)):
            return {"#": number, "r": _named(value, where)}
        cls = type(value)
        name = _named(cls, where)
        fields = {}
        for slot in _slots(cls):
            if hasattr(value, slot):
                fields[slot] = getattr(value, slot)
        fields.update(getattr(value, "__dict__", {}))
        fields.update((k, v) for k, v in getattr(cls, SNAPSHOT_RESET, {}).items() if k in fields)
        return {
            "#": number,
            "o": name,
            "f": [[k, self.encode(v, f"{where}.{k}")] for k, v in fields.items()],
        }


def _is_module_level(value: Any) -> bool:
    try:
        return _resolve(_name_of(value)) is value
    except (TypeError, ValueError, AttributeError, ImportError):
        return False


def _named(obj: Any, where: str) -> str:
    try:
        return _name_of(obj)
    except TypeError:
        raise TypeError(f"{where} is a {type(obj).__name__}, which a state cannot hold") from None


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


class _Decoder:
    def __init__(self) -> None:
        self.objects: dict[int, Any] = {}

    def decode(self, data: Any) -> Any:
        if data is None or isinstance(data, (bool, str, int, float)):
            return data
        if isinstance(data, list):
            raise ValueError("a bare list in a state")
        if "@" in data:
            return self.objects[data["@"]]
        if "t" in data:
            return tuple(self.decode(v) for v in data["t"])
        if "n" in data:
            return np.frombuffer(base64.b64decode(data["v"]), dtype=np.dtype(data["n"]))[0]
        if "e" in data:
            return _resolve(data["e"])[data["v"]]
        number = data["#"]
        if "a" in data:
            raw = base64.b64decode(data["a"])
            order = data.get("order", "C")
            array = np.frombuffer(raw, dtype=np.dtype(data["dtype"]))
            value = array.reshape(data["shape"], order=order).copy(order=order)  # writable
        elif "view" in data:
            root = self.decode(data["view"])
            value = np.ndarray(
                tuple(data["shape"]),
                dtype=np.dtype(data["dtype"]),
                buffer=root,
                offset=int(data["offset"]),
                strides=tuple(data["strides"]),
            )
        elif "rs" in data:
            value = np.random.RandomState()
            value.set_state(self.decode(data["rs"]))
        elif "rg" in data:
            state = self.decode(data["rg"])
            value = np.random.Generator(getattr(np.random, state["bit_generator"])())
            value.bit_generator.state = state
        elif "l" in data:
            value = self.objects[number] = []
            value.extend(self.decode(v) for v in data["l"])
        elif "d" in data:
            value = self.objects[number] = {}
            for k, v in data["d"]:
                value[self.decode(k)] = self.decode(v)
        elif "s" in data or "fs" in data:
            value = (set if "s" in data else frozenset)(
                self.decode(v) for v in data.get("s", data.get("fs"))
            )
        elif "r" in data:
            value = _resolve(data["r"])
        elif "o" in data:
            cls = _resolve(data["o"])
            if not isinstance(cls, type) or issubclass(cls, BaseException):
                raise ValueError(f"{data['o']!r} is not a class of a state")
            value = self.objects[number] = object.__new__(cls)
            for name, field in data["f"]:
                object.__setattr__(value, name, self.decode(field))
        else:
            raise ValueError("unknown entry in a state")
        self.objects[number] = value
        return value
