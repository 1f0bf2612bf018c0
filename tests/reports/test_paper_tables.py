"""``eval --format latex|markdown``: the exact text of a small fixed case; run names escaped
(LaTeX read back by pylatexenc, Markdown rendered by GitHub's cmark-gfm); the marks agree with
the comparison's verdict; the command line prints the core's table."""

from __future__ import annotations

import re
from contextlib import redirect_stdout
from html.parser import HTMLParser
from io import StringIO

import cmarkgfm
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DEMO
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from judge_app.cli import main as cli
from judge_app.commands.campaign import read_campaign
from judge_app.commands.evaluate import evaluate
from judge_app.evaluation.engine import compare_evaluations
from judge_app.evaluation.options import EvaluationOptions, EvaluationRequest, SignificanceOptions
from judge_app.metrics.ranking import Evaluation, Settings
from judge_app.writers.paper_tables import (
    BETTER,
    LATEX_ESCAPES,
    WORSE,
    latex_table,
    latex_text,
    markdown_table,
    markdown_text,
)

BASE = np.array([0.5, 0.6, 0.4, 0.7, 0.3, 0.5, 0.4, 0.6])
FIXED = {  # run: (NDCG@10 per query, P@10, RR, AP) on queries q1 … q8
    "base": (BASE, 0.3, 1.0, 0.25),
    "bm25_rm3 & co": (BASE + [0.1, 0.12, 0.08, 0.1, 0.11, 0.09, 0.1, 0.1], 0.4, 0.5, 0.35),
    "50%~{x}": (BASE - [0.1, 0.11, 0.09, 0.1, 0.1, 0.1, 0.11, 0.09], 0.3, 1.0, 0.2),
    "noise": (BASE + np.tile([0.02, -0.02], 4), 0.2, 0.75, 0.25),
}

FIXED_LATEX = r"""\begin{tabular}{lrrrr}
\toprule
Run & NDCG@10 & P@10 & MRR & MAP \\
\midrule
base & 0.5000 & 0.3000 & \textbf{1.0000} & 0.2500 \\
bm25\_rm3 \& co & \textbf{0.6000}\textsuperscript{\dag} & \textbf{0.4000} & 0.5000 & \textbf{0.3500} \\
50\%\textasciitilde{}\{x\} & 0.4000\textsuperscript{\ddag} & 0.3000 & \textbf{1.0000} & 0.2000 \\
noise & 0.5000 & 0.2000 & 0.7500 & 0.2500 \\
\bottomrule
\end{tabular}
\par\smallskip
{\footnotesize \textsuperscript{\dag} significantly better than base and \textsuperscript{\ddag} significantly worse than base on NDCG@10 by the t-test, Holm-adjusted (0.05 level).\par}
"""

FIXED_MARKDOWN = r"""| Run | NDCG@10 | P@10 | MRR | MAP |
|:---|---:|---:|---:|---:|
| base | 0.5000 | 0.3000 | **1.0000** | 0.2500 |
| bm25\_rm3 \& co | **0.6000**† | **0.4000** | 0.5000 | **0.3500** |
| 50\%\~\{x\} | 0.4000‡ | 0.3000 | **1.0000** | 0.2000 |
| noise | 0.5000 | 0.2000 | 0.7500 | 0.2500 |

† significantly better than base and ‡ significantly worse than base on NDCG@10 by the t-test, Holm-adjusted (0.05 level).
"""


def evaluation(ndcg: np.ndarray, p: float, rr: float, ap: float) -> Evaluation:
    n = len(ndcg)
    values = {
        "ndcg@10": np.asarray(ndcg, dtype=float),
        "p@10": np.full(n, p),
        "rr": np.full(n, rr),
        "ap": np.full(n, ap),
    }
    return Evaluation(Settings(), [f"q{i + 1}" for i in range(n)], values, np.zeros(n, bool))


def fixed_runs() -> dict[str, Evaluation]:
    return {name: evaluation(*columns) for name, columns in FIXED.items()}


