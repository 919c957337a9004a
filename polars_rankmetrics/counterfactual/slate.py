r"""Open Bandit Pipeline's slate estimators as polars expressions.

Each function returns one ``pl.Expr`` that estimates the value of an
evaluation policy from a log with one row per (slate, position), as obp 0.5.7's
``estimate_policy_value`` does (Saito et al., *Open Bandit Dataset and
Pipeline*, NeurIPS 2021 Datasets and Benchmarks; ``obp/ope/estimators_slate.py``),
to the last bit of arithmetic: per row a weight :math:`w = \pi_e / \pi_b`, the
estimated reward :math:`r\,w`, and the value is their sum over the log divided
by the number of distinct slates :math:`n`:

.. math:: \hat V = \frac{1}{n} \sum_{i, k} r_i(k)\, \frac{\pi_e}{\pi_b}(i, k)

The estimators differ in which probability the weight is a ratio of, i.e. what
the columns hold (obp's names):

- :func:`slate_standard_ips` (``sips``; McInerney et al., 2020): ``pscore``,
  the probability of the whole slate, the same on every row of it. No
  assumption about the user.
- :func:`slate_independent_ips` (``iips``; Li et al., 2018):
  ``pscore_item_position``, the marginal probability of the item at its
  position. Assumes the item-position model (the reward at a position depends
  on that position's item only).
- :func:`slate_reward_interaction_ips` (``rips``; McInerney et al., 2020):
  ``pscore_cascade``, the probability of the slate's first ``k + 1`` items (a
  cumulative product, non-increasing along the slate). Assumes the cascade
  model (the reward at a position depends on the items above it).

The self-normalised forms (``snsips``, ``sniips``, ``snrips``; Swaminathan and
Joachims, 2015) divide each weight by the mean weight: over the whole log for
``snsips``, over the rows at the same position for ``sniips`` and
``snrips`` (obp's definitions). :func:`slate_cascade_dr` is obp's
``SlateCascadeDoublyRobust`` (Kiyohara et al., WSDM 2022).

**The log.** Each slate's rows come together, in position order, and a
slate of ``m`` rows holds the positions ``0 .. m - 1`` (0-based, as obp's
``position``): sort the log by slate and position first. Slates may differ
in length. In ``select`` the value is over the whole log; in
``group_by(segment).agg(...)`` one value per segment (a slate must not span
two segments). An empty log gives null.

**Bad data** raises ``ValueError`` at collect naming the column: a
propensity that is null, NaN, or outside (0, 1] (the logging policy's) or
[0, 1] (the evaluation policy's); a null or NaN reward; a reward, propensity
or position column that is not numeric; a position twice in a slate, a gap
or a position beyond the slate's length, rows out of order, a slate's rows
apart; a ``pscore`` that changes within a slate, or a ``pscore_cascade`` that
increases along one (a propensity of the wrong kind).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

import polars as pl

from polars_rankmetrics._validate import check_choice
from polars_rankmetrics.counterfactual._checks import (
    Check,
    checked,
    column,
    finite_checks,
    numeric,
    propensity_checks,
)
from polars_rankmetrics.counterfactual._runs import position_normalised_sum, structure_counts

Estimator: TypeAlias = Literal["sips", "iips", "rips", "snsips", "sniips", "snrips", "cascade-dr"]
"""obp's ``estimator_name`` of each slate estimator."""

Kind: TypeAlias = Literal["pscore", "pscore_item_position", "pscore_cascade"]
"""Which probability a propensity column holds (obp's names)."""

KIND: dict[str, Kind] = {
    "sips": "pscore",
    "snsips": "pscore",
    "iips": "pscore_item_position",
    "sniips": "pscore_item_position",
    "rips": "pscore_cascade",
    "snrips": "pscore_cascade",
    "cascade-dr": "pscore_cascade",
}
"""The propensity each estimator reads."""

_NORMALISED: dict[str, Literal["log", "position"]] = {
    "snsips": "log",
    "sniips": "position",
    "snrips": "position",
}


@dataclass(frozen=True)
class Slates:
    """The slate and position columns of a log, checked together."""

    slate: pl.Expr
    position: pl.Expr
    same_slate: pl.Expr
    """True on a row that follows the row above it in the same slate."""
    checks: tuple[Check, ...]
    n_slates: pl.Expr


