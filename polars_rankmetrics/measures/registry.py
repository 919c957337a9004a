"""The registry: one canonical entry per measure, whatever the tool that names it.

A :class:`Measure` is declared once, here: its statistic (with its parameters,
their checks and what it supports, see :mod:`polars_rankmetrics.engine.statistic`),
how its values are summarised over queries, whether it is a count, and what it
means. Names are only spellings: trec_eval's (``P_10``, ``P.5,10``), ir_measures'
(``P@10``, ``P(rel=2)@10``) and ranx's resolve to the same entry with the same
parameters (:class:`Column`), the way ``ir_measures.util.convert_trec_name``
maps trec_eval names onto ir_measures' measures. So a name means one thing
everywhere: ``NumRet`` and ``num_ret`` are the same sum.

Keys follow ir_measures where it has the measure, trec_eval otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import DocOrder, NoRelevant
from polars_rankmetrics.engine import Bound, Statistic, Threshold
from polars_rankmetrics.engine.ranked import in_order
from polars_rankmetrics.metrics import (
    cascade,
    classifier,
    compat,
    dcg,
    incomplete,
    rbp,
    sets,
    trec_interpolation,
)
from polars_rankmetrics.metrics import diversity_statistics as diversity
from polars_rankmetrics.metrics import precision_recall as pr
from polars_rankmetrics.metrics import user_model_statistics as cwl
from polars_rankmetrics.metrics.average_precision import ap_statistic, yaap_statistic
from polars_rankmetrics.metrics.reciprocal_rank import reciprocal_rank_statistic

Summary: TypeAlias = Literal["mean", "sum", "geometric", "none"]
"""How per-query values become the summary over queries (trec_eval's ``all`` line)."""

MIN_GEO_MEAN = 0.00001
"""trec_eval's floor for a per-query value in a geometric mean (gm_map, gm_bpref)."""


@dataclass(frozen=True)
class Measure:
    """One measure: a statistic, fixed parameters, and how it is reported.

    Attributes
    ----------
    key
        The canonical name (ir_measures' where it has the measure).
    statistic
        The statistic over one ranked list.
    description
        What it measures, in a line (listed by :func:`polars_rankmetrics.measures`).
    fixed
        Parameters of the statistic that this measure fixes (AP's denominator R).
    summary : {'mean', 'sum', 'geometric', 'none'}
        How the per-query values are summarised over queries.
    integer
        Whether the value is a count (trec_eval prints it as an integer).
    per_query
        Whether it has a value per query (``gm_map`` and ``num_q`` are summaries only).
    """

    key: str
    statistic: Statistic
    description: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
    summary: Summary = "mean"
    integer: bool = False
    per_query: bool = True

    def summarize(self, values: pl.Expr) -> pl.Expr:
        """The summary over queries of the per-query ``values``, in their row order.

        As trec_eval: the values are added one by one in row order (sort the
        queries first), then divided by their number; nulls are skipped.
        """
        if self.summary == "sum":
            return values.sum().cast(pl.Float64)
        if self.summary == "geometric":
            return geometric_mean(values)
        present = values.drop_nulls()
        return in_order(present) / present.len()


def geometric_mean(values: pl.Expr) -> pl.Expr:
    """trec_eval's geometric mean: ``exp(mean(log(max(v, MIN_GEO_MEAN))))``, summed in order."""
    logs = values.drop_nulls().clip(lower_bound=MIN_GEO_MEAN).log()
    return (in_order(logs) / logs.len()).exp()


@dataclass(frozen=True)
class Column:
    """One output column of a measure name: a measure with its parameters.

    ``P.5,10`` gives two columns, ``P_5`` and ``P_10``; ``P_10`` and ``P@10`` give
    columns with the same measure and parameters, under their own names.
    ``threshold``, when set, is the column's own relevance level (``rel=2``).
    ``family`` is the trec_eval measure the column belongs to, for trec_eval's
    print order; empty for other spellings. ``judged_only`` ranks only the
    judged rows (ir_measures' ``judged_only=True``). ``order`` is how the tool
    that owns the name breaks tied scores, when not as trec_eval does (by
    document id descending): ir_measures' ``RR@10`` by document id ascending.
    """

    name: str
    measure: Measure
    params: tuple[tuple[str, Any], ...] = ()
    threshold: Threshold | None = None
    family: str = ""
    judged_only: bool = False
    order: DocOrder | None = None

    def __post_init__(self) -> None:
        """Check the parameters when the name is parsed, naming the measure.

        The parameters are then every parameter of the statistic but the fixed
        ones, defaults filled in, so that two spellings of one measure have
        equal parameters (``set_F`` and ``SetF`` both have ``beta=1.0``).
        """
        statistic = self.measure.statistic
        params = {**statistic.defaults, **dict(self.params), **self.measure.fixed}
        try:
            checked = statistic.check(params, self.name)
        except ValueError as error:
            message = str(error).removeprefix(f"{self.name}: ")
            msg = f"measure {self.name!r}: {message}"
            raise ValueError(msg) from None
        free = sorted((k, v) for k, v in checked.items() if k not in self.measure.fixed)
        object.__setattr__(self, "params", tuple(free))

    @property
    def dtype(self) -> pl.DataType:
        """The type of the column's values."""
        return self.measure.statistic.dtype

    def bind(self, no_relevant: NoRelevant) -> Bound:
        """The column's statistic, ready for the engine."""
        params = {**self.measure.fixed, **dict(self.params)}
        return self.measure.statistic.bind(self.name, no_relevant, self.threshold, **params)


def _measure(key: str, statistic: Statistic, description: str, **options: Any) -> Measure:
    return Measure(key, statistic, description, **options)


_COUNT: dict[str, Any] = {"summary": "sum", "integer": True}
_GEOMETRIC: dict[str, Any] = {"summary": "geometric", "per_query": False}

MEASURES: tuple[Measure, ...] = (
    # Cutoff measures.
    _measure("P", pr.precision_statistic, "precision at k: hits in the top k over k"),
    _measure("R", pr.recall_statistic, "recall at k: hits in the top k over R"),
    _measure("Success", pr.hit_rate_statistic, "1 if the top k holds a hit, else 0"),
    _measure("hits", pr.hits_statistic, "the number of hits in the top k (ranx's hits)"),
    _measure("Rprec", pr.r_precision_statistic, "precision at rank R"),
    _measure(
        "relative_P",
        pr.relative_precision_statistic,
        "hits in the top k over min(k, R)",
    ),
    _measure(
        "Rprec_mult",
        pr.r_precision_multiple_statistic,
        "precision at rank floor(multiple * R + 0.9)",
    ),
    # Average precision and reciprocal rank.
    _measure(
        "AP",
        ap_statistic,
        "average precision (at k: the top k's precision terms over R)",
        fixed={"denominator": "r"},
    ),
    _measure(
        "gm_map",
        ap_statistic,
        "AP, summarised by its geometric mean over queries",
        fixed={"denominator": "r"},
        **_GEOMETRIC,
    ),
    _measure(
        "yaap",
        yaap_statistic,
        "trec_eval's yaap: log((1 + s) / (1 + R - s)), s the sum of AP's precision terms",
    ),
    _measure("RR", reciprocal_rank_statistic, "1 / the rank of the first hit (within k)"),
    # Gains.
    _measure("nDCG", dcg.ndcg_statistic, "normalised DCG, linear gains (at k, custom gains)"),
    _measure("dcg", dcg.trec_dcg_statistic, "DCG over the whole ranking (custom gains)"),
    _measure("ideal_dcg", dcg.ideal_dcg_statistic, "the ideal DCG (custom gains)"),
    _measure("ndcg_rel", dcg.ndcg_rel_statistic, "nDCG averaged over the relevant rows' ranks"),
    _measure("Rndcg", dcg.r_ndcg_statistic, "nDCG averaged where the ideal gain drops a level"),
    _measure("G", dcg.normalized_gain_statistic, "trec_eval's normalised gain G"),
    _measure("binG", dcg.binary_gain_statistic, "trec_eval's binary gain"),
    _measure("RBP", rbp.rank_biased_precision_statistic, "rank-biased precision, persistence p"),
    _measure("rbp_resid", rbp.rbp_residual_statistic, "RBP's residual (unjudged mass, p = 0.9)"),
    # Interpolated precision.
    _measure(
        "IPrec",
        trec_interpolation.trec_interpolated_precision_statistic,
        "interpolated precision at a recall level (trec_eval's rounding)",
    ),
    _measure(
        "11pt_avg",
        trec_interpolation.eleven_point_statistic,
        "mean interpolated precision over recall levels",
    ),
    # Incomplete judgements.
    _measure("Bpref", incomplete.bpref_statistic, "binary preference (Buckley and Voorhees)"),
    _measure(
        "gm_bpref",
        incomplete.bpref_statistic,
        "bpref, summarised by its geometric mean over queries",
        **_GEOMETRIC,
    ),
    _measure("infAP", incomplete.inferred_ap_statistic, "inferred AP (Yilmaz and Aslam)"),
    _measure("unj", incomplete.unjudged_statistic, "unjudged rows in the top k over k"),
    _measure(
        "Judged",
        incomplete.judged_statistic,
        "judged rows in the top k over min(k, retrieved)",
    ),
    _measure(
        "relstring",
        incomplete.relevance_string_statistic,
        "the labels of the top ranks as text",
        summary="none",
    ),
    # Counts and set measures.
    _measure(
        "NumQ",
        sets.num_queries_statistic,
        "the number of queries",
        summary="sum",
        integer=True,
        per_query=False,
    ),
    _measure("NumRet", sets.num_ret_statistic, "the number of retrieved rows", **_COUNT),
    _measure("NumRel", sets.num_rel_statistic, "R, the number of relevant rows", **_COUNT),
    _measure("NumRelRet", sets.num_rel_ret_statistic, "relevant retrieved rows", **_COUNT),
    _measure(
        "num_nonrel_judged_ret",
        sets.num_nonrel_judged_ret_statistic,
        "judged non-relevant retrieved rows",
        **_COUNT,
    ),
    _measure("SetP", sets.set_p_statistic, "precision of the retrieved set"),
    _measure("SetR", sets.set_recall_statistic, "recall of the retrieved set"),
    _measure(
        "set_relative_P",
        sets.set_relative_p_statistic,
        "relevant retrieved over min(retrieved, R)",
    ),
    _measure("set_map", sets.set_map_statistic, "set precision times set recall"),
    _measure("SetF", sets.set_f_statistic, "F of set precision and recall (weight beta)"),
    _measure("utility", sets.utility_statistic, "a*relret + b*nonrelret + c*relnotret + ..."),
    # ranx's measures that trec_eval and ir_measures lack.
    _measure(
        "f1",
        pr.f_beta_statistic,
        "F1 at k: the harmonic mean of P@k and R@k",
        fixed={"beta": 1.0},
    ),
    _measure("dcg_cut", dcg.dcg_statistic, "DCG at k (linear or exponential gains)"),
    # Cascade (gdeval.pl, NTCIREVAL).
    _measure("ERR", cascade.err_statistic, "expected reciprocal rank at k (grades up to 4)"),
    _measure("nERR", cascade.nerr_statistic, "ERR at k over the ideal ranking's"),
    # Intent-aware diversity (ndeval); alpha-DCG@1 and ERR-IA@1 as ndeval prints them.
    _measure(
        "alpha_DCG",
        diversity.alpha_dcg_statistic,
        "novelty-discounted DCG at k over that of all-covering documents",
        fixed={"ndeval_k1": True},
    ),
    _measure("alpha_nDCG", diversity.alpha_ndcg_statistic, "alpha-DCG at k over the ideal's"),
    _measure(
        "ERR_IA",
        diversity.err_ia_statistic,
        "intent-aware ERR at k over that of all-covering documents",
        fixed={"ndeval_k1": True},
    ),
    _measure("nERR_IA", diversity.nerr_ia_statistic, "intent-aware ERR at k over the ideal's"),
    _measure("NRBP", diversity.nrbp_statistic, "novelty- and rank-biased precision"),
    _measure("nNRBP", diversity.nnrbp_statistic, "NRBP over the ideal ranking's"),
    _measure("P_IA", diversity.precision_ia_statistic, "intent-aware precision at k"),
    _measure("StRecall", diversity.subtopic_recall_statistic, "subtopics covered by the top k"),
    _measure("AP_IA", diversity.ap_ia_statistic, "intent-aware average precision"),
    # C/W/L user models (cwl_eval): the expected utility per document read.
    _measure("INST", cwl.inst_statistic, "C/W/L INST: reads on until T gain"),
    _measure("INSQ", cwl.insq_statistic, "C/W/L INSQ: INST with gain-free continuation"),
    _measure("BPM", cwl.bpm_statistic, "C/W/L bejeweled player: T gain or K documents"),
    _measure("U", cwl.u_statistic, "C/W/L U-measure: weight falls to 0 at L documents"),
    _measure("TBG", cwl.tbg_statistic, "C/W/L time-biased gain: weight halves every H"),
    _measure("Compat", compat.compat_statistic, "rank-biased overlap with the ideal ranking"),
    # Classifier-style measures (scikit-learn, torchmetrics).
    _measure("roc_auc", classifier.roc_auc_statistic, "ROC AUC of the retrieved rows' scores"),
    _measure(
        "average_precision",
        classifier.threshold_ap_statistic,
        "AP with one threshold per distinct score, over the relevant retrieved rows",
        fixed={"denominator": "retrieved"},
    ),
    _measure("FallOut", classifier.fall_out_statistic, "non-relevant rows in the top k, share"),
    _measure(
        "RecallAtFixedPrecision",
        classifier.recall_at_precision_statistic,
        "the highest recall at a cutoff with the required precision",
    ),
)
"""Every measure, once."""

BY_KEY: dict[str, Measure] = {measure.key: measure for measure in MEASURES}