def compared(runs: dict[str, Evaluation], **options: object):
    """The runs compared on NDCG@10 as ``eval --compare`` compares them by default."""
    return compare_evaluations(runs, "ndcg@10", SignificanceOptions(**options), "runs")


def marked(significance) -> dict[str, bool]:
    """Whether the verdict tells each run from the first."""
    first = significance.runs[0]
    return {
        pair.other: significance.significant(pair)
        for pair in significance.pairs
        if pair.baseline == first
    }


def test_fixed_case_exact_text():
    runs = fixed_runs()
    significance = compared(runs, tests=("t", "hsd"))
    assert list(marked(significance).values()) == [True, True, False]
    assert latex_table(runs, (10,), significance) == FIXED_LATEX
    assert markdown_table(runs, (10,), significance) == FIXED_MARKDOWN


def test_one_run_has_no_marks_nor_note_and_digits_round():
    runs = {"only": evaluation(BASE, 1 / 3, 1.0, 0.25)}
    assert latex_table(runs, (10,), None, digits=2).splitlines()[4] == (
        r"only & \textbf{0.50} & \textbf{0.33} & \textbf{1.00} & \textbf{0.25} \\"
    )
    assert markdown_table(runs, (10,), None, digits=2) == (
        "| Run | NDCG@10 | P@10 | MRR | MAP |\n|:---|---:|---:|---:|---:|\n"
        "| only | **0.50** | **0.33** | **1.00** | **0.25** |\n"
    )


def test_a_run_without_queries_shows_a_dash():
    empty = Evaluation(Settings(), [], {k: np.array([]) for k in ("ndcg@10", "p@10", "rr", "ap")},
                       np.zeros(0, bool))  # fmt: skip
    runs = {"a": evaluation(BASE, 0.3, 1.0, 0.25), "none": empty}
    assert "| none | – | – | – | – |" in markdown_table(runs, (10,), None)
    assert r"none & -- & -- & -- & -- \\" in latex_table(runs, (10,), None)


# escaping ------------------------------------------------------------------------------------

NAMES = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=30
).filter(lambda name: name.strip())


def latex_reader() -> LatexNodes2Text:
    """pylatexenc's reader, told the three text symbols it does not know (LaTeX2e's)."""
    context = get_default_latex_context_db()
    context.add_context_category(
        "judge_app",
        macros=[MacroTextSpec(name, text) for name, text in
                (("textless", "<"), ("textgreater", ">"), ("textbar", "|"))],
        prepend=True,
    )  # fmt: skip
    return LatexNodes2Text(latex_context=context)


READER = latex_reader()
ESCAPED = re.compile(
    "(?:" + "|".join(re.escape(escape) for escape in LATEX_ESCAPES.values())
    + "|[-`'!?,]\\{\\}" + "|[^" + re.escape("".join(LATEX_ESCAPES)) + "])*"
)  # fmt: skip
"""Escapes, ligature breaks and characters that are not special: nothing else."""


def words(text: str) -> str:
    return " ".join(text.split())


@settings(max_examples=300, deadline=None)
@given(st.one_of(NAMES, st.text(alphabet="-`'!?,{}\\^~<>|_&%#$ ab", min_size=1).filter(str.strip)))
def test_latex_escapes_every_special_character(name):
    escaped = latex_text(name)
    assert ESCAPED.fullmatch(escaped)  # nothing special is left bare
    # pylatexenc reads \textasciicircum as a modifier letter circumflex (U+02C6)
    read = READER.latex_to_text(escaped).replace("\u02c6", "^")
    assert words(read) == words(name.replace("\u02c6", "^"))


