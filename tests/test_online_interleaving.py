"""Interleaving: the lists against the papers' pseudo-code, the credit against hand-worked cases.

Each reference below is the paper's algorithm written line by line for one
ranking pair, drawing its random bits from the same per-row stream as the
library (``draws.draw(key, t)``: the ``t``-th choice of a row uses its ``t``-th
draw). The lists must be equal for every seed and every pair of small rankings.
"""

from __future__ import annotations

import itertools
import math
import random

import polars as pl
import pytest
from scipy import stats

from polars_rankmetrics import online
from polars_rankmetrics.online.draws import draw

SEEDS = range(8)


def row_key(query: int, seed: int) -> int:
    return pl.select(pl.lit(query, pl.Int64).hash(seed)).item()


def team_draft_reference(a: list, b: list, key: int, k: int | None = None) -> tuple[list, list]:
    """Radlinski, Kurup and Joachims (2008), algorithm 2 (RandBit: draw t < 1/2 picks A)."""
    shown, teams, team_a, team_b = [], [], 0, 0
    t = 0
    while any(d not in shown for d in a) and any(d not in shown for d in b):
        if k is not None and len(shown) >= k:
            break
        if team_a < team_b or (team_a == team_b and draw(key, t) < 0.5):
            shown.append(next(d for d in a if d not in shown))
            teams.append(0)
            team_a += 1
        else:
            shown.append(next(d for d in b if d not in shown))
            teams.append(1)
            team_b += 1
        t += 1
    return shown, teams


def balanced_reference(a: list, b: list, key: int) -> list:
    """Radlinski, Kurup and Joachims (2008), algorithm 1 (Joachims 2003's balanced interleaving)."""
    shown, ka, kb = [], 0, 0
    a_first = draw(key, 0) < 0.5
    while ka < len(a) and kb < len(b):
        if ka < kb or (ka == kb and a_first):
            if a[ka] not in shown:
                shown.append(a[ka])
            ka += 1
        else:
            if b[kb] not in shown:
                shown.append(b[kb])
            kb += 1
    return shown


def probabilistic_reference(a: list, b: list, key: int, tau: float = 3.0) -> tuple[list, list]:
    """Hofmann, Whiteson and de Rijke (2011): a softmax per ranking, a coin per position."""
    documents = sorted(set(a) | set(b))

    def rank(ranking: list, d) -> int:
        return ranking.index(d) + 1 if d in ranking else len(ranking) + 1

    shown, p_a = [], []
    for t in range(len(documents)):
        left = [d for d in documents if d not in shown]
        weights = [{d: rank(r, d) ** -tau for d in left} for r in (a, b)]
        totals = [0.0, 0.0]
        for i in range(2):
            for d in left:
                totals[i] += weights[i][d]
        chosen = 0 if draw(key, 2 * t) < 0.5 else 1
        target = draw(key, 2 * t + 1) * totals[chosen]
        cumulative, pick = 0.0, left[-1]
        for d in left:
            cumulative += weights[chosen][d]
            if cumulative > target:
                pick = d
                break
        pa, pb = weights[0][pick] / totals[0], weights[1][pick] / totals[1]
        p_a.append(pa / (pa + pb))
        shown.append(pick)
    return shown, p_a


def multileave_reference(rankings: list[list], key: int) -> tuple[list, list]:
    """Schuth et al. (2014), team draft multileave: a uniform pick among the smallest teams."""
    shown, teams, sizes, t = [], [], [0] * len(rankings), 0
    while all(any(d not in shown for d in r) for r in rankings):
        smallest = [i for i, size in enumerate(sizes) if size == min(sizes)]
        ranker = smallest[math.floor(draw(key, t) * len(smallest))]
        shown.append(next(d for d in rankings[ranker] if d not in shown))
        teams.append(ranker)
        sizes[ranker] += 1
        t += 1
    return shown, teams


