"""Online evaluation: click models fitted to logs and simulated, and interleaving.

- :func:`fit`: PBM, CM, DCM, UBM, DBN and SDBN fitted to a click log by EM or in
  closed form (Chuklin, Markov and de Rijke, *Click Models for Web Search*,
  2015), returning a :class:`ClickModel` whose parameters are frames;
- :func:`log_likelihood`, :func:`perplexity` and :func:`evaluate`: how well
  models explain held-out sessions;
- :func:`predict` and :func:`simulate`: click probabilities and seeded clicks
  for new rankings.
"""

from __future__ import annotations

from polars_rankmetrics.online.evaluation import evaluate, log_likelihood, perplexity, predict
from polars_rankmetrics.online.estimation import ESTIMATORS, fit
from polars_rankmetrics.online.log import LogColumns
from polars_rankmetrics.online.model import MODELS, ClickModel
from polars_rankmetrics.online.simulation import simulate

__all__ = [
    "ESTIMATORS",
    "MODELS",
    "ClickModel",
    "LogColumns",
    "evaluate",
    "fit",
    "log_likelihood",
    "perplexity",
    "predict",
    "simulate",
]
