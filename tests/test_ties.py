"""The `ties=` option: brute force over every ordering of tied rows, bounds, peers.

The reference for ``ties='average'`` is the plain definition: list every distinct
ordering of the labels inside each tie group (every raw permutation of a group
maps onto the same number of distinct label orderings, so their plain mean is
the mean over all permutations), compute the metric on each ranking with the
slow, obviously-correct formulas below, and average.
"""

from __future__ import annotations

import inspect
import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rankmetrics as rm
from tests.metric_table import METRICS, SCALAR

MODES = ("stable", "optimistic", "pessimistic", "average")

# ---------------------------------------------------------------------------
# Slow reference metrics over one ranking: `ranked` holds the labels of the
# retrieved rows in rank order, `unretrieved` the labels of judged rows with no
# score. A label above `threshold` is relevant. None means undefined.


@dataclass(frozen=True)
class Query:
    ranked: tuple[float, ...]
    unretrieved: tuple[float, ...]
    threshold: float

    @property
    def hits(self) -> list[bool]:
        return [label > self.threshold for label in self.ranked]

    @property
    def n_relevant(self) -> int:
        return sum(label > self.threshold for label in self.ranked + self.unretrieved)


def ref_precision(q: Query, k: int) -> float:
    return sum(q.hits[:k]) / k


def ref_recall(q: Query, k: int) -> float | None:
    return sum(q.hits[:k]) / q.n_relevant if q.n_relevant else None


def ref_f_beta(q: Query, k: int, beta: float) -> float | None:
    if not q.n_relevant:
        return None
    p, r = ref_precision(q, k), sum(q.hits[:k]) / q.n_relevant
    return 0.0 if p + r == 0 else (1 + beta**2) * p * r / (beta**2 * p + r)


def ref_hit_rate(q: Query, k: int) -> float:
    return float(any(q.hits[:k]))


def ref_r_precision(q: Query) -> float | None:
    return sum(q.hits[: q.n_relevant]) / q.n_relevant if q.n_relevant else None


def _precisions(q: Query, k: int | None = None) -> list[float]:
    hits = q.hits if k is None else q.hits[:k]
    return [sum(hits[: i + 1]) / (i + 1) for i, hit in enumerate(hits) if hit]


def ref_ap(q: Query) -> float | None:
    return sum(_precisions(q)) / q.n_relevant if q.n_relevant else None


def ref_ap_at_k(q: Query, k: int, denominator: str) -> float | None:
    if not q.n_relevant:
        return None
    precisions = _precisions(q, k)
    if denominator == "min_k_r":
        return sum(precisions) / min(k, q.n_relevant)
    if denominator == "r":
        return sum(precisions) / q.n_relevant
    return sum(precisions) / len(precisions) if precisions else 0.0


def ref_rr(q: Query, k: int | None) -> float | None:
    if not q.n_relevant:
        return None
    hits = q.hits if k is None else q.hits[:k]
    return next((1 / (i + 1) for i, hit in enumerate(hits) if hit), 0.0)


def _gain(label: float, gain: str) -> float:
    return label if gain == "linear" else 2.0**label - 1


def _dcg(labels: Sequence[float], k: int, gain: str) -> float:
    return sum(_gain(lab, gain) / math.log2(i + 2) for i, lab in enumerate(labels[:k]))


def ref_dcg(q: Query, k: int, gain: str) -> float:
    return _dcg(q.ranked, k, gain)


def ref_ndcg(q: Query, k: int, gain: str) -> float | None:
    ideal = _dcg(sorted(q.ranked + q.unretrieved, reverse=True), k, gain)
    return ref_dcg(q, k, gain) / ideal if ideal > 0 else None


# (name, library expression builder, reference) for every rank-based metric.
Case = tuple[str, Callable[..., pl.Expr], Callable[[Query], float | None]]