def small_pairs(seed: int, n: int = 40) -> pl.DataFrame:
    rng = random.Random(seed)
    rows = []
    for query in range(n):
        universe = list(range(rng.randint(1, 6)))
        a = rng.sample(universe, rng.randint(1, len(universe)))
        b = rng.sample(universe, rng.randint(1, len(universe)))
        rows.append((query, a, b))
    return pl.DataFrame(rows, schema=["query", "a", "b"], orient="row")


@pytest.mark.parametrize("seed", SEEDS)
def test_team_draft_and_balanced_equal_the_pseudo_code(seed: int) -> None:
    pairs = small_pairs(seed)
    out = pairs.with_columns(
        online.team_draft("a", "b", seed=seed, key="query").alias("td"),
        online.balanced("a", "b", seed=seed, key="query").alias("bi"),
        online.team_draft("a", "b", seed=seed, key="query", k=3).alias("td3"),
    )
    for query, a, b, td, bi, td3 in out.iter_rows():
        key = row_key(query, seed)
        assert (td["document"], td["team"]) == team_draft_reference(a, b, key)
        assert (td3["document"], td3["team"]) == team_draft_reference(a, b, key, k=3)
        assert bi["document"] == balanced_reference(a, b, key)
        assert bi["rank_a"] == [a.index(d) + 1 if d in a else 0 for d in bi["document"]]
        assert bi["rank_b"] == [b.index(d) + 1 if d in b else 0 for d in bi["document"]]


@pytest.mark.parametrize("seed", SEEDS)
def test_probabilistic_and_multileave_equal_the_pseudo_code(seed: int) -> None:
    pairs = small_pairs(seed).with_columns(c=pl.col("b").list.reverse())
    out = pairs.with_columns(
        online.probabilistic("a", "b", seed=seed, key="query").alias("pi"),
        online.team_draft_multileave(["a", "b", "c"], seed=seed, key="query").alias("tdm"),
        online.team_draft_multileave(["a", "b"], seed=seed, key="query").alias("tdm2"),
        online.team_draft("a", "b", seed=seed, key="query").alias("td"),
    )
    for query, a, b, c, pi, tdm, tdm2, td in out.iter_rows():
        key = row_key(query, seed)
        documents, p_a = probabilistic_reference(a, b, key)
        assert pi["document"] == documents
        assert pi["p_a"] == pytest.approx(p_a, abs=1e-12)
        assert (tdm["document"], tdm["team"]) == multileave_reference([a, b, c], key)
        assert tdm2 == td  # two rankings: team draft


def test_every_pair_of_permutations_of_three() -> None:
    """All 36 ordered pairs of permutations of 3 documents, 16 seeds each."""
    permutations = [list(p) for p in itertools.permutations("xyz")]
    rows = [(i, a, b) for i, (a, b) in enumerate(itertools.product(permutations, repeat=2))]
    pairs = pl.DataFrame(rows, schema=["query", "a", "b"], orient="row")
    for seed in range(16):
        out = pairs.with_columns(online.team_draft("a", "b", seed=seed, key="query").alias("td"))
        for query, a, b, td in out.iter_rows():
            assert (td["document"], td["team"]) == team_draft_reference(a, b, row_key(query, seed))


def test_the_default_key_is_the_rankings_and_the_lists_are_row_order_free() -> None:
    pairs = small_pairs(3)
    first = pairs.select(online.team_draft("a", "b", seed=1)).to_series()
    again = pairs.reverse().select(online.team_draft("a", "b", seed=1)).to_series().reverse()
    assert first.to_list() == again.to_list()
    lazy = pairs.lazy().select(online.team_draft("a", "b", seed=1)).collect().to_series()
    assert lazy.to_list() == first.to_list()


# Credit: hand-worked examples.
def test_team_draft_credit_counts_clicks_per_team() -> None:
    shown = pl.DataFrame(
        {
            "interleaved": [{"document": ["a", "b", "c", "d"], "team": [0, 1, 1, 0]}] * 4,
            "clicks": [[1, 0, 0, 0], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 0, 0]],
        }
    )
    outcome = shown.select(online.interleaving_outcome("interleaved", "clicks")).to_series()
    assert outcome.to_list() == [1.0, -1.0, 0.0, 0.0]


