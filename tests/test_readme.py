"""The Python examples of the README and of the documentation pages, run so that they cannot rot.

Every ```python block of README.md and of docs/**/*.md is one test case, named
after the heading it sits under and its number within that section (``Quick
start #2``; a docs page's blocks are prefixed with the page, ``coming-from.md:
From ranx #1``). Each case first compiles the block (with the page's line
numbers, so a traceback points into the page), then hands it to the runner
registered for it in ``RUNNERS``. A block without a runner fails, and so does a
runner whose block is gone: a new example has to say here how it is checked.

A runner executes the block for real, in a temporary working directory holding
the files the block reads (``runs/*.parquet``, ``run.txt``, ...), with the names
the README leaves to the reader (``df``, ``lf``) given explicitly. It then compares
the block's results with what the README shows (printed tables, numbers in
comments) and with independent references: the slow implementations in
``tests/reference.py`` and trec_eval's own expected output. The only block that
may end up compiled but not run is the Spark one, when pyspark or Java is missing.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.spark import spark_unavailable
from tests import reference as ref
from tests.conftest import PROJECT, TREC_EVAL

README = PROJECT / "README.md"
DOCS = PROJECT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]


# ---------------------------------------------------------------------------
# Reading the README


@dataclass(frozen=True)
class Block:
    """One ```python block, with what the README shows after it."""

    section: str  # the nearest heading above the block
    number: int  # 1, 2, ... within the section
    line: int  # page line of the block's first line of code
    code: str
    output: str | None  # a language-less fenced block right after it: the shown output
    after: str  # page text after the block, up to the next heading
    path: Path = README  # the page

    @property
    def id(self) -> str:
        if self.path == README:
            return f"{self.section} #{self.number}"
        return f"{self.path.relative_to(DOCS).as_posix()}: {self.section} #{self.number}"

    @property
    def source(self) -> str:
        """The code to run; for a ``>>>`` block, the prompt lines without prompts."""
        if not self.code.startswith(">>> "):
            return self.code
        lines = self.code.splitlines()
        return "\n".join(line[4:] for line in lines if line.startswith((">>> ", "... ")))

    @property
    def shown(self) -> str:
        """For a ``>>>`` block, the lines shown after the prompts."""
        lines = self.code.splitlines()
        return "\n".join(line for line in lines if not line.startswith((">>> ", "... ")))


def readme_blocks(text: str, path: Path = README) -> list[Block]:
    lines = text.splitlines()
    fences = []  # (language, first line index of the body, index of the closing fence)
    headings = {}  # line index -> heading text, outside fences only
    index = 0
    while index < len(lines):
        opening = re.fullmatch(r"```(\S*)\s*", lines[index])
        if opening:
            close = next(j for j in range(index + 1, len(lines)) if lines[j].strip() == "```")
            fences.append((opening.group(1), index + 1, close))
            index = close + 1
            continue
        heading = re.fullmatch(r"#+ (.+)", lines[index])
        if heading:
            headings[index] = heading.group(1).strip()
        index += 1

    blocks: list[Block] = []
    for position, (language, start, close) in enumerate(fences):
        if language != "python":
            continue
        section = headings[max(line for line in headings if line < start)]
        number = 1 + sum(block.section == section for block in blocks)
        output = None
        if position + 1 < len(fences):
            next_language, next_start, next_close = fences[position + 1]
            between = lines[close + 1 : next_start - 1]
            if next_language == "" and all(not line.strip() for line in between):
                output = "\n".join(lines[next_start:next_close])
        end = min((line for line in headings if line > close), default=len(lines))
        blocks.append(
            Block(
                section=section,
                number=number,
                line=start + 1,
                code="\n".join(lines[start:close]) + "\n",
                output=output,
                after="\n".join(lines[close + 1 : end]),
                path=path,
            )
        )
    return blocks


BLOCKS = [block for page in PAGES for block in readme_blocks(page.read_text("utf-8"), page)]


def parse(block: Block) -> ast.Module:
    """The block's syntax tree, with its page's line numbers."""
    tree = ast.parse(block.source, filename=str(block.path))
    ast.increment_lineno(tree, block.line - 1)
    return tree


def execute(block: Block, given: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """Run the block statement by statement, as a reader pasting it into a REPL.

    ``given`` holds the names the README leaves to the reader. Returns the
    namespace afterwards and the value of every top-level expression statement
    (``df.select(...)`` on a line of its own), in order.
    """
    namespace: dict[str, Any] = {"__name__": "readme_example", **given}
    values = []
    for statement in parse(block).body:
        if isinstance(statement, ast.Expr):
            expression = ast.Expression(statement.value)
            values.append(eval(compile(expression, str(block.path), "eval"), namespace))
        else:
            module = ast.Module(body=[statement], type_ignores=[])
            exec(compile(module, str(block.path), "exec"), namespace)
    return namespace, values


@dataclass
class Context:
    tmp_path: Path
    monkeypatch: pytest.MonkeyPatch
    capsys: pytest.CaptureFixture[str]

    def work_in(self, files: dict[str, pl.DataFrame | Path]) -> None:
        """Change into the temporary directory, holding ``files`` at their relative paths.

        A frame is written as parquet; a path is linked (the shared trec_eval data
        must not be copied into the project, and here it is not).
        """
        for name, content in files.items():
            target = self.tmp_path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, pl.DataFrame):
                content.write_parquet(target)
            else:
                target.symlink_to(content)
        self.monkeypatch.chdir(self.tmp_path)


Runner = Callable[[Block, Context], None]
RUNNERS: dict[str, Runner] = {}


def runs(*block_ids: str) -> Callable[[Runner], Runner]:
    """Register a runner: how the blocks ``block_ids`` (the same example on several pages) run."""

    def register(runner: Runner) -> Runner:
        for block_id in block_ids:
            RUNNERS[block_id] = runner
        return runner

    return register


# ---------------------------------------------------------------------------
# Data and references


def scored_rows(seed: int, n_queries: int = 12, no_relevant: str | None = "q03") -> pl.DataFrame:
    """Queries of 5-30 rows with graded labels and distinct scores (no ties to break).

    Query ``no_relevant`` has no relevant row, so its undefined metrics are null.
    """
    rng = np.random.default_rng(seed)
    frames = []
    for q in range(n_queries):
        query = f"q{q:02d}"
        n = int(rng.integers(5, 31))
        labels = rng.choice([0, 0, 0, 1, 2], size=n)
        if query == no_relevant:
            labels[:] = 0
        elif not labels.any():
            labels[0] = 1
        frames.append(
            pl.DataFrame(
                {
                    "query": query,
                    "doc": [f"d{i}" for i in range(n)],
                    "score": rng.permutation(n) + rng.random(n) / 2 + labels * rng.random(),
                    "relevance": labels,
                }
            )
        )
    return pl.concat(frames)


