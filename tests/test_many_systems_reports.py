"""Reports of all-pairs comparisons: ranx's letters, the compact letter display, the formats.

ranx's ``compare`` report is the reference for the superscript letters: on the
same per-query values (ranx's own), the paired t-test and Tukey's HSD give the
same letters (both are deterministic); Fisher's randomization test gives
p-values within Monte Carlo error of ranx's and the same letters on every pair
whose p-value is far from the level. ranx draws its permutations with numba's
generator and reports ``b / n``; we draw with numpy's ``default_rng(seed)`` and
report ``(b + 1) / (n + 1)``. ranx's draws are not reproducible from run to run
(its p-value of run1 against run2 on map@100 was seen at 0.040 and 0.049 with
the same data), so a pair near the level may fall on either side and is left out
of the letters' comparison.
"""

from __future__ import annotations

import itertools
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.comparisons.letters import superscripts


def _ranx_setup(n_queries: int = 40, seed: int = 0) -> tuple[object, list[object]]:
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(seed)
    qrels = {
        f"q{q}": {f"d{d}": int(rng.integers(1, 3)) for d in range(20) if rng.random() < 0.3}
        or {"d0": 1}
        for q in range(n_queries)
    }
    runs = []
    for index, strength in enumerate((0.0, 0.3, 0.35, 1.0, 1.5)):
        run = {}
        for q in range(n_queries):
            scores = {}
            for d in range(20):
                relevant = qrels[f"q{q}"].get(f"d{d}", 0)
                scores[f"d{d}"] = float(rng.normal() + strength * relevant)
            run[f"q{q}"] = scores
        runs.append(ranx.Run(run, name=f"run{index}"))
    return ranx.Qrels(qrels), runs


