"""Meta-evaluation: how rankings, judges, reproductions and predictors agree.

:mod:`.rbo` is pure polars and imported here; the other modules need numpy
and scipy (the ``stats`` extra) and are loaded when first used through
:mod:`polars_rankmetrics`.
"""

from polars_rankmetrics.meta_evaluation.rbo import ranked_lists, rbo, rbo_runs

__all__ = ["ranked_lists", "rbo", "rbo_runs"]