def per_query_reference(
    df: pl.DataFrame, metric: Callable[[list[tuple[float, float]]], Any]
) -> dict[str, Any]:
    """``metric`` of each query's ``(score, relevance)`` rows, from tests/reference.py."""
    return {
        query: metric(
            list(zip(group["score"].to_list(), group["relevance"].to_list(), strict=True))
        )
        for (query,), group in df.group_by("query")
    }


def column_by_query(frame: pl.DataFrame, column: str) -> dict[str, Any]:
    return dict(zip(frame["query"].to_list(), frame[column].to_list(), strict=True))


def approx(expected: Any) -> Any:
    """``expected`` with every float compared approximately, in dicts and lists too."""
    if isinstance(expected, dict):
        return {key: approx(value) for key, value in expected.items()}
    if isinstance(expected, list):
        return [approx(value) for value in expected]
    return pytest.approx(expected) if isinstance(expected, float) else expected


def nonnull_mean(values: Iterable[float | None]) -> float:
    present = [value for value in values if value is not None]
    return sum(present) / len(present)


# ---------------------------------------------------------------------------
# One runner per example


@runs("polars_rankmetrics #1")
def opening_example(block: Block, context: Context) -> None:
    """Runs on a ``runs/`` folder of three parquet files; some queries span two files.

    ``AP@10`` is ir_measures' name: the top 10's precision terms over R.
    """
    df = scored_rows(1)
    later = df.filter(pl.col("query") >= "q05")
    b, c = later.gather_every(2), later.gather_every(2, offset=1)
    context.work_in(
        {
            "runs/a.parquet": df.filter(pl.col("query") < "q05"),
            "runs/b.parquet": b,
            "runs/c.parquet": c,
        }
    )
    _, (result,) = execute(block, {})

    assert result.columns == ["query", "AP@10", "nDCG@10"]
    assert result["query"].sort().to_list() == df["query"].unique().sort().to_list()
    assert column_by_query(result, "AP@10") == approx(
        per_query_reference(df, lambda rows: ref.ap_at_k(rows, 10, denominator="r"))
    )
    assert column_by_query(result, "nDCG@10") == approx(
        per_query_reference(df, lambda rows: ref.ndcg_at_k(rows, 10))
    )


@runs("guide/metrics.md: Precision, recall, AP, nDCG, RR #1")
def one_example_per_family(block: Block, context: Context) -> None:
    """Runs on ``df``; each column against its slow reference."""
    df = scored_rows(8)
    namespace, _ = execute(block, {"df": df, "pl": pl, "rm": rm})
    per_query = namespace["per_query"]
    references: dict[str, Callable[[list[tuple[float, float]]], Any]] = {
        "p10": lambda rows: ref.precision_at_k(rows, 10),
        "r100": lambda rows: ref.recall_at_k(rows, 100),
        "ap": ref.average_precision,
        "ap10": lambda rows: ref.ap_at_k(rows, 10, denominator="r"),
        "ndcg10": lambda rows: ref.ndcg_at_k(rows, 10),
        "rr": ref.reciprocal_rank,
    }
    assert per_query.columns == ["query", *references]
    for column, reference in references.items():
        assert column_by_query(per_query, column) == approx(per_query_reference(df, reference))


@runs("guide/metrics.md: Incomplete judgements and rank-biased precision #1")
def incomplete_and_rbp(block: Block, context: Context) -> None:
    """Runs as is; bpref and infAP against pytrec_eval, RBP against ir_measures (cwl_eval)."""
    import ir_measures
    import pytrec_eval

    namespace, _ = execute(block, {})
    qrels, run, result = namespace["qrels"], namespace["run"], namespace["result"]
    comment = re.search(r"result\.per_query\s+# (.+)", block.code)
    assert comment is not None
    assert result.per_query.columns == comment.group(1).split(" | ")
    ours = result.per_query.rows_by_key("query", named=True, unique=True)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"bpref", "infAP"}).evaluate(run)
    rbp = ir_measures.parse_measure("RBP(rel=1,p=0.8)")
    for metric in ir_measures.iter_calc([rbp], qrels, run):
        theirs[metric.query_id]["RBP(rel=1,p=0.8)"] = float(metric.value)
    assert ours == approx(theirs)


@runs("getting-started.md: First steps #1")
def first_steps(block: Block, context: Context) -> None:
    """Runs as is; prints the table shown after it, whose values match the references."""
    namespace, _ = execute(block, {})
    assert block.output is not None
    assert context.capsys.readouterr().out.strip() == block.output.strip()
    df, per_query = namespace["df"], namespace["per_query"]
    references: dict[str, Callable[[list[tuple[float, float]]], Any]] = {
        "map": ref.average_precision,
        "P@2": lambda rows: ref.precision_at_k(rows, 2),
        "nDCG@10": lambda rows: ref.ndcg_at_k(rows, 10),
        "RR": ref.reciprocal_rank,
    }
    for column, reference in references.items():
        assert column_by_query(per_query, column) == approx(per_query_reference(df, reference))


@runs("Quick start #3", "getting-started.md: First steps #2")
def ap_at_k_next_to_ap_at_k_name(block: Block, context: Context) -> None:
    """Prints the table shown after it: ``ap_at_k`` over min(k, R), the name ``AP@k`` over R."""
    namespace, _ = execute(block, {"pl": pl, "rm": rm})
    assert block.output is not None
    assert context.capsys.readouterr().out.strip() == block.output.strip()
    rows = list(namespace["ranking"].select("score", "relevance").iter_rows())
    result = namespace["ranking"].select(
        rm.ap_at_k("relevance", 2, by="score").alias("ap_at_k(2)"),
        rm.metrics("relevance", ["AP@2"], by="score").struct.field("AP@2"),
    )
    expected = [ref.ap_at_k(rows, 2), ref.ap_at_k(rows, 2, denominator="r")]
    assert list(result.row(0)) == approx(expected)
    assert result.item(0, 0) != approx(result.item(0, 1))  # R = 3 > k: they differ


@runs("Quick start #1", "guide/metrics.md: Metrics #1")
def three_contexts(block: Block, context: Context) -> None:
    """Runs on ``df``; the three statements give per query, one ranking, per row."""
    df = scored_rows(2)
    _, (per_query, one_ranking, on_rows) = execute(block, {"df": df})

    expected = per_query_reference(df, lambda rows: ref.ndcg_at_k(rows, 10))
    assert column_by_query(per_query, "relevance") == approx(expected)
    assert one_ranking.shape == (1, 1)
    assert one_ranking.item() == pytest.approx(
        ref.ndcg_at_k(list(df.select("score", "relevance").iter_rows()), 10)
    )
    # Back on the rows: the labels stay, each row gets its query's value.
    assert on_rows.drop(on_rows.columns[-1]).equals(df)
    values = on_rows.select("query", on_rows.columns[-1]).unique()
    assert column_by_query(values, on_rows.columns[-1]) == approx(expected)


