"""fsengine dashboard: `streamlit run app.py` (or `make run`)."""

import streamlit as st

from dashboard import persistence, session
from fsengine.parallel import warm_up

st.set_page_config(page_title="fsengine", page_icon=":dna:", layout="wide")
warm_up(modules=("fsengine.evaluation",))  # Compare and Sweep run splits in workers

# One line per page; the first is the default.
PAGES = [
    st.Page("views/data.py", title="Data", icon=":material/table:", default=True),
    st.Page("views/stream.py", title="Stream", icon=":material/play_circle:"),
    st.Page("views/compare.py", title="Compare", icon=":material/compare_arrows:"),
    st.Page("views/sweep.py", title="Sweep", icon=":material/tune:"),
    st.Page("views/benchmark.py", title="Benchmark", icon=":material/leaderboard:"),
    st.Page("views/genes.py", title="Genes", icon=":material/genetics:"),
    st.Page("views/export.py", title="Export", icon=":material/download:"),
    st.Page("views/history.py", title="History", icon=":material/history:"),
]
navigation = st.navigation(PAGES)

persistence.begin()  # the workspace in the URL: data set, settings and results back
loaded = session.current()
with st.sidebar:
    ds = loaded.dataset
    st.caption("Data set")
    st.markdown(
        f"**{loaded.name}**  \n{ds.n_samples} samples x {ds.n_features} features  \n"
        f"minority class: **{session.class_text(st.session_state['minority'])}**"
    )

persistence.show_notices()
try:
    navigation.run()
finally:
    persistence.save()  # also after st.stop() and Stop
