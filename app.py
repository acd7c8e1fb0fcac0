"""fsengine dashboard: `streamlit run app.py` (or `make run`)."""

import streamlit as st

from dashboard import persistence, reruns, session
from dashboard.memory import give_back_freed_memory, map_large_blocks
from dashboard.pages import PAGES
from dashboard.run_queue import one_blas_thread
from fsengine.evaluation import RUN_IMPORTS
from fsengine.evaluation.genes import VIEW_IMPORTS
from fsengine.methods import import_in_background, warm_up

#: Seconds between the first page and the import of what a first run needs (scikit-learn).
IMPORT_DELAY = 1.0
#: Seconds between the first page and the start of the worker processes' warm-up.
WARM_UP_DELAY = 5.0


def main() -> None:
    """The dashboard: the page set-up, the navigation, the workspace and the sidebar."""
    st.set_page_config(page_title="fsengine", page_icon=":dna:", layout="wide")
    one_blas_thread()  # the server shares the cores with the runs' workers
    map_large_blocks()  # freed large blocks go back to the system, not to a thread's heap

    # The pages as dashboard/pages.py declares them; the first is the default.
    navigation = st.navigation(
        [st.Page(p.script, title=p.title, icon=p.icon, default=p.default) for p in PAGES]
    )

    persistence.begin()  # the workspace in the URL: data set, settings and results back
    loaded = session.current()
    with st.sidebar:
        ds = loaded.dataset
        st.caption("Data set")
        st.markdown(
            f"**{loaded.name}**  \n{ds.n_samples} samples x {ds.n_features} features  \n"
            f"minority class: **{session.class_text(session.state.minority)}**"
        )

    persistence.show_notices()
    reruns.page_begins()
    try:
        navigation.run()
        reruns.page_ends()  # (not after a run ended by a click: its presses stay)
    finally:
        persistence.save()  # also after st.stop() and Stop
        give_back_freed_memory()  # what the run freed (a file read, a comparison)
        # The first page draws without scikit-learn and scipy; a stream's Start, Compare
        # and the Genes page's views need them: import them here while the user reads.
        # Compare and Sweep run splits in worker processes: start them a few seconds
        # after the first page is drawn, not beside it and the next moves (2 cores).
        import_in_background((*RUN_IMPORTS, *VIEW_IMPORTS), delay=IMPORT_DELAY)
        warm_up(modules=("fsengine.evaluation", *RUN_IMPORTS), delay=WARM_UP_DELAY)


# Streamlit runs this script as __main__. A worker process started from the server by
# spawning (Dask's LocalCluster, loky's warm-up and splits) imports it again as
# __mp_main__: there it must not run the app (a whole page per worker, in bare mode).
if __name__ == "__main__":
    main()