@runs("guide/metrics.md: Metrics #2")
def curves_example(block: Block, context: Context) -> None:
    """Runs on ``df`` (``pl`` and ``rm`` from the section's first block)."""
    df = scored_rows(3)
    namespace, _ = execute(block, {"df": df, "pl": pl, "rm": rm})

    curves, running = namespace["curves"], namespace["running"]
    assert column_by_query(curves, "relevance") == approx(per_query_reference(df, ref.pr_points))
    assert running.height == df.height
    # cumulative_pr: the pr_curve point at each row's own score (the scores are distinct).
    points = per_query_reference(df, ref.pr_points)
    for query, score, pr in running.select("query", "score", "pr").iter_rows():
        (point,) = (point for point in points[query] if point["threshold"] == score)
        assert pr == approx({key: point[key] for key in ("tp", "pp", "precision", "recall")})


@runs("Quick start #2", "guide/metrics.md: Metrics #3")
def averages_over_queries(block: Block, context: Context) -> None:
    """Runs on ``df``; the four means against the reference, nulls skipped."""
    df = scored_rows(4)
    _, (map_, map_10, p_10, curve) = execute(block, {"df": df, "pl": pl, "rm": rm})

    ap = per_query_reference(df, ref.average_precision)
    assert ap["q03"] is None  # the query without relevant rows is skipped below
    assert map_.item() == pytest.approx(nonnull_mean(ap.values()))
    ap_10 = per_query_reference(df, lambda rows: ref.ap_at_k(rows, 10))
    assert map_10.item() == pytest.approx(nonnull_mean(ap_10.values()))
    p10 = per_query_reference(df, lambda rows: ref.precision_at_k(rows, 10))
    assert p_10.item() == pytest.approx(nonnull_mean(p10.values()))
    levels = [i / 10 for i in range(11)]
    per_level = per_query_reference(df, lambda rows: ref.interpolated_precision(rows, levels))
    expected_curve = [
        nonnull_mean(c[i] if c is not None else None for c in per_level.values()) for i in range(11)
    ]
    assert curve.item().to_list() == pytest.approx(expected_curve)


@runs(
    "guide/metrics.md: More measure families #1",
)
def more_measure_families(block: Block, context: Context) -> None:
    """Runs on ``df`` (graded labels), a run and TREC diversity qrels with distinct scores.

    Each family against its slow reference (tests/reference_families.py) and the
    diversity measures against ndeval itself (pyndeval).
    """
    import pyndeval

    from tests import reference_families as fam
    from tests.test_diversity import diversity_collection

    df = scored_rows(7).rename({"relevance": "grade"})
    qrels, run = diversity_collection(8, distinct=True)
    (context.tmp_path / "diversity.qrels").write_text(
        "".join(f"{q} {s} {d} {r}\n" for q, s, d, r in qrels.iter_rows())
    )
    (context.tmp_path / "run.txt").write_text(
        "".join(f"{q} Q0 {d} 1 {s!r} run\n" for q, d, s in run.sort("query").iter_rows())
    )
    context.monkeypatch.chdir(context.tmp_path)
    namespace, _ = execute(block, {"df": df, "run": run})

    rows = {
        query: list(group.select("score", "grade").iter_rows())
        for (query,), group in df.group_by("query")
    }
    for query, err, nerr in namespace["cascade"].iter_rows():
        assert err == pytest.approx(fam.err_at_k(rows[query], 20))
        assert nerr == approx(fam.nerr_at_k(rows[query], 20))
    for query, inst, read, residual in namespace["user_model"].iter_rows():
        expected = fam.cwl(rows[query], "INST", T=3.0, max_rel=3)
        assert [inst, read, residual] == approx([expected[k] for k in ("EU", "ED", "ResEU")])
    for query, compat, auc in namespace["classifier"].iter_rows():
        assert compat == approx(fam.compat(rows[query], ties="stable", ideal_order="run_rank"))
        assert auc == approx(fam.roc_auc(rows[query]))
    assert namespace["gauc"] == pytest.approx(fam.gauc(rows.values()))

    names = ["alpha-nDCG@20", "ERR-IA@20", "strec@10"]
    evaluator = pyndeval.RelevanceEvaluator(
        [pyndeval.SubtopicQrel(*r) for r in qrels.rows()], names
    )
    theirs = evaluator.evaluate(list(run.sort("query").iter_rows()))
    for query, alpha_ndcg, ndeval in namespace["diversity"].iter_rows():
        # A query without a relevant subtopic: null here (no_relevant="null"), 0 in ndeval.
        assert (alpha_ndcg or 0.0) == pytest.approx(theirs[query]["alpha-nDCG@20"])
        ndeval = {name: value or 0.0 for name, value in ndeval.items()}
        assert ndeval == approx({name: theirs[query][name] for name in names[1:]})
    result = namespace["result"].per_query
    ranked = namespace["ranked"]
    for query, alpha_ndcg, err, inst, auc in result.iter_rows():
        judged = ranked.filter(pl.col("query") == query).select("score", "relevance", "doc").rows()
        assert alpha_ndcg == pytest.approx(theirs[query]["alpha-nDCG@20"])
        assert err == pytest.approx(fam.err_at_k(judged, 20, ties="doc_desc"))
        assert inst == pytest.approx(
            fam.cwl(judged, "INST", ties="doc_desc", T=1.0, max_rel=1)["EU"]
        )
        assert auc == pytest.approx(fam.roc_auc(judged) or 0.0)


@runs("TREC evaluation #1", "guide/trec.md: `evaluate()` #1")
def trec_evaluate(block: Block, context: Context) -> None:
    """Runs on trec_eval's own test run and qrels; compared with trec_eval's output.

    Without ../shared/trec_eval it runs on a small generated pair instead, and
    only the shape of the result is checked.
    """
    if (TREC_EVAL / "results.test").is_file():
        context.work_in(
            {"run.txt": TREC_EVAL / "results.test", "qrels.txt": TREC_EVAL / "qrels.test"}
        )
    else:
        df = scored_rows(5)
        (context.tmp_path / "run.txt").write_text(
            "".join(f"{q} Q0 {d} 0 {s} run\n" for q, d, s, _ in df.iter_rows())
        )
        (context.tmp_path / "qrels.txt").write_text(
            "".join(f"{q} 0 {d} {r}\n" for q, d, _, r in df.iter_rows())
        )
        context.monkeypatch.chdir(context.tmp_path)
    namespace, _ = execute(block, {})

    result = namespace["result"]
    comment = re.search(r"result\.per_query\s+# (.+)", block.code)
    assert comment is not None
    assert result.per_query.columns == comment.group(1).split(" | ")
    assert result.aggregate.height == 1
    means = result.per_query.drop("query").mean()
    assert result.aggregate.select(means.columns).row(0) == pytest.approx(means.row(0))

    if not (TREC_EVAL / "out.test.aq").is_file():
        return
    # trec_eval -m all_trec -q: per query and "all", printed with 4 decimals.
    printed: dict[tuple[str, str], float] = {}
    for line in (TREC_EVAL / "out.test.aq").read_text().splitlines():
        measure, query, value = line.split()
        if measure in result.per_query.columns:
            printed[measure, query] = float(value)
    trec_name = {"nDCG@10": "ndcg_cut_10"}  # the ir_measures name of the same measure
    for column in result.per_query.columns[1:]:
        measure = trec_name.get(column, column)
        for query, value in result.per_query.select("query", column).iter_rows():
            assert round(value, 4) == printed[measure, query], (column, query)
        assert round(result.aggregate[column].item(), 4) == printed[measure, "all"], column


