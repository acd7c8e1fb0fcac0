"""fsengine: feature selection for high-dimensional, class-imbalanced data.

The library never imports Streamlit; the dashboard (app.py) is a thin layer over it.
"""

from fsengine.config import config_context, get_config, set_config
from fsengine.data import Dataset, load_dataset
from fsengine.errors import FSEngineError
from fsengine.methods import METHODS, get_method
from fsengine.online import CIEOSFS, KOFSD, OFSFPD, Selection, run_kofsd
from fsengine.runs import RunResult, run_selection
from fsengine.version import __version__

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
    "config_context",
    "get_config",
    "set_config",
    "get_method",
    "load_dataset",
    "run_kofsd",
    "run_selection",
]


def __getattr__(name):
    """The scikit-learn selectors (:mod:`fsengine.sklearn`) are imported on first use
    (scikit-learn loads in about 1 s)."""
    if name in ("KOFSDSelector", "OnlineSelector", "RankerSelector"):
        from fsengine import sklearn

        return getattr(sklearn, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
