"""The acceptance test: `rankmetrics trec-eval` prints trec_eval 10's exact bytes."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from polars_rankmetrics.cli import main

# The seven command lines of ../shared/trec_eval/README.md and their outputs.
COMMANDS = {
    "out.test": "qrels.test results.test",
    "out.test.a": "-m all_trec qrels.test results.test",
    "out.test.aq": "-m all_trec -q qrels.test results.test",
    "out.test.aqc": "-m all_trec -q -c qrels.test results.trunc",
    "out.test.aqcM": "-m all_trec -q -c -M100 qrels.test results.trunc",
    "out.test.aql": "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test",
    "out.test.meas_params": (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test"
    ),
}


def _run_cli(
    trec_eval_dir: Path, command: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> bytes:
    arguments = shlex.split(command)
    # The two positional arguments are files in the conformance folder.
    arguments[-2:] = [str(trec_eval_dir / name) for name in arguments[-2:]]
    assert main(["trec-eval", *arguments]) == 0
    return capsysbinary.readouterr().out


@pytest.mark.parametrize("expected", sorted(COMMANDS))
def test_byte_for_byte(
    trec_eval_dir: Path, expected: str, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    output = _run_cli(trec_eval_dir, COMMANDS[expected], capsysbinary)
    assert output == (trec_eval_dir / expected).read_bytes()


def test_table_formats_hold_the_same_numbers(
    trec_eval_dir: Path, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    import polars as pl

    target = tmp_path / "eval.parquet"
    command = f"-q -m map -m P.5 --format parquet --output {target} qrels.test results.test"
    _run_cli(trec_eval_dir, command, capsysbinary)
    table = pl.read_parquet(target)
    expected = {
        (query, name): value
        for name, query, value in (
            line.split("\t") for line in (trec_eval_dir / "out.test.aq").read_text().splitlines()
        )
        if name.strip() in ("map", "P_5")
    }
    assert table.get_column("query").to_list() == ["301", "302", "303", "all"]
    for row in table.iter_rows(named=True):
        for name in ("map", "P_5"):
            assert f"{row[name]:6.4f}" == expected[(row["query"], f"{name:<22}")]
    _run_cli(trec_eval_dir, "-m map --format csv qrels.test results.test", capsysbinary)
    csv = _run_cli(trec_eval_dir, "-m map --format csv qrels.test results.test", capsysbinary)
    assert csv.decode().splitlines()[0] == "query,map"