@runs("guide/performance.md: How the speed is reached #1")
def explain_plan(block: Block, context: Context) -> None:
    """Runs on a small ``lf``; the shown (abridged) plan's verbatim parts must be in the real one.

    The shown plan elides expressions (``...``, ``<label>``), so it cannot be
    compared whole: its fixed parts and its count of each step are.
    """
    lf = pl.LazyFrame({"query": ["a", "a", "b"], "score": [0.5, 0.7, 0.1], "relevance": [1, 0, 1]})
    execute(block, {"lf": lf, "pl": pl, "rm": rm})
    plan = " ".join(context.capsys.readouterr().out.split())
    shown = " ".join(block.shown.split())
    fixed_parts = [
        "AGGREGATE[maintain_order: false]",
        "sort_option=SortMultipleOptions { descending: [true], nulls_last: [true], "
        "multithreaded: true, maintain_order: true, limit: None }",
        ".implode(maintain_order=false)",
        ".list.eval(element().filter(element() > 0))",
        '.alias("_rankmetrics_hits").as_struct().struct.with_fields([',
        '.list.sum().abs().alias("_rankmetrics_ap_sum")',
        ".list.get([dyn int: 0])",
        '.alias("m")',
        'BY [col("query")]',
        'FROM DF ["query", "score", "relevance"]',
    ]
    for part in fixed_parts:
        assert part in shown, f"the test's copy of the README plan is stale: {part}"
        assert part in plan, f"the README plan shows {part!r}, the real one does not"
    # One sort and one list of it; the aggregates in one outer `list.eval` (R, the
    # hits and their filter: one inner each; the shared hits in three `with_fields`
    # layers (the counts, AP's terms, their sum), read by a fourth); one `struct.eval`.
    steps = {
        ".sort_by(": 1,
        ".implode()": 1,
        ".list.eval(": 4,
        ".list.agg(": 0,
        ".struct.with_fields(": 4,
        ".struct.eval(": 1,
    }
    for step, count in steps.items():
        assert plan.count(step) == shown.count(step) == count, step
    # Each measure of the code, and only those, in the shown plan and the real one.
    measures = re.search(r"rm\.metrics\(\"relevance\", (\[.*?\])", block.source)
    assert measures is not None
    names = ast.literal_eval(measures.group(1))
    assert re.findall(r"<(\S+) from ", shown) == names
    assert all(f'.alias("{name}")' in plan for name in names)


@runs("guide/semantics.md: Ties #1")
def ties_example(block: Block, context: Context) -> None:
    """Runs as is; its printed numbers and the table's rows for this library are compared."""
    namespace, (average,) = execute(block, {})

    comment = re.search(r"# ap ([\d.]+), p3 ([\d.]+), ndcg3 ([\d.]+)", block.code)
    assert comment is not None
    assert average.row(0) == pytest.approx([float(x) for x in comment.groups()], abs=5e-7)

    df = namespace["df"]
    trec_order = {"by": ["score", "doc"], "descending": [True, True]}
    modes: dict[str, dict[str, Any]] = {
        '`ties="stable"`, `by=["score", "doc"], descending=[True, True]`': trec_order,
        '`ties="stable"`, `by="score"` (input order)': {"by": "score"},
        '`ties="optimistic"`': {"by": "score", "ties": "optimistic"},
        '`ties="pessimistic"`': {"by": "score", "ties": "pessimistic"},
        '`ties="average"`': {"by": "score", "ties": "average"},
    }
    rows = re.findall(r"^\| this library, (.+?) \| (.+?) \| (.+?) \| (.+?) \|$", block.after, re.M)
    assert [mode for mode, *_ in rows] == list(modes)
    for mode, *shown in rows:
        options = modes[mode]
        got = df.select(
            rm.average_precision("rel", **options),
            rm.precision_at_k("rel", 3, **options).alias("p3"),
            rm.ndcg_at_k("rel", 3, **options).alias("ndcg3"),
        ).row(0)
        assert [round(value, 4) for value in got] == [float(x.strip("*")) for x in shown], mode


@runs("guide/comparing.md: Comparing systems #1")
def comparing_systems(block: Block, context: Context) -> None:
    """Runs on a generated ``runs.parquet`` of three systems; writes both charts.

    The README's numbers come from data it does not ship, so the printed table
    is compared in its layout and markers (here too, hybrid beats dense beats
    bm25 by far), and its numbers against the reference means.
    """
    rng = np.random.default_rng(6)
    frames = []
    for system, signal in (("bm25", 0.2), ("dense", 1.5), ("hybrid", 3.0)):
        for q in range(30):
            labels = np.random.default_rng(q).choice([0, 0, 0, 1, 2], size=20)
            labels[q % 20] = 1
            frames.append(
                pl.DataFrame(
                    {
                        "system": system,
                        "query": f"q{q:02d}",
                        "doc": [f"d{i}" for i in range(20)],
                        "score": rng.normal(size=20) + signal * labels,
                        "relevance": labels,
                    }
                )
            )
    rankings = pl.concat(frames)
    context.work_in({"runs.parquet": rankings})
    execute(block, {})
    printed = context.capsys.readouterr().out

    assert (context.tmp_path / "curves.png").read_bytes().startswith(b"\x89PNG")
    assert (context.tmp_path / "delta.svg").read_text().startswith("<svg")

    def table(text: str) -> list[list[str]]:
        """The cells of the first markdown table in ``text``."""
        lines = text.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("|"))
        rows = []
        for line in lines[start:]:
            if not line.startswith("|"):
                break
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
        return rows

    got, shown = table(printed), table(block.after)
    number = re.compile(r"\d+\.\d+")
    assert [number.sub("N", cell) for row in got for cell in row] == [
        number.sub("N", cell) for row in shown for cell in row
    ]
    footnote = next(line for line in block.after.splitlines() if line.startswith("Bold:"))
    assert footnote in printed

    references = {"AP": ref.average_precision, "nDCG@10": lambda rows: ref.ndcg_at_k(rows, 10)}
    for row in got[2:]:
        system = row[0].split()[0]
        runs_of_system = rankings.filter(pl.col("system") == system)
        for metric, cell in zip(got[0][1:], row[1:], strict=True):
            per_query = per_query_reference(runs_of_system, references[metric])
            expected = nonnull_mean(per_query.values())
            assert float(number.search(cell).group()) == round(expected, 3), (system, metric)


