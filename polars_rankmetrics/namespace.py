"""``RankNameSpace``: the metrics under ``pl.col(...).rank``, forwarding to the functions.

Every method here forwards to the function of the same name with the receiving
expression as ``relevance``; a test keeps their signatures identical. Calling
the namespace (``pl.col("x").rank("dense")``) is polars' own ``Expr.rank``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from polars_rankmetrics import average_precision as _ap
from polars_rankmetrics import curves as _curves
from polars_rankmetrics import dcg as _dcg
from polars_rankmetrics import multi as _multi
from polars_rankmetrics import precision_recall as _pr
from polars_rankmetrics import reciprocal_rank as _rr
from polars_rankmetrics._ranking import Gain, IntoExpr, NoRelevant, Ties
from polars_rankmetrics.average_precision import Denominator


class RankNameSpace:
    """Ranking metrics with the receiving expression as the relevance label."""

    _accessor = "rank"

    def __init__(self, expr: pl.Expr, builtin: Callable[..., pl.Expr]) -> None:
        self._expr = expr
        self._builtin = builtin

    def __call__(self, *args: Any, **kwargs: Any) -> pl.Expr:
        """Polars' own ``Expr.rank``: assign ranks to data."""
        return self._builtin(self._expr, *args, **kwargs)

    def precision_at_k(
        self,
        k: int,
        *,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.precision_at_k`."""
        return _pr.precision_at_k(
            self._expr, k, by=by, descending=descending, threshold=threshold, ties=ties
        )

    def recall_at_k(
        self,
        k: int,
        *,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        no_relevant: NoRelevant = "null",
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.recall_at_k`."""
        return _pr.recall_at_k(
            self._expr,
            k,
            by=by,
            descending=descending,
            threshold=threshold,
            no_relevant=no_relevant,
            ties=ties,
        )

    def f_beta_at_k(
        self,
        k: int,
        *,
        beta: float = 1.0,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        no_relevant: NoRelevant = "null",
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.f_beta_at_k`."""
        return _pr.f_beta_at_k(
            self._expr,
            k,
            beta=beta,
            by=by,
            descending=descending,
            threshold=threshold,
            no_relevant=no_relevant,
            ties=ties,
        )

    def hit_rate_at_k(
        self,
        k: int,
        *,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.hit_rate_at_k`."""
        return _pr.hit_rate_at_k(
            self._expr, k, by=by, descending=descending, threshold=threshold, ties=ties
        )

    def r_precision(
        self,
        *,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        no_relevant: NoRelevant = "null",
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.r_precision`."""
        return _pr.r_precision(
            self._expr,
            by=by,
            descending=descending,
            threshold=threshold,
            no_relevant=no_relevant,
            ties=ties,
        )

    def average_precision(
        self,
        *,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        no_relevant: NoRelevant = "null",
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.average_precision`."""
        return _ap.average_precision(
            self._expr,
            by=by,
            descending=descending,
            threshold=threshold,
            no_relevant=no_relevant,
            ties=ties,
        )

    def ap_at_k(
        self,
        k: int,
        *,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        no_relevant: NoRelevant = "null",
        denominator: Denominator = "min_k_r",
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.ap_at_k`."""
        return _ap.ap_at_k(
            self._expr,
            k,
            by=by,
            descending=descending,
            threshold=threshold,
            no_relevant=no_relevant,
            denominator=denominator,
            ties=ties,
        )

    def reciprocal_rank(
        self,
        *,
        k: int | None = None,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        no_relevant: NoRelevant = "null",
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.reciprocal_rank`."""
        return _rr.reciprocal_rank(
            self._expr,
            k=k,
            by=by,
            descending=descending,
            threshold=threshold,
            no_relevant=no_relevant,
            ties=ties,
        )

    def dcg_at_k(
        self,
        k: int,
        *,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        gain: Gain = "linear",
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.dcg_at_k`."""
        return _dcg.dcg_at_k(self._expr, k, by=by, descending=descending, gain=gain, ties=ties)

    def ndcg_at_k(
        self,
        k: int,
        *,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        gain: Gain = "linear",
        no_relevant: NoRelevant = "null",
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.ndcg_at_k`."""
        return _dcg.ndcg_at_k(
            self._expr,
            k,
            by=by,
            descending=descending,
            gain=gain,
            no_relevant=no_relevant,
            ties=ties,
        )

    def pr_curve(
        self,
        *,
        by: IntoExpr | Sequence[IntoExpr],
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.pr_curve`."""
        return _curves.pr_curve(self._expr, by=by, descending=descending, threshold=threshold)

    def cumulative_pr(
        self,
        *,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.cumulative_pr`."""
        return _curves.cumulative_pr(
            self._expr, by=by, descending=descending, threshold=threshold, ties=ties
        )

    def binned_pr_curve(
        self,
        bins: int | Sequence[float],
        *,
        by: IntoExpr | Sequence[IntoExpr],
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.binned_pr_curve`."""
        return _curves.binned_pr_curve(
            self._expr, bins, by=by, descending=descending, threshold=threshold, ties=ties
        )

    def interpolated_precision(
        self,
        recall_levels: Sequence[float] | None = None,
        *,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        no_relevant: NoRelevant = "null",
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.interpolated_precision`."""
        return _curves.interpolated_precision(
            self._expr,
            recall_levels,
            by=by,
            descending=descending,
            threshold=threshold,
            no_relevant=no_relevant,
            ties=ties,
        )

    def interpolated_ap(
        self,
        recall_levels: Sequence[float] | None = None,
        *,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        no_relevant: NoRelevant = "null",
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.interpolated_ap`."""
        return _curves.interpolated_ap(
            self._expr,
            recall_levels,
            by=by,
            descending=descending,
            threshold=threshold,
            no_relevant=no_relevant,
            ties=ties,
        )

    def metrics(
        self,
        measures: Sequence[str],
        *,
        by: IntoExpr | Sequence[IntoExpr] | None = None,
        descending: bool | Sequence[bool] = True,
        threshold: float = 0,
        no_relevant: NoRelevant = "null",
        ties: Ties = "stable",
    ) -> pl.Expr:
        """See :func:`polars_rankmetrics.metrics`."""
        return _multi.metrics(
            self._expr,
            measures,
            by=by,
            descending=descending,
            threshold=threshold,
            no_relevant=no_relevant,
            ties=ties,
        )
