"""evaluate() and `rankmetrics compare` read the peers' inputs as they are.

Each kind of input (polars, pandas, pyarrow, nested dicts, ranx objects,
ir_datasets records and datasets, TREC files plain, gzipped or on stdin, parquet
with the peers' column names) gives the same evaluation as polars frames; a
swapped pair of inputs is named as such; a bad input is a ValueError naming the
argument.
"""

from __future__ import annotations

import collections
import gzip
import io
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import ir_datasets
import ir_measures
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
import ranx
from ir_datasets.formats import GenericScoredDoc, TrecQrel
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from polars_rankmetrics.cli import main
from tests.test_peer_names import collection
from tests.test_peer_names import nested as as_nested

MEASURES = ["map", "P@5", "ndcg_cut_10", "recip_rank", "num_ret"]


@pytest.fixture(scope="module")
def pair() -> tuple[pl.DataFrame, pl.DataFrame]:
    qrels, run = collection(7, n_queries=8)
    return qrels, run


@pytest.fixture(scope="module")
def expected(pair: tuple[pl.DataFrame, pl.DataFrame]) -> pl.DataFrame:
    qrels, run = pair
    return rm.evaluate(qrels, run, MEASURES).per_query


def nested(frame: pl.DataFrame) -> dict[str, dict[str, Any]]:
    """A defaultdict, as pytrec_eval.parse_qrel and parse_run return."""
    return collections.defaultdict(dict, as_nested(frame))


def trec_lines(qrels: pl.DataFrame, run: pl.DataFrame) -> tuple[str, str]:
    qrels_text = "".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels.iter_rows())
    run_text = "".join(
        f"{q}\tQ0\t{d}\t{i + 1}\t{s!r}\tsys\n" for i, (q, d, s) in enumerate(run.iter_rows())
    )
    return qrels_text, run_text


def sources(qrels: pl.DataFrame, run: pl.DataFrame, tmp: Path) -> dict[str, tuple[Any, Any]]:
    """The same collection in every input shape evaluate() takes."""
    renamed_qrels = qrels.rename({"query": "query_id", "doc": "doc_id"})
    renamed_run = run.rename({"query": "query_id", "doc": "doc_id"})
    qrels_text, run_text = trec_lines(qrels, run)
    (tmp / "qrels.txt").write_text(qrels_text)
    (tmp / "run.txt").write_text(run_text)
    with gzip.open(tmp / "qrels.txt.gz", "wt") as file:
        file.write(qrels_text)
    with gzip.open(tmp / "run.txt.gz", "wt") as file:
        file.write(run_text)
    renamed_qrels.write_parquet(tmp / "qrels.parquet")
    renamed_run.write_parquet(tmp / "run.parquet")
    return {
        "polars lazy": (qrels.lazy(), run.lazy()),
        "pandas (ir_datasets names)": (renamed_qrels.to_pandas(), renamed_run.to_pandas()),
        "pandas (PyTerrier names, int ids)": (
            qrels.rename({"query": "qid", "doc": "docno", "relevance": "label"})
            .with_columns(pl.col("qid").cast(pl.Int64))
            .to_pandas(),
            run.rename({"query": "qid", "doc": "docno"}).to_pandas(),
        ),
        "pyarrow tables": (qrels.to_arrow(), run.to_arrow()),
        "pyarrow record batches": (
            qrels.to_arrow().to_batches()[0],
            run.to_arrow().to_batches()[0],
        ),
        "nested dicts": (nested(qrels), nested(run)),
        "ranx objects": (ranx.Qrels(nested(qrels)), ranx.Run(nested(run))),
        "ir_measures namedtuples": (
            [ir_measures.Qrel(*row) for row in qrels.iter_rows()],
            (ir_measures.ScoredDoc(*row) for row in run.iter_rows()),
        ),
        "ir_datasets namedtuples": (
            iter([TrecQrel(q, d, r, "0") for q, d, r in qrels.iter_rows()]),
            [GenericScoredDoc(*row) for row in run.iter_rows()],
        ),
        "TREC files": (tmp / "qrels.txt", str(tmp / "run.txt")),
        "gzipped TREC files": (str(tmp / "qrels.txt.gz"), tmp / "run.txt.gz"),
        "parquet (ir_datasets names)": (tmp / "qrels.parquet", tmp / "run.parquet"),
    }


def test_every_input_kind_gives_the_same_evaluation(
    pair: tuple[pl.DataFrame, pl.DataFrame], expected: pl.DataFrame, tmp_path: Path
) -> None:
    qrels, run = pair
    with warnings.catch_warnings():  # numba's chatter inside ranx
        warnings.simplefilter("ignore")
        cases = sources(qrels, run, tmp_path)
        for kind, (qrels_source, run_source) in cases.items():
            result = rm.evaluate(qrels_source, run_source, MEASURES)
            try:
                assert_frame_equal(result.per_query, expected, check_exact=False)
            except AssertionError as error:
                raise AssertionError(kind) from error


