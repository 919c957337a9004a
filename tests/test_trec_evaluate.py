"""``evaluate()`` gives the command line's numbers, with friendlier defaults and its options.

The Python API and ``rankmetrics trec-eval`` share one evaluation: the same
values, bit for bit. Where trec_eval stops (a qrels query missing from the
run), ``evaluate()`` counts instead, and ``queries='trec_eval'`` stops; the
flags ``-c``, ``-M``, ``-l``, ``-J`` and ``-N`` are options.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.cli import main

QRELS = pl.DataFrame(
    {
        "query": ["1", "1", "1", "2", "2", "3"],
        "doc": ["a", "b", "c", "d", "e", "f"],
        "relevance": [2, 0, 1, 1, -1, 1],
    }
)
RUN = pl.DataFrame(
    {
        "query": ["1", "1", "1", "2", "2", "9"],
        "doc": ["a", "x", "c", "e", "d", "z"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0],
        "run_id": ["r"] * 6,
    }
)


def write(folder: Path) -> tuple[str, str]:
    qrels, run = folder / "qrels", folder / "run"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS.iter_rows()))
    run.write_text("".join(f"{q} Q0 {d} 1 {s} {i}\n" for q, d, s, i in RUN.iter_rows()))
    return str(qrels), str(run)


def cli_lines(
    arguments: list[str], capsysbinary: pytest.CaptureFixture[bytes]
) -> dict[tuple[str, str], str]:
    main(["trec-eval", *arguments])
    lines = capsysbinary.readouterr().out.decode().splitlines()
    return {
        (name.strip(), query): value for name, query, value in (line.split("\t") for line in lines)
    }


MEASURES = [
    "map",
    "P.2",
    "ndcg",
    "bpref",
    "utility.1,-1,0,0",
    "relstring.3",
    "unj.2",
    "num_ret",
    "num_rel",
]


@pytest.mark.parametrize(
    ("options", "flags"),
    [
        ({"complete": True}, ["-c"]),
        ({"complete": True, "max_per_query": 1}, ["-c", "-M", "1"]),
        ({"complete": True, "relevance_level": 2}, ["-c", "-l", "2"]),
        ({"complete": True, "relevance_level": 0}, ["-c", "-l", "0"]),
        ({"complete": True, "judged_only": True}, ["-c", "-J"]),
        ({"complete": True, "collection_size": 100}, ["-c", "-N", "100"]),
    ],
)
def test_evaluate_prints_what_the_command_line_prints(
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    options: dict[str, object],
    flags: list[str],
) -> None:
    qrels, run = write(tmp_path)
    printed = cli_lines([*flags, "-q", *(f"-m{m}" for m in MEASURES), qrels, run], capsysbinary)
    result = rm.evaluate(QRELS, RUN, MEASURES, **options)  # type: ignore[arg-type]
    for row in result.per_query.iter_rows(named=True):
        for name, value in row.items():
            if name != "query":
                text = f"'{value}'" if isinstance(value, str) else f"{value:6.4f}"
                expected = printed[name, row["query"]]
                assert text == expected or float(value) == float(expected), (name, row["query"])
    for name, value in result.aggregate.row(0, named=True).items():
        if name == "num_rel":  # under -c trec_eval counts every judged relevant line: see README
            continue
        assert f"{value:6.4f}" == printed[name, "all"] or value == float(printed[name, "all"]), name


def test_a_missing_query_is_counted_or_refused() -> None:
    counted = rm.evaluate(QRELS, RUN, "map")
    assert (counted.n_queries, counted.missing_queries, counted.ignored_queries) == (2, 1, 1)
    with pytest.raises(ValueError, match="query '3' of the qrels is not in the run"):
        rm.evaluate(QRELS, RUN, "map", queries="trec_eval")
    scored = rm.evaluate(QRELS, RUN, ["map", "utility.1,-1,0,0", "relstring.2"], complete=True)
    missing = scored.per_query.filter(pl.col("query") == "3").row(0, named=True)
    # trec_eval -c: the placeholder document is one retrieved non-relevant row.
    assert missing == {"query": "3", "map": 0.0, "utility_1,-1,0,0": -1.0, "relstring_2": "-"}


def test_level_zero_and_above_the_highest_grade() -> None:
    zero = rm.evaluate(QRELS, RUN, ["num_rel", "map"], relevance_level=0)
    assert zero.per_query.get_column("num_rel").to_list() == [3.0, 1.0]
    high = rm.evaluate(QRELS, RUN, ["map", "ndcg"], relevance_level=9)
    assert high.aggregate.item(0, "map") == 0.0 and high.aggregate.item(0, "ndcg") > 0.0
    assert high.no_relevant_queries == 2
