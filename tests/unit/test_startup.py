"""Start-up: the command line loads no heavy library before it has work for it."""

import json
import subprocess
import sys

from conftest import ROOT, SLOW_SECONDS


def _json_from_new_interpreter(code: str):
    """What ``code``, run in a new interpreter, prints as JSON on its last line."""
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=SLOW_SECONDS,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _modules_after(code: str) -> list[str]:
    return _json_from_new_interpreter(
        f"{code}\nimport sys, json\n"
        "print(json.dumps([m for m in ('sklearn', 'scipy', 'pandas', 'streamlit', 'numba', "
        "'plotly', 'joblib') if m in sys.modules]))"
    )


def test_importing_the_library_and_the_cli_loads_no_heavy_library():
    assert (
        _modules_after(
            "import fsengine, fsengine.cli, fsengine.methods.online, fsengine.methods.runs"
        )
        == []
    )


def test_the_scikit_learn_selectors_import_from_the_package_and_fsengine_sklearn():
    """From fsengine.sklearn and the package; 0.1's paths (fsengine.methods.online,
    fsengine.methods.rankers), deprecated in 0.2, are gone."""
    loaded = _modules_after(
        "import fsengine.methods.online, fsengine.methods.rankers\n"
        "from fsengine import KOFSDSelector, RankerSelector, OnlineSelector, sklearn\n"
        "assert (KOFSDSelector, RankerSelector, OnlineSelector) == (\n"
        "    sklearn.KOFSDSelector, sklearn.RankerSelector, sklearn.OnlineSelector)\n"
        "assert not hasattr(fsengine.methods.online, 'KOFSDSelector')\n"
        "assert not hasattr(fsengine.methods.rankers, 'RankerSelector')"
    )
    assert "sklearn" in loaded


def test_a_kofsd_selection_on_a_small_file_loads_no_heavy_library(tmp_path):
    data = tmp_path / "small.csv"
    data.write_text(
        "g0,g1,g2,label\n"
        + "\n".join(f"{i % 3},{(i * 7) % 5},{i / 10},{int(i < 4)}" for i in range(12))
        + "\n"
    )
    loaded = _modules_after(
        "from fsengine.cli import main\n"
        f"assert main(['select', {str(data)!r}, '--minority', '1', '--k', '2',"
        f" '--out', {str(tmp_path / 'out.csv')!r}]) == 0"
    )
    # A small file: numba (0.4-0.6 s to load) stays out whichever path runs the kernels,
    # and so do pandas and scipy.
    assert loaded == []


def test_a_large_selection_loads_the_kernels_built_ahead_of_time_and_not_numba():
    """The kernels `make venv` built load as extension modules: neither numba nor LLVM is
    imported (0.4-0.6 s before any work), and only the families the run uses are loaded."""
    probe = (
        "import json, sys\nimport numpy as np\nfrom fsengine.methods.online import run_kofsd\n"
        "from fsengine._compute import kernels\n"
        "rng = np.random.default_rng(0)\n"
        "X, y = rng.standard_normal((300, 400)), np.arange(300) % 5 == 0\n"
        "X[:, :8] += 2.0 * y[:, None]\n"  # a few informative genes: set tests
        "run_kofsd(X, y)\n"
        "print(json.dumps([kernels.loaded(), [m for m in ('numba', 'llvmlite') "
        "if m in sys.modules]]))"
    )
    loaded, heavy = _json_from_new_interpreter(probe)
    assert heavy == []
    assert loaded == {
        "_compute._order_kernels": "ahead-of-time",  # the columns' stable orders
        "methods.online._column_kernels": "ahead-of-time",
        "methods.online._roughset.kofsd._knn_kernels": "ahead-of-time",
        "methods.online._roughset.kofsd._set_kernels": "ahead-of-time",
    }