def test_balanced_credit_joachims() -> None:
    # A = d1 d2 d3 d4, B = d2 d5 d1 d6, A first: d1 d2 d5 d3 d4 (d2 and d1 are not repeated)
    pairs = pl.DataFrame({"a": [["d1", "d2", "d3", "d4"]], "b": [["d2", "d5", "d1", "d6"]]})
    key = next(s for s in range(100) if draw(row_key(0, s), 0) < 0.5)  # a seed where A goes first
    shown = pairs.with_columns(q=0).select(online.balanced("a", "b", seed=key, key="q"))
    assert shown.item()["document"] == ["d1", "d2", "d5", "d3", "d4"]
    clicks = pl.Series(
        "clicks", [[0, 0, 1, 1, 0], [0, 0, 1, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 1]]
    )
    outcome = (
        pl.concat([shown] * 4)
        .with_columns(clicks)
        .select(online.interleaving_outcome("interleaved", "clicks"))
        .to_series()
    )
    # d5 and d3: lowest d3 (A's 3rd) -> k = 3, A's top 3 hold d3, B's hold d5: tie
    # d5 only: B's 2nd -> k = 2, B's top 2 hold it, A's do not: B wins
    # d1 only: k = 1 -> A wins; d4 only: A's 4th -> k = 4, B has no d4: A wins
    assert outcome.to_list() == [0.0, -1.0, 1.0, 1.0]


def test_probabilistic_credit_marginalises_over_the_assignments() -> None:
    shown = pl.DataFrame(
        {
            "interleaved": [
                {"document": ["a", "b", "c"], "team": [0, 1, 0], "p_a": [0.8, 0.5, 0.3]}
            ]
            * 2,
            "clicks": [[1, 0, 1], [0, 1, 0]],
        }
    )
    outcome = shown.select(online.interleaving_outcome("interleaved", "clicks")).to_series()
    # clicks on a (A w.p. 0.8) and c (A w.p. 0.3): P(A, A) - P(B, B) = 0.24 - 0.14
    assert outcome.to_list() == pytest.approx([0.10, 0.0], abs=1e-15)


@pytest.mark.parametrize(
    ("wins", "ties", "losses"), [(0, 0, 0), (3, 1, 1), (12, 5, 3), (40, 0, 60), (7, 2, 7)]
)
def test_preference_and_sign_test_against_scipy(wins: int, ties: int, losses: int) -> None:
    outcomes = pl.Series("outcome", [1.0] * wins + [0.0] * ties + [-1.0] * losses, pl.Float64)
    table = online.interleaving_preference(outcomes).row(0, named=True)
    assert (table["wins"], table["ties"], table["losses"]) == (wins, ties, losses)
    n = wins + ties + losses
    if n:
        assert table["preference"] == pytest.approx((wins + ties / 2) / n - 0.5)
    expected = stats.binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
    assert table["p_value"] == pytest.approx(expected, rel=1e-9)


def test_multileave_credit_and_preferences() -> None:
    shown = pl.DataFrame(
        {
            "interleaved": [{"document": [1, 2, 3, 4], "team": [0, 1, 2, 0]}] * 2,
            "clicks": [[1, 0, 0, 1], [0, 1, 1, 0]],
        }
    )
    counts = shown.select(online.team_clicks("interleaved", "clicks", 3)).to_series()
    assert counts.to_list() == [[2, 0, 0], [0, 1, 1]]
    table = online.multileave_preferences(counts)
    assert table.select("ranking", "other", "wins", "ties", "losses").rows() == [
        (0, 1, 1, 0, 1),
        (0, 2, 1, 0, 1),
        (1, 2, 0, 2, 0),
    ]


