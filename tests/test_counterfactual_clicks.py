"""IPS metrics from clicks against slow references and their unbiasedness, and the simulator's
slate estimators' unbiasedness over seeded replications."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from polars_rankmetrics import counterfactual as cf

GAMMA = np.array([1.0, 0.6, 0.35, 0.2, 0.12])


def clicked_sessions(seed: int, n_sessions: int, alpha: np.ndarray) -> pl.DataFrame:
    """Sessions of one query showing its documents in a random order, PBM clicks (GAMMA),
    and the new ranking's rank of each document (by descending alpha: the ideal one)."""
    rng = np.random.default_rng(seed)
    n_docs = len(alpha)
    shown = np.argsort(rng.random((n_sessions, n_docs)), axis=1).ravel()
    ranks = np.tile(np.arange(n_docs), n_sessions)
    relevant = rng.random(len(shown)) < alpha[shown]
    clicks = relevant & (rng.random(len(shown)) < GAMMA[ranks])
    new_rank = np.empty(n_docs, dtype=np.int64)
    new_rank[np.argsort(-alpha)] = np.arange(1, n_docs + 1)
    return pl.DataFrame(
        {
            "session": np.repeat(np.arange(n_sessions), n_docs),
            "click": clicks.astype(np.int64),
            "propensity": GAMMA[ranks],
            "new_rank": new_rank[shown],
        }
    )


def reference(frame: pl.DataFrame, k: int, clip: float | None, normalized: bool) -> dict:
    """DCG@k, P@k and R@k of one group from the formulas, row by row."""
    rows = [r for r in frame.iter_rows(named=True) if r["click"] == 1]
    weights = [1 / max(r["propensity"], clip or 0.0) for r in rows]
    if normalized and weights:
        mean = sum(weights) / len(weights)
        weights = [w / mean for w in weights]
    inside = [r["new_rank"] <= k for r in rows]
    dcg = sum(
        w / math.log2(1 + r["new_rank"]) for w, r, i in zip(weights, rows, inside, strict=True) if i
    )
    top = sum(w for w, i in zip(weights, inside, strict=True) if i)
    raw = [1 / max(r["propensity"], clip or 0.0) for r in rows]
    raw_top = sum(w for w, i in zip(raw, inside, strict=True) if i)
    recall = raw_top / sum(raw) if raw else None
    return {"ips_dcg": dcg, "ips_precision": top / k, "ips_recall": recall}


@pytest.mark.parametrize(("clip", "normalized"), [(None, False), (0.3, False), (0.3, True)])
def test_against_the_formulas(clip: float | None, normalized: bool) -> None:
    frame = clicked_sessions(0, 40, np.array([0.9, 0.5, 0.3, 0.1, 0.05]))
    values = (
        frame.group_by("session")
        .agg(
            cf.ips_dcg_at_k(
                "click", "propensity", "new_rank", 3, clip=clip, self_normalized=normalized
            ),
            cf.ips_precision_at_k(
                "click", "propensity", "new_rank", 3, clip=clip, self_normalized=normalized
            ),
            cf.ips_recall_at_k("click", "propensity", "new_rank", 3, clip=clip),
        )
        .sort("session")
    )
    for row in values.iter_rows(named=True):
        expected = reference(frame.filter(pl.col("session") == row["session"]), 3, clip, normalized)
        for name, value in expected.items():
            if value is None:
                assert row[name] is None
            else:
                assert row[name] == pytest.approx(value, rel=1e-12, abs=1e-12)


def test_ips_dcg_is_unbiased() -> None:
    # The true DCG@3 of the new ranking: each document relevant with probability alpha.
    alpha = np.array([0.9, 0.5, 0.3, 0.1, 0.05])
    order = np.sort(alpha)[::-1]
    truth = sum(order[r] / math.log2(2 + r) for r in range(3))
    estimates = []
    for seed in range(20):
        frame = clicked_sessions(seed, 500, alpha)
        per_session = frame.group_by("session").agg(
            cf.ips_dcg_at_k("click", "propensity", "new_rank", 3)
        )
        estimates.append(per_session["ips_dcg"].mean())
    mean, error = np.mean(estimates), np.std(estimates, ddof=1) / math.sqrt(len(estimates))
    assert abs(mean - truth) <= 2 * error


def test_simulator_ips_is_unbiased() -> None:
    # 60 seeded replications of 1,000 slates: each estimator's mean error within two
    # standard errors of 0 (SIPS' weights are heavy-tailed: it needs the 60).
    names = ["sips", "iips", "rips"]
    errors = []
    for seed in range(60):
        synthetic = cf.synthetic_slate_logs(1000, seed=seed)
        values = cf.estimate(synthetic.log, names, n_bootstrap_samples=1)["estimate"]
        errors.append(values.to_numpy() - synthetic.true_value)
    table = np.array(errors)
    mean = table.mean(axis=0)
    error = table.std(axis=0, ddof=1) / math.sqrt(len(table))
    assert (np.abs(mean) <= 2 * error).all(), (mean, error)


def test_simulator_is_deterministic() -> None:
    first, second = cf.synthetic_slate_logs(50, seed=3), cf.synthetic_slate_logs(50, seed=3)
    assert first.log.equals(second.log) and first.true_value == second.true_value
    assert not first.log.equals(cf.synthetic_slate_logs(50, seed=4).log)
