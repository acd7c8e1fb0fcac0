"""The one JSON codec (fsengine.export.codec): its two modes, by hand-written expected values,
and the round trip of every result type a page keeps."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from fsengine.data.dataset import load_dataset
from fsengine.evaluation import Evaluation
from fsengine.evaluation.stability import StabilityResult, order_stability
from fsengine.export.codec import dumps, from_json, to_json
from fsengine.methods.registry import RunResult
from fsengine.methods.runs import run_selection
from tests.conftest import SAMPLE

VALUE = {
    "int": np.int64(3),
    "float": np.float32(0.5),
    "bool": np.bool_(True),
    "nan": math.nan,
    "inf": -math.inf,
    "tuple": (1, (2, "a")),
    "array": np.array([[1, 2], [3, 4]], dtype=np.int8),
    "set": {"b", "a", "c"},
    2: "int key",
    None: "none key",
    True: "bool key",
}


def test_strict_keeps_non_finite_floats_and_converts_numpy():
    out = to_json(VALUE)
    assert out["int"] == 3 and type(out["int"]) is int
    assert out["float"] == 0.5 and type(out["float"]) is float
    assert out["bool"] is True
    assert math.isnan(out["nan"]) and out["inf"] == -math.inf
    assert out["tuple"] == [1, [2, "a"]]
    assert out["array"] == [[1, 2], [3, 4]]
    assert out["set"] == ["a", "b", "c"]
    # json.dumps's rule for keys
    assert out["2"] == "int key" and out["null"] == "none key" and out["true"] == "bool key"
    assert json.loads(dumps(VALUE))["inf"] == -math.inf  # written as -Infinity


def test_lenient_writes_text_for_what_json_cannot_hold():
    out = to_json({**VALUE, "path": Path("a/b.csv"), "object": range(2)}, strict=False)
    assert out["nan"] == "nan" and out["inf"] == "-inf"
    assert out["path"] == "a/b.csv" and out["object"] == [0, 1]
    text = dumps({"x": math.nan}, strict=False, sort_keys=True)
    assert text == '{"x": "nan"}'


def test_strict_refuses_unknown_objects_naming_where_they_are():
    with pytest.raises(TypeError, match=r"state\['a'\]\[1\] is a PosixPath"):
        to_json({"a": [0, Path("x")]}, where="state")
    with pytest.raises(TypeError, match="keys must be str or numbers"):
        to_json({(1, 2): 0})
    assert to_json({(1, 2): 0}, strict=False) == {"(1, 2)": 0}


@pytest.fixture(scope="module")
def srbct():
    return load_dataset(SAMPLE)


@pytest.mark.parametrize("method", ["kofsd", "saola", "ofs-density", "fisher"])
def test_a_run_comes_back_from_json_equal(srbct, method):
    run = run_selection(srbct, "2", method)
    back = from_json(json.loads(dumps({"result": run})), [RunResult])["result"]
    assert isinstance(back, RunResult)
    assert back.selection == run.selection and back.params == run.params
    assert back.warnings == run.warnings and back.seconds == run.seconds
    assert [type(e) for e in back.events] == [type(e) for e in run.events]
    assert repr(back.events) == repr(run.events)  # NaN fields compare by their text
    if run.scores is None:
        assert back.scores is None
    else:
        np.testing.assert_array_equal(back.scores, run.scores)


def test_evaluation_and_stability_come_back_equal(srbct):
    evaluation = Evaluation([{"method": "kofsd", "auc": 0.75, "split": 0}], {"splits": 1})
    stability = order_stability(srbct, "2", "kofsd", orders=2)
    text = dumps([evaluation, stability])
    assert '"__evaluation__"' in text and '"__stability__"' in text
    back = from_json(json.loads(text), [Evaluation, StabilityResult])
    assert back[0] == evaluation
    assert back[1].selections == stability.selections and back[1].seeds == stability.seeds
    # Untagged data and unknown tags are left as they are.
    assert from_json({"__other__": 1, "a": [1]}, [Evaluation]) == {"__other__": 1, "a": [1]}
