"""The charts of the evaluation and agreement: each a matplotlib Figure, drawn the same in the
window (a Qt canvas) and in reports (SVG or PNG). No pyplot: no global state, no display."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import to_hex, to_rgba
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.ticker import MaxNLocator

from judge_app.reports.palette import GRADE_COLOURS

RUN_COLOURS = ("#2f6feb", "#d9822b", "#3b9960", "#8250df", "#b8473d", "#6b7280")
INK, GRID, FACE = "#1f2328", "#d0d4da", "#ffffff"
CELL_INK, CELL_WHITE = "#111418", "#fefefe"  # text on a heat-map cell, whatever the theme
LIGHT = {"ink": INK, "grid": GRID, "face": FACE}
"""The colours every figure is drawn with (a report's, a light window's); ``recolour``
turns them into a theme's."""
SIZE = (7.0, 3.4)  # inches: a page column at 100 dpi
WIN, LOSS = "#3b9960", "#b8473d"
MAX_BARS = 400  # per-query differences beyond this are drawn as areas
MAX_PERIOD_TICKS = 8  # labelled periods of a drift chart, at most


def _figure(title: str, size: tuple[float, float] = SIZE) -> tuple[Figure, Axes]:
    figure = Figure(figsize=size, dpi=100, layout="constrained")
    axes = figure.add_subplot()
    axes.set_title(title, loc="left", fontsize=11, color=INK, fontweight="bold")
    _style(axes)
    return figure, axes


def _style(axes: Axes) -> None:
    """Axes as every chart draws them: no top and right spines, a light grid behind."""
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    axes.tick_params(colors=INK, labelsize=9)
    axes.grid(axis="y", color=GRID, linewidth=0.6)
    axes.set_axisbelow(True)


def ndcg_by_k(
    curves: Mapping[str, tuple[Sequence[int], Sequence[float]]], chosen: int | None = None
) -> Figure:
    """Mean NDCG@k against k, one line per run: ``{run: (ks, means)}``; the ``chosen`` k (the
    one the numbers beside it are at) marked by a dashed line."""
    figure, axes = _figure("Mean NDCG@k against k")
    if chosen is not None:
        axes.axvline(chosen, color=INK, linewidth=1, linestyle="--", alpha=0.7)
        axes.annotate(
            f"k = {chosen}", (chosen, 0.04), xytext=(4, 0), textcoords="offset points",
            fontsize=9, color=INK, ha="left", va="bottom",
        )  # fmt: skip
    for index, (run, (ks, means)) in enumerate(curves.items()):
        colour = RUN_COLOURS[index % len(RUN_COLOURS)]
        axes.plot(ks, means, marker="o", markersize=3, color=colour, label=run, linewidth=1.6)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("k (cut-off)", fontsize=9)
    axes.set_ylabel("mean NDCG@k", fontsize=9)
    axes.set_ylim(0, 1.02)
    axes.legend(frameon=False, fontsize=9)
    return figure


def ndcg_distribution(values: Mapping[str, np.ndarray], measure: str) -> Figure:
    """How per-query values of ``measure`` are spread, one histogram outline per run."""
    figure, axes = _figure(f"Distribution of per-query {measure}")
    bins = np.linspace(0, 1, 11).tolist()  # ten equal bins over [0, 1]
    for index, (run, scores) in enumerate(values.items()):
        colour = RUN_COLOURS[index % len(RUN_COLOURS)]
        axes.hist(scores, bins=bins, histtype="step", linewidth=1.8, color=colour, label=run)
    axes.set_xlabel(measure, fontsize=9)
    axes.set_ylabel("queries", fontsize=9)
    axes.legend(frameon=False, fontsize=9)
    return figure


