"""trec_eval 10.0 in numpy: its measures of a TREC results file against a qrels file, every
query at once, with its output byte for byte (``judge-app trec-eval``).

    from judge_app.trec_eval import Settings, compute, rank, read_qrels, read_results

    ranked = rank(read_qrels("qrels"), read_results("run"), Settings(relevance_level=1))
    values = compute(ranked, ["ndcg_cut.10", "P.5,10", "map"])  # {"ndcg_cut_10": array, ...}
    ranked.queries  # the queries the arrays follow, in trec_eval's order

Data already in memory: ``Qrels(name, table)`` (``query``, ``doc`` strings, ``rel`` int64)
and ``Results(name, table, runid)`` (``query``, ``doc``, ``sim`` float64) stand for the files.

Modules: ``reading`` (the two files), ``ranked`` (the ranked lists every measure reads),
``measures`` (one module per family), ``catalog`` (the table of measures), ``specs``
(``-m`` and parameters), ``compute`` (values and summaries), ``output`` (the text).
"""

from judge_app.trec_eval.compute import compute, summary
from judge_app.trec_eval.ranked import Ranked, Settings, rank
from judge_app.trec_eval.reading import Qrels, Results, read_qrels, read_results
from judge_app.trec_eval.specs import Spec, parse, selected

__all__ = [
    "Qrels",
    "Ranked",
    "Results",
    "Settings",
    "Spec",
    "compute",
    "parse",
    "rank",
    "read_qrels",
    "read_results",
    "selected",
    "summary",
]
