"""The engine: rank each group once, and compute every statistic from that ranking.

Imports point down, in this order: :mod:`.ranked` (the vocabulary statistics are
written in), :mod:`.ties` (expectations over tied scores), :mod:`.ranking` (the
sort), :mod:`.hits` (the hits shared by every count and AP sum), :mod:`.ideal`
(the ideal order's top k by counting or a sorting network, DCG@k by columns),
:mod:`.statistic` (how a statistic is declared), :mod:`.staged` (the fast
paths), :mod:`.top` (the top k path) and :mod:`.entry` (the one entry point,
which picks the path).
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