def query_differences(differences: np.ndarray, baseline: str, other: str, measure: str) -> Figure:
    """Per-query ``other − baseline`` of ``measure``, sorted: who wins where, and by how much."""
    figure, axes = _figure(f"{other} − {baseline}: {measure}")  # short: a narrow pane shows it
    ordered = np.sort(np.asarray(differences, dtype=float))[::-1]
    x = np.arange(len(ordered))
    if len(ordered) <= MAX_BARS:
        colours = np.where(ordered > 0, WIN, np.where(ordered < 0, LOSS, GRID))
        axes.bar(x, ordered, width=0.85, color=colours)
    else:  # one bar per query would take seconds to draw: two filled areas look the same
        for sign, colour in ((ordered > 0, WIN), (ordered < 0, LOSS)):
            axes.fill_between(x, ordered, where=sign, step="mid", color=colour, linewidth=0)
    axes.axhline(0, color=INK, linewidth=0.8)
    axes.set_xticks([])
    axes.set_xlabel(f"{len(ordered)} queries, largest gain for {other} first", fontsize=9)
    axes.set_ylabel("difference", fontsize=9)
    return figure


def grades_by_rater(counts: Mapping[str, Sequence[int]]) -> Figure:
    """Each rater's grades 0–5 as shares of what they graded: ``{rater: counts of 0..5}``."""
    height = max(1.6, 0.45 * len(counts) + 1.2)
    figure, axes = _figure("Grades given, by rater", (SIZE[0], height))
    axes.grid(axis="x", color=GRID, linewidth=0.6)
    axes.grid(axis="y", visible=False)
    raters = list(counts)[::-1]
    left = np.zeros(len(raters))
    for grade in range(6):
        shares = np.array([counts[r][grade] / max(sum(counts[r]), 1) for r in raters], dtype=float)
        axes.barh(raters, shares, left=left, color=GRADE_COLOURS[grade], label=str(grade))
        left += shares
    axes.set_xlim(0, 1)
    axes.set_xlabel("share of the rater's grades", fontsize=9)
    handles, labels = axes.get_legend_handles_labels()
    axes.legend(
        handles[::-1], labels[::-1], title="grade", frameon=False, fontsize=8, title_fontsize=8,
        loc="center left", bbox_to_anchor=(1.0, 0.5),
    )  # fmt: skip
    return figure


def kappa_heatmap(raters: Sequence[str], matrix: np.ndarray, label: str) -> Figure:
    """Rater × rater agreement (``matrix``, NaN where undefined) with each cell's value."""
    side = max(2.6, 0.55 * len(raters) + 1.6)
    figure, axes = _figure(label, (side + 1.2, side))
    axes.grid(visible=False)
    shown = np.ma.masked_invalid(np.asarray(matrix, dtype=float))
    image = axes.imshow(shown, vmin=-0.2, vmax=1.0, cmap="RdYlGn")
    axes.set_xticks(range(len(raters)), raters, rotation=30, ha="right")
    axes.set_yticks(range(len(raters)), raters)
    for row in range(len(raters)):
        for column in range(len(raters)):
            value = matrix[row][column]
            text = "–" if np.isnan(value) else f"{value:.2f}"
            dark = not np.isnan(value) and (value > 0.75 or value < 0.05)  # deep cell colours
            colour = CELL_WHITE if dark else (INK if np.isnan(value) else CELL_INK)
            axes.text(column, row, text, ha="center", va="center", fontsize=9, color=colour)
    figure.colorbar(image, ax=axes, shrink=0.8)
    return figure