# Agreement with the simulated users' true preference.
def agreement(method: str, n_queries: int = 200, impressions: int = 20, seed: int = 0) -> float:
    """The share of queries where the interleaving verdict has the sign of the nDCG@10 difference.

    Set-up: per query, 20 documents with relevance 0 (3 in 5), 1 or 2 (1 in 5 each);
    rankings A and B sort them by relevance plus Gaussian noise, each with its own
    scale per query (uniform in [0.2, 2]), so that either can be the better; the
    interleaved top 10 is shown ``impressions`` times to DBN users (attractiveness
    0.05 / 0.5 / 0.95, satisfaction 0 / 0.3 / 0.7 by relevance, gamma 0.9). The
    verdict of a query is the sign of its mean outcome; the truth, the sign of
    nDCG@10(A) - nDCG@10(B), counted where it is at least 0.1 apart.
    """
    import numpy as np

    import polars_rankmetrics as rm

    rng = np.random.default_rng(seed)
    judged = pl.DataFrame(
        {
            "query": np.repeat(np.arange(n_queries), 20),
            "document": np.tile(np.arange(20), n_queries),
            "relevance": rng.choice([0, 0, 0, 1, 2], size=20 * n_queries),
        }
    )
    scale = [rng.uniform(0.2, 2.0, n_queries)[judged["query"].to_numpy()] for _ in range(2)]
    judged = judged.with_columns(
        a=pl.col("relevance") + pl.Series(rng.normal(size=judged.height) * scale[0]),
        b=pl.col("relevance") + pl.Series(rng.normal(size=judged.height) * scale[1]),
    )
    offline = judged.group_by("query").agg(
        delta=rm.ndcg_at_k("relevance", 10, by="a") - rm.ndcg_at_k("relevance", 10, by="b")
    )
    lists = judged.group_by("query").agg(
        pl.col("document").sort_by(side, descending=True).head(10).alias(side.upper())
        for side in ("a", "b")
    )
    grade = pl.col("relevance")
    users = online.ClickModel(
        "dbn",
        attractiveness=judged.select(
            "query", "document", attractiveness=grade.replace_strict({0: 0.05, 1: 0.5, 2: 0.95})
        ),
        satisfaction=judged.select(
            "query", "document", satisfaction=grade.replace_strict({0: 0.0, 1: 0.3, 2: 0.7})
        ),
        continuation=0.9,
    )
    interleave = getattr(online, method)
    shown = (
        lists.join(pl.DataFrame({"impression": range(impressions)}), how="cross")
        .with_columns(session=pl.col("query") * 1000 + pl.col("impression"))
        .with_columns(interleave("A", "B", seed=seed, key="session"))
    )
    long = (
        shown.select("session", "query", pl.col("interleaved").struct.field("document"))
        .explode("document")
        .with_columns(rank=pl.int_range(1, pl.len() + 1).over("session"))
    )
    clicks = (
        online.simulate(users, long, seed=seed + 1)
        .group_by("session")
        .agg(pl.col("click").sort_by("rank"))
    )
    outcome = shown.join(clicks, on="session").select(
        "query", online.interleaving_outcome("interleaved", "click")
    )
    verdicts = outcome.group_by("query").agg(pl.col("outcome").mean()).join(offline, on="query")
    decided = verdicts.filter(pl.col("delta").abs() >= 0.1)
    return float((decided["outcome"].sign() == decided["delta"].sign()).mean())


AGREEMENT = {"team_draft": 0.70, "balanced": 0.70, "probabilistic": 0.75}
"""At least this share of the queries (200 queries x 20 impressions; about 115 differ by 0.1 in
nDCG@10). Measured with seeds 0 and 1: team draft 0.73 and 0.75, balanced 0.75 and 0.74,
probabilistic 0.80 and 0.78. Radlinski et al. (2008) and Hofmann et al. (2011) report verdicts
that agree with the known ordering of ranker pairs over many queries; per query, 20
impressions of a DBN user are a noisier signal, and probabilistic interleaving's
marginalised credit the least noisy, as Hofmann et al. found."""


@pytest.mark.parametrize("method", list(AGREEMENT))
def test_interleaving_agrees_with_the_simulated_users_preference(method: str) -> None:
    assert agreement(method) >= AGREEMENT[method]
