"""Every worked example in ../shared/seeds, as printed there.

The seeds print values rounded to two or three places; each test compares at
that precision, and where a seed gives the exact fraction, exactly.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_rankmetrics as rm


def ranked(relevance: list[int], n_unretrieved_relevant: int = 0) -> pl.DataFrame:
    """Rows in rank order (descending scores), plus relevant rows never retrieved."""
    n = len(relevance)
    return pl.DataFrame(
        {
            "score": [float(n - i) for i in range(n)] + [None] * n_unretrieved_relevant,
            "relevance": relevance + [1] * n_unretrieved_relevant,
        }
    )


# --- seed 001: precision, recall, F-beta -------------------------------------------------

# pred/truth table: predictions True for rows 1, 2 and 6; truths True for rows 1-4.
PRED = [True, True, False, False, False, True, False, False]
TRUTH = [True, True, True, True, False, False, False, False]


def predicted_first() -> pl.DataFrame:
    # A classifier's positive predictions are its top k = 3 ranks.
    return pl.DataFrame({"score": [float(p) for p in PRED], "relevance": TRUTH})


def test_seed001_precision_and_recall() -> None:
    df = predicted_first()
    out = df.select(
        p=rm.precision_at_k("relevance", 3, by="score"),
        r=rm.recall_at_k("relevance", 3, by="score"),
    )
    assert out.row(0) == pytest.approx((2 / 3, 0.5))
    assert round(out["p"].item(), 2) == 0.67


@pytest.mark.parametrize(("beta", "printed"), [(0.5, 0.63), (1.0, 0.57), (2.0, 0.53)])
def test_seed001_f_beta(beta: float, printed: float) -> None:
    value = predicted_first().select(rm.f_beta_at_k("relevance", 3, beta=beta, by="score"))
    precision, recall = 2 / 3, 0.5
    exact = (1 + beta**2) * precision * recall / (beta**2 * precision + recall)
    assert value.item() == pytest.approx(exact)
    # The seed computes from the rounded P = 0.67, R = 0.50.
    rounded = (1 + beta**2) * 0.67 * 0.5 / (beta**2 * 0.67 + 0.5)
    assert round(rounded, 2) == printed
    assert value.item() == pytest.approx(printed, abs=0.01)


PR_SCORES = [
    0.349,
    -1.084,
    -0.270,
    0.360,
    0.898,
    -1.923,
    0.552,
    -2.273,
    -1.986,
    -0.122,
    -1.738,
    -3.082,
]
PR_TRUTH = [True, False, False, True, True, True, True, False, False, True, False, False]
PLOT_DATA = [  # threshold, precision, recall, as printed in the seed's "Plot data" table
    (0.898, 1.00, 0.17),
    (0.552, 1.00, 0.33),
    (0.360, 1.00, 0.50),
    (0.349, 1.00, 0.67),
    (-0.122, 1.00, 0.83),
    (-0.270, 0.83, 0.83),
    (-1.084, 0.71, 0.83),
    (-1.738, 0.62, 0.83),
    (-1.923, 0.67, 1.00),
    (-1.986, 0.60, 1.00),
    (-2.273, 0.55, 1.00),
    (-3.082, 0.50, 1.00),
]


def test_seed001_pr_curve_plot_data() -> None:
    df = pl.DataFrame({"score": PR_SCORES, "truth": PR_TRUTH})
    points = df.select(rm.pr_curve("truth", by="score").explode()).unnest("truth")
    got = [
        (row["threshold"], round(row["precision"], 2), round(row["recall"], 2))
        for row in points.iter_rows(named=True)
    ]
    assert got == PLOT_DATA


def test_seed001_threshold_zero_point() -> None:
    # "If we assume a classification threshold of 0 ... recall = 0.67 and precision = 1.00."
    df = pl.DataFrame({"score": PR_SCORES, "truth": PR_TRUTH})
    out = df.select(rm.binned_pr_curve("truth", [0.0], by="score").explode()).unnest("truth")
    assert out.select("tp", "pp").row(0) == (4, 4)
    assert round(out["recall"].item(), 2) == 0.67
    assert out["precision"].item() == 1.0


SCORES_A = [0.95, 0.85, 0.73, 0.62, 0.48, 0.39, 0.12, 0.04]
SCORES_B = [0.55, 0.59, 0.88, 0.97, 0.20, 0.09, 0.43, 0.32]
TRUTHS = [True, True, False, False, True, True, False, False]


def test_seed001_average_precision_models_a_and_b() -> None:
    df = pl.DataFrame({"a": SCORES_A, "b": SCORES_B, "truth": TRUTHS})
    out = df.select(
        a=rm.average_precision("truth", by="a"),
        b=rm.average_precision("truth", by="b"),
    )
    # Formula 2 of the seed, with the precisions it lists.
    assert out["a"].item() == pytest.approx((1 + 1 + 3 / 5 + 4 / 6) / 4)
    assert out["b"].item() == pytest.approx((1 / 3 + 2 / 4 + 3 / 7 + 4 / 8) / 4)
    assert round(out["a"].item(), 2) == 0.82
    assert round(out["b"].item(), 2) == 0.44


def test_seed001_ap_is_the_area_under_the_step_pr_curve() -> None:
    # AveP = sum P(k) Δr(k) (formula 1) over the exact PR curve.
    df = pl.DataFrame({"score": PR_SCORES, "truth": PR_TRUTH})
    points = df.select(rm.pr_curve("truth", by="score").explode()).unnest("truth")
    delta_recall = points["recall"].diff().fill_null(points["recall"][0])
    area = (points["precision"] * delta_recall).sum()
    assert df.select(rm.average_precision("truth", by="score")).item() == pytest.approx(area)


MOVIES = [  # k, pred_score, truth
    (1, 0.94, False), (2, 0.91, False), (3, 0.90, True), (4, 0.66, True),
    (5, 0.63, True), (6, 0.57, True), (7, 0.37, False), (8, 0.27, True),
    (9, 0.21, True), (10, 0.20, True), (11, 0.18, False), (12, 0.06, False),
]  # fmt: skip


def test_seed001_precision_at_5_movies() -> None:
    df = pl.DataFrame({"score": [m[1] for m in MOVIES], "truth": [m[2] for m in MOVIES]})
    assert df.select(rm.precision_at_k("truth", 5, by="score")).item() == 3 / 5


def test_seed001_precision_at_k_counts_missing_ranks_as_not_relevant() -> None:
    # "If a model returns m < k ... treat the next k - m predictions as False Positive."
    df = ranked([1, 1])  # two retrieved, both relevant
    assert df.select(rm.precision_at_k("relevance", 5, by="score")).item() == 2 / 5
    # and a relevant row with a null score (not retrieved) does not fill a rank
    df = ranked([1, 1], n_unretrieved_relevant=3)
    assert df.select(rm.precision_at_k("relevance", 5, by="score")).item() == 2 / 5


AP3_SCORES = [0.840, -0.085, -0.264, -0.463, -0.551, -0.579, -0.708, -1.108, -1.170, -1.593]
AP3_TRUTH = [True, True, False, True, True, False, False, False, False, False]


def test_seed001_ap_at_3() -> None:
    df = pl.DataFrame({"score": AP3_SCORES, "truth": AP3_TRUTH}).sample(
        fraction=1, shuffle=True, seed=1
    )
    value = df.select(rm.ap_at_k("truth", 3, by="score")).item()
    assert value == pytest.approx(2 / 3)  # (1.00 + 1.00) / min(3, 4)
    assert round(value, 2) == 0.67


def test_seed001_map_and_map_at_k_are_means_over_queries() -> None:
    rows = [("A", s, t) for s, t in zip(SCORES_A, TRUTHS, strict=True)] + [
        ("B", s, t) for s, t in zip(SCORES_B, TRUTHS, strict=True)
    ]
    df = pl.DataFrame(rows, schema=["query", "score", "truth"], orient="row")
    per_query = df.group_by("query").agg(
        ap=rm.average_precision("truth", by="score"),
        ap3=rm.ap_at_k("truth", 3, by="score"),
    )
    means = per_query.select(pl.col("ap", "ap3").mean())
    assert means["ap"].item() == pytest.approx(
        ((1 + 1 + 3 / 5 + 4 / 6) / 4 + (1 / 3 + 2 / 4 + 3 / 7 + 4 / 8) / 4) / 2
    )
    # AP@3: A has hits at ranks 1, 2 (2 / 3); B has one hit, at rank 3 ((1/3) / 3).
    assert means["ap3"].item() == pytest.approx((2 / 3 + 1 / 9) / 2)


# --- seed 002: P@10 -----------------------------------------------------------------------


def test_seed002_precision_at_10() -> None:
    df = ranked([1, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1])
    assert df.select(rm.precision_at_k("relevance", 10, by="score")).item() == 0.6


# --- seed 003: the numpy implementation of recall@k and precision@k -----------------------


def seed003_recall_at_k(y_true: np.ndarray, y_score: np.ndarray, k: int) -> float:
    idx = np.argsort(-y_score, kind="stable")[:k]
    return float(y_true[idx].sum() / y_true.sum())


def seed003_precision_at_k(y_true: np.ndarray, y_score: np.ndarray, k: int) -> float:
    idx = np.argsort(-y_score, kind="stable")[:k]
    return float(y_true[idx].sum() / k)


@pytest.mark.parametrize("seed", range(5))
def test_seed003_numpy_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    y_true = (rng.random(200) < 0.2).astype(int)
    y_true[0] = 1
    y_score = rng.random(200).round(2)  # rounding makes ties; both keep input order
    df = pl.DataFrame({"y_true": y_true, "y_score": y_score})
    for k in (1, 5, 10, 50, 300):
        out = df.select(
            r=rm.recall_at_k("y_true", k, by="y_score"),
            p=rm.precision_at_k("y_true", k, by="y_score"),
        )
        assert out["r"].item() == pytest.approx(seed003_recall_at_k(y_true, y_score, k))
        assert out["p"].item() == pytest.approx(seed003_precision_at_k(y_true, y_score, k))


# --- seed 004: precision and recall at each rank, interpolated precision -------------------

# "14 documents: 1, 2, 4, 5 and 13 are relevant": recall and precision after each rank.
FOURTEEN = [
    ("0.2", "1"), ("0.4", "1"), ("0.4", "0.67"), ("0.6", "0.75"), ("0.8", "0.8"),
    ("0.8", "0.67"), ("0.8", "0.57"), ("0.8", "0.50"), ("0.8", "0.44"), ("0.8", "0.40"),
    ("0.8", "0.36"), ("0.8", "0.33"), ("1.0", "0.38"), ("1.0", "0.36"),
]  # fmt: skip


def test_seed004_precision_and_recall_at_each_rank() -> None:
    relevance = [int(i in {1, 2, 4, 5, 13}) for i in range(1, 15)]
    df = ranked(relevance).sample(fraction=1, shuffle=True, seed=3)
    out = (
        df.with_columns(pr=rm.cumulative_pr("relevance", by="score"))
        .sort("score", descending=True)
        .unnest("pr")
    )
    assert out["pp"].to_list() == list(range(1, 15))
    got = [(round(r, 2), round(p, 2)) for r, p in out.select("recall", "precision").iter_rows()]
    assert got == [(float(r), float(p)) for r, p in FOURTEEN]


def test_seed004_standard_recall_levels_example() -> None:
    # 8 ranks shown, 10 relevant in total: recall 10%, 10%, 20%, ... and precision.
    df = ranked([1, 0, 1, 0, 0, 0, 1, 1], n_unretrieved_relevant=6)
    out = df.select(rm.cumulative_pr("relevance", by="score").alias("pr")).unnest("pr").head(8)
    assert [round(r * 100) for r in out["recall"]] == [10, 10, 20, 20, 20, 20, 30, 40]
    assert [round(p * 100) for p in out["precision"]] == [100, 50, 67, 50, 40, 33, 43, 50]


def test_seed004_interpolated_precision_at_11_points() -> None:
    # Ranks 2, 5, 8 and 10 are relevant; 9 relevant documents exist.
    relevance = [0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0]
    df = ranked(relevance, n_unretrieved_relevant=5)
    curve = df.select(rm.interpolated_precision("relevance", by="score")).item().to_list()
    assert curve == pytest.approx([0.5, 0.5, 0.4, 0.4, 0.4, 0, 0, 0, 0, 0, 0])
    average = df.select(rm.interpolated_ap("relevance", by="score")).item()
    assert average == pytest.approx((0.5 + 0.5 + 0.4 + 0.4 + 0.4) / 11)
    # "Precision at this recall": the table's precisions at the relevant ranks.
    points = df.select(rm.cumulative_pr("relevance", by="score").alias("pr")).unnest("pr")
    at_relevant = points.head(12).filter(pl.Series(relevance) == 1)["precision"]
    assert [round(p, 3) for p in at_relevant] == [0.5, 0.4, 0.375, 0.4]


# --- seed 000: the binned PR curve -------------------------------------------------------


def seed000_binned(scores: np.ndarray, truth: np.ndarray, n_bins: int) -> list[tuple[int, int]]:
    """The seed's algorithm: sort descending, K bins, accumulate TP_i and PP_i."""
    order = np.argsort(-scores, kind="stable")
    bins = np.array_split(truth[order], n_bins)
    tp = pp = 0
    points = []
    for bin_truth in bins:
        tp += int(bin_truth.sum())
        pp += len(bin_truth)
        points.append((tp, pp))
    return points