def rater_drift(
    periods: Sequence[str],
    shares: Mapping[str, Sequence[float]],
    seconds: Sequence[float],
    title: str,
    period: str,
    min_seconds: float = 0.0,
) -> Figure:
    """A rater's figures period by period (NaN where undefined): above, ``shares`` (alpha,
    accuracy: one line each, on a scale to 1); below, the median seconds of a judgment, with
    the fastest credible judgment (``min_seconds``) dashed. ``period`` names the x axis."""
    figure = Figure(figsize=SIZE, dpi=100, layout="constrained")
    top, bottom = figure.subplots(2, 1, sharex=True, height_ratios=(2, 1))
    top.set_title(title, loc="left", fontsize=11, color=INK, fontweight="bold")
    for axes in (top, bottom):
        _style(axes)
    x = np.arange(len(periods))
    low = 0.0
    for index, (label, values) in enumerate(shares.items()):
        drawn = np.asarray(values, dtype=float)
        if np.isfinite(drawn).any():
            low = min(low, float(np.nanmin(drawn)))
        colour = RUN_COLOURS[index % len(RUN_COLOURS)]
        top.plot(x, drawn, marker="o", markersize=4, linewidth=1.6, color=colour, label=label)
    top.set_ylim(low - 0.05, 1.05)
    top.set_ylabel("α · share", fontsize=9)
    bars = bottom.bar(x, np.asarray(seconds, dtype=float), width=0.6, color=RUN_COLOURS[5])
    bottom.set_ylabel("s", fontsize=9)  # short: the axes may be short; the legend says more
    bottom.set_xlabel(period, fontsize=9)
    handles, labels = top.get_legend_handles_labels()
    handles.append(bars)
    labels.append("median seconds")
    if min_seconds > 0:
        line = bottom.axhline(min_seconds, color=LOSS, linewidth=1, linestyle="--")
        handles.append(line)
        labels.append(f"fastest credible, {min_seconds:g} s")
    figure.legend(
        handles,
        labels,
        frameon=False,
        fontsize=8,
        ncols=2,
        loc="outside lower left",
        handlelength=1.4,
        columnspacing=1.0,
    )  # fmt: skip: two a row, so that a narrow chart shows them whole
    figure.align_ylabels((top, bottom))
    if not len(periods):
        top.text(0.5, 0.5, "No judgments yet", transform=top.transAxes, ha="center",
                 va="center", fontsize=10, color=INK)  # fmt: skip
    step = max(1, -(-len(periods) // MAX_PERIOD_TICKS))
    ticks = x[::step]
    bottom.set_xticks(ticks, [periods[tick] for tick in ticks])
    bottom.tick_params(axis="x", labelsize=8)
    return figure


def recolour(figure: Figure, colours: Mapping[str, str], now: Mapping[str, str] = LIGHT) -> None:
    """Redraw ``figure``'s ink, grid and background, drawn in the colours ``now``, in
    ``colours`` (the same keys: ink, grid, face); the data's own colours stay."""
    changes = {to_hex(now[key]): colours[key] for key in now if to_hex(now[key]) != colours[key]}
    if not changes:
        return
    changes.setdefault("#000000", colours["ink"])  # matplotlib's own text (labels, legends)

    def swap(colour: object) -> object:
        try:
            rgba = to_rgba(colour)  # type: ignore[arg-type]
        except ValueError:
            return colour
        if rgba[3] == 0:  # "none": nothing drawn
            return colour
        return changes.get(to_hex(rgba), colour)

    figure.set_facecolor(swap(figure.get_facecolor()))  # type: ignore[arg-type]
    for artist in figure.findobj():
        if isinstance(artist, Text):
            artist.set_color(swap(artist.get_color()))  # type: ignore[arg-type]
        elif isinstance(artist, Line2D):
            artist.set_color(swap(artist.get_color()))  # type: ignore[arg-type]
            artist.set_markeredgecolor(swap(artist.get_markeredgecolor()))  # type: ignore[arg-type]
        elif isinstance(artist, Patch):
            artist.set_facecolor(swap(artist.get_facecolor()))  # type: ignore[arg-type]
            artist.set_edgecolor(swap(artist.get_edgecolor()))  # type: ignore[arg-type]
    for axes in figure.axes:
        axes.set_facecolor(swap(axes.get_facecolor()))  # type: ignore[arg-type]


def svg(figure: Figure) -> str:
    """The figure as an SVG document (text kept as paths: it looks the same everywhere),
    the same for the same figure: no date, element ids from a fixed salt."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "judge_app"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def png(figure: Figure, dpi: int = 150) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()
