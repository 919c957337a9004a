"""The batched alpha-nDCG, nERR-IA and nNRBP against their polars expressions, bit for bit.

Without intent weights the normalised measures with the greedy ideal are
computed for all queries in one call (:mod:`.diversity_batched`). Their
expressions (per ranked list, in ``list.agg``; tested against ndeval in
``test_diversity.py``) are the reference here: the same frames evaluated with
the batched path switched off must give the same bits, with tied and null
scores, unjudged rows, string and integer subtopics (duplicated or null inside
a list), document ids with repeats, queries without subtopics, every cutoff
regime (some pairs left out of the sum, or none, beyond 128 terms) and both
``no_relevant`` policies; and through ``metrics()`` beside other measures.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.metrics import diversity_batched, diversity_dense, diversity_statistics


def _frame(seed: int, *, text: bool, docs: str | None, n_queries: int = 40) -> pl.DataFrame:
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    universe: list[Any] = [f"s{i}" for i in range(11)] if text else list(range(-2, 12))
    for query in range(n_queries):
        n_subtopics = rng.randint(0, 8)
        for i in range(rng.randint(1, 45)):
            subtopics: list[Any] | None = [
                rng.choice(universe[:n_subtopics])
                for _ in range(rng.randint(0, 4) * bool(n_subtopics))
            ]
            if rng.random() < 0.05:
                subtopics = None  # unjudged
            elif subtopics and rng.random() < 0.03:
                subtopics.append(None)  # a null inside a list: no subtopic
            score = rng.choice([None, float("nan"), *[float(s) for s in range(6)]])
            doc: Any = rng.randrange(60) if docs == "int" else f"d{rng.randrange(60):02d}"
            rows.append(
                {"query": query, "score": score, "subtopics": subtopics, "doc": doc, "i": i}
            )
    subtopic_type = pl.String if text else pl.Int64
    schema = {
        "query": pl.Int64,
        "score": pl.Float64,
        "subtopics": pl.List(subtopic_type),
        "doc": pl.Int64 if docs == "int" else pl.String,
        "i": pl.Int64,
    }
    return pl.DataFrame(rows, schema=schema)


def _both(
    frame: pl.DataFrame, build: Callable[[], dict[str, pl.Expr]], monkeypatch: pytest.MonkeyPatch
) -> Any:
    """The frame evaluated batched, and by the expressions (built with the batched path off)."""
    batched = frame.group_by("query").agg(**build()).sort("query")
    with monkeypatch.context() as patch:
        patch.setattr(diversity_statistics, "_batched", lambda _, expression, *a, **k: expression)
        patch.setattr(diversity_statistics, "reads_lists_as_given", lambda _: False)
        expressions = frame.group_by("query").agg(**build()).sort("query")
    return batched, expressions


@pytest.mark.parametrize(
    ("seed", "text", "docs", "block"),
    [
        (0, False, None, 4096),
        (1, True, "str", 4096),
        (2, False, "int", 4096),
        (3, True, None, 7),
        (4, False, "int", 5),
    ],
)
def test_batched_measures_equal_their_expressions(
    seed: int, text: bool, docs: str | None, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(diversity_batched, "BLOCK", block)
    monkeypatch.setattr(diversity_dense, "DENSE_BLOCK", block)
    frame = _frame(seed, text=text, docs=docs)
    common: dict[str, Any] = {"by": ["score", "i"], "descending": [True, False]}
    if docs is not None:
        common["docs"] = "doc"

    def build() -> dict[str, pl.Expr]:
        exprs = {}
        for alpha in (0.5, 0.0, 1.0, 0.3):
            for k in (1, 5, 20, 200):
                exprs[f"a{alpha}@{k}"] = rm.alpha_ndcg_at_k("subtopics", k, alpha=alpha, **common)
                exprs[f"e{alpha}@{k}"] = rm.nerr_ia_at_k("subtopics", k, alpha=alpha, **common)
            exprs[f"n{alpha}"] = rm.nnrbp("subtopics", alpha=alpha, beta=0.8, **common)
        exprs["zero"] = rm.alpha_ndcg_at_k("subtopics", 10, no_relevant="zero", **common)
        exprs["optimistic"] = rm.alpha_ndcg_at_k("subtopics", 10, ties="optimistic", **common)
        return exprs

    batched, expressions = _both(frame, build, monkeypatch)
    assert batched.null_count().sum_horizontal().item() > 0  # queries without subtopics
    assert batched.to_dicts() == expressions.to_dicts()


@pytest.mark.parametrize("block", [4096, 4])
def test_no_pair_left_out_and_long_lists(block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row retrieved and inside the cutoff (polars then sums without compensation).

    In blocks of lists, one block's pairs all inside and another's not: compensated in all.
    """
    monkeypatch.setattr(diversity_batched, "BLOCK", block)
    monkeypatch.setattr(diversity_dense, "DENSE_BLOCK", block)
    rng = random.Random(5)
    lengths = [rng.choice([3, 40, 90, 160]) for _ in range(30)]
    frame = pl.DataFrame(
        {
            "query": [q for q, n in enumerate(lengths) for _ in range(n)],
            "score": [rng.random() for n in lengths for _ in range(n)],
            "subtopics": [
                rng.sample(range(1, 9), rng.randint(0, 5)) for n in lengths for _ in range(n)
            ],
        }
    )

    def build() -> dict[str, pl.Expr]:
        return {
            "ndcg": rm.alpha_ndcg_at_k("subtopics", 1000, by="score", alpha=0.3),
            "nerr": rm.nerr_ia_at_k("subtopics", 1000, by="score", alpha=0.7),
            "nnrbp": rm.nnrbp("subtopics", by="score", alpha=0.3, beta=0.9),
            "some out": rm.nerr_ia_at_k("subtopics", 50, by="score", alpha=0.7),
        }

    batched, expressions = _both(frame, build, monkeypatch)
    assert batched.to_dicts() == expressions.to_dicts()


