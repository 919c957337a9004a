"""recsys metrics against slow, obviously-correct references written from their published formulas.

Microsoft Recommenders (``recommenders/evaluation/python_evaluation.py``) is
not installed: its ``novelty``, ``catalog_coverage``, ``distributional_coverage``,
``user_diversity`` and ``user_serendipity`` are rewritten here row by row from
its source. The papers' metrics (EPC, APLT/ACLT, popularity-stratified recall,
Gini, calibration, exposure) likewise, with plain Python loops.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from itertools import combinations

import numpy as np
import polars as pl
import pytest

from polars_rankmetrics import recsys
from tests.recsys_data import random_interactions, random_reco


def _train(seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed + 2000)
    items = rng.zipf(1.6, 300) % 25
    return pl.DataFrame({"user": rng.integers(0, 50, 300), "item": items})


def _lists(reco: pl.DataFrame, k: int | None = None) -> dict[int, list[tuple[int, int]]]:
    lists: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for user, item, rank in reco.iter_rows():
        if k is None or rank <= k:
            lists[user].append((item, rank))
    return lists


def _values(frame: pl.DataFrame, column: str) -> dict[int, float]:
    return {u: v for u, v in zip(frame["user"], frame[column], strict=True) if v is not None}


def _per_user(frame: pl.LazyFrame, expr: pl.Expr) -> dict[int, float]:
    return _values(frame.group_by("user").agg(expr.alias("v")).collect(), "v")


def _close(ours: dict[int, float], theirs: dict[int, float]) -> None:
    assert set(ours) == set(theirs), sorted(set(ours) ^ set(theirs))
    for user, value in theirs.items():
        assert ours[user] == pytest.approx(value, abs=1e-9), user


SEEDS = [0, 1]


@pytest.mark.parametrize("seed", SEEDS)
def test_recommenders_novelty_and_coverage(seed: int) -> None:
    reco, train = random_reco(seed), _train(seed)
    counts = Counter(train["item"].to_list())
    n_train = train.height
    items = reco["item"].to_list()
    expected = sum(-math.log2(counts[i] / n_train) for i in items if i in counts) / len(items)
    assert recsys.recommenders_novelty(reco, train) == pytest.approx(expected, abs=1e-12)
    assert recsys.recommenders_catalog_coverage(reco, train) == pytest.approx(
        len(set(items)) / len(counts)
    )
    shares = [c / len(items) for c in Counter(items).values()]
    entropy = -sum(p * math.log2(p) for p in shares)
    assert recsys.distributional_coverage(reco) == pytest.approx(entropy, abs=1e-12)


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a.dot(b) / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.mark.parametrize("seed", SEEDS)
def test_recommenders_diversity_with_feature_vectors(seed: int) -> None:
    rng = np.random.default_rng(seed)
    vectors = {item: rng.normal(size=4) for item in range(26)}  # items 26..29 have none
    features = pl.DataFrame(
        {"item": list(vectors), "vector": [v.tolist() for v in vectors.values()]}
    )
    reco = random_reco(seed)
    expected = {}
    for user, rows in _lists(reco).items():
        sims = [
            _cosine(vectors[a], vectors[b]) if a in vectors and b in vectors else 0.0
            for (a, _), (b, _) in combinations(rows, 2)
        ]
        if sims:
            expected[user] = 1 - sum(sims) / len(sims)
    _close(_values(recsys.recommenders_diversity(reco, features=features), "diversity"), expected)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("with_features", [False, True])
@pytest.mark.parametrize("with_relevance", [False, True])
def test_recommenders_serendipity(seed: int, with_features: bool, with_relevance: bool) -> None:
    reco, train, test = (
        random_reco(seed, longest=5),
        _train(seed).unique(),
        random_interactions(seed),
    )
    history: dict[int, set[int]] = defaultdict(set)
    item_users: dict[int, set[int]] = defaultdict(set)
    for user, item in train.iter_rows():
        history[user].add(item)
        item_users[item].add(user)
    rng = np.random.default_rng(seed)
    vectors = {item: rng.normal(size=3) for item in range(28)}

    def similarity(a: int, b: int) -> float:
        if with_features:
            return _cosine(vectors[a], vectors[b]) if a in vectors and b in vectors else 0.0
        both = len(item_users[a] & item_users[b])
        return both / math.sqrt(len(item_users[a]) * len(item_users[b])) if both else 0.0

    relevant = set(test.iter_rows())
    expected = {}
    for user, rows in _lists(reco).items():
        if not history[user]:
            continue
        values = []
        for item, _ in rows:
            mean_sim = sum(similarity(item, j) for j in history[user]) / len(history[user])
            rel = (1.0 if (user, item) in relevant else 0.0) if with_relevance else 1.0
            values.append((1 - mean_sim) * rel)
        expected[user] = sum(values) / len(values)
    features = (
        pl.DataFrame({"item": list(vectors), "vector": [v.tolist() for v in vectors.values()]})
        if with_features
        else None
    )
    ours = recsys.recommenders_serendipity(
        reco, train, features=features, interactions=test if with_relevance else None
    )
    _close(_values(ours, "serendipity"), expected)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("head_by", ["items", "interactions"])
def test_popularity_metrics(seed: int, head_by: str) -> None:
    reco, test, train = random_reco(seed), random_interactions(seed), _train(seed)
    counts = Counter(train["item"].to_list())
    users_of: dict[int, set[int]] = defaultdict(set)
    for user, item in train.iter_rows():
        users_of[item].add(user)
    n_users = train["user"].n_unique()
    ordered = sorted(counts, key=lambda i: (-counts[i], i))
    if head_by == "items":
        head = set(ordered[: math.ceil(0.2 * len(ordered))])
    else:
        head, running = set(), 0
        for item in ordered:
            if running < 0.8 * train.height:
                head.add(item)
            running += counts[item]
    share = 0.2 if head_by == "items" else 0.8
    frame = recsys.prepare(reco, interactions=test, train=train, head_share=share, head_by=head_by)
    relevant = defaultdict(set)
    for user, item in test.iter_rows():
        relevant[user].add(item)
    for k in (1, 4, 10):
        lists = _lists(reco, k)
        epc, epc_log_rel, aplt, aclt, strat = {}, {}, {}, {}, {}
        for user, rows in lists.items():
            novelty = [1 - len(users_of[i]) / n_users for i, _ in rows]
            epc[user] = sum(novelty) / len(rows)
            disc = [1 / math.log2(r + 1) for _, r in rows]
            rel = [1.0 if i in relevant[user] else 0.0 for i, _ in rows]
            epc_log_rel[user] = sum(
                d * g * x for d, g, x in zip(disc, rel, novelty, strict=True)
            ) / sum(disc)
            tail = [i not in head for i, _ in rows]
            aplt[user] = sum(tail) / len(rows)
            aclt[user] = float(sum(tail))
        for user, items in relevant.items():
            if not items:  # a key the defaultdict made for a user without test items
                continue
            weight = {i: max(counts[i], 1) ** -0.5 for i in items}
            hit = {i for i, _ in lists.get(user, [])}
            strat[user] = sum(w for i, w in weight.items() if i in hit) / sum(weight.values())
        _close(_per_user(frame, recsys.expected_popularity_complement(k)), epc)
        _close(
            _per_user(
                frame, recsys.expected_popularity_complement(k, discount="log", relevance=True)
            ),
            epc_log_rel,
        )
        _close(_per_user(frame, recsys.aplt(k)), aplt)
        recommended = {u for u, _, _ in reco.iter_rows()}
        _close(_per_user(frame, recsys.aclt(k)), {u: aclt.get(u, 0.0) for u in recommended})
        _close(_per_user(frame, recsys.popularity_stratified_recall(k)), strat)


@pytest.mark.parametrize("seed", SEEDS)
def test_gini_entropy_and_user_coverage(seed: int) -> None:
    reco, test = random_reco(seed), random_interactions(seed)
    for k in (2, 10):
        counts = Counter(i for i, r in zip(reco["item"], reco["rank"], strict=True) if r <= k)
        for catalog in (None, 40):
            values = sorted(
                list(counts.values()) + ([0] * (catalog - len(counts)) if catalog else [])
            )
            n = len(values)
            # the mean absolute difference over all pairs, over twice the mean: Gini's definition
            pairs = sum(abs(a - b) for a in values for b in values)
            expected = pairs / (2 * n * n * (sum(values) / n))
            assert recsys.gini_index(reco, k=k, catalog=catalog) == pytest.approx(expected)
        total = sum(counts.values())
        entropy = -sum(c / total * math.log(c / total) for c in counts.values())
        assert recsys.shannon_entropy(reco, k=k, base=math.e) == pytest.approx(entropy)
        lists = _lists(reco, k)
        users = set(test["user"].to_list())
        for need in (1, 3):
            expected = sum(len(lists.get(u, [])) >= need for u in users) / len(users)
            assert recsys.user_coverage(reco, test, k=k, min_items=need) == pytest.approx(expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_calibration(seed: int) -> None:
    reco, train = random_reco(seed), _train(seed)
    rng = np.random.default_rng(seed)
    genre_rows = [(i, g) for i in range(27) for g in "abcd" if rng.random() < 0.4]
    genres = pl.DataFrame(genre_rows, schema=["item", "genre"], orient="row")
    of_item: dict[int, set[str]] = defaultdict(set)
    for item, genre in genre_rows:
        of_item[item].add(genre)

    def mix(items: set[int]) -> dict[str, float]:
        labelled = [i for i in items if of_item[i]]
        result: dict[str, float] = defaultdict(float)
        if not labelled:
            return result
        for i in labelled:
            for g in of_item[i]:
                result[g] += 1 / len(of_item[i]) / len(labelled)
        return result

    history: dict[int, set[int]] = defaultdict(set)
    for user, item in train.iter_rows():
        history[user].add(item)
    alpha, k = 0.05, 4
    expected = {}
    for user, rows in _lists(reco, k).items():
        p, q = mix(history[user]), mix({i for i, _ in rows})
        if p:
            expected[user] = sum(
                pv * math.log(pv / ((1 - alpha) * q.get(g, 0.0) + alpha * pv))
                for g, pv in p.items()
            )
    ours = recsys.miscalibration(reco, train, genres, k=k, alpha=alpha)
    _close(_values(ours, "miscalibration"), expected)


@pytest.mark.parametrize("distance", ["cosine", "jaccard"])
def test_intra_list_cosine_and_jaccard(distance: str) -> None:
    rng = np.random.default_rng(5)
    vectors = {item: rng.integers(0, 2, size=5).astype(float) for item in range(30)}
    vectors[0] = np.zeros(5)  # no feature: cosine NaN (left out), Jaccard distance 0 to another 0
    features = pl.DataFrame({"item": list(vectors), "v": [v.tolist() for v in vectors.values()]})
    reco = random_reco(5)

    def dist(a: np.ndarray, b: np.ndarray) -> float:
        if distance == "cosine":
            norms = np.linalg.norm(a) * np.linalg.norm(b)
            return 1 - float(a.dot(b)) / norms if norms else math.nan
        union = np.sum((a != 0) | (b != 0))
        return 1 - np.sum((a != 0) & (b != 0)) / union if union else 0.0

    for k in (3, 10):
        ild, ils = {}, {}
        for user, rows in _lists(reco, k).items():
            pairs = [dist(vectors[a], vectors[b]) for (a, _), (b, _) in combinations(rows, 2)]
            kept = [d for d in pairs if not math.isnan(d)]
            ild[user] = sum(kept) / len(kept) if kept else (0.0 if not pairs else math.nan)
            if kept:
                ils[user] = sum(1 - d for d in kept) / len(kept)
        ild = {u: v for u, v in ild.items() if not math.isnan(v)}
        _close(
            _values(recsys.intra_list_diversity(reco, features, k=k, distance=distance), "ild"), ild
        )
        ours = recsys.intra_list_similarity(reco, features, k=k, distance=distance)
        _close(_values(ours, "ils"), ils)


def test_group_exposure_and_disparity() -> None:
    reco = random_reco(6)
    groups = pl.DataFrame(
        {"item": list(range(25)), "group": ["head" if i < 5 else "tail" for i in range(25)]}
    )
    for discount, weight in (
        ("log", lambda r: 1 / math.log2(r + 1)),
        ("reciprocal", lambda r: 1 / r),
        ("none", lambda r: 1.0),
    ):
        exposure: dict[object, float] = defaultdict(float)
        for _, item, rank in reco.iter_rows():
            if rank <= 5:
                exposure["head" if item < 5 else "tail" if item < 25 else None] += weight(rank)
        table = recsys.group_exposure(reco, groups, k=5, discount=discount)
        got = dict(zip(table["group"], table["exposure"], strict=True))
        assert got == pytest.approx(dict(exposure))
        disparity = recsys.exposure_disparity(table, "head", "tail")
        assert disparity["difference"] == pytest.approx(
            exposure["head"] / 5 - exposure["tail"] / 20
        )
        assert disparity["ratio"] == pytest.approx((exposure["head"] / 5) / (exposure["tail"] / 20))


def test_library_names_equal_rectools_definitions_without_ties() -> None:
    """With distinct ranks, the library's trec/ir_measures names meet RecTools' definitions."""
    reco = random_reco(9).with_columns(pl.col("rank").rank("ordinal").over("user").cast(pl.Int64))
    test = random_interactions(9)
    names = [
        "P@5",
        "R@5",
        "RR@5",
        "nDCG@5",
        "AP@5",
        "Precision@5",
        "Recall@5",
        "MRR@5",
        "NDCG@5(divide_by_achievable=true)",
        "MAP@5",
    ]
    per_user = recsys.evaluate(reco, metrics=names, interactions=test).per_user
    pairs = [
        ("P@5", "Precision@5"),
        ("R@5", "Recall@5"),
        ("RR@5", "MRR@5"),
        ("nDCG@5", "NDCG@5(divide_by_achievable=true)"),
        ("AP@5", "MAP@5"),
    ]
    for ours, theirs in pairs:
        # P@5 is defined for users without test items too (0); RecTools leaves them out
        defined = per_user.filter(pl.col(theirs).is_not_null())
        left = defined.select(pl.col(ours).fill_null(-1.0)).to_series()
        right = defined.select(pl.col(theirs)).to_series()
        assert np.allclose(left.to_numpy(), right.to_numpy(), atol=1e-12), (ours, theirs)


def test_evaluate_catalogue_metrics_equal_the_functions() -> None:
    reco, test, train = random_reco(11), random_interactions(11), _train(11)
    names = ["Gini@4", "Entropy@4", "Novelty@4", "PredictionCoverage", "CatalogCoverage@4"]
    row = recsys.evaluate(reco, metrics=names, interactions=test, train=train, catalog=40)
    values = row.summary.row(0, named=True)
    top = reco.filter(pl.col("rank") <= 4)
    assert values["Gini@4"] == pytest.approx(recsys.gini_index(reco, k=4, catalog=40))
    assert values["Entropy@4"] == pytest.approx(recsys.shannon_entropy(reco, k=4))
    assert values["Novelty@4"] == pytest.approx(recsys.recommenders_novelty(top, train))
    assert values["PredictionCoverage"] == pytest.approx(
        recsys.prediction_coverage(reco, catalog=40)
    )
    assert values["CatalogCoverage@4"] == recsys.catalog_coverage(reco, 4)
    no_catalog = recsys.evaluate(reco, metrics=["Gini@4"]).summary["Gini@4"].item()
    assert no_catalog == pytest.approx(recsys.gini_index(reco, k=4))


def test_per_user_table_feeds_compare_and_the_chart() -> None:
    """evaluate's per_user goes to rm.compare as is; its means are the summary's."""
    import polars_rankmetrics as rm
    from polars_rankmetrics.recsys.demo import demo_data

    data = demo_data(users=80, items=60)
    result = recsys.evaluate(
        data.reco,
        metrics=["NDCG@10", "MeanInvUserFreq@10"],
        interactions=data.test,
        train=data.train,
    )
    compared = rm.compare(
        result.per_user, baseline="popular", system="model", query="user", missing="drop"
    )
    assert set(compared["system"]) == {"popular", "random", "taste", "blend"}
    means = compared.filter(pl.col("metric") == "NDCG@10").select("system", "mean").sort("system")
    summary = result.summary.select(
        pl.col("model").alias("system"), pl.col("NDCG@10").alias("mean")
    )
    assert np.allclose(means["mean"].to_numpy(), summary.sort("system")["mean"].to_numpy())
    chart = result.chart(x="MeanInvUserFreq@10", y="NDCG@10").to_dict()
    assert len(chart["layer"]) == 2


@pytest.mark.parametrize("seed", SEEDS)
def test_recommenders_diversity_with_cooccurrence(seed: int) -> None:
    reco, train = random_reco(seed), _train(seed).unique()
    users_of: dict[int, set[int]] = defaultdict(set)
    for user, item in train.iter_rows():
        users_of[item].add(user)

    def similarity(a: int, b: int) -> float:
        both = len(users_of[a] & users_of[b])
        return both / math.sqrt(len(users_of[a]) * len(users_of[b])) if both else 0.0

    expected = {}
    for user, rows in _lists(reco).items():
        sims = [similarity(a, b) for (a, _), (b, _) in combinations(rows, 2)]
        if sims:
            expected[user] = 1 - sum(sims) / len(sims)
    ours = recsys.recommenders_diversity(reco, train=train)
    _close(_values(ours, "diversity"), expected)
    with pytest.raises(ValueError, match="give `features`"):
        recsys.recommenders_diversity(reco)

    result = recsys.evaluate(reco, metrics=["RecommendersDiversity@12"], train=train).per_user
    assert dict(
        zip(result["user"], result["RecommendersDiversity@12"], strict=True)
    ) == pytest.approx(
        {u: v for u, v in zip(ours["user"], ours["diversity"], strict=True)}, nan_ok=True
    )


def test_model_rbo_equals_the_rbo_package() -> None:
    rbo_package = pytest.importorskip("rbo")
    reco, other = random_reco(12).filter(pl.col("user") % 2 == 0), random_reco(13)
    for k, p in ((3, 0.9), (10, 0.8)):
        ours = _values(recsys.model_rbo(reco, other, k=k, p=p), "rbo")
        first, second = _lists(reco, k), _lists(other, k)
        expected = {}
        for user in set(first) | set(second):
            a = [i for i, _ in sorted(first.get(user, []), key=lambda row: (row[1], row[0]))]
            b = [i for i, _ in sorted(second.get(user, []), key=lambda row: (row[1], row[0]))]
            if a and b:  # the rbo package divides by zero on an empty list
                expected[user] = rbo_package.RankingSimilarity(a, b).rbo_ext(p)
        _close({u: v for u, v in ours.items() if u in expected}, expected)
    names = ["RBO@3(ref=b)"]
    per_user = recsys.evaluate({"a": reco, "b": other}, metrics=names).per_user
    got = per_user.filter(pl.col("model") == "a").select("user", "RBO@3(ref=b)")
    direct = recsys.model_rbo(reco, other, k=3)
    assert (
        got.join(direct, on="user")
        .select((pl.col("RBO@3(ref=b)") - pl.col("rbo")).abs().max())
        .item()
        < 1e-12
    )
