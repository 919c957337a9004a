r"""A small, deterministic simulator of slate logs whose true value is known exactly.

For the guide's worked example and the tests. Each slate is served for one
of ``n_queries`` queries (uniformly at random); at each of its ``len_list``
positions :math:`k` the policy draws an action (a document) from its own
distribution :math:`\pi(a \mid q, k)`, independently of the other positions
(actions may repeat in a slate, as in obp's factorisable synthetic slates).
The user follows a position-based model: the action at position :math:`k`
is clicked (reward 1) with probability :math:`\gamma_k \alpha_{qa}`, with
:math:`\gamma_k = (k + 1)^{-0.8}`.

Then every slate estimator of :mod:`.slate` is unbiased, and the evaluation
policy's value, the expected sum of the rewards of a slate, is

.. math:: V(\pi_e) = \frac{1}{|Q|} \sum_q \sum_k \sum_a \pi_e(a \mid q, k)\,
    \gamma_k\, \alpha_{qa}.

The logging policy is a softmax of random scores; the evaluation policy a
sharper softmax of scores that favour attractive actions (a better policy).
The reward model's ``q_hat`` is :math:`\gamma_k \alpha_{qa}` times a fixed
error in [0.8, 1.2] per (query, action), for :func:`.slate.slate_cascade_dr`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_rankmetrics._validate import check_k, is_integral

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class SyntheticLogs:
    """A simulated log and what the simulator knows."""

    log: pl.DataFrame
    """One row per (slate, position): ``slate_id``, ``query``, ``position``, ``action``,
    ``reward`` and every propensity column obp's estimators read, by obp's names, and
    ``q_hat`` and ``evaluation_policy_action_dist`` (lists over the actions)."""
    true_value: float
    """The evaluation policy's value: the expected sum of a slate's rewards."""
    examination: list[float]
    """The true examination probability :math:`\\gamma_k` of each position."""


def _softmax(scores: np.ndarray) -> np.ndarray:
    import numpy as np

    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def _cumulative(values: np.ndarray) -> np.ndarray:
    """Cumulative products along each slate (the last axis)."""
    import numpy as np

    return np.cumprod(values, axis=1)


def synthetic_slate_logs(
    n_slates: int = 1000,
    *,
    len_list: int = 3,
    n_actions: int = 5,
    n_queries: int = 4,
    seed: int = 0,
) -> SyntheticLogs:
    """
    A log of ``n_slates`` slates under the logging policy, and the evaluation policy's value.

    The module documentation describes the model. The same arguments give the
    same log (numpy's ``default_rng(seed)``).

    Examples
    --------
    >>> from polars_rankmetrics import counterfactual as cf
    >>> synthetic = cf.synthetic_slate_logs(2000, seed=1)
    >>> round(synthetic.true_value, 4)
    1.0587
    >>> estimate = synthetic.log.select(cf.slate_independent_ips()).item()
    >>> abs(estimate - synthetic.true_value) < 0.1
    True
    """
    import numpy as np

    for value, name in ((n_slates, "n_slates"), (len_list, "len_list")):
        check_k(value, name)
    check_k(n_actions, "n_actions")
    check_k(n_queries, "n_queries")
    if not is_integral(seed) or seed < 0:
        msg = f"`seed` must be an int >= 0, got {seed!r}"
        raise ValueError(msg)
    rng = np.random.default_rng(seed)
    attractiveness = rng.uniform(0.05, 0.9, (n_queries, n_actions))
    gamma = (np.arange(len_list) + 1.0) ** -0.8
    logging = _softmax(rng.normal(size=(n_queries, len_list, n_actions)))
    target = _softmax(3.0 * attractiveness[:, None, :] + rng.normal(size=(1, len_list, n_actions)))
    error = rng.uniform(0.8, 1.2, (n_queries, n_actions))
    query = rng.integers(0, n_queries, n_slates)
    uniform = rng.random((n_slates, len_list, 1))
    action = (uniform > np.cumsum(logging[query], axis=2)).sum(axis=2)
    action = np.minimum(action, n_actions - 1)
    queries = query[:, None]
    positions = np.arange(len_list)[None, :]
    p_logging = logging[queries, positions, action]
    p_target = target[queries, positions, action]
    reward = (rng.random((n_slates, len_list)) < gamma * attractiveness[queries, action]) * 1.0
    true_value = float(
        (target * gamma[None, :, None] * attractiveness[:, None, :]).sum() / n_queries
    )
    q_hat = gamma[None, :, None] * (attractiveness * error)[query][:, None, :]
    q_hat = np.broadcast_to(q_hat, (n_slates, len_list, n_actions))
    slate_logging = np.repeat(p_logging.prod(axis=1, keepdims=True), len_list, axis=1)
    slate_target = np.repeat(p_target.prod(axis=1, keepdims=True), len_list, axis=1)
    log = pl.DataFrame(
        {
            "slate_id": np.repeat(np.arange(n_slates), len_list),
            "query": np.repeat(query, len_list),
            "position": np.tile(np.arange(len_list), n_slates),
            "action": action.ravel(),
            "reward": reward.ravel(),
            "pscore": slate_logging.ravel(),
            "evaluation_policy_pscore": slate_target.ravel(),
            "pscore_item_position": p_logging.ravel(),
            "evaluation_policy_pscore_item_position": p_target.ravel(),
            "pscore_cascade": _cumulative(p_logging).ravel(),
            "evaluation_policy_pscore_cascade": _cumulative(p_target).ravel(),
            "q_hat": q_hat.reshape(-1, n_actions),
            "evaluation_policy_action_dist": target[query].reshape(-1, n_actions),
        },
        schema_overrides={
            "q_hat": pl.List(pl.Float64),
            "evaluation_policy_action_dist": pl.List(pl.Float64),
        },
    )
    return SyntheticLogs(log, true_value, [float(g) for g in gamma])