@runs("guide/recsys.md: One call for several models #1", "guide/recsys.md: Expressions per user #1")
def recsys_example(block: Block, context: Context) -> None:
    """Runs on the bundled demo data; the printed table is the page's, NDCG@10 is RecTools'."""
    import warnings

    context.work_in({})
    namespace, _ = execute(block, {})
    assert context.capsys.readouterr().out.strip() == (block.output or "").strip()
    if "result" not in namespace:
        return
    assert (context.tmp_path / "tradeoff.svg").read_text().startswith("<svg")
    rectools = pytest.importorskip("rectools.metrics")
    data = namespace["data"]
    test = data.test.rename({"user": "user_id", "item": "item_id"}).to_pandas()
    for model, ndcg in namespace["result"].summary.select("model", "NDCG@10").iter_rows():
        reco = data.reco.filter(pl.col("model") == model).drop("model")
        reco = reco.rename({"user": "user_id", "item": "item_id"}).to_pandas()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = rectools.NDCG(k=10).calc(reco, test)
        assert ndcg == pytest.approx(expected, abs=1e-12), model


_META_PAGE = "guide/meta-evaluation.md"
_META_NAMESPACE: dict[str, Any] = {}


def _check_shown_frames(shown: str, frames: list[pl.DataFrame]) -> None:
    """Each blank-line-separated table of ``shown`` against the frame in the same place.

    A shown row is matched with the frame row whose text cells are the same (or, in
    a frame without text columns, the row in the same place); its
    numbers must print as shown (to their decimals). ``...`` stands for rows left out.
    """
    sections = [part for part in shown.strip().split("\n\n") if part.strip()]
    assert len(sections) == len(frames)
    for section, frame in zip(sections, frames, strict=True):
        header, *rows = section.splitlines()
        assert header.split() == frame.columns
        text_columns = [c for c, t in frame.schema.items() if t == pl.String]
        if not text_columns:  # a frame of numbers alone: every row, in order
            assert len(rows) == frame.height
        for index, line in enumerate(rows):
            if line.strip() == "...":
                continue
            cells = dict(zip(frame.columns, line.split(), strict=True))
            if text_columns:
                match = frame.filter(*(pl.col(c) == cells[c] for c in text_columns))
            else:
                match = frame.slice(index, 1)
            assert match.height == 1, line
            for column, value in match.row(0, named=True).items():
                if column not in text_columns:
                    assert _close_to_shown(float(value), cells[column]), (line, column, value)


@runs(
    f"{_META_PAGE}: LLM labels against human labels #1",
    f"{_META_PAGE}: A reproduction check #1",
    f"{_META_PAGE}: How many topics? Topic set size design #1",
)
def meta_evaluation(block: Block, context: Context) -> None:
    """The page's blocks run in turn on the digits data; every shown number is checked.

    The first block builds the two label sets and five runs (kept for the others).
    Cohen's kappa is also checked against scikit-learn, and the topic set sizes
    against statsmodels' power; the rest of the statistics are checked against
    their packages in ``tests/test_meta_*.py``.
    """
    pytest.importorskip("sklearn")
    context.work_in({})
    if not _META_NAMESPACE:
        first = next(
            b for b in BLOCKS if b.id == f"{_META_PAGE}: LLM labels against human labels #1"
        )
        _META_NAMESPACE.update(execute(first, {})[0])
    namespace, _ = execute(block, dict(_META_NAMESPACE))
    shown = block.after.split("```text\n", 1)[1].split("```", 1)[0]  # the output the page shows
    if block.section == "LLM labels against human labels":
        summary = namespace["report"].summary
        _check_shown_frames(shown, [summary.with_columns(pl.col("value").cast(pl.Float64))])
        from sklearn.metrics import cohen_kappa_score

        pairs = namespace["human"].join(namespace["llm"], on=["query", "doc"])
        kappa = cohen_kappa_score(pairs["relevance"], pairs["relevance_right"])
        assert dict(summary.iter_rows())["cohen_kappa"] == pytest.approx(kappa, abs=1e-12)
    elif block.section == "A reproduction check":
        result = namespace["result"]
        _check_shown_frames(shown, [result.summary, result.per_measure, result.effects])
    else:
        sigma2, sigma2_t = namespace["sigma2"], namespace["sigma2_t"]
        frames = [
            rm.topic_set_size_t([0.02, 0.05, 0.10], sigma2_t),
            rm.topic_set_size_anova([0.05, 0.10], sigma2, m=10),
            rm.topic_set_size_ci([0.05, 0.10], sigma2_t),
        ]
        _check_shown_frames(shown, frames)
        from statsmodels.stats.power import TTestPower

        for min_diff, n in frames[0].select("min_diff", "n").iter_rows():
            effect = min_diff / sigma2_t**0.5
            assert (
                TTestPower().power(effect, n, 0.05) >= 0.8 > TTestPower().power(effect, n - 1, 0.05)
            )


_MANY_PAGE = "guide/comparing-many.md"
_MANY_NAMESPACE: dict[str, Any] = {}


