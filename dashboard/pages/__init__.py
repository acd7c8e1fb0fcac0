"""One declaration per page of the dashboard: its script, title and icon (read by app.py's
navigation) and what it keeps (read by the workspace: the store of its remembered widget
values, and the run kinds whose results it shows, by their result store).

Nothing here imports Streamlit: the declarations are plain data. The pages themselves are
this package's modules (``dashboard/pages/compare.py``, ...): Streamlit runs each as its
page script, whose last lines call its ``render()``; imported (a test), a page module only
defines its ``render()`` and helpers, and this package imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Page:
    """A page of the dashboard.

    Attributes
    ----------
    name : str
        Short name ("compare").
    script : str
        Its script, relative to app.py ("dashboard/pages/compare.py").
    title : str
        Its title in the navigation.
    icon : str
        Its icon (Streamlit's ``:material/...:`` form).
    widgets : str or None
        The session key of its remembered widget values, kept in the workspace.
    results : dict
        Run kind -> the session key of its results, put back from the workspace on a
        reload (the newest of each kind).
    default : bool
        Whether it is the page the dashboard opens on.
    per_task : bool
        Whether its widget values belong to the current task (data set, reading, minority
        class): each task keeps its own, and another task starts from the page's
        defaults (:func:`dashboard.session.widget_store`). False for a page over several
        data sets.
    shared : tuple of str
        Widget keys kept across tasks: preferences, not settings of a run (the stream's
        speed).
    """

    name: str
    script: str
    title: str
    icon: str
    widgets: str | None = None
    results: dict[str, str] = field(default_factory=dict)
    default: bool = False
    per_task: bool = True
    shared: tuple[str, ...] = ()


#: Every page, in the navigation's order; the first is the default.
PAGES = (
    Page("data", "dashboard/pages/data.py", "Data", ":material/table:", default=True),
    Page(
        "stream",
        "dashboard/pages/stream.py",
        "Stream",
        ":material/play_circle:",
        "stream_widgets",
        shared=("stream_speed",),
    ),
    Page(
        "compare",
        "dashboard/pages/compare.py",
        "Compare",
        ":material/compare_arrows:",
        "compare_widgets",
        {"compare": "compare_results"},
    ),
    Page(
        "sweep",
        "dashboard/pages/sweep.py",
        "Sweep",
        ":material/tune:",
        "sweep_widgets",
        {
            "sweep-k": "sweep_k_results",
            "sweep-values": "sweep_values_results",
            "sweep-top": "sweep_top_results",
        },
    ),
    Page(
        "benchmark",
        "dashboard/pages/benchmark.py",
        "Benchmark",
        ":material/leaderboard:",
        "benchmark_widgets",
        {"benchmark": "benchmark_results"},
        per_task=False,
    ),
    Page(
        "genes",
        "dashboard/pages/genes.py",
        "Genes",
        ":material/genetics:",
        "genes_widgets",
        {"stability": "stability_results"},
    ),
    Page(
        "export",
        "dashboard/pages/export.py",
        "Export",
        ":material/download:",
        "export_widgets",
        shared=("export_format",),
    ),
    Page("history", "dashboard/pages/history.py", "History", ":material/history:"),
)
#: The pages by name.
BY_NAME = {page.name: page for page in PAGES}
#: The stores of remembered widget values that the workspace keeps.
WIDGET_STORES = tuple(page.widgets for page in PAGES if page.widgets)
#: The stores of widget values kept per task -> their keys kept across tasks.
TASK_STORES = {page.widgets: page.shared for page in PAGES if page.widgets and page.per_task}
#: Run kind -> the result store it is put back into on a reload.
RESULT_KINDS = {kind: store for page in PAGES for kind, store in page.results.items()}
