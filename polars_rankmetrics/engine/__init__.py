"""The engine: rank each group once, and compute every statistic from that ranking.

Imports point down, in this order: :mod:`.ranked` (the vocabulary statistics are
written in), :mod:`.ties` (expectations over tied scores), :mod:`.ranking` (the
sort), :mod:`.ideal` (the ideal order's top k by a sorting network),
:mod:`.statistic` (how a statistic is declared), :mod:`.staged` (the fast
paths) and :mod:`.entry` (the one entry point, which picks the path).
"""

from polars_rankmetrics.engine.entry import evaluate, evaluate_one, plain
from polars_rankmetrics.engine.ranked import Ranked, Threshold
from polars_rankmetrics.engine.ranking import Ranking
from polars_rankmetrics.engine.statistic import Bound, Statistic, statistic

__all__ = [
    "Bound",
    "Ranked",
    "Ranking",
    "Statistic",
    "Threshold",
    "evaluate",
    "evaluate_one",
    "plain",
    "statistic",
]
