"""Shared test fixtures and paths; the hypothesis profile."""

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests explore new examples on every run; in CI (.ci/run sets
# HYPOTHESIS_PROFILE=ci) they run a fixed set, so that a result can be reproduced.
settings.register_profile("ci", derandomize=True, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "reference" / "kofsd_octave"
SAMPLE = ROOT / "sample_data" / "SRBCT.parquet"


@pytest.fixture(scope="session")
def srbct():
    """The bundled SRBCT data set (83 x 2308, class 2 = BL is the minority)."""
    from fsengine import load_dataset

    return load_dataset(SAMPLE)


@pytest.fixture(autouse=True)
def compiled_kernels():
    """Every test runs the compiled kernels unless it asks for the numpy paths (which the
    budget of fsengine.online._compiled would pick for small inputs in a fresh process):
    the same path whatever ran before. ``compiled_kernels(False)`` switches within a test."""
    from fsengine.online import _compiled

    _compiled.force(True)
    yield _compiled.force
    _compiled.force(None)