def test_ir_datasets_dataset_objects(
    pair: tuple[pl.DataFrame, pl.DataFrame], expected: pl.DataFrame, tmp_path: Path
) -> None:
    from ir_datasets.formats import TrecScoredDocs
    from ir_datasets.util import LocalDownload

    qrels, run = pair
    qrels_text, _ = trec_lines(qrels, run)
    (tmp_path / "qrels.txt").write_text(qrels_text)
    # scoreddocs files are "query Q0 doc rank score run" lines, as TREC runs.
    run_text = "".join(f"{q} Q0 {d} 1 {s!r} sys\n" for q, d, s in run.iter_rows())
    (tmp_path / "run.txt").write_text(run_text)
    dataset = ir_datasets.create_dataset(qrels_trec=str(tmp_path / "qrels.txt"))
    scored = TrecScoredDocs(LocalDownload(tmp_path / "run.txt"))
    result = rm.evaluate(dataset, scored.scoreddocs_iter(), MEASURES)
    assert_frame_equal(result.per_query, expected, check_exact=False)
    with pytest.raises(ValueError, match="did you swap qrels and run"):
        rm.evaluate(qrels, dataset, MEASURES)


def test_standard_input(
    pair: tuple[pl.DataFrame, pl.DataFrame],
    expected: pl.DataFrame,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    qrels, run = pair
    qrels_text, run_text = trec_lines(qrels, run)
    (tmp_path / "qrels.txt").write_text(qrels_text)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(run_text.encode())))
    result = rm.evaluate(tmp_path / "qrels.txt", "-", MEASURES)
    assert_frame_equal(result.per_query, expected, check_exact=False)
    assert result.run_id == "sys"


def test_ranx_dataframe_layout_with_a_mapping(
    pair: tuple[pl.DataFrame, pl.DataFrame], expected: pl.DataFrame
) -> None:
    qrels, run = pair
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx_qrels = ranx.Qrels(nested(qrels)).to_dataframe()  # q_id, doc_id, score (labels!)
    with pytest.raises(ValueError, match=r"pass qrels_columns=\{'relevance': 'score'\}"):
        rm.evaluate(ranx_qrels, run, MEASURES)
    result = rm.evaluate(ranx_qrels, run, MEASURES, qrels_columns={"relevance": "score"})
    assert_frame_equal(result.per_query, expected, check_exact=False)


# ----------------------------------------------------------------- swapped inputs


