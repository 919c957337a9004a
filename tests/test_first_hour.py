"""What a new user reads first: ``by=`` in every first example, and the row-order warning.

Without ``by=`` a metric ranks the rows in the order they come in (the documented
default, for data already in rank order). The quick start, the getting-started page and
the ``.rank`` namespace say so in their first lines, quoting the demo's figures; these
tests check the figures and that every metric's first example names its ranking.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics._accessor import RankNameSpace
from polars_rankmetrics.metrics import FUNCTIONS
from tests.conftest import PROJECT

RANKING_FUNCTIONS = [
    function
    for function in (*FUNCTIONS, rm.metrics)
    if "by" in inspect.signature(function).parameters
]
ROW_ORDER = re.compile(
    r"mean nDCG@10 is (\d\.\d{3}) ranked `+by=\"score\"`+ and (\d\.\d{3}) in row order"
)


def first_call(function: Callable[..., Any]) -> str:
    """The text of the first call of ``function`` in its docstring's examples."""
    doc = inspect.getdoc(function) or ""
    _, _, examples = doc.partition("Examples\n--------")
    code = "\n".join(
        line[4:] for line in examples.splitlines() if line.startswith((">>> ", "... "))
    )
    start = re.search(rf"(rm|\.rank)\.{function.__name__}\(", code)
    assert start is not None, f"{function.__name__}: no example calls it"
    depth, end = 1, start.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(code[end], 0)
        end += 1
    return code[start.start() : end]


@pytest.mark.parametrize("function", RANKING_FUNCTIONS, ids=lambda f: f.__name__)
def test_every_first_example_names_its_ranking(function: Callable[..., Any]) -> None:
    assert "by=" in first_call(function)


def pages() -> dict[str, str]:
    return {
        "README.md": (PROJECT / "README.md").read_text("utf-8").split("## Quick start", 1)[1],
        "getting-started.md": (PROJECT / "docs" / "getting-started.md")
        .read_text("utf-8")
        .split("## First steps", 1)[1],
        ".rank": RankNameSpace.__doc__ or "",
    }


@pytest.mark.parametrize("page", ["README.md", "getting-started.md", ".rank"])
def test_the_first_lines_say_what_happens_without_by(page: str) -> None:
    opening = " ".join(pages()[page].strip().split("\n\n")[:2])
    assert "Without `by=`" in opening or "Without ``by=``" in opening
    assert "row order" in opening
    assert ROW_ORDER.search(" ".join(opening.split())), page


def test_the_quoted_demo_figures() -> None:
    """The demo's rankings (3.2M rows): mean nDCG@10 by score and in row order."""
    pytest.importorskip("sklearn")
    from polars_rankmetrics.demo import digits_rankings

    means = (
        digits_rankings()
        .lazy()
        .group_by("query")
        .agg(
            by_score=rm.ndcg_at_k("relevance", 10, by="score"),
            row_order=rm.ndcg_at_k("relevance", 10),
        )
        .select(pl.mean("by_score", "row_order"))
        .collect()
        .row(0)
    )
    for page, text in pages().items():
        found = ROW_ORDER.search(" ".join(text.split()))
        assert found is not None, page
        assert [float(x) for x in found.groups()] == [round(m, 3) for m in means], page


def test_the_demo_shows_what_forgetting_by_costs() -> None:
    """``demo.row_order_ndcg``: each query's rows ranked as they come, against the reference."""
    import numpy as np

    from polars_rankmetrics import demo
    from tests import reference as ref

    rng = np.random.default_rng(11)
    query = np.repeat(np.arange(6), 25)
    rankings = pl.DataFrame(
        {"query": query, "score": rng.random(150), "relevance": rng.integers(0, 3, 150)}
    )
    expected = []
    for (_,), group in rankings.group_by("query"):
        labels = group["relevance"].to_list()
        # Row order as the ranking: decreasing scores in row order.
        value = ref.ndcg_at_k([(-i, label) for i, label in enumerate(labels)], 10)
        if value is not None:
            expected.append(value)
    assert demo.row_order_ndcg(rankings) == pytest.approx(sum(expected) / len(expected))
    assert demo.row_order_ndcg(rankings) != pytest.approx(
        rankings.group_by("query")
        .agg(rm.ndcg_at_k("relevance", 10, by="score"))
        .select(pl.mean("relevance"))
        .item()
    )
