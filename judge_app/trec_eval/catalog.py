"""trec_eval 10.0's measures for qrels and TREC results: each one's name, function, kind of
parameters and defaults, and how its per-query values are summed up; in trec_eval's order
(its ``measures.c``), which is the order of its output. Nicknames name sets of them.

Kinds of parameters (after the measure's name and a dot, ``-m P.5,10``): ``cutoffs``, whole
numbers sorted ascending (one value each, ``P_5``); ``levels``, numbers sorted ascending
(one value each, ``iprec_at_recall_0.10``); ``numbers`` in the order given, and ``pairs``
``name=number`` (one value, named with the parameters as typed: ``utility_2,-1,0,0``,
``ndcg_1=3,2=9``); ``none`` (parameters are ignored, as trec_eval ignores them).

Summaries: ``mean`` over the queries; ``sum`` (counts); ``relevant`` (num_rel: with ``-c``
the qrels' documents graded above 0); ``geometric`` (the per-query value is a log, printed
only in the summary); ``queries`` (num_q); ``runid``; ``none`` (relstring: per query only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from judge_app.trec_eval.measures import gains, interpolated, precision, preference, sets

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


@dataclass(frozen=True)
class Measure:
    """One of trec_eval's measures (see the module's docstring)."""

    name: str
    function: Callable[..., list[np.ndarray]] | None  # None: runid, which has no values
    about: str
    params: str = "none"
    defaults: tuple = ()
    summary: str = "mean"
    whole: bool = False  # printed as a whole number

    @property
    def per_query(self) -> bool:
        """Whether trec_eval prints a line per query."""
        return self.summary not in ("geometric", "queries", "runid")

    @property
    def summed(self) -> bool:
        """Whether the summary adds the per-query values up (the counts) instead of
        averaging them."""
        return self.summary in ("sum", "relevant", "queries")


MEASURES = [
    Measure("runid", None, "the run id of the results' last line", summary="runid"),
    Measure("num_q", sets.num_q, "the number of queries evaluated", summary="queries", whole=True),
    Measure("num_ret", sets.num_ret, "documents retrieved", summary="sum", whole=True),
    Measure("num_rel", sets.num_rel, "relevant documents", summary="relevant", whole=True),
    Measure("num_rel_ret", sets.num_rel_ret, "relevant documents retrieved", summary="sum",
            whole=True),
    Measure("map", precision.average_precision, "mean average precision"),
    Measure("gm_map", precision.geometric_average_precision,
            "geometric mean average precision (summary only)", summary="geometric"),
    Measure("Rprec", precision.r_precision, "precision after R documents (R: relevant ones)"),
    Measure("bpref", preference.bpref, "binary preference (judged documents only)"),
    Measure("recip_rank", precision.reciprocal_rank, "1 / rank of the first relevant document"),
    Measure("iprec_at_recall", interpolated.interpolated_precision,
            "interpolated precision at recall levels", "levels", RECALL_LEVELS),
    Measure("P", precision.precision, "precision at cut-offs", "cutoffs", CUTOFFS),
    Measure("relstring", sets.relstring,
            "the grades of the top N documents as text (per query only)", "numbers", (10.0,),
            summary="none"),
    Measure("recall", precision.recall, "recall at cut-offs", "cutoffs", CUTOFFS),
    Measure("infAP", preference.inferred_average_precision,
            "inferred average precision (Yilmaz and Aslam)"),
    Measure("gm_bpref", preference.geometric_bpref, "geometric mean bpref (summary only)",
            summary="geometric"),
    Measure("Rprec_mult", precision.r_precision_multiples,
            "precision after multiples of R documents", "levels", R_MULTIPLES),
    Measure("utility", sets.utility,
            "a·rel_ret + b·nonrel_ret + c·rel_missed + d·nonrel_missed", "numbers",
            (1.0, -1.0, 0.0, 0.0)),
    Measure("11pt_avg", interpolated.eleven_point_average,
            "mean interpolated precision over recall levels", "numbers", RECALL_LEVELS),
    Measure("binG", gains.binary_g, "binary G (experimental)"),
    Measure("G", gains.g, "normalized gain G (experimental)", "pairs"),
    Measure("dcg", gains.dcg, "discounted cumulative gain", "pairs"),
    Measure("ideal_dcg", gains.ideal_dcg, "ideal discounted cumulative gain", "pairs"),
    Measure("ndcg", gains.ndcg, "normalized discounted cumulative gain", "pairs"),
    Measure("ndcg_rel", gains.ndcg_rel, "NDCG averaged over relevant documents", "pairs"),
    Measure("Rndcg", gains.r_ndcg, "NDCG averaged at the R levels", "pairs"),
    Measure("ndcg_cut", gains.ndcg_cut, "NDCG at cut-offs (gains: the grades)", "cutoffs",
            CUTOFFS),
    Measure("map_cut", precision.average_precision_cut, "average precision at cut-offs",
            "cutoffs", CUTOFFS),
    Measure("relative_P", precision.relative_precision,
            "precision at cut-offs over the best possible", "cutoffs", CUTOFFS),
    Measure("success", precision.success, "1 if a relevant document is in the top k",
            "cutoffs", (1, 5, 10)),
    Measure("set_P", sets.set_precision, "relevant retrieved / retrieved"),
    Measure("set_relative_P", sets.set_relative_precision,
            "relevant retrieved / min(retrieved, relevant)"),
    Measure("set_recall", sets.set_recall, "relevant retrieved / relevant"),
    Measure("set_map", sets.set_map, "set precision × set recall"),
    Measure("set_F", sets.set_f, "weighted harmonic mean of set precision and recall",
            "numbers", (1.0,)),
    Measure("num_nonrel_judged_ret", sets.num_nonrel_judged_ret,
            "documents retrieved and judged not relevant", summary="sum", whole=True),
    Measure("yaap", precision.yaap, "yet another average precision (Robertson)"),
    Measure("rbp", gains.rbp, "rank-biased precision (p=0.9 unless p= is given)", "pairs"),
    Measure("rbp_resid", gains.rbp_residual, "rbp's residual from unjudged documents",
            "pairs"),
    Measure("unj", precision.unjudged, "share of unjudged documents at cut-offs", "cutoffs",
            (5, 10, 20)),
]  # fmt: skip
BY_NAME = {measure.name: measure for measure in MEASURES}

_OFFICIAL = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
             "bpref", "recip_rank", "iprec_at_recall", "P"]  # fmt: skip
NICKNAMES = {
    "official": _OFFICIAL,
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"],
    "all_trec": [*_OFFICIAL, "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult",
                 "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P",
                 "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"],
}  # fmt: skip
OTHER_FORMATS = {
    "all_prefs": "prefs", "prefs": "prefs", "qrels_jg": "qrels_jg",
    "prefs_num_prefs_poss": "prefs", "prefs_num_prefs_ful": "prefs",
    "prefs_num_prefs_ful_ret": "prefs", "prefs_simp": "prefs", "prefs_pair": "prefs",
    "prefs_avgjg": "prefs", "prefs_avgjg_Rnonrel": "prefs", "prefs_simp_ret": "prefs",
    "prefs_pair_ret": "prefs", "prefs_avgjg_ret": "prefs", "prefs_avgjg_Rnonrel_ret": "prefs",
    "prefs_simp_imp": "prefs", "prefs_pair_imp": "prefs", "prefs_avgjg_imp": "prefs",
    "map_avgjg": "qrels_jg", "P_avgjg": "qrels_jg", "Rprec_mult_avgjg": "qrels_jg",
}  # fmt: skip
"""Measures (and nicknames) of trec_eval's other rel_info formats, which are not read here."""
