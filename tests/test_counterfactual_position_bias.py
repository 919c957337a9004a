"""The PBM by EM against a slow reference EM from the book's equations, recovery of known
parameters from simulated clicks, and intervention harvesting."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from polars_rankmetrics import counterfactual as cf


def reference_pbm(rows: list[tuple[str, str, int, int]], n_iterations: int, initial: float):
    """Chuklin, Markov and de Rijke (2015), section 4.2: EM for the PBM, one session row at
    a time; returns the log-likelihood before each iteration and after the last, and the
    parameters."""
    alpha = {(q, d): initial for q, d, _, _ in rows}
    gamma = {r: initial for _, _, r, _ in rows}

    def log_likelihood() -> float:
        total = 0.0
        for q, d, r, c in rows:
            p = gamma[r] * alpha[q, d]
            total += math.log(p) if c else math.log(1 - p)
        return total

    history = []
    for _ in range(n_iterations):
        history.append(log_likelihood())
        a_num, a_den = defaultdict(float), defaultdict(float)
        g_num, g_den = defaultdict(float), defaultdict(float)
        for q, d, r, c in rows:
            a, g = alpha[q, d], gamma[r]
            if c:
                a_post = g_post = 1.0
            else:
                a_post = a * (1 - g) / (1 - g * a)  # P(A = 1 | C = 0)
                g_post = g * (1 - a) / (1 - g * a)  # P(E = 1 | C = 0)
            a_num[q, d] += a_post
            a_den[q, d] += 1
            g_num[r] += g_post
            g_den[r] += 1
        alpha = {key: a_num[key] / a_den[key] for key in alpha}
        gamma = {key: g_num[key] / g_den[key] for key in gamma}
    history.append(log_likelihood())
    return history, alpha, gamma


def simulate_pbm(seed: int, n_sessions: int, n_queries: int, n_docs: int, gamma: np.ndarray):
    """Clicks from a PBM with known gamma (gamma[0] = 1) and random alphas, documents shown
    in a random order each session (so every document is seen at every rank)."""
    rng = np.random.default_rng(seed)
    alpha = rng.uniform(0.05, 0.95, (n_queries, n_docs))
    query = rng.integers(0, n_queries, n_sessions)
    order = np.argsort(rng.random((n_sessions, n_docs)), axis=1)[:, : len(gamma)]
    ranks = np.tile(np.arange(len(gamma)), n_sessions)
    queries = np.repeat(query, len(gamma))
    docs = order.ravel()
    clicked = rng.random(len(docs)) < gamma[ranks] * alpha[queries, docs]
    frame = pl.DataFrame(
        {"query": queries, "document": docs, "rank": ranks + 1, "click": clicked.astype(int)}
    )
    return frame, alpha


def test_em_equals_the_reference() -> None:
    gamma = np.array([1.0, 0.7, 0.45, 0.3])
    frame, _ = simulate_pbm(0, 150, 3, 5, gamma)
    rows = [(str(q), str(d), r, c) for q, d, r, c in frame.iter_rows()]
    history, alpha, reference_gamma = reference_pbm(rows, 15, 0.4)
    model = cf.fit_pbm(
        frame.cast({"query": pl.String, "document": pl.String}), n_iterations=15, initial=0.4
    )
    assert model.n_iterations == 15
    assert model.log_likelihood == pytest.approx(history, rel=1e-9, abs=1e-9)
    for r, g in model.examination.select("rank", "gamma").iter_rows():
        assert g == pytest.approx(reference_gamma[r], rel=1e-9)
    for q, d, a in model.attractiveness.iter_rows():
        assert a == pytest.approx(alpha[q, d], rel=1e-9, abs=1e-12)
    # EM never lowers the likelihood
    assert all(b >= a - 1e-9 for a, b in itertools.pairwise(history))


def test_recovers_known_propensities(tmp_path: Path) -> None:
    # 40,000 impressions (10,000 sessions of 4 ranks, 10 queries of 6 documents): the
    # relative propensities come back within 0.05 after 200 iterations.
    gamma = np.array([1.0, 0.6, 0.35, 0.2])
    frame, _ = simulate_pbm(1, 10_000, 10, 6, gamma)
    path = tmp_path / "clicks.parquet"
    frame.write_parquet(path)
    model = cf.fit_pbm(pl.scan_parquet(path), n_iterations=200)
    got = model.examination["propensity"].to_numpy()
    assert np.abs(got - gamma).max() < 0.05
    harvested = cf.harvest_propensities(frame)["propensity"].to_numpy()
    assert np.abs(harvested - gamma).max() < 0.05


def test_tol_stops_early_and_no_variation_is_refused() -> None:
    frame, _ = simulate_pbm(2, 300, 2, 4, np.array([1.0, 0.5, 0.25]))
    model = cf.fit_pbm(frame, n_iterations=500, tol=1e-6)
    assert model.n_iterations < 500
    for value in (0, 1):
        with pytest.raises(ValueError, match="'click' has"):
            cf.fit_pbm(frame.with_columns(click=pl.lit(value)))
    with pytest.raises(ValueError, match="empty"):
        cf.fit_pbm(frame.clear())
    with pytest.raises(ValueError, match="0 or 1"):
        cf.fit_pbm(frame.with_columns(click=pl.col("click") * 2))
    with pytest.raises(ValueError, match="`click` column 'click' must hold numbers"):
        cf.fit_pbm(frame.with_columns(click=pl.col("click").cast(pl.String)))
    with pytest.raises(ValueError, match="initial"):
        cf.fit_pbm(frame, initial=1.0)


def test_harvesting_from_a_few_rankers() -> None:
    # three deterministic rankers per query, each serving a third of the sessions: 30,000
    # sessions of 4 ranks; propensities relative to rank 1 within 0.05.
    rng = np.random.default_rng(3)
    gamma = np.array([1.0, 0.6, 0.35, 0.2])
    n_queries, n_docs, n_sessions = 30, 6, 30_000
    alpha = rng.uniform(0.05, 0.95, (n_queries, n_docs))
    rankers = np.argsort(rng.random((3, n_queries, n_docs)), axis=2)[:, :, :4]
    query = rng.integers(0, n_queries, n_sessions)
    ranker = rng.integers(0, 3, n_sessions)
    docs = rankers[ranker, query].ravel()
    queries = np.repeat(query, 4)
    ranks = np.tile(np.arange(4), n_sessions)
    clicked = rng.random(len(docs)) < gamma[ranks] * alpha[queries, docs]
    frame = pl.DataFrame(
        {"query": queries, "document": docs, "rank": ranks + 1, "click": clicked.astype(int)}
    )
    harvested = cf.harvest_propensities(frame)
    assert (harvested["n_pairs"] > 0).all()
    assert np.abs(harvested["propensity"].to_numpy() - gamma).max() < 0.05
