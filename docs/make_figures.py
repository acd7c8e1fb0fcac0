"""Regenerate the K-sweep figures of docs/REPRODUCTION.md.

For SRBCT (class 2 = BL) and GLIOMA (class 2 = CO), one versus rest, K-OFSD is run for
K = 1..10 under the evaluation protocol (20 stratified 50/50 splits, seed 0, selection on
the training half; 1-NN and linear SVM G-mean on the test half), exactly as

    fsengine.evaluation.sweep_k(dataset, 2, range(1, 11), n_splits=20, seed=0)

and drawn with ``fsengine.pl.figures.k_sweep_figure``. Each figure is written as a
self-contained HTML file (plotly.js included) and screenshotted to PNG with Playwright
driving Debian's Chromium (/usr/bin/chromium).

Run from the repository root:

    .venv/bin/python docs/make_figures.py [--data-dir /work/shared/datasets]

Writes docs/figures/srbct-k-sweep.png and docs/figures/glioma-k-sweep.png (the HTML goes
to a temporary directory and is deleted). Also prints the summary rows behind each
figure.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fsengine import __version__, load_dataset  # noqa: E402
from fsengine.evaluation import sweep_k  # noqa: E402
from fsengine.pl.figures import k_sweep_figure  # noqa: E402

FIGURES = ROOT / "docs" / "figures"
DATASETS = (
    ("SRBCT", "srbct-k-sweep.png", "SRBCT, class BL (11 of 83) vs rest"),
    ("GLIOMA", "glioma-k-sweep.png", "GLIOMA, class CO (7 of 50) vs rest"),
)
WIDTH, HEIGHT = 1200, 420
CHROMIUM = "/usr/bin/chromium"


def compute(data_dir: Path, name: str):
    """The K sweep of one data set: Evaluation.summary(("k",)) rows."""
    dataset = load_dataset(data_dir / f"{name}.parquet")
    result = sweep_k(dataset, 2, range(1, 11), n_splits=20, seed=0)
    return result.summary(("k",))


def write_png(figures: list[tuple[object, Path]]) -> None:
    """Write each plotly figure to HTML and screenshot it with Chromium."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        for fig, png in figures:
            html = Path(tmp) / (png.stem + ".html")
            fig.write_html(html, include_plotlyjs=True, full_html=True,
                           config={"displayModeBar": False})
            page.goto(html.as_uri())
            page.wait_for_selector(".main-svg")
            page.wait_for_timeout(500)            # let plotly finish laying out the text
            page.screenshot(path=str(png), full_page=False)
            print(f"wrote {png.relative_to(ROOT)}")
        browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=Path("/work/shared/datasets"),
                        help="folder holding SRBCT.parquet and GLIOMA.parquet")
    args = parser.parse_args(argv)
    FIGURES.mkdir(parents=True, exist_ok=True)
    print(f"fsengine {__version__}")
    figures = []
    for name, png, title in DATASETS:
        summary = compute(args.data_dir, name)
        print(f"\n{name}: K, G-mean 1-NN, G-mean SVM, #features, selection time (s), mean +- sd over 20 splits")
        for r in summary:
            print(f"  K={r['k']:2d}  {r['gmean_1nn_mean']:.4f} +- {r['gmean_1nn_std']:.4f}  "
                  f"{r['gmean_svm_mean']:.4f} +- {r['gmean_svm_std']:.4f}  "
                  f"{r['n_features_mean']:.2f} +- {r['n_features_std']:.2f}  "
                  f"{r['seconds_mean']:.3f}")
        fig = k_sweep_figure(summary, f"K-OFSD K sweep: {title}; 20 stratified 50/50 splits, seed 0")
        fig.update_layout(width=WIDTH, height=HEIGHT)
        figures.append((fig, FIGURES / png))
    write_png(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