def cases(threshold: float) -> list[Case]:
    t = threshold
    out: list[Case] = []
    for k in (1, 3, 5, 9):
        out += [
            (
                f"P@{k}",
                lambda k=k, **o: rm.precision_at_k("rel", k, threshold=t, **o),
                lambda q, k=k: ref_precision(q, k),
            ),
            (
                f"R@{k}",
                lambda k=k, **o: rm.recall_at_k("rel", k, threshold=t, **o),
                lambda q, k=k: ref_recall(q, k),
            ),
            (
                f"F2@{k}",
                lambda k=k, **o: rm.f_beta_at_k("rel", k, beta=2.0, threshold=t, **o),
                lambda q, k=k: ref_f_beta(q, k, 2.0),
            ),
            (
                f"hit@{k}",
                lambda k=k, **o: rm.hit_rate_at_k("rel", k, threshold=t, **o),
                lambda q, k=k: ref_hit_rate(q, k),
            ),
            (
                f"RR@{k}",
                lambda k=k, **o: rm.reciprocal_rank("rel", k=k, threshold=t, **o),
                lambda q, k=k: ref_rr(q, k),
            ),
            (
                f"dcg@{k}",
                lambda k=k, **o: rm.dcg_at_k("rel", k, **o),
                lambda q, k=k: ref_dcg(q, k, "linear"),
            ),
            (
                f"ndcg@{k}",
                lambda k=k, **o: rm.ndcg_at_k("rel", k, **o),
                lambda q, k=k: ref_ndcg(q, k, "linear"),
            ),
            (
                f"ndcg_exp@{k}",
                lambda k=k, **o: rm.ndcg_at_k("rel", k, gain="exponential", **o),
                lambda q, k=k: ref_ndcg(q, k, "exponential"),
            ),
        ]
        for d in ("min_k_r", "r", "hits"):
            out.append(
                (
                    f"AP@{k}/{d}",
                    lambda k=k, d=d, **o: rm.ap_at_k("rel", k, denominator=d, threshold=t, **o),
                    lambda q, k=k, d=d: ref_ap_at_k(q, k, d),
                ),
            )
    out += [
        ("dcg_exp@4", lambda **o: rm.dcg_at_k("rel", 4, gain="exponential", **o),
         lambda q: ref_dcg(q, 4, "exponential")),
        ("Rprec", lambda **o: rm.r_precision("rel", threshold=t, **o), ref_r_precision),
        ("AP", lambda **o: rm.average_precision("rel", threshold=t, **o), ref_ap),
        ("RR", lambda **o: rm.reciprocal_rank("rel", threshold=t, **o),
         lambda q: ref_rr(q, None)),
    ]  # fmt: skip
    return out


# ---------------------------------------------------------------------------
# Queries: tie groups of labels in score order, plus unretrieved labels.


@dataclass(frozen=True)
class Tied:
    groups: tuple[tuple[float, ...], ...]
    unretrieved: tuple[float, ...]

    def frame(self, query: int = 0) -> pl.DataFrame:
        """Rows with descending distinct group scores, shuffled, plus null-score rows."""
        rows = [
            (float(len(self.groups) - g), label)
            for g, group in enumerate(self.groups)
            for label in group
        ]
        rows += [(None, label) for label in self.unretrieved]
        random.Random(query).shuffle(rows)
        return pl.DataFrame(
            {
                "query": [query] * len(rows),
                "score": [score for score, _ in rows],
                "rel": [label for _, label in rows],
                "doc": [f"d{i:03d}" for i in range(len(rows))],
            },
            schema={"query": pl.Int64, "score": pl.Float64, "rel": pl.Float64, "doc": pl.String},
        )

    def orderings(self) -> list[Query]:
        per_group = [sorted(set(itertools.permutations(group))) for group in self.groups]
        return [
            Query(tuple(itertools.chain.from_iterable(choice)), self.unretrieved, 0.0)
            for choice in itertools.product(*per_group)
        ]

    def expected(
        self, reference: Callable[[Query], float | None], threshold: float
    ) -> float | None:
        values = [reference(Query(q.ranked, q.unretrieved, threshold)) for q in self.orderings()]
        if any(v is None for v in values):
            assert all(v is None for v in values)
            return None
        return math.fsum(v for v in values if v is not None) / len(values)

    def bound(
        self, reference: Callable[[Query], float | None], threshold: float, best: bool
    ) -> float | None:
        ordered = tuple(tuple(sorted(g, reverse=best)) for g in self.groups)
        return reference(
            Query(tuple(itertools.chain.from_iterable(ordered)), self.unretrieved, threshold)
        )


def n_orderings(groups: Sequence[Sequence[float]]) -> int:
    """The number of distinct label orderings: a multinomial per group."""
    total = 1
    for group in groups:
        total *= math.factorial(len(group))
        for label in set(group):
            total //= math.factorial(group.count(label))
    return total


