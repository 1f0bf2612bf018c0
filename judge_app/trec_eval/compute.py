"""Every asked measure for every evaluated query at once, and trec_eval's summary of each.

    ranked = rank(read_qrels(q), read_results(r), Settings(relevance_level=1))
    values = compute(ranked, ["ndcg_cut.10", "map", "P.5,10"])
    values["ndcg_cut_10"]  # one float per query of ranked.queries

``compute`` takes specs (``specs.parse`` or ``specs.selected``) or ``-m`` texts and returns
the values under the names trec_eval prints (``P_5``, ``ndcg_cut_10``, ``utility_2,-1,0,0``);
relstring's are strings, gm_map's and gm_bpref's are logs (their summary is exp of the mean).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from judge_app.trec_eval.ranked import Ranked
from judge_app.trec_eval.specs import Spec, parse

Value = float | int | str


def compute(ranked: Ranked, specs: Sequence[Spec | str]) -> dict[str, np.ndarray]:
    """Per-query values of each measure in ``specs``, by the name trec_eval prints."""
    values: dict[str, np.ndarray] = {}
    with np.errstate(all="ignore"):  # C divides by 0 and takes logs of 0 without a word
        for item in specs:
            spec = parse(item) if isinstance(item, str) else item
            function = spec.measure.function
            if function is None:
                continue
            arrays = (
                function(ranked) if spec.measure.params == "none" else function(ranked, spec.values)
            )
            values.update(zip(spec.names, arrays))
    if ranked.bogus.any():
        _clean_up_bogus(ranked.bogus, values)
    return values


def summary(ranked: Ranked, spec: Spec, values: dict[str, np.ndarray]) -> list[Value]:
    """trec_eval's summary (the ``all`` line) of each of ``spec``'s values; none for
    relstring."""
    kind = spec.measure.summary
    if kind == "none":
        return []
    if kind == "runid":
        return [ranked.runid]
    if kind == "queries":
        return [ranked.n]
    out: list[Value] = []
    for name in spec.names:
        total = _sum(values[name])
        if kind == "mean":
            out.append(total / ranked.n if ranked.n else total)
        elif kind == "geometric":
            out.append(math.exp(total / ranked.n) if ranked.n else total)
        elif kind == "relevant" and ranked.settings.complete:
            out.append(int(np.count_nonzero(ranked.judged_rel > 0)))
        else:
            out.append(total)
    return out


def _sum(values: np.ndarray) -> float:
    """The values added one after the other, as trec_eval accumulates them."""
    return float(np.add.accumulate(values)[-1]) if len(values) else 0.0


def _clean_up_bogus(bogus: np.ndarray, values: dict[str, np.ndarray]) -> None:
    """trec_eval's clean-up after ranking a query without results (``-c``): by value name,
    num_ret, utility, unj* and rbp_resid are 0 and relstring is empty."""
    for name, array in values.items():
        if name in ("num_ret", "utility", "rbp_resid") or name.startswith("unj"):
            array[bogus] = 0.0
        elif name == "relstring":
            array[bogus] = ""
