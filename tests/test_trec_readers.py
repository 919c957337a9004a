"""TREC readers and evaluate(): formats, errors, query sets, duplicates, names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from polars_rankmetrics.measures import parse_measure, parse_measures
from polars_rankmetrics.trec.readers import QRELS_SCHEMA, RUN_SCHEMA, _read_lines


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_run_whitespace_comments_and_junk(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "run",
        "# a comment\n"
        "301 Q0 a 1 2.5 sys\n"
        "\n"
        "   \n"
        "301\tQ0\tb\t2\t  1.5\tsys trailing junk\n"
        "  302   Q0  007  1   -3e-1  sys\r\n",
    )
    expected = pl.DataFrame(
        {
            "query": ["301", "301", "302"],
            "q0": ["Q0"] * 3,
            "doc": ["a", "b", "007"],
            "rank": [1, 2, 1],
            "score": [2.5, 1.5, -0.3],
            "run_id": ["sys"] * 3,
        }
    )
    assert_frame_equal(rm.read_trec_run(path), expected)
    assert_frame_equal(rm.scan_trec_run(path).select("doc").collect(), expected.select("doc"))


def test_tab_only_and_space_only_files_agree(tmp_path: Path) -> None:
    rows = [("q1", "Q0", f"d{i}", str(i), f"{1 / i:.6f}", "r") for i in range(1, 50)]
    tabs = write(tmp_path, "tabs", "".join("\t".join(row) + "\n" for row in rows))
    spaces = write(tmp_path, "spaces", "".join("  ".join(row) + " \n" for row in rows))
    assert_frame_equal(rm.read_trec_run(tabs), rm.read_trec_run(spaces))
    assert rm.read_trec_run(tabs).height == 49


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4\n", 2, "6 whitespace-separated fields"),
        ("1 Q0 a 1 0.5 r\n\n# c\n1 Q0 b x 0.4 r\n", 4, "rank is not a number"),
        ("1 Q0 a 1 high r\n", 1, "score is not a number"),
    ],
)
def test_malformed_run_line_names_file_and_line(
    tmp_path: Path, text: str, line: int, problem: str
) -> None:
    path = write(tmp_path, "bad.run", text)
    with pytest.raises(ValueError, match=rf"bad\.run:{line}: malformed line \({problem}"):
        rm.read_trec_run(path)


@pytest.mark.parametrize(
    ("text", "line"),
    [("1 0 a 1\n1 0 b\n", 2), ("1 0 a 1\n1 0 b 1 extra\n", 2), ("1 0 a 1\n1 0 b 0.5\n", 2)],
)
def test_malformed_qrels_line(tmp_path: Path, text: str, line: int) -> None:
    path = write(tmp_path, "bad.qrels", text)
    with pytest.raises(ValueError, match=rf"bad\.qrels:{line}: malformed line"):
        rm.read_trec_qrels(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such TREC file"):
        rm.scan_trec_run(tmp_path / "nope")


RUN = pl.DataFrame(
    {
        "query": ["1", "1", "1", "2", "2"],
        "doc": ["a", "b", "c", "a", "b"],
        "score": [1.0, 1.0, 0.5, 2.0, 1.0],
    }
)
QRELS = pl.DataFrame({"query": ["1", "1", "2"], "doc": ["a", "z", "b"], "relevance": [1, 1, 1]})


def test_ties_broken_by_docno_descending_and_rank_ignored() -> None:
    # Docs a and b tie; trec_eval ranks b (larger docno) first, so a is at rank 2.
    run = RUN.with_columns(rank=pl.Series([1, 2, 3, 1, 2]))
    result = rm.evaluate(QRELS, run, ["recip_rank", "P_1"])
    assert result.per_query.row(0) == ("1", 0.5, 0.0)


def test_unretrieved_relevant_counts_in_r() -> None:
    result = rm.evaluate(QRELS, RUN, ["num_rel", "recall_10", "map"])
    assert result.per_query.row(0) == ("1", 2.0, 0.5, 0.25)


def test_column_mapping_per_side_and_lazy_inputs() -> None:
    run = RUN.rename({"query": "qid", "doc": "docno", "score": "sim"}).lazy()
    qrels = QRELS.rename({"query": "topic_no", "doc": "docno", "relevance": "grade"}).lazy()
    mapped = rm.evaluate(
        qrels,
        run,
        "map",
        qrels_columns={"query": "topic_no", "relevance": "grade"},
        run_columns={"score": "sim"},
    )
    assert_frame_equal(mapped.per_query, rm.evaluate(QRELS, RUN, "map").per_query)
    with pytest.raises(ValueError, match=r"the run has no score column .*run_columns"):
        rm.evaluate(qrels, run, "map", qrels_columns={"query": "topic_no", "relevance": "grade"})
    with pytest.raises(ValueError, match="`qrels_columns` maps 'query' to 'qid', which"):
        rm.evaluate(qrels, run, "map", qrels_columns={"query": "qid"})


def test_duplicate_pairs_are_errors() -> None:
    run = pl.concat([RUN, RUN.head(1).with_columns(score=pl.lit(9.0))])
    with pytest.raises(ValueError, match="document 'a' more than once for query '1'"):
        rm.evaluate(QRELS, run, "map")
    with pytest.raises(ValueError, match="qrels lists document"):
        rm.evaluate(pl.concat([QRELS, QRELS.tail(1)]), RUN, "map")


def test_empty_and_unrelated_inputs() -> None:
    with pytest.raises(ValueError, match="the run is empty"):
        rm.evaluate(QRELS, RUN.clear(), "map")
    with pytest.raises(ValueError, match="the qrels is empty"):
        rm.evaluate(QRELS.clear(), RUN, "map")
    # No relevant document at the level: trec_eval evaluates (gain measures may be > 0).
    nothing = rm.evaluate(QRELS, RUN, ["map", "ndcg"], relevance_level=5)
    assert nothing.no_relevant_queries == nothing.n_queries == 2
    assert nothing.aggregate.row(0) == (0.0, rm.evaluate(QRELS, RUN, "ndcg").aggregate.item())
    with pytest.raises(ValueError, match="no query is in both"):
        rm.evaluate(QRELS, RUN.with_columns(query=pl.lit("9")).unique(["query", "doc"]), "map")


def test_bad_parameters() -> None:
    with pytest.raises(ValueError, match="relevance_level"):
        rm.evaluate(QRELS, RUN, "map", relevance_level=-1)
    with pytest.raises(ValueError, match="max_per_query"):
        rm.evaluate(QRELS, RUN, "map", max_per_query=-1)
    with pytest.raises(ValueError, match="`queries` must be one of 'trec_eval', 'run'"):
        rm.evaluate(QRELS, RUN, "map", queries="exit")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown measure 'mapp'"):
        rm.evaluate(QRELS, RUN, "mapp")
    with pytest.raises(ValueError, match="cutoffs must be positive"):
        parse_measures("P.0,5")
    # As in trec_eval, a measure without parameters ignores a suffix.
    assert [m.name for m in parse_measures("map.5")] == ["map"]
    with pytest.raises(ValueError, match=r"measure 'utility': `coefficients` must be 4 numbers"):
        parse_measures("utility.1,2")


def test_max_per_query_keeps_the_top() -> None:
    result = rm.evaluate(QRELS, RUN, ["num_ret", "num_rel_ret"], max_per_query=1)
    assert result.per_query.rows() == [("1", 1.0, 0.0), ("2", 1.0, 0.0)]


def test_measure_names() -> None:
    assert [m.name for m in parse_measures("P.5,3")] == ["P_3", "P_5"]
    assert [m.name for m in parse_measures("iprec_at_recall.0.5,.1")] == [
        "iprec_at_recall_0.10",
        "iprec_at_recall_0.50",
    ]
    assert parse_measure("ndcg.1=3,2=9").name == "ndcg_1=3,2=9"
    assert parse_measure("utility.2,-1,0,0").name == "utility_2,-1,0,0"
    # out.test.a prints 99 summary lines: runid is not a column, relstring is per query only.
    assert len(parse_measures("all_trec")) == 99
    with pytest.raises(ValueError, match="gives 2 columns"):
        parse_measure("P.5,10")


def test_ir_measures_names_mean_what_ir_measures_means() -> None:
    # AP@k divides by R (trec_eval map_cut), unlike ap_at_k's default min(k, R).
    result = rm.evaluate(QRELS, RUN, ["AP@1", "map_cut_1", "P@2", "R@2", "nDCG@2", "RR"])
    row = result.per_query.row(1, named=True)
    assert row["AP@1"] == row["map_cut_1"] == 0.0
    first = result.per_query.row(0, named=True)
    assert first["P@2"] == 0.5 and first["R@2"] == 0.5 and first["RR"] == 0.5


def test_trec_measures_work_in_group_by() -> None:
    frame = RUN.join(QRELS, on=["query", "doc"], how="full", coalesce=True)
    grouped = (
        frame.group_by("query")
        .agg(
            rm.metrics("relevance", ["bpref", "unj.1", "relstring.3"], by=["score", "doc"]).alias(
                "m"
            )
        )
        .sort("query")
        .unnest("m")
    )
    # Query 1 ranks b (unjudged), a (relevant), c (unjudged); z is relevant, not
    # retrieved. Query 2 ranks a (unjudged), then b (relevant).
    assert grouped.rows() == [("1", 0.5, 1.0, "-1-"), ("2", 1.0, 1.0, "-1")]


@pytest.mark.parametrize(
    "layout",
    [
        "{q}\t{z}\t{d}\t{r}\t{s}\t{run}\n",  # tabs only
        "{q}\t{z}\t{d}\t{r}\t  {s}\t{run}\n",  # tabs, padded fields (results.test)
        "{q} {z} {d} {r} {s} {run}\n",  # single spaces
        "{q}  {z}\t{d}   {r} {s}\t{run} junk\n",  # runs of mixed whitespace
    ],
)
def test_every_whitespace_layout_reads_the_same(tmp_path: Path, layout: str) -> None:
    rows = [dict(q="7", z="Q0", d=f"doc{i}", r=i, s=f"{10 - i}.5", run="x") for i in range(5)]
    text = "# header comment\n" + "".join(layout.format(**row) for row in rows)
    frame = rm.read_trec_run(write(tmp_path, "run", text))
    assert frame.get_column("doc").to_list() == [f"doc{i}" for i in range(5)]
    assert frame.get_column("score").to_list() == [10.5 - i for i in range(5)]
    assert frame.get_column("run_id").unique().to_list() == ["x"]


@pytest.mark.parametrize(
    "text",
    [
        "q1 Q0 d1 1 0.5 run\nq1 Q0 d2 2 0.4 run\n",  # the native fast path
        "q1\tQ0\td1\t1\t0.5\trun\nq1\tQ0\td2\t2\t0.4\trun\n",
        "q1 Q0 d1 1 0.5 run\tjunk\nq1  Q0 d2 2 0.4 run\n",  # line by line
        "# comment\nq1 Q0 d1 1 0.5 run\n\nq1 Q0 d2 2 0.4 run more junk\n",
        "q1\tQ0\td1\t1\t0.5\trun\nq1 Q0 d2 2 0.4 run\n",
    ],
)
def test_every_layout_reads_the_same(tmp_path: Path, text: str) -> None:
    path = tmp_path / "run.txt"
    path.write_text(text)
    run = rm.read_trec_run(path)
    assert run.select("query", "doc", "rank", "score", "run_id").rows() == [
        ("q1", "d1", 1, 0.5, "run"),
        ("q1", "d2", 2, 0.4, "run"),
    ]
    assert run.equals(rm.scan_trec_run(path).collect())


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("q1 Q0 d1 1 0.5 run\nq1 Q0 d2 two 0.4 run\n", 2),
        ("q1 Q0 d1 1 0.5 run\nq1 Q0 d2 2\n", 2),
        ("q1\tQ0\td1\t1\t0.5\trun\nq1\tQ0\td2\t2\tx\trun\n", 2),
    ],
)
def test_a_bad_line_is_named_whichever_reader_runs(tmp_path: Path, text: str, line: int) -> None:
    path = tmp_path / "bad.run"
    path.write_text(text)
    with pytest.raises(ValueError, match=rf"bad.run:{line}: malformed line"):
        rm.read_trec_run(path)


def _outcome(read: Any) -> object:
    try:
        return read().rows()
    except ValueError as error:
        return str(error)


@pytest.mark.parametrize(
    "text",
    [
        "q1 Q0 d1 1 0.5 run\r\nq1 Q0 d2 2 0.4 run\r\n",  # CRLF: the same odd run id throughout
        "q1 Q0\tx d1 1 0.5 run\nq1 Q0\tx d2 2 0.4 run\n",  # a tab in every q0
        "q1 Q0\x0bx d1 1 0.5 run\nq1 Q0\x0bx d2 2 0.4 run\n",  # a vertical tab in every q0
        "q1 Q0 d1 1 0.5 r\x0cx\nq1 Q0 d2 2 0.4 r\x0cx\n",  # a form feed in every run id
        "q1 Q0 d1 1 0.5 run\nq1 Q0 d2 2 0.4 run\tjunk\n",  # a tab in one run id
        "q1 Q0 d1 1 0.5 a\nq1 Q0 d2 2 0.4 b\x0bc\n",  # a vertical tab in a varying run id
        "q1 Q0 d1 1 0.5 run\nq1\x0c Q0 d2 2 0.4 run\n",  # a form feed in one query id
        "q1\tQ0\td 1\t1\t0.5\trun\nq1\tQ0\td2\t2\t0.4\trun\n",  # a space in a tab-separated doc
    ],
)
def test_odd_whitespace_in_any_field_reads_as_line_by_line(tmp_path: Path, text: str) -> None:
    path = tmp_path / "odd.run"
    path.write_bytes(text.encode())
    expected = "topic Q0 docno rank score run_id"
    slow = _outcome(lambda: _read_lines(path, RUN_SCHEMA, expected, rest=True))
    assert _outcome(lambda: rm.read_trec_run(path)) == slow


@pytest.mark.parametrize(
    "text",
    [
        "q1 0 d1 1\r\nq1 0 d2 0\r\n",
        "q1 0\x0bx d1 1\nq1 0\x0bx d2 0\n",  # a vertical tab in every iteration
        "q1 0 d1 1\nq1 0\t d2 0\n",
    ],
)
def test_odd_whitespace_in_qrels_reads_as_line_by_line(tmp_path: Path, text: str) -> None:
    path = tmp_path / "odd.qrels"
    path.write_bytes(text.encode())
    expected = "topic iteration docno relevance"
    slow = _outcome(lambda: _read_lines(path, QRELS_SCHEMA, expected, rest=False))
    assert _outcome(lambda: rm.read_trec_qrels(path)) == slow


@pytest.mark.parametrize("separator", [" ", "\t"])
def test_one_line_without_a_line_break_finds_its_separator(tmp_path: Path, separator: str) -> None:
    path = tmp_path / "run.txt"
    path.write_text(separator.join(["q", "Q0", "d", "1", "0.5", "r"]))  # no "\n" at all
    assert rm.read_trec_run(path).row(0) == ("q", "Q0", "d", 1, 0.5, "r")