def _ranx_report(stat_test: str) -> tuple[object, pl.DataFrame, list[str]]:
    ranx = pytest.importorskip("ranx")
    qrels, runs = _ranx_setup()
    metrics = ["map@100", "ndcg@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's chatter inside ranx
        report = ranx.compare(qrels, runs, metrics, stat_test=stat_test, max_p=0.05)
        rows = []
        for run in runs:
            scores = ranx.evaluate(qrels, run, metrics, return_mean=False)
            for q, query in enumerate(run.keys()):
                rows.append(
                    {"system": run.name, "query": query}
                    | {metric: float(scores[metric][q]) for metric in metrics}
                )
    return report, pl.DataFrame(rows), metrics


def _ranx_letters(
    report: object, metric: str, leave_out: frozenset[frozenset[str]] = frozenset()
) -> dict[str, str]:
    names = report.model_names  # type: ignore[attr-defined]
    letters = {}
    for model in names:
        letters[model] = "".join(
            "abcdefghijklmnopqrstuvwxyz"[j]
            for j, other in enumerate(names)
            if other != model
            and frozenset((model, other)) not in leave_out
            and report.comparisons[model, other][metric]["significant"]  # type: ignore[attr-defined]
            and report.results[model][metric] > report.results[other][metric]  # type: ignore[attr-defined]
        )
    return letters


# A randomization p-value this close to the level may fall on either side between two
# independent draws of permutations (ranx's 1,000 against our 2,000: a standard error of
# about 0.007 at p = 0.05, so 0.025 is more than three of them).
NEAR_LEVEL = 0.025


def _near_the_level(report: object, pairs: pl.DataFrame, metric: str) -> frozenset[frozenset[str]]:
    """Pairs whose ranx or our randomization p-value is within NEAR_LEVEL of 0.05."""
    ours = pairs.filter(pl.col("metric") == metric)
    near = {
        frozenset((a, b))
        for a, b, p in ours.select("system_a", "system_b", "p_value").iter_rows()
        if abs(p - 0.05) < NEAR_LEVEL
    }
    for (a, b), values in report.comparisons.items():  # type: ignore[attr-defined]
        if abs(values[metric]["p_value"] - 0.05) < NEAR_LEVEL:
            near.add(frozenset((a, b)))
    return frozenset(near)


@pytest.mark.parametrize(
    ("stat_test", "test"), [("student", "t"), ("tukey", "tukey"), ("fisher", "randomization")]
)
def test_letters_equal_ranx_compare(stat_test: str, test: str) -> None:
    report, per_query, metrics = _ranx_report(stat_test)
    pairs = rm.compare_pairs(
        per_query,
        test=test,
        correction=None,
        alpha=0.05,
        n_resamples=2000,  # type: ignore[arg-type]
    )
    for metric in metrics:
        leave_out: frozenset[frozenset[str]] = frozenset()
        if test == "randomization":
            for a, b, p in (
                pairs.filter(pl.col("metric") == metric)
                .select("system_a", "system_b", "p_value")
                .iter_rows()
            ):
                theirs = report.comparisons[a, b][metric]["p_value"]  # type: ignore[attr-defined]
                assert abs(p - theirs) < 0.03, (metric, a, b, p, theirs)
            leave_out = _near_the_level(report, pairs, metric)
            assert len(leave_out) <= 1  # the comparison still covers nearly every pair
            far = [
                frozenset(pair) not in leave_out
                for pair in pairs.select("system_a", "system_b").iter_rows()
            ]
            pairs_far = pairs.filter(pl.Series(far, dtype=pl.Boolean))
            ours = superscripts(pairs_far, metric=metric)
        else:
            ours = superscripts(pairs, metric=metric)
        assert ours == _ranx_letters(report, metric, leave_out)
        assert any(ours.values())  # the data does separate some systems


def test_cld_groups_are_exactly_the_non_significant_pairs() -> None:
    rng = np.random.default_rng(3)
    k, n = 6, 30
    values = rng.random((k, n)) * 0.5 + np.linspace(0, 0.35, k)[:, None]
    frame = pl.DataFrame(
        {
            "system": [f"s{i}" for i in range(k) for _ in range(n)],
            "query": [f"q{j}" for _ in range(k) for j in range(n)],
            "ap": values.reshape(-1),
        }
    )
    pairs = rm.compare_pairs(frame, test="tukey-two-way", correction=None)
    display = rm.compact_letter_display(pairs, metric="ap")
    letters = dict(display.select("system", "letters").iter_rows())
    assert display["mean"].is_sorted(descending=True)
    significant = {
        frozenset((a, b))
        for a, b, s in pairs.select("system_a", "system_b", "significant").iter_rows()
        if s
    }
    assert 0 < len(significant) < 15
    for a, b in itertools.combinations(letters, 2):
        share = bool(set(letters[a]) & set(letters[b]))
        assert share == (frozenset((a, b)) not in significant), (a, b, letters)
    assert letters[display["system"][0]].startswith("a")


def _pairs() -> pl.DataFrame:
    frame = pl.DataFrame(
        {
            "system": ["bm25"] * 5 + ["dense_&"] * 5 + ["hybrid"] * 5,
            "query": ["q1", "q2", "q3", "q4", "q5"] * 3,
            "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.3, 0.6, 0.2, 0.6, 0.4, 0.5, 0.7, 0.4, 0.9, 0.6],
            "ndcg_cut_10": [0.3, 0.4, 0.2, 0.5, 0.3] * 3,
        }
    )
    return rm.compare_pairs(frame, test="tukey-two-way", correction=None)


def test_formats_show_the_same_letters_and_bold() -> None:
    pairs = _pairs()
    markdown = rm.pairs_table(pairs, test="two-way Tukey HSD test", alpha=0.05)
    assert "| c | hybrid | **0.620**<sup>ab</sup> | **0.340** |" in markdown
    assert r"dense\_&" in markdown or "dense_&" in markdown
    latex = rm.pairs_table(pairs, format="latex")
    assert r"c & hybrid & \textbf{0.620}$^{ab}$ & \textbf{0.340} \\" in latex
    assert r"dense\_\&" in latex and latex.isascii()
    page = rm.pairs_table(pairs, format="html")
    assert '<td>hybrid</td><td style="text-align:right"><b>0.620</b><sup>ab</sup></td>' in page
    assert "dense_&amp;" in page
    with pytest.raises(ValueError, match="`format` must be one of"):
        rm.pairs_table(pairs, format="csv")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="compare_pairs"):
        rm.pairs_table(pairs.drop("better"))


@pytest.mark.skipif(
    shutil.which("pdflatex") is None,
    reason="pdflatex not on PATH (apt-get install texlive-latex-base to run this check)",
)
def test_latex_compiles_with_plain_pdflatex(tmp_path: Path) -> None:
    table = rm.pairs_table(_pairs(), format="latex", test="Tukey", alpha=0.05)
    document = f"\\documentclass{{article}}\n\\begin{{document}}\n{table}\n\\end{{document}}\n"
    (tmp_path / "table.tex").write_text(document, encoding="ascii")
    done = subprocess.run(
        [str(shutil.which("pdflatex")), "-interaction=nonstopmode", "-halt-on-error", "table.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:]


def test_means_chart_shows_t_intervals_best_first() -> None:
    stats = pytest.importorskip("scipy.stats")
    pytest.importorskip("altair")
    rng = np.random.default_rng(8)
    values = rng.random((3, 12)) + np.array([[0.0], [0.3], [0.1]])
    frame = pl.DataFrame(
        {
            "system": [f"s{i}" for i in range(3) for _ in range(12)],
            "query": [f"q{j}" for _ in range(3) for j in range(12)],
            "ap": values.reshape(-1),
        }
    )
    spec = rm.means_chart(frame, metric="ap", alpha=0.1).to_dict()
    rows = spec["data"]["values"]
    order = np.argsort(-values.mean(axis=1))
    assert [row["system"] for row in rows] == [f"s{i}" for i in order]
    for row in rows:
        sample = values[int(row["system"][1])]
        low, high = stats.t.interval(0.9, 11, loc=sample.mean(), scale=stats.sem(sample))
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high))
