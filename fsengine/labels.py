"""Class labels for the scikit-learn selectors: which class is the minority."""

from __future__ import annotations

import numpy as np

from fsengine.errors import FSEngineError


def one_versus_rest(y, minority=None) -> np.ndarray:
    """Binary labels (1 = minority, 0 = rest) from class labels ``y``.

    Parameters
    ----------
    y : array of labels
    minority : label, optional
        The class to select for. Default: the rarer class of a two-class ``y``
        (an error if ``y`` has more than two classes or two of the same size).

    Returns
    -------
    ndarray of int8
    """
    y = np.asarray(y)
    classes, counts = np.unique(y, return_counts=True)
    if minority is None:
        if len(classes) != 2:
            raise FSEngineError(f"y has {len(classes)} classes: set minority= to the class to "
                                "select for (one versus rest)")
        if counts[0] == counts[1]:
            raise FSEngineError("both classes have the same size: set minority= to say which "
                                "one to select for")
        minority = classes[np.argmin(counts)]
    elif minority not in set(classes.tolist()):
        raise FSEngineError(f"minority class {minority!r} is not in y")
    return (y == minority).astype(np.int8)