def random_tied(rng: random.Random, graded: bool = True) -> Tied:
    """Up to five tie groups (one of up to 7 rows), capped at 1,000 orderings."""
    labels = [0.0, 0.0, 1.0, 2.0, 3.0] if graded else [0.0, 1.0]
    while True:
        sizes = [rng.choice([1, 1, 2, 3, 4]) for _ in range(rng.randint(1, 5))]
        sizes.insert(rng.randrange(len(sizes) + 1), rng.randint(5, 7))
        groups = tuple(tuple(rng.choice(labels) for _ in range(size)) for size in sizes)
        if n_orderings(groups) <= 1000:
            break
    unretrieved = tuple(rng.choice(labels) for _ in range(rng.randint(0, 2)))
    return Tied(groups, unretrieved)


def _close(actual: float | None, expected: float | None, tol: float = 1e-12) -> bool:
    if expected is None or actual is None:
        return actual is None and expected is None
    return abs(actual - expected) <= tol


# ---------------------------------------------------------------------------
# Brute force == 'average', for every metric, in group_by over many queries.


def _batch(seed: int, n_queries: int, graded: bool) -> list[Tied]:
    rng = random.Random(seed)
    queries = [random_tied(rng, graded=graded) for _ in range(n_queries)]
    # Edge cases: one group of 7 holding everything, a query with no relevant row,
    # a query with only unretrieved relevant rows, all distinct scores.
    queries += [
        Tied(((2.0, 0.0, 1.0, 0.0, 0.0, 3.0, 1.0),), ()),
        Tied(((0.0, 0.0, 0.0), (0.0,)), (0.0,)),
        Tied(((0.0, 0.0), (0.0, 0.0, 0.0)), (1.0, 2.0)),
        Tied(((1.0,), (0.0,), (2.0,), (0.0,)), (1.0,)),
        Tied(((1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0), (0.0, 1.0)), ()),
    ]
    return queries


@pytest.mark.parametrize(
    ("seed", "graded", "threshold"), [(1, True, 0.0), (2, True, 1.0), (3, False, 0.0)]
)
def test_average_equals_brute_force_over_every_ordering(
    seed: int, graded: bool, threshold: float
) -> None:
    queries = _batch(seed, 15, graded)
    frame = pl.concat([tied.frame(i) for i, tied in enumerate(queries)])
    metric_cases = cases(threshold)
    result = (
        frame.lazy()
        .group_by("query")
        .agg(build(by="score", ties="average").alias(name) for name, build, _ in metric_cases)
        .sort("query")
        .collect()
    )
    failures = []
    for i, tied in enumerate(queries):
        row = result.row(i, named=True)
        for name, _, reference in metric_cases:
            expected = tied.expected(reference, threshold)
            if not _close(row[name], expected):
                failures.append((i, tied, name, row[name], expected))
    assert not failures, failures[:5]


def _rows(q: Query) -> list[tuple[float | None, float | None]]:
    """One ordering as rows for tests/reference.py: distinct scores in rank order."""
    n = len(q.ranked)
    return [(float(n - i), label) for i, label in enumerate(q.ranked)] + [
        (None, label) for label in q.unretrieved
    ]


TABLE_SCALARS = [case for case in SCALAR if case.exact_average and not case.tie_invariant]


def test_every_table_metric_averages_exactly_or_refuses() -> None:
    queries = _batch(5, 12, graded=True)
    frame = pl.concat([tied.frame(i) for i, tied in enumerate(queries)])
    result = (
        frame.group_by("query")
        .agg(case.expr("rel", ties="average").alias(case.id) for case in TABLE_SCALARS)
        .sort("query")
    )
    for i, tied in enumerate(queries):
        row = result.row(i, named=True)
        for case in TABLE_SCALARS:
            assert case.reference is not None
            reference = case.reference

            def on_rows(
                q: Query, reference: Callable[..., float | None] = reference
            ) -> float | None:
                return reference(_rows(q))

            assert _close(row[case.id], tied.expected(on_rows, 0.0)), (i, case.id)
    for case in METRICS:
        if not case.exact_average:
            with pytest.raises(ValueError, match="ties='average'"):
                case.expr("rel", ties="average")


