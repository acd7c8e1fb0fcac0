"""Shared test fixtures and paths."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "reference" / "kofsd_octave"
SAMPLE = ROOT / "sample_data" / "SRBCT.parquet"


@pytest.fixture(scope="session")
def srbct():
    """The bundled SRBCT data set (83 x 2308, class 2 = BL is the minority)."""
    from fsengine import load_dataset

    return load_dataset(SAMPLE)