@dataclass(frozen=True)
class Parts:
    """An estimator's per-row term, the log's slates and every check of its columns."""

    name: str
    raw: pl.Expr
    """The per-row term before self-normalisation (``reward * weight``; cascade DR's term)."""
    normalised: Literal["log", "position"] | None
    """Whose mean weight divides the weights: the log's, each position's, or none."""
    slates: Slates
    checks: tuple[Check, ...]
    weight: pl.Expr
    """The importance weight of each row (before self-normalisation)."""

    @property
    def term(self) -> pl.Expr:
        """The per-row term: ``raw`` over the mean weight of the self-normalised forms."""
        if self.normalised == "log":
            return self.raw / self.weight.mean()
        if self.normalised == "position":
            return self.raw / self.weight.mean().over(self.slates.position)
        return self.raw


def slates(slate_id: object, position: object) -> Slates:
    """The slate structure of a log: each slate's rows together, at positions 0, 1, ..."""
    slate = column(slate_id, "slate_id")
    where = column(position, "position")
    index = numeric(where, integer=True)
    same = (slate.expr == slate.expr.shift(1)).fill_null(False)
    # one slate per run of equal ids; a slate whose rows come apart makes two runs of one id,
    # so the distinct ids are counted among the runs' first rows only (a tenth of the log)
    n_slates = (~same).sum()
    distinct = slate.expr.filter(~same).n_unique()
    label = where.label
    checks = (
        Check(slate.expr.is_null().sum(), f"{slate.label} holds null ({{n}} rows)"),
        Check(index.is_null().sum(), f"{label} holds null ({{n}} rows)"),
        Check((index < 0).sum(), f"{label} must hold positions >= 0 ({{n}} rows below 0)"),
        Check(
            structure_counts(slate.expr, index),
            (
                f"{label}: a position twice in a slate ({{n}} rows)",
                f"{label}: rows out of order ({{n}} rows); sort the log by slate and position",
                f"{label}: positions beyond the slate's length or skipped ({{n}} rows); a slate "
                "of m rows holds the positions 0 .. m - 1, in order",
            ),
        ),
        Check(
            n_slates - distinct,
            f"{slate.label}: a slate's rows come apart ({{n}} slates); sort the log by slate",
        ),
    )
    return Slates(slate.expr, index, same, checks, n_slates)


def _kind_checks(values: pl.Expr, label: str, kind: Kind, same: pl.Expr) -> list[Check]:
    """A propensity of the wrong kind: ``pscore`` varies, ``pscore_cascade`` increases."""
    previous = values.shift(1)
    if kind == "pscore":
        changes = (same & (values != previous)).sum()
        return [
            Check(
                changes,
                f"{label} must be the same on every row of a slate (the probability of the "
                "whole slate); it changes on {n} rows: a per-position propensity belongs to "
                "slate_independent_ips, a cumulative one to slate_reward_interaction_ips",
            )
        ]
    if kind == "pscore_cascade":
        rises = (same & (values > previous)).sum()
        return [
            Check(
                rises,
                f"{label} must not increase along a slate (the probability of the slate's "
                "first k items); it increases on {n} rows: is it a per-position propensity "
                "(slate_independent_ips)?",
            )
        ]
    return []


def _inputs(
    structure: Slates, reward: object, pscore: object, evaluation: object, kind: Kind
) -> tuple[pl.Expr, pl.Expr, list[Check]]:
    """The reward and the importance weight, with the checks of their columns."""
    reward_col, logging, target = (
        column(reward, "reward"),
        column(pscore, kind),
        column(evaluation, f"evaluation_policy_{kind}"),
    )
    rewards, behaviour, evaluated = numeric(reward_col), numeric(logging), numeric(target)
    checks = [
        *finite_checks(rewards, reward_col.label),
        *propensity_checks(behaviour, logging.label, zero=False),
        *propensity_checks(evaluated, target.label, zero=True),
        *_kind_checks(behaviour, logging.label, kind, structure.same_slate),
        *_kind_checks(evaluated, target.label, kind, structure.same_slate),
    ]
    return rewards, evaluated / behaviour, checks


