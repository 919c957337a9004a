"""Online evaluation: click models fitted to logs and simulated, and interleaving.

- :func:`fit`: PBM, CM, DCM, UBM, DBN and SDBN fitted to a click log by EM or in
  closed form (Chuklin, Markov and de Rijke, *Click Models for Web Search*,
  2015), returning a :class:`ClickModel` whose parameters are frames;
- :func:`log_likelihood`, :func:`perplexity` and :func:`evaluate`: how well
  models explain held-out sessions;
- :func:`predict` and :func:`simulate`: click probabilities and seeded clicks
  for new rankings;
- :func:`team_draft`, :func:`balanced`, :func:`probabilistic` and
  :func:`team_draft_multileave`: interleaved lists per row, as expressions;
  :func:`interleaving_outcome` and :func:`team_clicks` credit the clicks, and
  :func:`interleaving_preference` and :func:`multileave_preferences` sum them
  up over queries with a sign test.
"""

from __future__ import annotations

from polars_rankmetrics.online.credit import (
    interleaving_outcome,
    interleaving_preference,
    multileave_preferences,
    team_clicks,
)
from polars_rankmetrics.online.estimation import ESTIMATORS, fit
from polars_rankmetrics.online.evaluation import evaluate, log_likelihood, perplexity, predict
from polars_rankmetrics.online.interleaving import (
    balanced,
    probabilistic,
    team_draft,
    team_draft_multileave,
)
from polars_rankmetrics.online.log import LogColumns
from polars_rankmetrics.online.model import MODELS, ClickModel
from polars_rankmetrics.online.simulation import simulate

__all__ = [
    "ESTIMATORS",
    "MODELS",
    "ClickModel",
    "LogColumns",
    "balanced",
    "evaluate",
    "fit",
    "interleaving_outcome",
    "interleaving_preference",
    "log_likelihood",
    "multileave_preferences",
    "perplexity",
    "predict",
    "probabilistic",
    "simulate",
    "team_clicks",
    "team_draft",
    "team_draft_multileave",
]
