"""fsengine.config: the process-wide settings, read where they act, and never a result."""

import re
import subprocess
import sys

import numpy as np
import pytest

import fsengine
from conftest import SAMPLE, SLOW_SECONDS
from fsengine import FSEngineError, config_context, get_config, load_dataset, run_selection
from fsengine._compute import budget
from fsengine._compute.parallel import available_cores, kernel_threads


def test_defaults_in_a_new_process_and_the_package_exports():
    """(The suite's fixture sets ``compiled``, so the defaults are read in a new process.)"""
    done = subprocess.run(
        [sys.executable, "-c", "import fsengine; print(fsengine.get_config())"],
        capture_output=True,
        text=True,
        check=True,
        timeout=SLOW_SECONDS,
    )
    assert done.stdout.strip() == "{'kernel_threads': None, 'compiled': None}"
    assert fsengine.set_config is fsengine.config.set_config


def test_a_context_sets_and_restores_also_after_an_error():
    before = get_config()
    with pytest.raises(RuntimeError), config_context(kernel_threads=1, compiled=False):
        assert get_config() == {"kernel_threads": 1, "compiled": False}
        assert kernel_threads() == 1
        assert not budget.use_compiled(10**12, "methods.online._roughset.kofsd._set_kernels")
        raise RuntimeError
    assert get_config() == before
    with config_context(kernel_threads=None):
        assert kernel_threads() == available_cores()


@pytest.mark.parametrize(
    "settings,fragment",
    [
        ({"kernel_threads": 0}, "kernel_threads must be a positive integer or None, got 0"),
        ({"kernel_threads": 1.5}, "got 1.5"),
        ({"kernel_threads": True}, "got True"),
        ({"compiled": "yes"}, "compiled must be True, False or None, got 'yes'"),
    ],
)
def test_bad_values_are_refused_and_change_nothing(settings, fragment):
    before = get_config()
    with pytest.raises(FSEngineError, match=re.escape(fragment)):
        fsengine.set_config(**settings)
    assert get_config() == before


def test_an_unknown_setting_is_a_type_error():
    with pytest.raises(TypeError, match="threads"):
        fsengine.set_config(threads=2)


def test_no_setting_changes_a_selection():
    ds = load_dataset(SAMPLE)
    selections = []
    for settings in (
        {},
        {"kernel_threads": 1},
        {"kernel_threads": 2, "compiled": True},
        {"compiled": False},
    ):
        with config_context(**settings):
            result = run_selection(ds, 2, "kofsd", k=5)
        selections.append((result.selection.features, np.asarray(result.selection.scores)))
    for features, scores in selections[1:]:
        assert features == selections[0][0]
        assert scores.tolist() == selections[0][1].tolist()