class Cells(HTMLParser):
    """The text of each cell of an HTML table, row by row."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def rendered_cells(markdown: str) -> list[list[str]]:
    parser = Cells()
    parser.feed(cmarkgfm.github_flavored_markdown_to_html(markdown))
    return parser.rows


@settings(max_examples=300, deadline=None)
@given(NAMES)
def test_markdown_cells_render_the_name(name):
    table = f"| Run | x |\n|:---|---:|\n| {markdown_text(name)} | 1 |\n"
    rows = rendered_cells(table)
    assert len(rows) == 2 and len(rows[1]) == 2
    assert words(rows[1][0]) == words(name)


@settings(max_examples=40, deadline=None)
@given(st.lists(NAMES, min_size=2, max_size=4, unique_by=words))
def test_tables_of_any_run_names_render_one_row_each(names):
    noise = np.random.default_rng(len(names)).normal(0, 0.05, (len(names), len(BASE)))
    runs = {name: evaluation(BASE + noise[i], 0.3, 1.0, 0.25) for i, name in enumerate(names)}
    significance = compared(runs, permutations=200)
    rows = rendered_cells(markdown_table(runs, (10,), significance))
    assert [words(row[0]) for row in rows[1:]] == [words(name) for name in names]
    assert READER.latex_to_text(latex_table(runs, (10,), significance)).count("\n") >= len(names)


# marks ---------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    runs=st.integers(2, 4),
    queries=st.integers(2, 25),
    shift=st.floats(-0.3, 0.3),
    seed=st.integers(0, 2**32 - 1),
)
def test_marks_agree_with_the_comparisons_significance(runs, queries, shift, seed):
    rng = np.random.default_rng(seed)
    base = rng.random(queries)
    scored = {"r0": evaluation(base, 0.3, 1.0, 0.25)}
    for i in range(1, runs):
        noisy = np.clip(base + i * shift + rng.normal(0, 0.1, queries), 0, 1)
        scored[f"r{i}"] = evaluation(noisy, 0.3, 1.0, 0.25)
    significance = compared(scored, permutations=500, seed=seed)
    cells = {row[0]: row[1] for row in rendered_cells(markdown_table(scored, (10,), significance))}
    latex = latex_table(scored, (10,), significance)
    for other, significant in marked(significance).items():
        cell = cells[other]
        line = next(row for row in latex.splitlines() if row.startswith(other + " &"))
        ndcg_cell = line.split(" & ")[1]
        if not significant:
            assert BETTER not in cell and WORSE not in cell and r"\dag" not in ndcg_cell
            continue
        higher = scored[other].means()["ndcg@10"] > base.mean()
        assert cell.endswith(BETTER if higher else WORSE)
        assert ndcg_cell.endswith(
            r"\textsuperscript{\dag}" if higher else r"\textsuperscript{\ddag}"
        )
    assert BETTER not in cells["r0"] and WORSE not in cells["r0"]


# the command line ----------------------------------------------------------------------------


def printed(*args: str) -> str:
    out = StringIO()
    with redirect_stdout(out):
        assert cli(list(args)) == 0
    return out.getvalue()


@pytest.mark.parametrize("output", ["latex", "markdown"])
def test_eval_db_prints_the_cores_table(demo, output):
    options = EvaluationOptions(ks=(5, 10))
    request = EvaluationRequest(options, SignificanceOptions.following(options))
    result = evaluate(request, read_campaign(str(demo), queries=False))
    typeset = latex_table if output == "latex" else markdown_table
    expected = typeset(result.evaluations, (5, 10), result.significance, digits=3)
    text = printed("eval", "--db", str(demo), "--k", "5,10", "--format", output, "--digits", "3")
    assert text == expected
    assert list(marked(result.significance).values()) == [True]  # neural at NDCG@5: a mark
    assert (r"\textsuperscript{\dag}" if output == "latex" else BETTER) in text


def test_eval_files_compare_for_the_marks_without_being_asked():
    """Two run files: the table compares them (as --compare would) for its marks."""
    text = printed("eval", "--qrels", str(DEMO / "judgments.csv"), "--run-file",
                   str(DEMO / "runs" / "bm25.txt"), "--run-file", str(DEMO / "runs" / "neural.csv"),
                   "--format", "markdown", "--k", "5")  # fmt: skip
    rows = rendered_cells(text)
    assert [row[:2] for row in rows] == [["Run", "NDCG@5"], ["bm25", "0.7513"],
                                        ["neural", "0.8870" + BETTER]]  # fmt: skip
    assert "significantly better than bm25 on NDCG@5 by the randomized Tukey HSD" in text