def test_metrics_average_matches_single_functions() -> None:
    queries = _batch(4, 10, graded=True)
    frame = pl.concat([tied.frame(i) for i, tied in enumerate(queries)])
    names = ["map", "AP@5", "P@3", "R@5", "nDCG@5", "ndcg", "RR", "RR@3", "Rprec", "Success@2"]
    result = (
        frame.group_by("query")
        .agg(rm.metrics("rel", names, by="score", ties="average").alias("m"))
        .sort("query")
        .unnest("m")
    )
    refs = {
        "map": ref_ap,
        "AP@5": lambda q: ref_ap_at_k(q, 5, "r"),
        "P@3": lambda q: ref_precision(q, 3),
        "R@5": lambda q: ref_recall(q, 5),
        "nDCG@5": lambda q: ref_ndcg(q, 5, "linear"),
        "ndcg": lambda q: ref_ndcg(q, 10**6, "linear"),
        "RR": lambda q: ref_rr(q, None),
        "RR@3": lambda q: ref_rr(q, 3),
        "Rprec": ref_r_precision,
        "Success@2": lambda q: ref_hit_rate(q, 2),
    }
    for i, tied in enumerate(queries):
        row = result.row(i, named=True)
        for name in names:
            assert _close(row[name], tied.expected(refs[name], 0.0)), (i, name)


def test_binned_curve_average_is_the_expected_count() -> None:
    tied = Tied(((1.0, 0.0, 1.0), (0.0, 1.0, 0.0, 0.0), (1.0, 1.0)), (1.0,))
    points = (
        tied.frame()
        .select(rm.binned_pr_curve("rel", 3, by="score", ties="average").explode())
        .unnest("rel")
    )
    assert points["tp"].dtype == pl.Float64
    for pp, tp in zip(points["pp"], points["tp"], strict=True):
        expected = tied.expected(lambda q, pp=pp: float(sum(q.hits[:pp])), 0.0)
        assert _close(tp, expected)
    assert points["pp"].to_list() == [3, 6, 9]


# ---------------------------------------------------------------------------
# Bounds, distinct scores, tie-breakers, single queries with hypothesis.

tied_queries = st.builds(
    Tied,
    st.lists(
        st.lists(st.sampled_from([0.0, 0.0, 1.0, 2.0]), min_size=1, max_size=5).map(tuple),
        min_size=1,
        max_size=3,
    ).map(tuple),
    st.lists(st.sampled_from([0.0, 1.0]), max_size=2).map(tuple),
)

# ap_at_k(denominator='hits') is left out of the bounds: it is not monotone in
# relevance (see test_hits_denominator_is_not_monotone).
MONOTONE = [c for c in cases(0.0) if not c[0].endswith("/hits")]


def _one_row(
    frame: pl.DataFrame, mode: str, metric_cases: list[Case], by: object = "score"
) -> dict[str, float | None]:
    return frame.select(build(by=by, ties=mode).alias(name) for name, build, _ in metric_cases).row(
        0, named=True
    )


@settings(max_examples=10, deadline=None)
@given(tied_queries)
def test_optimistic_average_pessimistic_bounds(tied: Tied) -> None:
    frame = tied.frame()
    values = {mode: _one_row(frame, mode, MONOTONE) for mode in MODES}
    for name, _, reference in MONOTONE:
        best, mean, worst = (values[m][name] for m in ("optimistic", "average", "pessimistic"))
        if mean is None:
            assert best is None and worst is None
            continue
        assert best is not None and worst is not None
        assert best + 1e-12 >= mean >= worst - 1e-12, name
        # and the bounds are the best and worst orderings of every tie group
        assert _close(best, tied.bound(reference, 0.0, best=True)), name
        assert _close(worst, tied.bound(reference, 0.0, best=False)), name


def test_hits_denominator_is_not_monotone() -> None:
    # A hit at rank 1, four misses, then three tied rows (one relevant) cut by k=6:
    # optimistic adds a hit of precision 2/6 and lowers the mean of the precisions.
    tied = Tied(((1.0,), (0.0,), (0.0,), (0.0,), (0.0,), (1.0, 0.0, 0.0)), ())
    row = {
        mode: tied.frame()
        .select(rm.ap_at_k("rel", 6, by="score", denominator="hits", ties=mode))
        .item()
        for mode in MODES
    }
    assert row["optimistic"] == pytest.approx((1 + 2 / 6) / 2)
    assert row["pessimistic"] == pytest.approx(1.0)
    assert _close(row["average"], tied.expected(lambda q: ref_ap_at_k(q, 6, "hits"), 0.0))


@settings(max_examples=6, deadline=None)
@given(
    st.lists(st.sampled_from([0, 1, 2]), min_size=1, max_size=12), st.randoms(use_true_random=False)
)
def test_distinct_scores_make_every_mode_equal(labels: list[int], rnd: random.Random) -> None:
    scores = rnd.sample(range(1000), len(labels))
    frame = pl.DataFrame({"score": scores, "rel": labels})
    metric_cases = cases(0.0)
    rows = [_one_row(frame, mode, metric_cases) for mode in MODES]
    for name, _, _ in metric_cases:
        values = [row[name] for row in rows]
        assert all(_close(v, values[0]) for v in values), (name, values)


