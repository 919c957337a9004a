"""What an experiment holds: frames the library already computes, and how they were made.

:class:`Record` is plain data; :class:`polars_rankmetrics.Experiment` adds the
methods that render it (tables, charts, the HTML report), so that the renderers
import this module and the experiment imports them, never the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

import polars as pl

ChartKind: TypeAlias = Literal["pr", "delta", "means"]
"""The charts of :meth:`polars_rankmetrics.Experiment.chart`."""

SUMMARY_SCHEMA = {
    "metric": pl.String,
    "system": pl.String,
    "mean": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "n_queries": pl.Int64,
    "n_filled": pl.Int64,
    "n_dropped": pl.Int64,
    "best": pl.Boolean,
}
"""The columns of :attr:`Record.summary`."""

RUNS_SCHEMA = {
    "system": pl.String,
    "source": pl.String,
    "run_id": pl.String,
    "n_queries": pl.Int64,
    "missing_queries": pl.Int64,
    "ignored_queries": pl.Int64,
    "lacking": pl.List(pl.String),
}
"""The columns of :attr:`Record.runs`."""

WIN_TIE_LOSS_SCHEMA = {
    "metric": pl.String,
    "system": pl.String,
    "reference": pl.String,
    "wins": pl.Int64,
    "ties": pl.Int64,
    "losses": pl.Int64,
}
"""The columns of :attr:`Record.win_tie_loss`."""


@dataclass(frozen=True)
class Settings:
    """How the experiment was run: every choice that changes a number in it."""

    measures: tuple[str, ...]
    baseline: str | None
    test: str
    test_name: str
    correction: str | None
    correction_name: str
    alpha: float
    queries: str
    missing: str
    depth: int | None
    ci: str
    n_resamples: int
    seed: int
    qrels: str
    version: str


@dataclass(frozen=True)
class Record:
    """The frames of an experiment (see :class:`polars_rankmetrics.Experiment`)."""

    per_query: pl.DataFrame
    summary: pl.DataFrame
    tests: pl.DataFrame
    win_tie_loss: pl.DataFrame
    curves: pl.DataFrame
    runs: pl.DataFrame
    settings: Settings

    @property
    def systems(self) -> list[str]:
        """The run names, in the order of ``runs=``."""
        return self.runs.get_column("system").to_list()

    @property
    def metrics(self) -> list[str]:
        """The measure columns of ``per_query``, in order."""
        return [name for name in self.per_query.columns if name not in ("system", "query")]

    @property
    def reference(self) -> dict[str, str]:
        """Per measure, the run the others are drawn against: the baseline, or the best run."""
        return references(self.summary, self.settings.baseline)


def references(summary: pl.DataFrame, baseline: str | None) -> dict[str, str]:
    """Per measure of ``summary``, the baseline, or else the run with the highest mean."""
    metrics = summary.get_column("metric").unique(maintain_order=True).to_list()
    if baseline is not None:
        return dict.fromkeys(metrics, baseline)
    best = summary.sort("mean", descending=True, nulls_last=True, maintain_order=True)
    chosen = best.group_by("metric", maintain_order=True).agg(pl.col("system").first())
    return {str(metric): str(system) for metric, system in chosen.iter_rows()}
