"""The engine's fast paths give exactly the plain path's values, and its contracts hold.

The plain path (``engine.plain``) sorts each group once into a list and computes
each statistic on it from scratch. The fast paths (shared per-position
quantities, staged aggregates, top k) must give the same values bit for bit:
for every case of the metric table, every measure of the registry, several
ranking options, on random data with tied scores, null and NaN scores, null
and negative labels and unretrieved relevant rows. The six benchmark measures
are also checked against a slow per-query reference written with numpy.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from polars_rankmetrics._validate import NoRelevant
from polars_rankmetrics.engine import Ranked, Ranking, Threshold, evaluate, statistic
from polars_rankmetrics.engine.per_list import per_list as _per_list
from polars_rankmetrics.engine.ranked import FIELDS
from polars_rankmetrics.engine.staged import StagedRanked, probe
from polars_rankmetrics.measures import parse_measure, parse_measures
from tests.metric_table import MEASURES, METRICS, NEEDS_SCORES, MetricCase, subtopic_lists_of
from tests.rankings import random_rankings

RankingArgs = dict[str, object]
RANKINGS: list[RankingArgs] = [
    {"by": "score", "descending": True, "threshold": 0},
    {"by": "score", "descending": False, "threshold": 1},
    {"by": ["score", "tiebreak"], "descending": [True, False], "threshold": 0},
    {"by": None, "descending": True, "threshold": 0},
]
RANKING_IDS = ["desc", "asc-t1", "two-keys", "in-order"]


@contextmanager
def plain_paths() -> Iterator[None]:
    """Build expressions by the plain path only."""
    import polars_rankmetrics.engine.entry as module

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "FAST_PATHS", False)
        yield


def fast_and_plain(build: Callable[[], pl.Expr]) -> tuple[pl.Expr, pl.Expr]:
    fast = build()
    with plain_paths():
        plain = build()
    return fast, plain


def test_plain_paths_switch_the_paths() -> None:
    fast, plain = fast_and_plain(lambda: rm.precision_at_k("relevance", 3, by="score"))
    assert fast.meta.serialize() != plain.meta.serialize()


def both_ways(frame: pl.DataFrame, fast: pl.Expr, plain: pl.Expr) -> None:
    grouped = frame.group_by("query").agg(fast.alias("fast"), plain.alias("plain")).sort("query")
    assert_frame_equal(
        grouped.select(pl.col("fast").alias("v")),
        grouped.select(pl.col("plain").alias("v")),
        check_exact=True,
    )
    one = frame.filter(pl.col("query") == 0)
    assert_frame_equal(one.select(fast.alias("v")), one.select(plain.alias("v")), check_exact=True)


ENGINE_CASES = [case for case in METRICS if case.kind != "rows" and case.id != "pr_curve"]


# Every case under every ranking; the seeded sample takes one of the seeds for each.
@pytest.mark.sweep(by=("case", "options"), keep=1)
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("options", RANKINGS, ids=RANKING_IDS)
@pytest.mark.parametrize("case", ENGINE_CASES, ids=[case.id for case in ENGINE_CASES])
def test_metric_equals_plain_path(seed: int, options: RankingArgs, case: MetricCase) -> None:
    scored = inspect.signature(case.function).parameters["by"].default is inspect.Parameter.empty
    if options["by"] is None and (case.id == "binned3" or scored):
        pytest.skip("a curve (or a measure on scores) needs scores")
    fast, plain = fast_and_plain(lambda: case.expr(**options))
    both_ways(random_rankings(seed), fast, plain)


def _reads_fields(name: str) -> bool:
    bound = [column.bind("null") for column in parse_measures(name)]
    return bool(probe(bound, Threshold(), frozenset(FIELDS)).read_fields)


SPELLINGS = [name for name, _ in MEASURES.values()]
# Measures that read fields (raw labels, scores, subtopics) send every measure
# of the call down the plain path, so the fast paths are checked on the others alone.
UNJUDGED = [name for name in SPELLINGS if not _reads_fields(name)]
SCORED = {name for key, (name, _) in MEASURES.items() if key in NEEDS_SCORES}
# Extra spellings: several cutoffs, per-measure relevance levels, AP@k, RR@k.
UNJUDGED += ["P.1,3,20", "P(rel=2)@5", "AP(rel=2)", "AP@3", "RR@2", "nDCG@2", "nDCG", "Success@1"]


@pytest.mark.sweep(by=("names", "options"), keep=1)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("options", RANKINGS, ids=RANKING_IDS)
@pytest.mark.parametrize("names", [UNJUDGED, SPELLINGS], ids=["staged", "judged"])
def test_metrics_equals_plain_struct(seed: int, options: RankingArgs, names: list[str]) -> None:
    if options["by"] is None:
        names = [name for name in names if name not in SCORED]
    subtopics = subtopic_lists_of(pl.col("relevance"))
    fast, plain = fast_and_plain(
        lambda: rm.metrics("relevance", names, subtopics=subtopics, **options)  # type: ignore[arg-type]
    )
    both_ways(random_rankings(seed), fast, plain)


def slow_measures(
    scores: list[float | None], labels: list[float | None]
) -> dict[str, float | None]:
    """The six benchmark measures of one query, straight from their definitions."""
    gains = [max(0.0, label or 0.0) for label in labels]
    retrieved = [i for i, s in enumerate(scores) if s is not None and not math.isnan(s)]
    order = sorted(retrieved, key=lambda i: -scores[i])  # type: ignore[operator]  # stable: ties keep input order
    relevant = [g > 0 for g in gains]
    n_relevant = sum(relevant)
    hits = [relevant[i] for i in order]
    ideal = sorted(gains, reverse=True)

    def dcg(values: list[float], k: int) -> float:
        return sum(v / math.log2(rank + 2) for rank, v in enumerate(values[:k]))

    if n_relevant == 0:
        return {
            "P@10": sum(hits[:10]) / 10,
            "R@100": None,
            "AP": None,
            "AP@10": None,
            "nDCG@10": None,
            "RR": None,
        }
    terms = [sum(hits[: rank + 1]) / (rank + 1) if hit else 0.0 for rank, hit in enumerate(hits)]
    first = next((rank for rank, hit in enumerate(hits) if hit), None)
    return {
        "P@10": sum(hits[:10]) / 10,
        "R@100": sum(hits[:100]) / n_relevant,
        "AP": sum(terms) / n_relevant,
        "AP@10": sum(terms[:10]) / n_relevant,
        "nDCG@10": dcg([gains[i] for i in order], 10) / dcg(ideal, 10),
        "RR": 0.0 if first is None else 1.0 / (first + 1),
    }


@pytest.mark.parametrize("seed", [3, 4])
def test_metrics_against_slow_reference(seed: int) -> None:
    frame = random_rankings(seed, max_docs=120)
    six = ["P@10", "R@100", "AP", "AP@10", "nDCG@10", "RR"]
    ours = (
        frame.group_by("query")
        .agg(rm.metrics("relevance", six, by="score").alias("m"))
        .unnest("m")
        .sort("query")
    )
    rows = []
    for (query,), group in frame.partition_by("query", as_dict=True, maintain_order=True).items():
        rows.append(
            {
                "query": query,
                **slow_measures(group["score"].to_list(), group["relevance"].to_list()),
            }
        )
    expected = pl.DataFrame(
        rows, schema={"query": pl.Int64, **dict.fromkeys(six, pl.Float64)}
    ).sort("query")
    assert_frame_equal(ours, expected, rel_tol=1e-12, abs_tol=1e-12)


def test_staged_aggregates_are_computed_once() -> None:
    # P@10 and R@10 read the same hits in the top 10; R@10 and AP read the same R.
    staged = StagedRanked(Threshold())
    for name in ["P@10", "R@10", "AP"]:
        parse_measure(name).bind("null").build(staged)
    # hits in the top 10, the divisor 10 (a field: a true division), R, the sum of AP's terms
    assert len(staged.recorded) == 4


def test_aggregates_per_list_equal_list_agg() -> None:
    # Reductions become `list.eval(values).list.<reduction>()`; anything else
    # stays a `list.agg`. Either way, the value of `list.agg`.
    lists = pl.DataFrame(
        {"codes": [[3.0, 0.0, -1.0, 2.0], [0.0], [-3.0, -1.0], [0.0, 1.0, 0.0, 2.0, -1.0]]}
    )
    code = pl.element()
    hit = code > 0.0
    aggregates = {
        "hits": hit.sum(),
        "hits@2": (code.head(2) > 0.0).sum(),
        "gain": code.clip(lower_bound=0.0).sum(),
        "found": hit.any(),
        "first": hit.arg_max(),
        "best": code.max(),
        "top": code.first(),
        "ratio": hit.sum() / code.len(),
    }

    def nested(values: dict[str, pl.Expr]) -> pl.DataFrame:
        per_list = pl.struct(_per_list(value).alias(name) for name, value in values.items())
        return lists.select(pl.col("codes").implode().list.eval(per_list).explode().struct.unnest())

    expected = lists.select(
        pl.col("codes").list.agg(value).alias(name) for name, value in aggregates.items()
    )
    assert_frame_equal(nested(aggregates), expected)
    assert expected["first"].to_list() == [0, 0, 0, 1]
    decomposed = [
        name for name, value in aggregates.items() if ".list.eval(" in str(_per_list(value))
    ]
    assert decomposed == ["hits", "hits@2", "gain", "found", "first", "best", "top"]
    # A constant statistic (trec_eval's num_q) gives one value per list.
    assert nested({"constant": pl.lit(1.0)})["constant"].to_list() == [1.0] * 4


# ------------------------------------------------------------------ contracts


@statistic()
def _first_label(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Reads the list outside any aggregate: computed whole, never staged."""
    return ranked.label.first() + ranked.n_relevant * 0.0


