"""fsengine: feature selection for high-dimensional, class-imbalanced data.

The library never imports Streamlit; the dashboard (app.py) is a thin layer over it.
"""

__version__ = "0.1.0"

from fsengine.data import Dataset, load_dataset  # noqa: E402
from fsengine.errors import FSEngineError  # noqa: E402
from fsengine.methods import METHODS, get_method  # noqa: E402
from fsengine.online import CIEOSFS, KOFSD, OFSFPD, Selection, run_kofsd  # noqa: E402
from fsengine.runs import RunResult, run_selection  # noqa: E402

__all__ = [
    "CIEOSFS",
    "Dataset",
    "FSEngineError",
    "KOFSD",
    "KOFSDSelector",
    "METHODS",
    "OFSFPD",
    "OnlineSelector",
    "RankerSelector",
    "RunResult",
    "Selection",
    "__version__",
    "get_method",
    "load_dataset",
    "run_kofsd",
    "run_selection",
]


def __getattr__(name):
    """The scikit-learn selectors are imported on first use (scikit-learn loads in about 1 s)."""
    if name in ("KOFSDSelector", "OnlineSelector"):
        from fsengine.online import _sklearn

        return getattr(_sklearn, name)
    if name == "RankerSelector":
        from fsengine.rankers._selector import RankerSelector

        return RankerSelector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
