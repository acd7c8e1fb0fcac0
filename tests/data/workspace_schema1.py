"""How ``workspace_schema1.sqlite3`` was made: a workspace written by the dashboard at
fsengine commit dfb3c6d (store schema 1, whose result keys began with the task's content
digest), read by ``tests/app/test_workspace_schema1.py`` with today's code.

Run from a checkout of dfb3c6d (``git worktree add /tmp/wt dfb3c6d``)::

    cd /tmp/wt && FSENGINE_WORKSPACE_DIR=/tmp/v1store PYTHONPATH=/tmp/wt \\
        python /path/to/tests/data/workspace_schema1.py

It uploads a 30 x 12 CSV (8 "rare", 22 "common"), picks "rare" and runs Compare (Fisher
and S2N, 2 splits, seed 0), then prints the result's key, the results table and the
workspace id. The sample data set the first page stores was then deleted from the file
(``datasets``, ``dataset_names`` and ``state_refs`` rows of ``SRBCT.parquet``) and the file
checkpointed and vacuumed, to keep it at 76 KB; nothing else was changed.

Printed at dfb3c6d (the expected values of the test)::

    key ('8f3c860e7f9265db1c911fe09ff8fd2a75281de2684b2a84bdd6532deecea926', ('fisher', 's2n'),
         2, 0, None, (('kofsd', "{'k': 3, 'alpha': 0.5, 'card': 'imbalanced', ...}"),))
    method,G-mean 1-NN,G-mean SVM,F1 1-NN,AUC SVM,features,time (s),splits
    Fisher,0.5640760748177662,0.25,0.4,0.6363636363636365,1.0,0.003270639999755076,2
    S2N,0.5640760748177662,0.25,0.4,0.6363636363636365,1.0,0.0004278074993635528,2
    ws OeoKsAlLcR3mC2W_U2AvUN-INj3Q0HxY
"""

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

if __name__ == "__main__":
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        rng.normal(size=(30, 12)).round(2), columns=[f"gene{j}" for j in range(12)]
    )
    frame["diagnosis"] = ["rare"] * 8 + ["common"] * 22
    data = frame.to_csv(index=False).encode()

    at = AppTest.from_file("/tmp/wt/app.py", default_timeout=600).run()
    at.file_uploader(key="uploader").set_value(("cohort.csv", data, "text/csv")).run()
    at.session_state["minority"] = "rare"
    at.switch_page("dashboard/pages/compare.py").run()
    at.multiselect(key="compare_methods").set_value(["fisher", "s2n"])
    at.slider(key="compare_splits").set_value(2).run()
    next(b for b in at.button if b.label == "Run comparison").click().run()
    assert not at.exception and not at.error
    [(key, result)] = at.session_state["compare_results"].items()
    print("key", key)
    print(at.dataframe[0].value.to_csv(index=False))
    print("ws", at.query_params["ws"])