@pytest.mark.parametrize(("n", "n_bins"), [(100, 10), (100, 4), (60, 60), (1000, 8)])
def test_seed000_equal_bins(n: int, n_bins: int) -> None:
    rng = np.random.default_rng(n + n_bins)
    scores, truth = rng.random(n), (rng.random(n) < 0.3).astype(int)
    df = pl.DataFrame({"score": scores, "truth": truth})
    out = df.select(rm.binned_pr_curve("truth", n_bins, by="score").explode()).unnest("truth")
    expected = seed000_binned(scores, truth, n_bins)
    assert list(out.select("tp", "pp").iter_rows()) == expected
    assert out["pp"].to_list() == [(i + 1) * n // n_bins for i in range(n_bins)]
    p = int(truth.sum())
    assert out["recall"].to_list() == pytest.approx([tp / p for tp, _ in expected])
    assert out["precision"].to_list() == pytest.approx([tp / pp for tp, pp in expected])


def test_seed000_one_row_per_bin_is_the_per_row_curve() -> None:
    # "This applies when K = N, i.e. the size of bin is 1."
    rng = np.random.default_rng(7)
    df = pl.DataFrame({"score": rng.random(50), "truth": rng.random(50) < 0.4})
    binned = df.select(rm.binned_pr_curve("truth", 50, by="score").explode()).unnest("truth")
    per_row = df.select(rm.cumulative_pr("truth", by="score").alias("pr")).unnest("pr").sort("pp")
    assert binned.select("tp", "pp", "precision", "recall").equals(
        per_row.select("tp", "pp", "precision", "recall")
    )


def test_seed000_score_cutoffs() -> None:
    # Bins given by score cut-offs p(1) > p(2) > ...: point i counts every score >= p(i).
    rng = np.random.default_rng(11)
    scores, truth = rng.random(300), rng.random(300) < 0.25
    cutoffs = [0.9, 0.75, 0.5, 0.25, 0.0]
    df = pl.DataFrame({"score": scores, "truth": truth})
    out = df.select(rm.binned_pr_curve("truth", cutoffs, by="score").explode()).unnest("truth")
    assert out["threshold"].to_list() == cutoffs
    assert out["pp"].to_list() == [int((scores >= c).sum()) for c in cutoffs]
    assert out["tp"].to_list() == [int((truth & (scores >= c)).sum()) for c in cutoffs]


def test_seed004_average_over_queries_at_each_recall_level() -> None:
    # "Average the interpolated values at each recall level" (the mean 11-point curve).
    rng = np.random.default_rng(5)
    n = 600
    df = pl.DataFrame(
        {
            "query": rng.integers(0, 12, n),
            "score": rng.random(n),
            "relevance": (rng.random(n) < 0.2).astype(int),
        }
    )
    per_query = df.group_by("query").agg(ip=rm.interpolated_precision("relevance", by="score"))
    curves = np.array([c for c in per_query["ip"].to_list() if c is not None])
    mean = per_query.select(rm.mean_curve("ip")).item().to_list()
    np.testing.assert_allclose(mean, curves.mean(axis=0), rtol=1e-12)