def test_metrics_beside_other_measures(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _frame(3, text=True, docs="str").with_columns(
        relevance=pl.col("subtopics").list.len().fill_null(0)
    )
    names = ["alpha_nDCG@20", "nERR-IA@5", "nNRBP", "P@5", "ERR-IA@10", "alpha-nDCG@3"]

    def build() -> dict[str, pl.Expr]:
        options: dict[str, Any] = {"by": ["score", "doc"], "descending": [True, False]}
        return {"m": rm.metrics("relevance", names, subtopics="subtopics", docs="doc", **options)}

    batched, expressions = _both(frame, build, monkeypatch)
    assert batched.unnest("m").to_dicts() == expressions.unnest("m").to_dicts()


def test_subtopics_of_another_type_take_the_expressions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Float subtopics: the batched call evaluates the expressions on its lists."""
    frame = pl.DataFrame(
        {
            "query": [1, 1, 1, 2, 2],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0],
            "subtopics": [[1.0, 2.0], [2.0], [], [], [0.5]],
        }
    )

    def build() -> dict[str, pl.Expr]:
        return {"a": rm.alpha_ndcg_at_k("subtopics", 2, by="score")}

    batched, expressions = _both(frame, build, monkeypatch)
    assert batched.to_dicts() == expressions.to_dicts()
    assert batched["a"].to_list() == pytest.approx([1.0, 1.0 / math.log2(3.0)])


@pytest.mark.parametrize(
    ("text", "docs", "universe", "dense"),
    [
        (False, None, 14, True),
        (True, None, 11, True),
        (False, "int", 14, True),  # document ids break the greedy's ties
        (True, "str", 11, True),
        (False, None, 17, False),  # more than DENSE_BITS distinct subtopics
        (True, None, 0, False),  # too many distinct sets for the table (DENSE_SETS 0)
    ],
)
def test_dense_path_where_it_applies(
    text: bool, docs: str | None, universe: int, dense: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bit-mask path (``diversity_dense``) takes integer and string subtopics, ids or not.

    Its values are those of the expressions; lists it cannot take go the general way.
    """
    blocks: list[int] = []
    original = diversity_dense._terms

    def counted(rows: Any, start: int, row_counts: Any, *args: Any) -> Any:
        blocks.append(len(row_counts))
        return original(rows, start, row_counts, *args)

    monkeypatch.setattr(diversity_dense, "_terms", counted)
    monkeypatch.setattr(diversity_dense, "DENSE_BLOCK", 16)
    if not universe:
        monkeypatch.setattr(diversity_dense, "DENSE_SETS", 0)
    rng = random.Random(universe)
    frame = _frame(6, text=text, docs=docs, n_queries=60)
    if universe > 14:  # integers spread over `universe` values
        frame = frame.with_columns(
            pl.col("subtopics").list.eval(pl.element() * 3 + rng.randrange(5) - 20)
        )
    common: dict[str, Any] = {"by": ["score", "i"], "descending": [True, False]}
    if docs is not None:
        common["docs"] = "doc"

    def build() -> dict[str, pl.Expr]:
        return {
            "a": rm.alpha_ndcg_at_k("subtopics", 10, alpha=0.4, **common),
            "e": rm.nerr_ia_at_k("subtopics", 30, **common),
            "n": rm.nnrbp("subtopics", alpha=0.6, beta=0.7, **common),
        }

    batched, expressions = _both(frame, build, monkeypatch)
    assert batched.to_dicts() == expressions.to_dicts()
    assert (sum(blocks) == 3 * 60) is dense


def test_dense_path_on_chunked_sliced_and_empty_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Arrow buffers read as they lie: several chunks, a slice, lists sliced, no lists."""
    frame = _frame(7, text=False, docs=None, n_queries=30)
    ranking = diversity_statistics.subtopic_ranking(
        "subtopics", "score", True, "stable", as_given=True
    )
    listed = ranking.listed([diversity_batched.SUBTOPICS])
    lists = frame.group_by("query").agg(listed.alias("lists"))["lists"]
    options: dict[str, Any] = {
        "alpha": 0.5,
        "discount": "log",
        "k": 7,
        "beta": 0.5,
        "scale": 1.0,
        "no_relevant": "null",
    }
    cases = {
        "chunks": pl.concat([lists.slice(0, 11), lists.slice(11)], rechunk=False),
        "slice": lists.slice(5, 17),
        "lists sliced": lists.list.slice(2, 9),
        "none": lists.slice(0, 0),
    }
    for name, case in cases.items():
        dense = diversity_batched.normalised_values(case, pl.lit(0.0), **options)
        with monkeypatch.context() as patch:
            patch.setattr(diversity_batched, "dense_parts", lambda *_, **__: None)
            general = diversity_batched.normalised_values(case, pl.lit(0.0), **options)
        assert dense.to_list() == general.to_list(), name
