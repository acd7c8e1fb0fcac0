"""fsengine: feature selection for high-dimensional, class-imbalanced data.

``import fsengine as fs`` gives the library's face: :func:`read` a data set (every
format), build a :class:`Task` (one class against the rest), :func:`select` features
(also on an AnnData object, written into it), :func:`evaluate` methods under the K-OFSD
paper's protocol, :func:`sweep` a parameter, list the methods with ``fs.methods()``
(:func:`list_methods`); every online selector class, and the scikit-learn selectors
(:mod:`fsengine.sklearn`). On AnnData objects, in scanpy's manner:
``fs.tl.select(adata, groupby=..., group=...)`` writes a selection into the object,
``fs.get.selection_df`` reads it back and ``fs.pl`` draws it.

The library never imports Streamlit; the dashboard (app.py) is a thin layer over it.
"""

from importlib import import_module as _import_module

from fsengine._moved import install as _install_moved_paths
from fsengine.api import list_methods, select, sweep
from fsengine.config import config_context, get_config, set_config
from fsengine.data.dataset import Dataset, load_dataset
from fsengine.data.dataset import load_dataset as read
from fsengine.data.task import Task
from fsengine.errors import FSEngineError
from fsengine.evaluation import Evaluation, evaluate
from fsengine.methods.online import (
    CIEOSFS,
    KOFSD,
    OFSA3M,
    OFSFPD,
    OSFS,
    OSFSET,
    OSSFSDD,
    RHOFS,
    SAOLA,
    SFSF,
    SFSFI,
    AlphaInvesting,
    FastOSFS,
    Grafting,
    GroupSAOLA,
    OFSDensity,
    Selection,
    run_kofsd,
)
from fsengine.methods.registry import METHODS, get_method
from fsengine.methods.runs import RunResult, run_selection
from fsengine.version import __version__

_install_moved_paths()  # the old paths of modules moved into packages, for one release

__all__ = [
    # data and tasks
    "Dataset",
    "Task",
    "load_dataset",
    "read",
    # running methods
    "METHODS",
    "RunResult",
    "Selection",
    "get_method",
    "list_methods",
    "run_kofsd",
    "run_selection",
    "select",
    # evaluation
    "Evaluation",
    "evaluate",
    "sweep",
    # the online selectors
    "AlphaInvesting",
    "CIEOSFS",
    "FastOSFS",
    "Grafting",
    "GroupSAOLA",
    "KOFSD",
    "OFSA3M",
    "OFSDensity",
    "OFSFPD",
    "OSFS",
    "OSFSET",
    "OSSFSDD",
    "RHOFS",
    "SAOLA",
    "SFSF",
    "SFSFI",
    # scikit-learn selectors (imported on first use)
    "KOFSDSelector",
    "OnlineSelector",
    "RankerSelector",
    # on AnnData objects, as scanpy's tl, get and pl (imported on first use)
    "get",
    "pl",
    "tl",
    # settings, errors, version
    "FSEngineError",
    "__version__",
    "config_context",
    "get_config",
    "set_config",
]


def __getattr__(name):
    """The scikit-learn selectors (:mod:`fsengine.sklearn`; scikit-learn loads in about
    1 s) and the modules ``tl``, ``get`` and ``pl`` (plotly and pandas) are imported on
    first use."""
    if name in ("KOFSDSelector", "OnlineSelector", "RankerSelector"):
        from fsengine import sklearn

        return getattr(sklearn, name)
    # online and rankers moved under fsengine.methods (0.2): they warn, and go in 0.3
    if name in ("tl", "get", "pl", "online", "rankers"):
        return _import_module(f"fsengine.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