@statistic(exact_average=True)
def _raw_sum(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Reads raw labels under ties='average' too: the tie-annotated list holds them."""
    return ranked.raw.fill_null(0.0).sum()


def test_the_running_dcg_is_shared_by_the_gain_measures() -> None:
    # Rndcg and ndcg_rel read the running DCG and ideal DCG as the list's fields
    # (computed once per list); with custom gains each computes its own.
    shared = {"_running_dcg", "_running_ideal_dcg"}
    bounds = [parse_measure(name).bind("null") for name in ["Rndcg", "ndcg_rel"]]
    assert shared <= probe(bounds, Threshold()).quantities
    custom = [parse_measure("ndcg_rel.1=3").bind("null")]
    assert not shared & probe(custom, Threshold()).quantities


FRAME = pl.DataFrame(
    {"score": [3.0, 2.0, 2.0, None], "relevance": [0.0, 2.0, 1.0, 1.0], "q": [1, 1, 1, 1]}
)


def test_a_statistic_read_outside_its_aggregates_is_computed_whole() -> None:
    ranking = Ranking.build("relevance", "score", True, 0.0)
    bound = _first_label.bind("first_label")
    assert probe([bound], ranking.threshold).staged == (False,)
    value = FRAME.select(evaluate(ranking, [bound]).struct.field("first_label")).item()
    assert value == 0.0


def test_average_ties_refuse_what_has_no_exact_form_in_every_entry_point() -> None:
    message = "`ties='average'` has no exact expected value for {}"
    with pytest.raises(ValueError, match=message.format("bpref")):
        rm.metrics("relevance", ["map", "bpref"], by="score", ties="average")
    with pytest.raises(ValueError, match=message.format("interpolated_ap")):
        rm.interpolated_ap("relevance", by="score", ties="average")
    ranking = Ranking.build("relevance", "score", True, 0.0, ties="average")
    with pytest.raises(ValueError, match=message.format("first_label")):
        evaluate(ranking, [_first_label.bind("first_label")])
    raw_sum = evaluate(ranking, [_raw_sum.bind("raw_sum")]).struct.field("raw_sum")
    assert FRAME.select(raw_sum).item() == 4.0


def test_a_field_the_ranking_lacks_is_refused_naming_the_statistic() -> None:
    ranking = Ranking.build("relevance", None, True, 0.0)
    with pytest.raises(ValueError, match="score_sum needs scores: pass `by`"):
        evaluate(ranking, [_score_sum.bind("score_sum")])


@statistic(exact_average=True)
def _score_sum(ranked: Ranked, no_relevant: NoRelevant) -> pl.Expr:
    """Reads the score field."""
    return ranked.score.sum()


def test_statistics_check_their_parameters() -> None:
    with pytest.raises(ValueError, match="unknown parameter"):
        parse_measure("P@10").measure.statistic.bind("P", k=3, depth=2)
    with pytest.raises(ValueError, match="missing parameter"):
        parse_measure("P@10").measure.statistic.bind("P")


def test_an_infinite_label_gives_the_same_finite_precision_on_every_path() -> None:
    # The plain path's divisor once read the list's first label times 0.0: NaN for inf.
    frame = pl.DataFrame(
        {
            "q": [1, 1, 1, 2, 2],
            "rel": [float("inf"), 0.0, 1.0, 1.0, 0.0],
            "s": [3.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    fast, plain = fast_and_plain(lambda: rm.metrics("rel", ["P@2", "P@3"], by="s"))
    by_path = [
        frame.group_by("q", maintain_order=True).agg(expr.alias("m")).unnest("m")
        for expr in (fast, plain)
    ]
    # Two relevant rows of the first query's three (inf and 1.0 pass the threshold 0).
    expected = pl.DataFrame({"q": [1, 2], "P@2": [1 / 2, 1 / 2], "P@3": [2 / 3, 1 / 3]})
    for result in by_path:
        assert_frame_equal(result, expected, check_exact=True)


# The measures whose expressions compute their running sums once (`computed_once`, the
# input of `log2`), the counts read as aggregates (set measures) and nDCG@k read off
# the running DCG that Rndcg and ndcg_rel share: together, as in trec_eval's all_trec.
ONCE = ["ndcg_cut.5,10,1000", "ndcg", "Rndcg", "ndcg_rel", "G", "binG", "infAP", "bpref"]
ONCE += ["set_F", "set_map", "set_relative_P", "utility.1,-1,0,0", "num_rel_ret"]


@pytest.mark.parametrize("seed", [0, 1])
def test_values_computed_once_equal_the_plain_path(seed: int) -> None:
    fast, plain = fast_and_plain(lambda: rm.metrics("relevance", ONCE, by="score"))
    both_ways(random_rankings(seed), fast, plain)
    staged = StagedRanked(Threshold())
    bounds = [parse_measure(name).bind("null") for name in ["Rndcg", "ndcg_cut_10"]]
    used = probe(bounds, Threshold()).quantities
    reader = replace(staged, available=frozenset(used) & {"_running_dcg", "_running_ideal_dcg"})
    assert "_running_dcg" in reader.available
    bounds[1].build(reader)
    assert any("_running_dcg" in str(value) for _, value in reader.recorded.values())
