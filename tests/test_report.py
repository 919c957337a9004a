"""Markdown and LaTeX results tables: bold for the best, markers for significant changes."""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.comparisons.comparison import COMPARISON_SCHEMA


def _comparison(rows: list[tuple[str, str, float | None, float, bool | None]]) -> pl.DataFrame:
    """A hand-made compare() result: (metric, system, mean, delta, significant)."""
    records = []
    for metric, system, mean, delta, significant in rows:
        records.append(
            {
                "metric": metric,
                "system": system,
                "mean": mean,
                "delta": delta,
                "significant": significant,
                "is_baseline": system == "base",
                "n_queries": 10,
                "n_filled": 0,
                "n_dropped": 0,
                "n_ignored": 0,
            }
        )
    return pl.DataFrame(records, schema={k: COMPARISON_SCHEMA[k] for k in records[0]})


COMPARISON = _comparison(
    [
        ("map", "base", 0.30, 0.0, None),
        ("map", "better", 0.40, 0.10, True),  # best and significant
        ("map", "worse", 0.20, -0.10, True),  # a significant loss: the loss marker
        ("ndcg_cut_10", "base", 0.5123, 0.0, None),  # best (tied at 3 digits)
        ("ndcg_cut_10", "better", 0.5118, -0.0005, False),
        ("ndcg_cut_10", "worse", 0.45, -0.06, True),
    ]
)


def _markdown_rows(text: str) -> dict[str, list[str]]:
    rows = {}
    for line in text.splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def test_markdown_bold_and_marker_placement() -> None:
    text = rm.markdown_table(COMPARISON, digits=3)
    lines = text.splitlines()
    assert lines[0] == "| System | map | ndcg_cut_10 |"
    assert lines[1] == "|:---|---:|---:|"
    assert _markdown_rows(text) == {
        "base (baseline)": ["0.300", "**0.512**"],
        "better": ["**0.400**†", "**0.512**"],  # ties at the printed precision are both bold
        "worse": ["0.200‡", "0.450‡"],  # significant losses are marked too
    }
    assert "†: significant improvement over the baseline base." in text
    assert "‡: significantly worse than the baseline." in text.splitlines()


def test_more_digits_break_the_tie() -> None:
    rows = _markdown_rows(rm.markdown_table(COMPARISON, digits=4))
    assert rows["base (baseline)"][1] == "**0.5123**"
    assert rows["better"][1] == "0.5118"


def test_markdown_options_and_counts_note() -> None:
    counted = COMPARISON.with_columns(
        n_filled=pl.when(pl.col("system") == "worse").then(3).otherwise(0),
        n_dropped=pl.lit(0),
        n_ignored=pl.when(pl.col("system") == "better").then(2).otherwise(0),
    )
    text = rm.markdown_table(counted, marker="*", test="paired t-test, Holm")
    assert "| better | **0.4000*** |" in text
    assert "*: significant improvement over the baseline base (paired t-test, Holm)." in text
    assert "Missing queries scored 0 (most in one metric, per system): worse: 3." in text
    assert "Rows ignored, outside the query set: better: 2." in text


def test_latex_table_bold_marker_and_escaping() -> None:
    text = rm.latex_table(COMPARISON, digits=3, caption="Runs on 50% of TREC-8", label="tab:r")
    body = text.splitlines()
    assert r"\begin{tabular}{lrr}" in body
    assert r"System & map & ndcg\_cut\_10 \\" in body
    assert r"base (baseline) & 0.300 & \textbf{0.512} \\" in body
    assert r"better & \textbf{0.400}$^{\dagger}$ & \textbf{0.512} \\" in body
    assert r"worse & 0.200$^{\ddagger}$ & 0.450$^{\ddagger}$ \\" in body
    assert "\\caption{Runs on 50\\% of TREC-8\nBold: best per metric. $\\dagger$:" in text
    assert "$\\ddagger$: significantly worse than the baseline." in body
    assert "Means over 10 queries.}" in body  # the query-set line
    assert body[-2:] == [r"\label{tab:r}", r"\end{table}"]


def test_missing_mean_is_a_dash() -> None:
    comparison = _comparison([("map", "base", 0.3, 0.0, None), ("map", "new", None, 0.0, None)])
    assert _markdown_rows(rm.markdown_table(comparison))["new"] == ["–"]
    assert r"new & -- \\" in rm.latex_table(comparison)


def test_tables_from_a_real_comparison() -> None:
    per_query = pl.DataFrame(
        {
            "system": ["a"] * 6 + ["b"] * 6,
            "query": list("123456") * 2,
            "m": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        }
    )
    comparison = rm.compare(per_query, baseline="a")
    assert _markdown_rows(rm.markdown_table(comparison)) == {
        "a (baseline)": ["0.3500"],
        "b": ["**0.5500**†"],
    }


@pytest.mark.parametrize(
    ("frame", "kwargs", "message"),
    [
        (COMPARISON.drop("is_baseline"), {}, "lacks the columns"),
        (COMPARISON.with_columns(is_baseline=pl.lit(False)), {}, "exactly one baseline"),
        (COMPARISON.head(0), {}, "empty"),
        (COMPARISON, {"digits": -1}, "`digits`"),
    ],
)
def test_bad_input_raises(frame: pl.DataFrame, kwargs: dict[str, int], message: str) -> None:
    for render in (rm.markdown_table, rm.latex_table):
        with pytest.raises(ValueError, match=message):
            render(frame, **kwargs)