def _shown_table(text: str) -> list[list[str]]:
    """The cells of the first markdown table in ``text``, header and separator dropped."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]


def _close_to_shown(value: float, shown: str) -> bool:
    """Whether ``value`` prints as ``shown`` (to its decimals, or 5% in scientific form)."""
    if "e" in shown:
        return abs(value - float(shown)) <= 0.05 * abs(float(shown))
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    return abs(value - float(shown)) <= 0.5 * 10**-decimals + 1e-12


@runs(
    f"{_MANY_PAGE}: A worked example #1",
    f"{_MANY_PAGE}: The report table #1",
    f"{_MANY_PAGE}: The report table #2",
    f"{_MANY_PAGE}: The ANOVA table #1",
    f"{_MANY_PAGE}: Effect sizes #1",
    f"{_MANY_PAGE}: Risk #1",
    f"{_MANY_PAGE}: The chart #1",
)
def comparing_many(block: Block, context: Context) -> None:
    """The page's blocks run in turn on the digits data; each shown number is checked.

    The first block builds ``per_query`` once (kept for the others). The numbers
    the page shows are compared with what the blocks compute; the statistics
    themselves are checked against scipy, statsmodels and ranx in
    ``tests/test_many_systems*.py``.
    """
    pytest.importorskip("sklearn")
    if not _MANY_NAMESPACE:
        first = next(b for b in BLOCKS if b.id == f"{_MANY_PAGE}: A worked example #1")
        namespace, _ = execute(first, {})
        _MANY_NAMESPACE.update(namespace)
    per_query = _MANY_NAMESPACE["per_query"]
    assert per_query.shape == (800, 5)
    if block.section == "A worked example":
        return
    context.work_in({})
    namespace, values = execute(block, dict(_MANY_NAMESPACE))
    printed = context.capsys.readouterr().out
    if block.id.endswith("The report table #1"):
        _MANY_NAMESPACE["pairs"] = namespace["pairs"]
        shown = [line for line in block.after.splitlines() if line.startswith("|")]
        assert printed.splitlines()[: len(shown)] == shown
        legend = " ".join(block.after.split("Bold: best per metric.")[1].split("\n\n")[0].split())
        assert legend in " ".join(printed.split())
        display = rm.compact_letter_display(namespace["pairs"], metric="AP")
        letters = ", ".join(
            f"{name} `{code}`" for name, code in display.select("system", "letters").rows()
        )
        assert letters in " ".join(block.after.split())
    elif block.id.endswith("The report table #2"):
        assert block.output is not None
        matrix = rm.p_value_matrix(namespace["randomised"], metric="AP")
        shown_rows = [
            [cell.strip() for cell in line.strip("│").split("┆")]
            for line in block.output.splitlines()
            if line.startswith("│ ") and "system" not in line
        ]
        for cells, row in zip(shown_rows, matrix.rows(), strict=True):
            assert cells[0] == row[0]
            for cell, value in zip(cells[1:], row[1:], strict=True):
                assert (value is None) if cell == "null" else _close_to_shown(value, cell)
    elif block.id.endswith("The ANOVA table #1"):
        table = values[-1]
        for cells, row in zip(_shown_table(block.after), table.rows(), strict=True):
            assert cells[:3] == [row[0], row[1], str(row[2])]
            for cell, value in zip(cells[3:], row[3:], strict=True):
                assert (value is None) if not cell else _close_to_shown(value, cell)
    elif block.id.endswith("Effect sizes #1"):
        table = values[-1]
        columns = ["system_b", "delta", "ci_low", "ci_high", "es_e2", "wins", "ties", "losses"]
        for cells, row in zip(_shown_table(block.after), table.select(columns).rows(), strict=True):
            assert cells[0] == row[0]
            for cell, value in zip(cells[1:], row[1:], strict=True):
                assert _close_to_shown(value, cell), (cell, value)
    elif block.id.endswith("Risk #1"):
        risk, georisk = values
        columns = ["system", "urisk", "trisk", "wins", "losses"]
        for cells, row in zip(_shown_table(block.after), risk.select(columns).rows(), strict=True):
            assert cells[0] == row[0]
            for cell, value in zip(cells[1:], row[1:], strict=True):
                assert _close_to_shown(value, cell), (cell, value)
        ranked = georisk.sort("georisk", descending=True).select("system", "georisk").rows()
        text = ", ".join(f"{name} {value:.3f}" for name, value in ranked)
        assert text in " ".join(block.after.split())
    else:
        assert (context.tmp_path / "means.png").read_bytes().startswith(b"\x89PNG")


@runs("guide/spark.md: Spark #1")
def spark_example(block: Block, context: Context) -> None:
    """Runs in a local Spark session (one the test run started, if any); output compared.

    Compiled only when pyspark or Java is missing.
    """
    reason = spark_unavailable()
    if reason is not None:
        pytest.skip(f"compiled only: {reason}")
    execute(block, {})
    printed = context.capsys.readouterr().out

    def cells(text: str) -> list[list[str]]:
        return [line.strip("|").split("|") for line in text.splitlines() if line.startswith("|")]

    assert block.output is not None

    def value(cell: str) -> Any:
        cell = cell.strip()
        return float(cell) if re.fullmatch(r"\d+\.\d+", cell) else cell

    got, shown = cells(printed), cells(block.output)
    assert len(got) == len(shown)
    for got_row, shown_row in zip(got, shown, strict=True):
        # Polars may round the last bit differently with another number of groups.
        assert [value(cell) for cell in got_row] == [
            pytest.approx(x, rel=1e-12) if isinstance(x, float) else x
            for x in map(value, shown_row)
        ]


# ---------------------------------------------------------------------------
# Coming from the peers: each block computes the peer's number (`theirs`) and ours.


def _peer_pair(context: Context) -> dict[str, Any]:
    """``qrels``, ``run`` and ``rm`` as the pytrec_eval block defines them."""
    first = next(block for block in BLOCKS if block.id == "coming-from.md: From pytrec_eval #1")
    namespace, _ = execute(first, {})
    return {name: namespace[name] for name in ("qrels", "run", "rm")}


@runs("coming-from.md: From pytrec_eval #1")
def from_pytrec_eval(block: Block, context: Context) -> None:
    namespace, values = execute(block, {})
    theirs, ours = namespace["theirs"], namespace["ours"]
    assert ours.rows_by_key("query", named=True, unique=True) == approx(theirs)
    shown, same = values[-2:]
    assert shown == ast.literal_eval(re.search(r'theirs\["q1"\]  # (\{.*\})', block.code)[1])
    assert same == approx(shown)


@runs("coming-from.md: From ir_measures #1")
def from_ir_measures(block: Block, context: Context) -> None:
    namespace, values = execute(block, _peer_pair(context))
    theirs = {str(measure): value for measure, value in namespace["theirs"].items()}
    ours = values[-1]
    assert ours == approx(theirs)
    assert set(ours) == set(namespace["measures"])
    assert ours["AP(rel=2)"] == 0.25


@runs("coming-from.md: From ranx #1")
def from_ranx(block: Block, context: Context) -> None:
    namespace, values = execute(block, _peer_pair(context))
    theirs = {name: float(value) for name, value in namespace["theirs"].items()}
    assert values[-1] == approx(theirs)
    assert set(theirs) == set(namespace["metrics"])


def torchmetrics_reference(
    preds: list[float], target: list[int], k: int | None
) -> tuple[float, float, float, float]:
    """torchmetrics 1.9's functional AP, precision, recall and RR at ``top_k=k``, one query.

    Transcribed from torchmetrics/functional/retrieval/*.py (not installed here):
    a target counts only where its prediction is > 0 (recall divides by every
    relevant target), and a query without relevant targets scores 0.
    """
    order = sorted(range(len(preds)), key=lambda i: -preds[i])
    k = len(preds) if k is None else k
    hits = [1 if target[i] and preds[i] > 0 else 0 for i in order][:k]
    relevant = sum(1 for t in target if t)
    if relevant == 0:
        return 0.0, 0.0, 0.0, 0.0
    found = [sum(hits[: i + 1]) / (i + 1) for i, hit in enumerate(hits) if hit]
    ap = sum(found) / len(found) if found else 0.0
    rr = next((1.0 / (i + 1) for i, hit in enumerate(hits) if hit), 0.0)
    return ap, sum(hits) / k, sum(hits) / relevant, rr


@runs("coming-from.md: From torchmetrics #1")
def from_torchmetrics(block: Block, context: Context) -> None:
    namespace, _ = execute(block, {})
    df, ours = namespace["df"], namespace["ours"]
    checked = 0
    for (query,), group in df.group_by("query"):
        preds, target = group["preds"].to_list(), group["target"].to_list()
        ap, precision, recall, _ = torchmetrics_reference(preds, target, 3)
        rr = torchmetrics_reference(preds, target, None)[3]
        row = ours.filter(pl.col("query") == query).row(0, named=True)
        assert (row["ap"], row["p"], row["r"], row["rr"]) == approx((ap, precision, recall, rr))
        checked += 1
    assert checked == 3
    assert ours["ap"].to_list() == approx([1.0, 7 / 12, 0.0])
    # empty_target_action="skip" is the default no_relevant="null": the query is null.
    skipped = df.group_by("query", maintain_order=True).agg(
        rm.ap_at_k("target", 3, by="preds", denominator="hits")
    )
    assert skipped["target"][2] is None
    # Without the mask the -0.2 and 0.0 rows would count: another number.
    unmasked = df.group_by("query", maintain_order=True).agg(
        rm.ap_at_k("target", 3, by="preds", denominator="hits")
    )
    assert unmasked["target"].to_list() != approx(ours["ap"].to_list())


@runs("coming-from.md: From scikit-learn #1")
def from_scikit_learn(block: Block, context: Context) -> None:
    namespace, _ = execute(block, {})
    assert namespace["ours"] == pytest.approx(namespace["theirs"], rel=1e-15)
    assert namespace["ours_ap"] == pytest.approx(namespace["theirs_ap"], rel=1e-15)
    assert namespace["theirs"] == pytest.approx(0.8627778419199932)
    assert namespace["theirs_ap"] == pytest.approx(0.7222222222222222)
    # threshold_average_precision is average_precision_score under ties; AP is not.
    assert namespace["ours_tied"] == pytest.approx(namespace["theirs_tied"], rel=1e-15)
    assert namespace["theirs_tied"] == pytest.approx(2 / 3)
    tied = pl.DataFrame({"y": namespace["binary"], "s": namespace["tied"]})
    for ties in ("stable", "average"):
        plain = tied.select(rm.average_precision("y", by="s", ties=ties)).item()
        assert plain != pytest.approx(namespace["theirs_tied"]), ties


@runs("coming-from.md: From Spark MLlib #1")
def from_spark(block: Block, context: Context) -> None:
    """Runs in a fresh Python with its own local Spark session, as a reader would.

    In this process a test may already hold a session with more cores, whose
    default parallelism would partition Spark's curve differently. Compiled
    only when pyspark or Java is missing.
    """
    reason = spark_unavailable()
    if reason is not None:
        pytest.skip(f"compiled only: {reason}")
    script = block.source + "\nprint(repr(theirs), repr(ours), sep='\\n')\n"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    theirs, ours = (float(line) for line in done.stdout.split())
    assert ours == pytest.approx(theirs, rel=1e-12)
    assert theirs == pytest.approx(0.6033333333333334)
    # Equal bins of rows (the other rule) give another area.
    namespace, _ = execute(
        Block(
            block.section,
            block.number,
            block.line,
            block.code.split("spark = ")[0],
            None,
            "",
            block.path,
        ),
        {},
    )
    df = pl.DataFrame({"score": namespace["scores"], "label": namespace["labels"]})
    curve = df.select(rm.binned_pr_curve("label", 4, by="score").explode()).unnest("label")
    recall = [0.0, *curve["recall"]]
    precision = [curve["precision"][0], *curve["precision"]]
    pairs = zip(recall, recall[1:], precision, precision[1:], strict=False)
    equal_bins = sum((r1 - r0) * (p0 + p1) / 2 for r0, r1, p0, p1 in pairs)
    assert equal_bins != pytest.approx(theirs)


@runs("guide/query-sets.md: One example, every entry point #1")
def query_sets_example(block: Block, context: Context) -> None:
    """The issue-26 example: its mean under ``queries="qrels"`` is the hand-computed one."""
    from tests.test_consistency import EXAMPLE_QRELS, EXAMPLE_RUN, QRELS_MEAN

    (context.tmp_path / "qrels.txt").write_text(EXAMPLE_QRELS)
    (context.tmp_path / "run.txt").write_text(EXAMPLE_RUN)
    context.monkeypatch.chdir(context.tmp_path)
    _, values = execute(block, {})
    comment = re.search(r"# ([0-9.]+),", block.code)
    assert comment is not None
    assert values[-1] == pytest.approx(QRELS_MEAN)
    assert f"{QRELS_MEAN:.4f}" == comment.group(1)


# ---------------------------------------------------------------------------
# The tests


@pytest.mark.parametrize("block", BLOCKS, ids=[block.id for block in BLOCKS])
def test_readme_block(
    block: Block,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    compile(parse(block), str(block.path), "exec")  # every block compiles, even one not run here
    runner = RUNNERS.get(block.id)
    where = f"{block.path}:{block.line}"
    assert runner is not None, f"{where}: say in RUNNERS how {block.id} is checked"
    runner(block, Context(tmp_path, monkeypatch, capsys))


def test_every_runner_has_its_block() -> None:
    assert sorted(RUNNERS) == sorted(block.id for block in BLOCKS)


def test_blocks_are_found() -> None:
    """The parser finds the blocks a plain count of fences finds, under the right headings."""
    text = "".join(page.read_text(encoding="utf-8") for page in PAGES)
    assert len(BLOCKS) == text.count("```python\n")
    assert {block.path for block in BLOCKS} >= {README, DOCS / "coming-from.md"}
    assert all(block.section != "" and not block.section.startswith("#") for block in BLOCKS)
    spark = next(block for block in BLOCKS if block.section == "Spark")
    assert spark.output is not None and spark.output.startswith("+-----+")


# ---------------------------------------------------------------------------
# Rank fusion (guide/fusion.md)


def _rrf_slow(runs: dict[str, pl.DataFrame], k: int = 60) -> dict[tuple[str, str], float]:
    """Reciprocal rank fusion by hand: each run ranked by score, descending."""
    fused: dict[tuple[str, str], float] = {}
    for run in runs.values():
        for query, docs in run.group_by("query"):
            ordered = docs.sort("score", descending=True)["doc"].to_list()
            for rank, doc in enumerate(ordered, start=1):
                key = (str(query[0]), doc)
                fused[key] = fused.get(key, 0.0) + 1.0 / (k + rank)
    return fused


@runs("guide/fusion.md: A worked example: BM25 + dense #1")
def fusion_worked_example(block: Block, context: Context) -> None:
    namespace, _ = execute(block, {})
    printed = context.capsys.readouterr().out
    shown = [line for line in block.after.splitlines() if line.startswith("|")]
    assert [line for line in printed.splitlines() if line.startswith("|")] == shown
    hybrid = namespace["hybrid"]
    expected = _rrf_slow({"bm25": namespace["bm25"], "dense": namespace["dense"]})
    got = {(q, d): s for q, d, s in hybrid.iter_rows()}
    assert got.keys() == expected.keys()
    assert [got[key] for key in expected] == approx(list(expected.values()))


@runs("guide/fusion.md: Normalisations #1")
def fusion_expressions(block: Block, context: Context) -> None:
    rng = np.random.default_rng(5)
    bm25 = pl.DataFrame({"query": "q1", "doc": [f"d{i}" for i in range(8)], "score": rng.random(8)})
    dense = pl.DataFrame(
        {"query": "q1", "doc": [f"d{i}" for i in range(3, 12)], "score": rng.random(9)}
    )
    namespace, _ = execute(block, {"pl": pl, "rm": rm, "bm25": bm25, "dense": dense})
    got = {(q, d): s for q, d, s in namespace["rrf"].iter_rows()}
    expected = _rrf_slow({"bm25": bm25, "dense": dense})
    assert got.keys() == expected.keys()
    assert [got[key] for key in expected] == approx(list(expected.values()))


# ---------------------------------------------------------------------------
# Experiments (guide/experiments.md)


@runs(
    "Experiments: several runs compared in one call #1",
    "guide/experiments.md: From three TREC files to a report #1",
)
def experiment_from_three_files(block: Block, context: Context) -> None:
    """Runs on the guide's seeded files: prints the table shown; means equal rm.evaluate's."""
    from tests.test_experiment import write_example

    write_example(context.tmp_path)
    context.monkeypatch.chdir(context.tmp_path)
    namespace, _ = execute(block, {})
    assert block.output is not None
    assert context.capsys.readouterr().out.strip() == block.output.strip()
    assert (context.tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")
    summary = namespace["result"].summary
    for name in ("bm25", "dense", "hybrid"):
        alone = rm.evaluate("qrels.txt", f"{name}.run", ["map", "ndcg_cut_10", "P_10"])
        means = summary.filter(pl.col("system") == name)
        assert means["mean"].to_list() == pytest.approx(list(alone.aggregate.row(0)), rel=1e-12)


# Counterfactual evaluation (guide/counterfactual.md)

_COUNTERFACTUAL = "guide/counterfactual.md"


def _synthetic() -> Any:
    from polars_rankmetrics import counterfactual as cf

    return cf.synthetic_slate_logs(10_000, seed=0)


@runs(f"{_COUNTERFACTUAL}: A worked example #1")
def counterfactual_worked_example(block: Block, context: Context) -> None:
    namespace, _ = execute(block, {})
    printed = context.capsys.readouterr().out
    assert printed.strip() == (block.output or "").strip()
    table, truth = namespace["table"], namespace["synthetic"].true_value
    for name in ("sips", "iips", "rips"):
        row = table.row(by_predicate=pl.col("estimator") == name, named=True)
        assert row["lower"] <= truth <= row["upper"]


@runs(f"{_COUNTERFACTUAL}: Expressions: per segment, lazily, over parquet #1")
def counterfactual_segments(block: Block, context: Context) -> None:
    from polars_rankmetrics import counterfactual as cf

    synthetic = _synthetic()
    namespace, _ = execute(block, {"cf": cf, "synthetic": synthetic})
    for query, sips, iips in namespace["per_query"].iter_rows():
        alone = synthetic.log.filter(pl.col("query") == query)
        assert sips == approx(alone.select(cf.slate_standard_ips()).item())
        assert iips == approx(alone.select(cf.slate_independent_ips()).item())


@runs(f"{_COUNTERFACTUAL}: Expressions: per segment, lazily, over parquet #2")
def counterfactual_paired(block: Block, context: Context) -> None:
    from polars_rankmetrics import counterfactual as cf

    synthetic = _synthetic()
    namespace, _ = execute(block, {"cf": cf, "pl": pl, "rm": rm, "synthetic": synthetic})
    means = dict(namespace["comparison"].select("system", "mean").iter_rows())
    assert means["a"] == approx(synthetic.log.select(cf.slate_independent_ips()).item())


@runs(f"{_COUNTERFACTUAL}: Position bias from the logs #1")
def counterfactual_position_bias(block: Block, context: Context) -> None:
    from polars_rankmetrics import counterfactual as cf

    namespace, _ = execute(block, {"cf": cf, "pl": pl, "synthetic": _synthetic()})
    shown = re.findall(r"`model.examination\[\"propensity\"\]` ([\d., ]+) and", block.after)
    fitted = [float(v) for v in shown[0].split(", ")]
    assert namespace["model"].examination["propensity"].to_list() == pytest.approx(fitted, abs=5e-4)
    shown = re.findall(r"`harvested\[\"propensity\"\]` ([\d., ]+) \(", block.after)
    harvested = [float(v) for v in shown[0].split(", ")]
    assert namespace["harvested"]["propensity"].to_list() == pytest.approx(harvested, abs=5e-4)


# Online evaluation (guide/online.md)


@runs("guide/online.md: A worked example #1")
def online_worked_example(block: Block, context: Context) -> None:
    """The interleaving verdict, the agreement and the models' fit, printed as the page shows."""
    namespace, _ = execute(block, {})
    assert block.output is not None
    assert context.capsys.readouterr().out.rstrip("\n") == block.output
    # The verdict agrees with the offline difference, both in A's favour.
    assert namespace["offline"]["delta"].mean() > 0
    verdict = rm.online.interleaving_preference(namespace["outcomes"]).row(0, named=True)
    assert verdict["wins"] > verdict["losses"] and verdict["p_value"] < 0.05


def test_the_readme_is_a_front_door() -> None:
    """At most 300 lines: what it is, install, one example per workflow; the rest is in docs/."""
    lines = README.read_text("utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines: move details to docs/"
    text = "\n".join(lines)
    for extra in (
        "stats",
        "plot",
        "recsys",
        "counterfactual",
        "online",
        "spark",
        "demo",
        "bench",
        "docs",
        "test",
    ):
        assert f'".[{extra}]"' in text, f"the README names every extra: {extra}"


def test_no_issue_numbers_in_user_facing_text() -> None:
    """The tracker's numbers mean nothing to a user: not in docs, docstrings or comments."""
    pattern = re.compile(r"\bissues?[ -]#?\d+", re.IGNORECASE)
    sources = [*PAGES, *(PROJECT / "polars_rankmetrics").rglob("*.py")]
    found = [
        f"{path.relative_to(PROJECT)}:{number}"
        for path in sources
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        # An upstream tool's issue (ir_measures issue #50) is a reference, not ours.
        if pattern.search(line) and "ir_measures issue" not in line
    ]
    assert not found, found