def test_tie_breakers_per_mode() -> None:
    # One query, the tied rows at 0.5 have doc ids that put the relevant ones last.
    frame = pl.DataFrame(
        {
            "score": [1.0, 0.5, 0.5, 0.5, 0.1],
            "doc": ["a", "b", "c", "d", "e"],
            "rel": [1, 1, 0, 0, 1],
        }
    )
    by = ["score", "doc"]

    def ap(mode: str, descending: list[bool]) -> float:
        return frame.select(
            rm.average_precision("rel", by=by, descending=descending, ties=mode)
        ).item()

    # stable follows the tie-breaker: doc ascending puts the relevant "b" first, descending last
    assert ap("stable", [True, False]) == pytest.approx((1 + 1 + 3 / 5) / 3)
    assert ap("stable", [True, True]) == pytest.approx((1 + 2 / 4 + 3 / 5) / 3)
    # the other modes do not depend on the tie-breaker
    for mode in ("optimistic", "pessimistic", "average"):
        assert ap(mode, [True, False]) == ap(mode, [True, True])
        assert ap(mode, [True, True]) == pytest.approx(
            frame.select(rm.average_precision("rel", by="score", ties=mode)).item()
        )
    # but in optimistic/pessimistic mode they order rows of equal label (cumulative_pr)
    ranks = frame.with_columns(
        pp=rm.cumulative_pr("rel", by=by, descending=[True, True], ties="pessimistic").struct["pp"]
    )["pp"].to_list()
    assert ranks == [1, 4, 3, 2, 5]


def test_optimistic_pessimistic_follow_graded_labels() -> None:
    frame = pl.DataFrame({"score": [1.0, 1.0, 1.0], "rel": [1, 3, 2]})
    best = frame.select(rm.dcg_at_k("rel", 3, by="score", ties="optimistic")).item()
    worst = frame.select(rm.dcg_at_k("rel", 3, by="score", ties="pessimistic")).item()
    assert best == pytest.approx(_dcg([3, 2, 1], 3, "linear"))
    assert worst == pytest.approx(_dcg([1, 2, 3], 3, "linear"))


def test_curves_with_ties() -> None:
    frame = pl.DataFrame({"score": [0.9, 0.5, 0.5, 0.5, 0.1], "rel": [0, 0, 1, 0, 1]})
    levels = [0.5]
    best = frame.select(
        rm.interpolated_precision("rel", levels, by="score", ties="optimistic")
    ).item()
    worst = frame.select(
        rm.interpolated_precision("rel", levels, by="score", ties="pessimistic")
    ).item()
    assert best.to_list() == [pytest.approx(1 / 2)]
    assert worst.to_list() == [pytest.approx(2 / 5)]
    # the exact curve is the same in every mode: no `ties` option there
    assert "ties" not in inspect.signature(rm.pr_curve).parameters


# ---------------------------------------------------------------------------
# Validation and the namespace.


def test_bad_ties_raise_when_built() -> None:
    with pytest.raises(
        ValueError, match=r"`ties` must be one of 'stable', 'optimistic', 'pessimistic', 'average'"
    ):
        rm.average_precision("rel", by="score", ties="random")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`ties='average'` needs scores"):
        rm.precision_at_k("rel", 3, ties="average")
    with pytest.raises(ValueError, match="`ties='average'` is not available for cumulative_pr"):
        rm.cumulative_pr("rel", by="score", ties="average")
    for name in ("interpolated_precision", "interpolated_ap"):
        with pytest.raises(
            ValueError, match=f"`ties='average'` has no exact expected value for {name}"
        ):
            getattr(rm, name)("rel", by="score", ties="average")


def test_namespace_passes_ties_through() -> None:
    # (tests/test_accessor.py checks every method's signature against its function.)
    frame = pl.DataFrame({"score": [1, 1, 0], "rel": [1, 0, 1]})
    assert frame.select(
        pl.col("rel").rank.average_precision(by="score", ties="average")
    ).item() == (pytest.approx((0.5 * 1 + 0.5 * 0.5 + 2 / 3) / 2))


# ---------------------------------------------------------------------------
# trec_eval's tie order (docno descending) against pytrec_eval.

TREC_MEASURES = {
    "map": "map",
    "map_cut_10": "map_cut_10",
    "P_5": "P_5",
    "P_10": "P_10",
    "recall_10": "recall_10",
    "recip_rank": "recip_rank",
    "Rprec": "Rprec",
    "ndcg_cut_10": "ndcg_cut_10",
    "ndcg": "ndcg",
    "success_5": "success_5",
}