def test_swapped_inputs_are_named(pair: tuple[pl.DataFrame, pl.DataFrame], tmp_path: Path) -> None:
    qrels, run = pair
    swap = "did you swap qrels and run"
    with pytest.raises(ValueError, match=rf"`qrels` looks like a run: .*score.*; {swap}"):
        rm.evaluate(run, qrels, MEASURES)
    with pytest.raises(ValueError, match=rf"`qrels` looks like a run.*{swap}"):
        rm.evaluate(run.to_pandas(), qrels.to_pandas(), MEASURES)
    qrels_text, run_text = trec_lines(qrels, run)
    (tmp_path / "qrels.txt").write_text(qrels_text)
    (tmp_path / "run.txt").write_text(run_text)
    with pytest.raises(ValueError, match=rf"run.txt has 6 fields per line .*{swap}"):
        rm.evaluate(tmp_path / "run.txt", tmp_path / "qrels.txt", MEASURES)
    with pytest.raises(ValueError, match=rf"`run` looks like a qrels: .*4 fields.*{swap}"):
        rm.evaluate(tmp_path / "qrels.txt", tmp_path / "qrels.txt", MEASURES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx_qrels, ranx_run = ranx.Qrels(nested(qrels)), ranx.Run(nested(run))
    with pytest.raises(ValueError, match=rf"it is a ranx Run; {swap}"):
        rm.evaluate(ranx_run, ranx_qrels, MEASURES)
    scored = [ir_measures.ScoredDoc(*row) for row in run.iter_rows()]
    with pytest.raises(ValueError, match=rf"ScoredDocs with a score; {swap}"):
        rm.evaluate(scored, qrels, MEASURES)
    # Dicts look alike: fractional "labels" next to integer "scores" give it away.
    labels = {"q": {"a": 2, "b": 0}}
    with pytest.raises(ValueError, match=swap):
        rm.evaluate({"q": {"a": 0.7, "b": 0.2}}, labels, MEASURES)


def test_swapped_files_on_the_command_line(
    pair: tuple[pl.DataFrame, pl.DataFrame], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels, run = pair
    qrels_text, run_text = trec_lines(qrels, run)
    (tmp_path / "qrels.txt").write_text(qrels_text)
    (tmp_path / "run.txt").write_text(run_text)
    assert main(["trec-eval", str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt")]) == 2
    assert "did you swap qrels and run" in capsys.readouterr().err
    argv = ["compare", str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt"), "-m", "map"]
    assert main(argv) == 2
    assert "did you swap qrels and run" in capsys.readouterr().err


# --------------------------------------------------------------- the command line


def test_compare_reads_gzip_stdin_and_peer_columns(
    pair: tuple[pl.DataFrame, pl.DataFrame],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    qrels, run = pair
    qrels_text, run_text = trec_lines(qrels, run)
    with gzip.open(tmp_path / "qrels.txt.gz", "wt") as file:
        file.write(qrels_text)
    other = run.with_columns(pl.col("score") * -1.0)
    other.rename({"query": "qid", "doc": "docno", "score": "sim"}).write_parquet(
        tmp_path / "other.parquet"
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(run_text.encode())))
    argv = [
        "compare",
        str(tmp_path / "qrels.txt.gz"),
        "-",
        str(tmp_path / "other.parquet"),
        "--run-columns",
        "score=sim",
        "-m",
        "map",
        "--format",
        "csv",
    ]
    assert main(argv) == 0
    table = pl.read_csv(io.StringIO(capsys.readouterr().out))  # the one pair (no --baseline)
    means = {table["system_a"][0]: table["mean_a"][0], table["system_b"][0]: table["mean_b"][0]}

    def mean_map(ranking: pl.DataFrame) -> float:
        # trec-eval's query set (compare's default): every qrels query, 0 without a relevant one.
        per_query = rm.evaluate(qrels, ranking, "map", queries="trec_eval").per_query
        assert per_query.height == qrels["query"].n_unique()
        return float(per_query["map"].mean())  # type: ignore[arg-type]

    assert means["sys"] == pytest.approx(mean_map(run))
    assert means["other"] == pytest.approx(mean_map(other))
    assert means["sys"] != pytest.approx(means["other"])
    assert main([*argv[:4], "--run-columns", "score", "-m", "map"]) == 2
    assert "--run-columns must be role=column pairs" in capsys.readouterr().err


# --------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    ("qrels", "run", "message"),
    [
        (3, "run", r"`qrels` must be a path .*got int"),
        ({"q": {"a": 1}}, {"q": [("a", 1.0)]}, r"`run` as a dict must map each query to a dict"),
        ({"q": {"a": "high"}}, {"q": {"a": 1.0}}, r"`qrels` as a dict must hold numbers"),
        ({"q": {"a": 1}}, [("q", "a", 1.0)], r"`run` as an iterable must hold namedtuples"),
        ({"q": {"a": 1}}, [], r"the run is empty"),
        ({"q": {}}, {"q": {"a": 1.0}}, r"the qrels is empty"),
        (
            {"q": {"a": 1}},
            pl.DataFrame({"query": ["q"], "doc": ["a"], "score": ["x"]}),
            r"the run's score column 'score' must be numeric, got String",
        ),
        ({"q": {"a": 1}}, "missing.txt", r"`run`: no such TREC file: 'missing.txt'"),
        ({"q": {"a": 1}}, "missing.parquet", r"`run`: no such parquet file"),
    ],
)
def test_bad_inputs_name_the_argument(qrels: Any, run: Any, message: str) -> None:
    with pytest.raises((ValueError, FileNotFoundError), match=message):
        rm.evaluate(qrels, run, "map")


def test_bad_mappings_name_the_argument(pair: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    qrels, run = pair
    with pytest.raises(ValueError, match=r"`run_columns` maps unknown names \['label'\]"):
        rm.evaluate(qrels, run, "map", run_columns={"label": "x"})
    with pytest.raises(ValueError, match="`qrels_columns` must map roles to column names"):
        rm.evaluate(qrels, run, "map", qrels_columns={"query": 1})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="`tie_break` must be one of 'tool', 'doc_descending'"):
        rm.evaluate(qrels, run, "map", tie_break="random")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`measures` must name at least one measure"):
        rm.evaluate(qrels, run, [])


def test_optional_packages_are_imported_only_for_their_objects(tmp_path: Path) -> None:
    script = f"""
import sys
import polars as pl
import polars_rankmetrics as rm
qrels = {{"q": {{"a": 1, "b": 0}}}}
run = pl.DataFrame({{"query": ["q", "q"], "doc": ["a", "b"], "score": [1.0, 2.0]}})
rm.evaluate(qrels, run, ["map", "ndcg@10", "AP(rel=1)"])
path = r"{tmp_path / "run.txt"}"
open(path, "w").write("q Q0 a 1 1.0 x\\n")
rm.evaluate(qrels, path, ["map"])
loaded = sorted(m for m in ("pandas", "ranx", "ir_datasets", "numba") if m in sys.modules)
assert not loaded, loaded
"""
    subprocess.run([sys.executable, "-c", script], check=True)


def test_pandas_objects_are_recognised_without_arrow_streams() -> None:
    qrels = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "label": [1, 0]})
    run = pa.table({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    assert rm.evaluate(qrels, run, "map").aggregate.item() == 0.5