def ips_parts(
    name: str,
    *,
    slate_id: object,
    position: object,
    reward: object,
    pscore: object,
    evaluation_policy_pscore: object,
) -> Parts:
    """The parts of an IPS estimator, plain or self-normalised (``name``: obp's)."""
    structure = slates(slate_id, position)
    rewards, weight, checks = _inputs(
        structure, reward, pscore, evaluation_policy_pscore, KIND[name]
    )
    checks_all = (*structure.checks, *checks)
    return Parts(name, rewards * weight, _NORMALISED.get(name), structure, checks_all, weight)


def cascade_dr_parts(
    *,
    slate_id: object,
    position: object,
    reward: object,
    pscore_cascade: object,
    evaluation_policy_pscore_cascade: object,
    action: object,
    q_hat: object,
    evaluation_policy_action_dist: object,
) -> Parts:
    """The parts of obp's cascade doubly robust estimator."""
    structure = slates(slate_id, position)
    rewards, weight, checks = _inputs(
        structure, reward, pscore_cascade, evaluation_policy_pscore_cascade, "pscore_cascade"
    )
    actions = numeric(column(action, "action"), integer=True)
    predictions = column(q_hat, "q_hat")
    distribution = column(evaluation_policy_action_dist, "evaluation_policy_action_dist")
    logged = predictions.expr.list.get(actions, null_on_oob=True).cast(pl.Float64)
    expected = (predictions.expr * distribution.expr).list.sum().cast(pl.Float64)
    total = distribution.expr.list.sum().cast(pl.Float64)
    checks += [
        Check(
            logged.is_null().sum(),
            f"{predictions.label} has no value at the row's `action` ({{n}} rows): the "
            "action must be an index into the list (0 .. n_unique_action - 1)",
        ),
        *finite_checks(expected, f"{predictions.label} times {distribution.label}"),
        Check(
            ((total - 1.0).abs() > 1e-8 + 1e-5 * total.abs()).sum(),
            f"{distribution.label} must sum to 1 on each row ({{n}} rows do not)",
        ),
    ]
    previous = pl.when(structure.position == 0).then(1.0).otherwise(weight.shift(1))
    term = weight * (rewards - logged) + previous * expected
    return Parts("cascade-dr", term, None, structure, (*structure.checks, *checks), weight)


def value(parts: Parts) -> pl.Expr:
    """The estimate: the sum of the terms over the number of slates (null for none)."""
    n_slates = parts.slates.n_slates
    if parts.normalised == "position":
        total = position_normalised_sum(parts.slates.position, parts.raw, parts.weight)
    else:
        total = parts.term.sum()
    estimate = pl.when(n_slates > 0).then(total / n_slates)
    return checked(estimate, parts.checks, parts.name)


def _ips(name: str, **columns: object) -> pl.Expr:
    return value(ips_parts(name, **columns))


def slate_standard_ips(
    *,
    slate_id: str | pl.Expr = "slate_id",
    position: str | pl.Expr = "position",
    reward: str | pl.Expr = "reward",
    pscore: str | pl.Expr = "pscore",
    evaluation_policy_pscore: str | pl.Expr = "evaluation_policy_pscore",
) -> pl.Expr:
    r"""
    Slate standard IPS (obp's ``SlateStandardIPS``, ``sips``): whole-slate propensities.

    .. math:: \hat V = \frac{1}{n} \sum_{i, k} r_i(k)\,
        \frac{\pi_e(s_i)}{\pi_b(s_i)}

    ``pscore`` and ``evaluation_policy_pscore`` hold the probability of the
    whole slate :math:`s_i` under the logging and the evaluation policy, the
    same on every row of the slate. The module documentation states the log's
    layout and what is refused.

    Parameters
    ----------
    slate_id, position, reward, pscore, evaluation_policy_pscore
        The log's columns (names or expressions), obp's names by default.

    References
    ----------
    James McInerney, Brian Brost, Praveen Chandar, Rishabh Mehrotra and Ben
    Carterette, "Counterfactual Evaluation of Slate Recommendations with
    Sequential Reward Interactions", KDD 2020.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics import counterfactual as cf
    >>> log = pl.DataFrame(
    ...     {
    ...         "slate_id": [0, 0, 1, 1],
    ...         "position": [0, 1, 0, 1],
    ...         "reward": [1, 0, 1, 1],
    ...         "pscore": [0.5, 0.5, 0.25, 0.25],
    ...         "evaluation_policy_pscore": [0.25, 0.25, 0.5, 0.5],
    ...     }
    ... )
    >>> log.select(cf.slate_standard_ips(), cf.self_normalized_slate_standard_ips())
    shape: (1, 2)
    ┌──────┬────────┐
    │ sips ┆ snsips │
    │ ---  ┆ ---    │
    │ f64  ┆ f64    │
    ╞══════╪════════╡
    │ 2.25 ┆ 1.8    │
    └──────┴────────┘
    """
    return _ips(
        "sips",
        slate_id=slate_id,
        position=position,
        reward=reward,
        pscore=pscore,
        evaluation_policy_pscore=evaluation_policy_pscore,
    )


