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
"""

from __future__ import annotations

from polars_rankmetrics.counterfactual.estimate import estimate, slate_terms
from polars_rankmetrics.counterfactual.position_bias import (
    PositionBasedModel,
    fit_pbm,
    harvest_propensities,
)
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
    "estimate",
    "fit_pbm",
    "harvest_propensities",
    "self_normalized_slate_independent_ips",
    "self_normalized_slate_reward_interaction_ips",
    "self_normalized_slate_standard_ips",
    "slate_cascade_dr",
    "slate_independent_ips",
    "slate_reward_interaction_ips",
    "slate_standard_ips",
    "slate_terms",
]