def _tied_run_and_qrels(
    seed: int,
) -> tuple[pl.DataFrame, dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    rng = random.Random(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(12):
        query = f"q{q}"
        docs = [f"doc{rng.randrange(10_000)}" for _ in range(rng.randint(5, 30))]
        docs = list(dict.fromkeys(docs))
        # three or four distinct scores: the run is full of ties
        levels = [rng.choice([0.1, 0.25, 0.5, 0.75, 1.0]) for _ in range(4)]
        run[query] = {doc: rng.choice(levels) for doc in docs}
        judged = rng.sample(docs, k=len(docs) // 2) + [
            f"unretrieved{q}_{i}" for i in range(rng.randint(0, 3))
        ]
        no_relevant = q == 0
        qrels[query] = {doc: 0 if no_relevant else rng.choice([0, 0, 1, 2]) for doc in judged}
    run_frame = pl.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        schema={"query": pl.String, "doc": pl.String, "score": pl.Float64},
        orient="row",
    )
    qrels_frame = pl.DataFrame(
        [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()],
        schema={"query": pl.String, "doc": pl.String, "rel": pl.Int64},
        orient="row",
    )
    joined = run_frame.join(qrels_frame, on=["query", "doc"], how="full", coalesce=True)
    # shuffle, so that input order cannot be what breaks the ties
    return joined.sample(fraction=1.0, shuffle=True, seed=seed), run, qrels


@pytest.mark.parametrize("seed", [11, 12])
def test_trec_eval_tie_order_with_doc_descending(seed: int) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    joined, run, qrels = _tied_run_and_qrels(seed)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels,
        {"map", "map_cut", "P", "recall", "recip_rank", "Rprec", "ndcg_cut", "ndcg", "success"},
    )
    expected = evaluator.evaluate(run)

    def evaluate(descending: list[bool]) -> dict[str, dict[str, float]]:
        result = (
            joined.group_by("query")
            .agg(
                rm.metrics(
                    "rel",
                    list(TREC_MEASURES),
                    by=["score", "doc"],
                    descending=descending,
                    no_relevant="zero",
                ).alias("m")
            )
            .unnest("m")
        )
        return {row.pop("query"): row for row in result.iter_rows(named=True)}

    ours = evaluate([True, True])
    for query, values in expected.items():
        for ours_name, trec_name in TREC_MEASURES.items():
            assert ours[query][ours_name] == pytest.approx(values[trec_name], abs=1e-9), (
                query,
                ours_name,
            )
    # the tie-breaker matters on this data: docno ascending disagrees somewhere
    other = evaluate([True, False])
    assert any(abs(other[q]["map"] - expected[q]["map"]) > 1e-4 for q in expected)


# ---------------------------------------------------------------------------
# The README's example: trec_eval's MAP is 0.75 and ranx's 0.604.

README_FRAME = pl.DataFrame(
    {
        "doc": ["d1", "d2", "d3", "d4", "d5", "d6"],
        "score": [1.0, 0.5, 0.5, 0.5, 0.1, None],
        "rel": [1, 0, 1, 1, 0, 1],
    }
)


@pytest.mark.filterwarnings("ignore::Warning")  # numba's type-safety warnings inside ranx
def test_readme_example_against_trec_eval_and_ranx() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ranx = pytest.importorskip("ranx")
    frame = README_FRAME
    run = {"q": {d: s for d, s in zip(frame["doc"], frame["score"], strict=True) if s is not None}}
    qrels = {"q": dict(zip(frame["doc"], frame["rel"], strict=True))}
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)["q"]["map"]
    peer = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "map")
    assert trec == pytest.approx(0.75) and peer == pytest.approx(29 / 48)

    def ap(**options: object) -> float:
        return frame.select(rm.average_precision("rel", **options)).item()

    assert ap(by=["score", "doc"], descending=[True, True]) == pytest.approx(trec)
    assert ap(by="score") == pytest.approx(peer)  # input order d2, d3, d4, like ranx
    assert ap(by="score", ties="optimistic") == pytest.approx(max(trec, peer))
    assert ap(by="score", ties="pessimistic") == pytest.approx(min(trec, peer))
    tied = Tied(((1.0,), (0.0, 1.0, 1.0), (0.0,)), (1.0,))
    assert _close(ap(by="score", ties="average"), tied.expected(ref_ap, 0.0))