def self_normalized_slate_standard_ips(
    *,
    slate_id: str | pl.Expr = "slate_id",
    position: str | pl.Expr = "position",
    reward: str | pl.Expr = "reward",
    pscore: str | pl.Expr = "pscore",
    evaluation_policy_pscore: str | pl.Expr = "evaluation_policy_pscore",
) -> pl.Expr:
    r"""
    Self-normalised SIPS (obp's ``SelfNormalizedSlateStandardIPS``, ``snsips``).

    .. math:: \hat V = \frac{1}{n} \sum_{i, k} r_i(k)\, \frac{w_i}{\bar w},
        \quad w_i = \frac{\pi_e(s_i)}{\pi_b(s_i)}

    :math:`\bar w` is the mean weight over the rows of the log (of the segment
    in ``group_by``), as in obp: a slate of ``m`` rows counts ``m`` times.
    Parameters as :func:`slate_standard_ips`.
    """
    return _ips(
        "snsips",
        slate_id=slate_id,
        position=position,
        reward=reward,
        pscore=pscore,
        evaluation_policy_pscore=evaluation_policy_pscore,
    )


def slate_independent_ips(
    *,
    slate_id: str | pl.Expr = "slate_id",
    position: str | pl.Expr = "position",
    reward: str | pl.Expr = "reward",
    pscore_item_position: str | pl.Expr = "pscore_item_position",
    evaluation_policy_pscore_item_position: str | pl.Expr = (
        "evaluation_policy_pscore_item_position"
    ),
) -> pl.Expr:
    r"""
    Slate independent IPS (obp's ``SlateIndependentIPS``, ``iips``): item-position propensities.

    .. math:: \hat V = \frac{1}{n} \sum_{i, k} r_i(k)\,
        \frac{\pi_e(a_i(k) \mid k)}{\pi_b(a_i(k) \mid k)}

    The columns hold the marginal probability that the row's item is shown at
    the row's position. Unbiased under the item-position model.

    References
    ----------
    Shuai Li, Yasin Abbasi-Yadkori, Branislav Kveton, S. Muthukrishnan, Vishwa
    Vinay and Zheng Wen, "Offline Evaluation of Ranking Policies with Click
    Models", KDD 2018.
    """
    return _ips(
        "iips",
        slate_id=slate_id,
        position=position,
        reward=reward,
        pscore=pscore_item_position,
        evaluation_policy_pscore=evaluation_policy_pscore_item_position,
    )


def self_normalized_slate_independent_ips(
    *,
    slate_id: str | pl.Expr = "slate_id",
    position: str | pl.Expr = "position",
    reward: str | pl.Expr = "reward",
    pscore_item_position: str | pl.Expr = "pscore_item_position",
    evaluation_policy_pscore_item_position: str | pl.Expr = (
        "evaluation_policy_pscore_item_position"
    ),
) -> pl.Expr:
    """
    Self-normalised IIPS (obp's ``SelfNormalizedSlateIndependentIPS``, ``sniips``).

    Each weight is divided by the mean weight of the rows at the same position.
    """
    return _ips(
        "sniips",
        slate_id=slate_id,
        position=position,
        reward=reward,
        pscore=pscore_item_position,
        evaluation_policy_pscore=evaluation_policy_pscore_item_position,
    )


