"""Counterfactual evaluation from logs: how a new ranking would have done.

- :mod:`.slate`: Open Bandit Pipeline's slate estimators (standard,
  independent and reward-interaction IPS, their self-normalised forms, cascade
  doubly robust) as expressions over a log of (slate, position) rows.
- :mod:`.estimate`: several of them at once, with obp's bootstrap interval and
  the effective sample size (:func:`estimate`), and each slate's terms for
  paired comparisons (:func:`slate_terms`).
- :mod:`.position_bias`: examination propensities from click logs, by the
  position-based model fitted by EM (:func:`fit_pbm`) and by intervention
  harvesting from several rankers' logs (:func:`harvest_propensities`).
- :mod:`.clicks`: a new ranking's DCG, precision and recall from an old
  ranking's clicks, by inverse propensity scoring (clipped, self-normalised).
- :mod:`.simulate`: a small deterministic simulator of slate logs whose true
  value is known (:func:`synthetic_slate_logs`).
"""

from __future__ import annotations

from polars_rankmetrics.counterfactual.clicks import (
    ips_dcg_at_k,
    ips_precision_at_k,
    ips_recall_at_k,
)
from polars_rankmetrics.counterfactual.estimate import estimate, slate_terms
from polars_rankmetrics.counterfactual.position_bias import (
    PositionBasedModel,
    fit_pbm,
    harvest_propensities,
)
from polars_rankmetrics.counterfactual.simulate import SyntheticLogs, synthetic_slate_logs
from polars_rankmetrics.counterfactual.slate import (
    self_normalized_slate_independent_ips,
    self_normalized_slate_reward_interaction_ips,
    self_normalized_slate_standard_ips,
    slate_cascade_dr,
    slate_independent_ips,
    slate_reward_interaction_ips,
    slate_standard_ips,
)

__all__ = [
    "PositionBasedModel",
    "SyntheticLogs",
    "estimate",
    "fit_pbm",
    "harvest_propensities",
    "ips_dcg_at_k",
    "ips_precision_at_k",
    "ips_recall_at_k",
    "self_normalized_slate_independent_ips",
    "self_normalized_slate_reward_interaction_ips",
    "self_normalized_slate_standard_ips",
    "slate_cascade_dr",
    "slate_independent_ips",
    "slate_reward_interaction_ips",
    "slate_standard_ips",
    "slate_terms",
    "synthetic_slate_logs",
]
