"""The table that the registry-driven tests loop over, as scikit-learn's test_common does.

- :data:`METRICS`: every public metric function, with the options that exercise
  it and its slow reference (tests/reference.py, one query at a time). The
  reference, property, fast-path, ties and validation tests loop over it.
- :data:`MEASURES`: every measure of the registry, with a name that spells it
  and the independent oracle that checks it.

A completeness test fails when a public metric or a registry measure is missing.
Adding a metric adds a row here (see the README's contributing section).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

import polars_rankmetrics as rm
from tests import reference as ref
from tests import reference_families as fam

ELEVEN = [i / 10 for i in range(11)]


@dataclass(frozen=True)
class MetricCase:
    """A public metric function with one set of options, and its slow reference."""

    id: str
    function: Callable[..., pl.Expr]
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    reference: Callable[[list[ref.Row]], Any] | None = None
    kind: Literal["scalar", "unbounded", "list", "rows"] = "scalar"
    """``scalar``: one value in [0, 1] per query; ``unbounded``: one value (DCG,
    hits); ``list``: a list per query (curves); ``rows``: a value per row."""
    exact_average: bool = True
    """Whether ``ties='average'`` gives the exact expectation (else it is refused)."""
    tie_invariant: bool = False
    """Whether the value reads scores, not the order of ties (one threshold per score):
    then it is the same in every ordering, not an expectation over orderings."""
    receiver: Literal["relevance", "subtopics"] = "relevance"
    """What the function reads: labels, or subtopic lists (derived from the labels by
    :func:`subtopic_lists_of`, as the reference derives them)."""

    def expr(self, relevance: str = "relevance", **options: Any) -> pl.Expr:
        """The metric's expression over ``relevance``, ranked by ``score``.

        ``options`` override the case's keyword arguments; those the function
        does not take (``threshold`` for DCG) are left out.
        """
        taken = inspect.signature(self.function).parameters
        merged = {"by": "score", **self.kwargs, **options}
        receiver = pl.col(relevance)
        if self.receiver == "subtopics":
            receiver = subtopic_lists_of(receiver)
        return self.function(
            receiver, *self.args, **{k: v for k, v in merged.items() if k in taken}
        )


def subtopic_lists_of(label: pl.Expr) -> pl.Expr:
    """Subtopics "1" .. "l" for a label l (none for l <= 0, null for null): a test model."""
    count = label.fill_nan(None).cast(pl.Int64).clip(lower_bound=0)
    return pl.int_ranges(1, count + 1).list.eval(pl.element().cast(pl.String))


def _case(id: str, function: Callable[..., pl.Expr], *args: Any, **options: Any) -> MetricCase:
    return MetricCase(id, function, args, **options)


def _subtopic_case(
    id: str, function: Callable[..., pl.Expr], *args: Any, **options: Any
) -> MetricCase:
    return MetricCase(id, function, args, receiver="subtopics", **options)


FAMILY_METRICS: list[MetricCase] = [
    # Cascade: gdeval's ERR (labels above max_grade count as max_grade), nERR.
    _case(
        "ERR@5",
        rm.err_at_k,
        5,
        reference=lambda r: fam.err_at_k(r, 5, above_max="clip"),
        exact_average=False,
    ),
    _case(
        "ERR@3_g2",
        rm.err_at_k,
        3,
        kwargs={"max_grade": 2},
        reference=lambda r: fam.err_at_k(r, 3, max_grade=2, above_max="clip"),
        exact_average=False,
    ),
    _case(
        "nERR@5",
        rm.nerr_at_k,
        5,
        reference=lambda r: fam.nerr_at_k(r, 5, above_max="clip"),
        exact_average=False,
    ),
    # Diversity (ndeval), over subtopics derived from the labels.
    _subtopic_case(
        "alpha_nDCG@5",
        rm.alpha_ndcg_at_k,
        5,
        reference=fam.on_subtopics(fam.alpha_ndcg_at_k, 5, ideal_ties="subtopics"),
        kind="unbounded",
        exact_average=False,
    ),
    _subtopic_case(
        "alpha_nDCG@3_exact",
        rm.alpha_ndcg_at_k,
        3,
        kwargs={"ideal": "exact", "alpha": 0.25},
        reference=fam.on_subtopics(fam.alpha_ndcg_at_k, 3, alpha=0.25, ideal="exact"),
        exact_average=False,
    ),
    _subtopic_case(
        "alpha_DCG@5",
        rm.alpha_dcg_at_k,
        5,
        reference=fam.on_subtopics(fam.alpha_dcg_at_k, 5),
        exact_average=False,
    ),
    _subtopic_case(
        "ERR_IA@25",
        rm.err_ia_at_k,
        25,
        reference=fam.on_subtopics(fam.err_ia_at_k, 25),
        exact_average=False,
    ),
    _subtopic_case(
        "nERR_IA@5",
        rm.nerr_ia_at_k,
        5,
        kwargs={"alpha": 0.75},
        reference=fam.on_subtopics(fam.nerr_ia_at_k, 5, alpha=0.75, ideal_ties="subtopics"),
        kind="unbounded",
        exact_average=False,
    ),
    _subtopic_case(
        "NRBP",
        rm.nrbp,
        kwargs={"beta": 0.8},
        reference=fam.on_subtopics(fam.nrbp, beta=0.8),
        exact_average=False,
    ),
    _subtopic_case(
        "nNRBP",
        rm.nnrbp,
        reference=fam.on_subtopics(fam.nnrbp, ideal_ties="subtopics"),
        kind="unbounded",
        exact_average=False,
    ),
    _subtopic_case("P_IA@3", rm.precision_ia_at_k, 3, reference=fam.on_subtopics(fam.p_ia_at_k, 3)),
    _subtopic_case(
        "StRecall@4",
        rm.subtopic_recall_at_k,
        4,
        reference=fam.on_subtopics(fam.subtopic_recall_at_k, 4),
        exact_average=False,
    ),
    _subtopic_case("AP_IA", rm.ap_ia, reference=fam.on_subtopics(fam.ap_ia), exact_average=False),
    # C/W/L (cwl_eval), labels scaled by max_rel.
    _case(
        "INST_T2",
        rm.inst,
        kwargs={"target": 2.0, "max_rel": 3},
        reference=fam.cwl_value("INST", T=2.0, max_rel=3),
        exact_average=False,
    ),
    _case(
        "INSQ_ETU_res",
        rm.insq,
        kwargs={"max_rel": 2, "output": "ETU", "residual": True},
        reference=fam.cwl_value("INSQ", "ResETU", max_rel=2),
        kind="unbounded",
    ),
    _case(
        "BPM_ED",
        rm.bpm,
        kwargs={"target": 2.0, "budget": 6, "max_rel": 3, "output": "ED"},
        reference=fam.cwl_value("BPM", "ED", T=2.0, K=6, max_rel=3),
        kind="unbounded",
        exact_average=False,
    ),
    _case(
        "U_L8",
        rm.u_measure,
        kwargs={"length": 8, "max_rel": 2},
        reference=fam.cwl_value("U", L=8, max_rel=2),
    ),
    _case(
        "TBG_H5_res",
        rm.tbg,
        kwargs={"half_life": 5, "residual": True},
        reference=fam.cwl_value("TBG", "ResEU", H=5, max_rel=1),
    ),
    # Compatibility (ties in the ideal follow the ranking: Clarke et al.'s rule).
    _case(
        "Compat",
        rm.compatibility,
        kwargs={"p": 0.8},
        reference=lambda r: fam.compat(r, 0.8, ties="stable", ideal_order="run_rank"),
        exact_average=False,
    ),
    # Classifier-style (scikit-learn, torchmetrics).
    _case("roc_auc", rm.roc_auc, reference=fam.roc_auc),
    _case(
        "threshold_AP",
        rm.threshold_average_precision,
        reference=fam.sklearn_average_precision,
        tie_invariant=True,
    ),
    _case("FallOut@3", rm.fall_out, kwargs={"k": 3}, reference=lambda r: fam.fall_out_at_k(r, 3)),
    _case(
        "RFP_0.5",
        rm.recall_at_fixed_precision,
        0.5,
        reference=lambda r: _first(fam.recall_at_fixed_precision(r, 0.5)),
        exact_average=False,
    ),
    _case(
        "RFP_k_0.3@12",
        rm.recall_at_fixed_precision,
        0.3,
        kwargs={"max_k": 12, "output": "k"},
        reference=lambda r: _second(fam.recall_at_fixed_precision(r, 0.3, 12)),
        kind="unbounded",
        exact_average=False,
    ),
]
"""The measures of the other peers (ERR, diversity, C/W/L, Compat, classifier-style)."""


def _first(pair: tuple[float, int] | None) -> float | None:
    return None if pair is None else pair[0]


def _second(pair: tuple[float, int] | None) -> float | None:
    return None if pair is None else float(pair[1])


METRICS: list[MetricCase] = [
    _case("P@3", rm.precision_at_k, 3, reference=lambda r: ref.precision_at_k(r, 3)),
    _case(
        "P@3_t1",
        rm.precision_at_k,
        3,
        kwargs={"threshold": 1},
        reference=lambda r: ref.precision_at_k(r, 3, threshold=1),
    ),
    _case("R@5", rm.recall_at_k, 5, reference=lambda r: ref.recall_at_k(r, 5)),
    _case("F1@4", rm.f_beta_at_k, 4, reference=lambda r: ref.f_beta_at_k(r, 4, 1.0)),
    _case(
        "F0.5@2",
        rm.f_beta_at_k,
        2,
        kwargs={"beta": 0.5},
        reference=lambda r: ref.f_beta_at_k(r, 2, 0.5),
    ),
    _case("hit@2", rm.hit_rate_at_k, 2, reference=lambda r: ref.hit_rate_at_k(r, 2)),
    _case("hits@3", rm.hits_at_k, 3, reference=lambda r: ref.hits_at_k(r, 3), kind="unbounded"),
    _case("Rprec", rm.r_precision, reference=ref.r_precision),
    _case("AP", rm.average_precision, reference=ref.average_precision),
    _case(
        "AP_t2",
        rm.average_precision,
        kwargs={"threshold": 2},
        reference=lambda r: ref.average_precision(r, threshold=2),
    ),
    _case("AP@4", rm.ap_at_k, 4, reference=lambda r: ref.ap_at_k(r, 4)),
    _case(
        "AP@4_r",
        rm.ap_at_k,
        4,
        kwargs={"denominator": "r"},
        reference=lambda r: ref.ap_at_k(r, 4, "r"),
    ),
    _case(
        "AP@4_hits",
        rm.ap_at_k,
        4,
        kwargs={"denominator": "hits"},
        reference=lambda r: ref.ap_at_k(r, 4, "hits"),
    ),
    _case("RR", rm.reciprocal_rank, reference=ref.reciprocal_rank),
    _case(
        "RR@3", rm.reciprocal_rank, kwargs={"k": 3}, reference=lambda r: ref.reciprocal_rank(r, 3)
    ),
    _case("DCG@5", rm.dcg_at_k, 5, reference=lambda r: ref.dcg_at_k(r, 5), kind="unbounded"),
    _case(
        "DCG@5_exp",
        rm.dcg_at_k,
        5,
        kwargs={"gain": "exponential"},
        reference=lambda r: ref.dcg_at_k(r, 5, "exponential"),
        kind="unbounded",
    ),
    _case("nDCG@5", rm.ndcg_at_k, 5, reference=lambda r: ref.ndcg_at_k(r, 5)),
    _case(
        "nDCG@3_exp",
        rm.ndcg_at_k,
        3,
        kwargs={"gain": "exponential"},
        reference=lambda r: ref.ndcg_at_k(r, 3, "exponential"),
    ),
    _case(
        "iprec",
        rm.interpolated_precision,
        reference=lambda r: ref.interpolated_precision(r, ELEVEN),
        kind="list",
        exact_average=False,
    ),
    _case(
        "iprec_custom",
        rm.interpolated_precision,
        [0.25, 0.5, 0.75],
        reference=lambda r: ref.interpolated_precision(r, [0.25, 0.5, 0.75]),
        kind="list",
        exact_average=False,
    ),
    _case(
        "11pt",
        rm.interpolated_ap,
        reference=lambda r: ref.interpolated_ap(r, ELEVEN),
        exact_average=False,
    ),
    # The points sit at the ends of tie groups: the same in every ordering.
    _case("pr_curve", rm.pr_curve, reference=ref.pr_points, kind="list"),
    _case(
        "binned3", rm.binned_pr_curve, 3, reference=lambda r: ref.binned_pr_curve(r, 3), kind="list"
    ),
    _case(
        "cumulative",
        rm.cumulative_pr,
        reference=ref.cumulative_pr,
        kind="rows",
        exact_average=False,
    ),
    *FAMILY_METRICS,
]
"""Every public metric function; the ids name the options."""

SCALAR = [case for case in METRICS if case.kind in ("scalar", "unbounded")]
"""The cases with one number per query."""

Oracle = Literal[
    "pytrec_eval",
    "trec_eval files",
    "trec_eval cases",
    "ranx",
    "ir_measures",
    "reference",
    "gdeval",
    "pyndeval",
    "cwl_eval",
    "scikit-learn",
]

MEASURES: dict[str, tuple[str, Oracle]] = {
    # registry key: (a name that spells it, the independent oracle that checks it)
    "P": ("P_5", "pytrec_eval"),
    "R": ("recall_10", "pytrec_eval"),
    "Success": ("success_5", "pytrec_eval"),
    "hits": ("hits@3", "ranx"),
    "Rprec": ("Rprec", "pytrec_eval"),
    "relative_P": ("relative_P_10", "pytrec_eval"),
    "Rprec_mult": ("Rprec_mult_0.50", "pytrec_eval"),
    "AP": ("map_cut_10", "pytrec_eval"),
    "gm_map": ("gm_map", "trec_eval files"),
    "yaap": ("yaap", "trec_eval cases"),
    "RR": ("recip_rank", "pytrec_eval"),
    "nDCG": ("ndcg_cut_10", "pytrec_eval"),
    "dcg": ("dcg", "reference"),
    "ideal_dcg": ("ideal_dcg", "reference"),
    "ndcg_rel": ("ndcg_rel", "pytrec_eval"),
    "Rndcg": ("Rndcg", "pytrec_eval"),
    "G": ("G", "pytrec_eval"),
    "binG": ("binG", "pytrec_eval"),
    "RBP": ("rbp", "trec_eval files"),
    "rbp_resid": ("rbp_resid", "trec_eval files"),
    "IPrec": ("iprec_at_recall_0.50", "trec_eval files"),
    "11pt_avg": ("11pt_avg", "trec_eval files"),
    "Bpref": ("bpref", "pytrec_eval"),
    "gm_bpref": ("gm_bpref", "trec_eval files"),
    "infAP": ("infAP", "pytrec_eval"),
    "unj": ("unj_10", "trec_eval files"),
    "Judged": ("Judged@5", "ir_measures"),
    "relstring": ("relstring", "trec_eval files"),
    "NumQ": ("num_q", "trec_eval files"),
    "NumRet": ("NumRet", "ir_measures"),
    "NumRel": ("NumRel", "ir_measures"),
    "NumRelRet": ("NumRelRet", "ir_measures"),
    "num_nonrel_judged_ret": ("num_nonrel_judged_ret", "pytrec_eval"),
    "SetP": ("set_P", "pytrec_eval"),
    "SetR": ("set_recall", "pytrec_eval"),
    "set_relative_P": ("set_relative_P", "pytrec_eval"),
    "set_map": ("set_map", "pytrec_eval"),
    "SetF": ("set_F", "pytrec_eval"),
    "utility": ("utility", "pytrec_eval"),
    "f1": ("f1@10", "ranx"),
    "dcg_cut": ("dcg@10", "ranx"),
    "ERR": ("ERR@10", "gdeval"),
    "nERR": ("nERR@10", "reference"),
    "alpha_DCG": ("alpha-DCG@10", "pyndeval"),
    "alpha_nDCG": ("alpha_nDCG@20", "pyndeval"),
    "ERR_IA": ("ERR-IA@5", "pyndeval"),
    "nERR_IA": ("nERR_IA@20", "pyndeval"),
    "NRBP": ("NRBP", "pyndeval"),
    "nNRBP": ("nNRBP", "pyndeval"),
    "P_IA": ("P_IA@10", "pyndeval"),
    "StRecall": ("StRecall@10", "pyndeval"),
    "AP_IA": ("AP_IA", "pyndeval"),
    "INST": ("INST(T=3.0,max_rel=2)", "cwl_eval"),
    "INSQ": ("INSQ(T=1.0,max_rel=2)", "cwl_eval"),
    "BPM": ("BPM(T=1.0,max_rel=2)@10", "cwl_eval"),
    "U": ("U-L@20", "cwl_eval"),
    "TBG": ("TBG-H@10", "cwl_eval"),
    "Compat": ("Compat(p=0.9)", "ir_measures"),
    "roc_auc": ("roc_auc", "scikit-learn"),
    "average_precision": ("average_precision", "scikit-learn"),
    "FallOut": ("retrieval_fall_out@5", "reference"),
    "RecallAtFixedPrecision": ("RetrievalRecallAtFixedPrecision(min_precision=0.5)", "reference"),
}
"""Every registry measure, with a spelling and its oracle."""

NEEDS_SUBTOPICS = {
    "alpha_DCG",
    "alpha_nDCG",
    "ERR_IA",
    "nERR_IA",
    "NRBP",
    "nNRBP",
    "P_IA",
    "StRecall",
    "AP_IA",
}
"""Registry measures that read subtopic lists (``subtopics=`` in ``metrics()``)."""

NEEDS_SCORES = {"roc_auc", "average_precision"}
"""Registry measures that read the score (not available with ``by=None``)."""