def slate_reward_interaction_ips(
    *,
    slate_id: str | pl.Expr = "slate_id",
    position: str | pl.Expr = "position",
    reward: str | pl.Expr = "reward",
    pscore_cascade: str | pl.Expr = "pscore_cascade",
    evaluation_policy_pscore_cascade: str | pl.Expr = "evaluation_policy_pscore_cascade",
) -> pl.Expr:
    r"""
    Slate reward interaction IPS (obp's ``SlateRewardInteractionIPS``, ``rips``).

    .. math:: \hat V = \frac{1}{n} \sum_{i, k} r_i(k)\,
        \frac{\pi_e(a_i(0..k))}{\pi_b(a_i(0..k))}

    The columns hold the probability of the slate's items at positions
    ``0 .. k`` (non-increasing along the slate). Unbiased under the cascade
    model.

    References
    ----------
    McInerney et al., KDD 2020 (as :func:`slate_standard_ips`).
    """
    return _ips(
        "rips",
        slate_id=slate_id,
        position=position,
        reward=reward,
        pscore=pscore_cascade,
        evaluation_policy_pscore=evaluation_policy_pscore_cascade,
    )


def self_normalized_slate_reward_interaction_ips(
    *,
    slate_id: str | pl.Expr = "slate_id",
    position: str | pl.Expr = "position",
    reward: str | pl.Expr = "reward",
    pscore_cascade: str | pl.Expr = "pscore_cascade",
    evaluation_policy_pscore_cascade: str | pl.Expr = "evaluation_policy_pscore_cascade",
) -> pl.Expr:
    """
    Self-normalised RIPS (obp's ``SelfNormalizedSlateRewardInteractionIPS``, ``snrips``).

    Each weight is divided by the mean weight of the rows at the same position.
    """
    return _ips(
        "snrips",
        slate_id=slate_id,
        position=position,
        reward=reward,
        pscore=pscore_cascade,
        evaluation_policy_pscore=evaluation_policy_pscore_cascade,
    )


def slate_cascade_dr(
    *,
    slate_id: str | pl.Expr = "slate_id",
    position: str | pl.Expr = "position",
    reward: str | pl.Expr = "reward",
    pscore_cascade: str | pl.Expr = "pscore_cascade",
    evaluation_policy_pscore_cascade: str | pl.Expr = "evaluation_policy_pscore_cascade",
    action: str | pl.Expr = "action",
    q_hat: str | pl.Expr = "q_hat",
    evaluation_policy_action_dist: str | pl.Expr = "evaluation_policy_action_dist",
) -> pl.Expr:
    r"""
    Cascade doubly robust (obp's ``SlateCascadeDoublyRobust``, ``cascade-dr``).

    .. math:: \hat V = \frac{1}{n} \sum_{i, k} \Big( w_i(k)\,
        \big(r_i(k) - \hat q_i(k, a_i(k))\big)
        + w_i(k - 1) \sum_a \pi_e(a \mid k)\, \hat q_i(k, a) \Big)

    :math:`w_i(k)` is RIPS' weight and :math:`w_i(-1) = 1`. ``q_hat`` is a
    list column: the reward model's prediction for each action at the row's
    position (obp's ``q_hat`` reshaped to one list per row), and
    ``evaluation_policy_action_dist`` the evaluation policy's probability of
    each action there (a list of the same length, summing to 1); ``action``
    is the logged action, an index into those lists.

    References
    ----------
    Haruka Kiyohara, Yuta Saito, Tatsuya Matsuhiro, Yusuke Narita, Nobuyuki
    Shimizu and Yasuo Yamamoto, "Doubly Robust Off-Policy Evaluation for
    Ranking Policies under the Cascade Behavior Model", WSDM 2022.
    """
    return value(
        cascade_dr_parts(
            slate_id=slate_id,
            position=position,
            reward=reward,
            pscore_cascade=pscore_cascade,
            evaluation_policy_pscore_cascade=evaluation_policy_pscore_cascade,
            action=action,
            q_hat=q_hat,
            evaluation_policy_action_dist=evaluation_policy_action_dist,
        )
    )


def check_estimator(name: object) -> Estimator:
    """``name`` if it is one of obp's estimator names."""
    check_choice(name, "estimators", Estimator)
    return name  # type: ignore[return-value]
