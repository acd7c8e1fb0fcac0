"""Property tests of the loader: whatever the bytes, it returns a valid Dataset or raises
FSEngineError, never another exception; its streaming and whole-file readers agree."""

import io

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fsengine import Dataset, FSEngineError, load_dataset
from test_data_streaming import assert_same, outcome, whole_file

FUZZ = settings(max_examples=2000, deadline=2000, suppress_health_check=[HealthCheck.too_slow])

cells = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.integers(-(10**6), 10**6),
    st.text(alphabet='abc,;"\t 1.eE-+x\n', max_size=6),
    st.none(),
    st.booleans(),
)


def _check(result_or_error):
    try:
        ds = result_or_error()
    except FSEngineError as exc:
        assert str(exc)  # a message, not an empty error
        return
    assert isinstance(ds, Dataset)
    assert ds.X.shape == (len(ds.labels), len(ds.feature_names))
    assert np.isfinite(ds.X).all()
    assert len(ds.class_counts()) >= 2
    assert ds.label_column not in ds.feature_names


@FUZZ
@given(data=st.binary(max_size=400), name=st.sampled_from(["x.csv", "x.tsv", "x.parquet", "x.gz"]))
def test_random_bytes(data, name):
    _check(lambda: load_dataset(data, name=name))


@FUZZ
@given(data=st.binary(max_size=300))
def test_random_bytes_behind_a_valid_magic(data):
    for magic in (b"PAR1", b"\x1f\x8b", b"\xef\xbb\xbf", b"\xff\xfe"):
        _check(lambda: load_dataset(magic + data, name="x.csv"))


@FUZZ
@given(
    rows=st.integers(0, 6),
    cols=st.integers(1, 4),
    data=st.data(),
    transpose=st.booleans(),
    fmt=st.sampled_from(["csv", "tsv", "parquet"]),
)
def test_random_small_tables(rows, cols, data, transpose, fmt):
    columns = data.draw(st.lists(st.text(min_size=0, max_size=4), min_size=cols, max_size=cols))
    values = [[data.draw(cells) for _ in range(cols)] for _ in range(rows)]
    frame = pd.DataFrame(values, columns=columns, dtype=object)
    if fmt == "parquet":
        buffer = io.BytesIO()
        try:
            frame.astype(str).to_parquet(buffer)
        except (ValueError, TypeError):  # pandas refuses e.g. duplicate names
            return
        raw = buffer.getvalue()
    else:
        raw = frame.to_csv(index=False, sep="," if fmt == "csv" else "\t").encode()
    _check(lambda: load_dataset(raw, name=f"x.{fmt}", transpose=transpose))
    # The streaming reader and the whole-file reader agree on every table.
    assert_same(
        outcome(raw, name=f"x.{fmt}", transpose=transpose),
        whole_file(raw, name=f"x.{fmt}", transpose=transpose),
    )
