"""The report's style sheet: the charts' font, ink and grid colours for the tables too (one
visual language), a page layout for print (A4, numbered pages, headings and captions kept with
what follows, figures never split) and, on a screen, wide tables that scroll sideways."""

from __future__ import annotations

from judge_app.reports.charts import GRID, INK, LOSS, WIN
from judge_app.reports.palette import SIGNIFICANCE_COLOURS

MUTED = "#57606a"
HEAD = "#f3f4f6"
BETTER, WORSE = SIGNIFICANCE_COLOURS["light"]["better"], SIGNIFICANCE_COLOURS["light"]["worse"]


def style_sheet(title: str) -> str:
    """The CSS of a report called ``title`` (named in each printed page's footer)."""
    footer = title.replace("\\", "\\\\").replace('"', '\\"')
    return f"""
@page {{ size: A4; margin: 16mm 18mm 18mm 18mm;
  @bottom-left {{ content: "{footer}"; font: 7.5pt 'DejaVu Sans', sans-serif; color: {MUTED}; }}
  @bottom-right {{ content: "page " counter(page) " of " counter(pages);
                   font: 7.5pt 'DejaVu Sans', sans-serif; color: {MUTED}; }} }}
html {{ font-family: 'DejaVu Sans', 'Segoe UI', 'Helvetica Neue', Arial, sans-serif;
  color: {INK}; font-size: 9pt; line-height: 1.35; }}
body {{ max-width: 62em; margin: 2em auto; padding: 0 1em; }}
h1 {{ font-size: 17pt; margin: 0 0 0.15em 0; }}
h2 {{ font-size: 12pt; margin: 1.5em 0 0.4em 0; padding-bottom: 0.15em;
  border-bottom: 1px solid {GRID}; }}
h1, h2, h3, .caption {{ break-after: avoid; page-break-after: avoid; }}
h2.page {{ break-before: page; }}
p {{ margin: 0.35em 0; orphans: 2; widows: 2; }}
.meta {{ color: {MUTED}; margin-bottom: 1em; }}
.answer {{ border: 1px solid {GRID}; border-left: 4px solid {INK}; padding: 0.5em 0.9em;
  margin: 0.6em 0 1em 0; break-inside: avoid; }}
.answer .verdict {{ font-size: 12pt; font-weight: bold; margin: 0.1em 0 0.3em 0; }}
.answer .verdict.better {{ color: {BETTER[1]}; }}
.finding {{ background: {HEAD}; padding: 0.45em 0.7em; }}
.caption {{ font-weight: bold; margin: 0.9em 0 0.25em 0; }}
.note {{ color: {MUTED}; font-size: 8pt; break-inside: avoid; break-before: avoid; }}
.table {{ margin: 0.4em 0 0.8em 0; }}
.wide {{ overflow-x: auto; max-width: 100%; }}
table {{ border-collapse: collapse; font-size: 8.5pt; font-variant-numeric: tabular-nums; }}
thead {{ display: table-header-group; }}
tr {{ break-inside: avoid; }}
th {{ background: {HEAD}; font-weight: bold; vertical-align: bottom; text-align: right; }}
th, td {{ padding: 2.5pt 5pt; border-bottom: 1px solid {GRID}; }}
td {{ white-space: nowrap; }}
th.key, td.key {{ text-align: left; }}
td.n {{ text-align: right; }}
tbody th {{ background: none; }}
.better {{ background: {BETTER[0]}; color: {BETTER[1]}; font-weight: bold; }}
.worse {{ background: {WORSE[0]}; color: {WORSE[1]}; font-weight: bold; }}
.up {{ color: {WIN}; }}
.down {{ color: {LOSS}; }}
.swatch {{ display: inline-block; width: 0.75em; height: 0.75em; margin-right: 0.4em;
  border-radius: 2px; vertical-align: -0.05em; }}
figure {{ margin: 0.6em 0 1em 0; break-inside: avoid; }}
figure img {{ width: 84%; height: auto; display: block; margin: 0 auto; }}
figcaption {{ color: {MUTED}; font-size: 8pt; width: 84%; margin: 0.2em auto 0 auto; }}
@media print {{ body {{ max-width: none; margin: 0; padding: 0; }} }}
"""
