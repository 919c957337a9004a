"""TREC evaluation: run and qrels readers, and :func:`evaluate`, trec_eval's numbers.

A TREC run has one line per retrieved document, ``topic Q0 docno rank score
run_id``; qrels have one line per judgement, ``topic iteration docno relevance``.
Fields are separated by tabs or runs of spaces. The readers parse with polars'
CSV reader and string kernels, so a multi-GB run reads in seconds.

:func:`evaluate` joins a run with its qrels and computes any trec_eval or
ir_measures measure per query, with one sort per query for all of them, then
summarises over queries the way trec_eval does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeAlias

import polars as pl

from polars_rankmetrics._measure import Measure
from polars_rankmetrics._ranking import Ranking
from polars_rankmetrics.measures import parse_measures
from polars_rankmetrics.multi import measures_expression
from polars_rankmetrics.trec_measures import geometric_mean

Source: TypeAlias = str | Path | pl.LazyFrame | pl.DataFrame
"""A run or qrels: a path to a TREC file, or a (lazy) frame."""

RUN_SCHEMA = pl.Schema(
    {
        "query": pl.String,
        "q0": pl.String,
        "doc": pl.String,
        "rank": pl.Int64,
        "score": pl.Float64,
        "run_id": pl.String,
    }
)
"""The columns of :func:`scan_trec_run`."""

QRELS_SCHEMA = pl.Schema(
    {"query": pl.String, "iteration": pl.String, "doc": pl.String, "relevance": pl.Int64}
)
"""The columns of :func:`scan_trec_qrels`."""

_LINE = "_rankmetrics_line"
_NUMBER = "_rankmetrics_line_number"
_IN_RUN = "_rankmetrics_in_run"
_IN_QRELS = "_rankmetrics_in_qrels"


# ------------------------------------------------------------------ readers


def _scan_lines(path: str | Path) -> pl.LazyFrame:
    """Every line of ``path`` as one string, with its 1-based line number.

    NUL never occurs in TREC files (trec_eval forbids it), so it serves as a
    separator that keeps each whole line in one field; blank lines stay
    (as null) so that line numbers are exact.
    """
    return pl.scan_csv(
        path,
        has_header=False,
        separator="\x00",
        quote_char=None,
        schema={_LINE: pl.String},
        row_index_name=_NUMBER,
        row_index_offset=1,
    )


def _skipped(lines: pl.Series) -> pl.Series:
    """Blank lines and comment lines (``#``), which trec_eval skips."""
    stripped = lines.str.strip_chars_start()
    return (stripped.is_null() | (stripped == "") | stripped.str.starts_with("#")).fill_null(True)


def _split_fields(
    lines: pl.Series, names: Sequence[str], *, rest: bool
) -> tuple[pl.DataFrame, pl.Series]:
    """Split whitespace-separated ``lines`` into ``names`` (null where malformed).

    Returns the fields and which lines are skipped (blank or comments). Three
    ways, cheapest first, each used only when the previous one cannot read
    every line: one split on the file's separator (tab or space) when no other
    whitespace occurs; the same split with each field stripped; and a regex
    split on runs of whitespace. With ``rest``, anything after the last field
    is ignored; without, it makes the line malformed.
    """
    n = len(names)
    sample = lines.drop_nulls().head(1)
    separator = "\t" if sample.len() and "\t" in sample[0] else " "
    parts = lines.str.split_exact(separator, n).struct.unnest()
    extra = pl.col(f"field_{n}")
    other_whitespace = r"[ \r\v\f]" if separator == "\t" else r"[\t\r\v\f]"
    if not lines.str.contains(other_whitespace).any():
        comments = lines.str.starts_with("#").fill_null(True)
        fields = parts.select(pl.col(f"field_{i}").alias(name) for i, name in enumerate(names))
        valid = parts.select(
            pl.all_horizontal(
                *(
                    pl.col(f"field_{i}").is_not_null() & (pl.col(f"field_{i}") != "")
                    for i in range(n)
                ),
                pl.lit(True) if rest else (extra.is_null() | (extra == "")),
            )
        ).to_series()
        if (valid | comments).all():
            return fields, comments
    skipped = _skipped(lines)
    fields = parts.select(
        pl.col(f"field_{i}").str.strip_chars().alias(name) for i, name in enumerate(names)
    )
    if rest:
        last = names[-1]
        fields = fields.with_columns(
            pl.col(last).str.split_exact(" ", 0).struct.field("field_0").alias(last)
        )
    valid_fields = pl.all_horizontal(
        pl.col(name).is_not_null()
        & (pl.col(name) != "")
        & ~pl.col(name).str.contains(" ", literal=True)
        for name in names
    )
    checked = fields.with_columns(
        extra=parts.get_column(f"field_{n}").str.strip_chars(), skipped=skipped
    ).select(
        *names,
        valid=(
            valid_fields & (pl.lit(rest) | pl.col("extra").is_null() | (pl.col("extra") == ""))
        ).fill_null(False)
        | pl.col("skipped"),
    )
    if checked.get_column("valid").all():
        return checked.select(names), skipped
    # Runs of whitespace, or malformed lines: the general (regex) split.
    field = r"(\S+)"
    tail = r"(?:\s.*)?$" if rest else r"\s*$"
    pattern = r"^\s*" + r"\s+".join([field] * n) + tail
    groups = lines.str.extract_groups(pattern).struct.unnest()
    return groups.select(pl.col(str(i + 1)).alias(name) for i, name in enumerate(names)), skipped


def _malformed(path: str, number: int, line: str | None, expected: str, problem: str) -> ValueError:
    text = "" if line is None else line.rstrip("\n")
    return ValueError(
        f"{path}:{number}: malformed line ({problem}; expected '{expected}'): {text!r}"
    )


def _parse_batch(
    batch: pl.Series,
    *,
    path: str,
    names: Sequence[str],
    numeric: Mapping[str, pl.DataType],
    expected: str,
    rest: bool,
) -> pl.Series:
    """Parse one batch of lines into a struct of fields; raise on a malformed line."""
    frame = batch.struct.unnest()
    lines = frame.get_column(_LINE)
    fields, skipped = _split_fields(lines, names, rest=rest)
    parsed = fields.with_columns(
        pl.col(name).cast(dtype, strict=False) for name, dtype in numeric.items()
    )
    missing = fields.select(pl.any_horizontal(pl.col(name).is_null() for name in names))
    bad_number = parsed.select(
        pl.any_horizontal(pl.col(name).is_null() for name in numeric)
    ).to_series()
    bad = (missing.to_series() | bad_number) & ~skipped
    if bad.any():
        index = int(bad.arg_true()[0])
        number = int(frame.get_column(_NUMBER)[index])
        line = lines[index]
        if missing.to_series()[index]:
            problem = f"{len(names)} whitespace-separated fields needed"
        else:
            wrong = [name for name in numeric if parsed.get_column(name)[index] is None]
            problem = f"{wrong[0]} is not a number"
        raise _malformed(path, number, line, expected, problem)
    result = parsed.with_columns(pl.when(~skipped).then(pl.struct(names)).alias("_row"))
    return result.get_column("_row")


def _scan_trec(
    path: str | Path,
    schema: pl.Schema,
    expected: str,
    *,
    rest: bool,
    numeric: Mapping[str, pl.DataType],
) -> pl.LazyFrame:
    path = Path(path)
    if not path.is_file():
        msg = f"no such TREC file: {str(path)!r}"
        raise FileNotFoundError(msg)
    names = list(schema.names())
    parse = partial(
        _parse_batch, path=str(path), names=names, numeric=numeric, expected=expected, rest=rest
    )
    row = pl.struct(_NUMBER, _LINE).map_batches(
        parse, return_dtype=pl.Struct(schema), is_elementwise=True
    )
    return _scan_lines(path).select(row.alias("_row")).drop_nulls("_row").unnest("_row")


def _read_common_case(path: str | Path, schema: pl.Schema, *, rest: bool) -> pl.DataFrame | None:
    """Read a well-formed TREC file with polars' CSV reader, or return None.

    Most files use one separator (a tab or a single space) throughout and have
    no comments. Those are read natively, a few times faster than line by
    line. Anything else (runs of spaces, mixed whitespace, comments, a short,
    long or unparsable line) shows up here as a parse error, a null field or a
    field holding whitespace, and returns None: the line-based reader then reads
    the file, naming any malformed line.
    """
    with open(path, encoding="utf-8", errors="replace") as file:
        first = file.readline()
    separator = "\t" if "\t" in first else " "
    try:
        frame = pl.read_csv(
            path,
            separator=separator,
            has_header=False,
            new_columns=list(schema.names()),
            schema=schema,
            quote_char=None,
            truncate_ragged_lines=rest,
        )
    except (pl.exceptions.PolarsError, UnicodeDecodeError):
        return None
    if frame.height == 0 or frame.null_count().sum_horizontal().item() > 0:
        return None
    # Stray whitespace in a space-separated line shifts a later field into the
    # rank, score or relevance, which then fails to parse; only a last string
    # field (the run id) could absorb it unseen. In a tab-separated file any
    # string field could hold a space.
    text = [name for name, dtype in schema.items() if dtype == pl.String]
    suspects = text if separator == "\t" else [list(schema.names())[-1]]
    suspects = [name for name in suspects if name in text]
    if (
        suspects
        and frame.select(pl.any_horizontal(pl.col(suspects).str.contains(r"\s").any())).item()
    ):
        return None
    return frame


def scan_trec_run(path: str | Path) -> pl.LazyFrame:
    r"""
    Scan a TREC run file: one line per retrieved document.

    Lines are ``topic Q0 docno rank score run_id``, separated by tabs or runs
    of spaces; anything after the run id is ignored, as are blank lines and
    lines starting with ``#``. Topic and document ids stay strings. A line with
    too few fields, or a rank or score that is not a number, raises
    ``ValueError`` at collect, naming the file and the line number.

    Parameters
    ----------
    path
        The run file.

    Returns
    -------
    LazyFrame
        Columns ``query: str, q0: str, doc: str, rank: i64, score: f64, run_id: str``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars_rankmetrics as rm
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> lines = ["301 Q0 doc-a 1 2.5 bm25", "301\tQ0\tdoc-b\t2\t  1.5\tbm25 extra"]
    >>> _ = path.write_text("\n".join(lines) + "\n")
    >>> rm.scan_trec_run(path).collect()
    shape: (2, 6)
    ┌───────┬─────┬───────┬──────┬───────┬────────┐
    │ query ┆ q0  ┆ doc   ┆ rank ┆ score ┆ run_id │
    │ ---   ┆ --- ┆ ---   ┆ ---  ┆ ---   ┆ ---    │
    │ str   ┆ str ┆ str   ┆ i64  ┆ f64   ┆ str    │
    ╞═══════╪═════╪═══════╪══════╪═══════╪════════╡
    │ 301   ┆ Q0  ┆ doc-a ┆ 1    ┆ 2.5   ┆ bm25   │
    │ 301   ┆ Q0  ┆ doc-b ┆ 2    ┆ 1.5   ┆ bm25   │
    └───────┴─────┴───────┴──────┴───────┴────────┘
    """
    return _scan_trec(
        path,
        RUN_SCHEMA,
        "topic Q0 docno rank score run_id",
        rest=True,
        numeric={"rank": pl.Int64(), "score": pl.Float64()},
    )


def read_trec_run(path: str | Path) -> pl.DataFrame:
    r"""
    Read a TREC run file; see :func:`scan_trec_run`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars_rankmetrics as rm
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d1 1 0.9 run\nq1 Q0 d2 2 0.8 run\n")
    >>> rm.read_trec_run(path).select("query", "doc", "score")
    shape: (2, 3)
    ┌───────┬─────┬───────┐
    │ query ┆ doc ┆ score │
    │ ---   ┆ --- ┆ ---   │
    │ str   ┆ str ┆ f64   │
    ╞═══════╪═════╪═══════╡
    │ q1    ┆ d1  ┆ 0.9   │
    │ q1    ┆ d2  ┆ 0.8   │
    └───────┴─────┴───────┘
    """
    frame = _read_common_case(path, RUN_SCHEMA, rest=True)
    return scan_trec_run(path).collect() if frame is None else frame


def scan_trec_qrels(path: str | Path) -> pl.LazyFrame:
    r"""
    Scan a TREC qrels file: one relevance judgement per line.

    Lines are ``topic iteration docno relevance``, separated by tabs or runs
    of spaces; blank lines and lines starting with ``#`` are skipped. The
    relevance is an integer: above 0 is graded relevance, 0 not relevant, and
    a negative value is judged not relevant by most measures but "in the pool,
    unjudged" by bpref, infAP and the other pool-aware measures (trec_eval's
    convention). A line with a missing or extra field, or a relevance that is
    not an integer, raises ``ValueError`` at collect, naming the file and line.

    Parameters
    ----------
    path
        The qrels file.

    Returns
    -------
    LazyFrame
        Columns ``query: str, iteration: str, doc: str, relevance: i64``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars_rankmetrics as rm
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("301 0 doc-a 1\n301 0 doc-b 0\n302 0 doc-c -1\n")
    >>> rm.scan_trec_qrels(path).collect()
    shape: (3, 4)
    ┌───────┬───────────┬───────┬───────────┐
    │ query ┆ iteration ┆ doc   ┆ relevance │
    │ ---   ┆ ---       ┆ ---   ┆ ---       │
    │ str   ┆ str       ┆ str   ┆ i64       │
    ╞═══════╪═══════════╪═══════╪═══════════╡
    │ 301   ┆ 0         ┆ doc-a ┆ 1         │
    │ 301   ┆ 0         ┆ doc-b ┆ 0         │
    │ 302   ┆ 0         ┆ doc-c ┆ -1        │
    └───────┴───────────┴───────┴───────────┘
    """
    return _scan_trec(
        path,
        QRELS_SCHEMA,
        "topic iteration docno relevance",
        rest=False,
        numeric={"relevance": pl.Int64()},
    )


def read_trec_qrels(path: str | Path) -> pl.DataFrame:
    r"""
    Read a TREC qrels file; see :func:`scan_trec_qrels`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars_rankmetrics as rm
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("q1 0 d1 2\n")
    >>> rm.read_trec_qrels(path)
    shape: (1, 4)
    ┌───────┬───────────┬─────┬───────────┐
    │ query ┆ iteration ┆ doc ┆ relevance │
    │ ---   ┆ ---       ┆ --- ┆ ---       │
    │ str   ┆ str       ┆ str ┆ i64       │
    ╞═══════╪═══════════╪═════╪═══════════╡
    │ q1    ┆ 0         ┆ d1  ┆ 2         │
    └───────┴───────────┴─────┴───────────┘
    """
    frame = _read_common_case(path, QRELS_SCHEMA, rest=False)
    return scan_trec_qrels(path).collect() if frame is None else frame


# ----------------------------------------------------------------- evaluate


@dataclass(frozen=True)
class Evaluation:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    per_query
        One row per evaluated query, sorted by query id as strings: a
        ``query`` column, then one Float64 column per measure output
        (``relstring`` is a String). Summary-only measures (``gm_map``,
        ``gm_bpref``, ``num_q``) are not in it.
    aggregate
        One row: each measure summarised over the evaluated queries (the mean;
        the sum for counts such as ``num_ret``; trec_eval's geometric mean for
        ``gm_map``/``gm_bpref``; the number of queries for ``num_q``).
    run_id
        The run id of the run's last line ('' for a frame without one).
    measures
        The parsed measures, in output order.
    n_queries
        How many queries were evaluated (rows of ``per_query``).
    ignored_queries
        Queries in the run but not in the qrels: ignored, as trec_eval does.
    missing_queries
        Queries in the qrels but not in the run: ignored by default, scored 0
        with ``complete=True``.
    no_relevant_queries
        Evaluated queries without a relevant document (their AP, recall, ...
        are 0).
    """

    per_query: pl.DataFrame
    aggregate: pl.DataFrame
    run_id: str
    measures: tuple[Measure, ...]
    n_queries: int
    ignored_queries: int
    missing_queries: int
    no_relevant_queries: int


def _columns_of(
    source: Source, kind: str, mapping: Mapping[str, str], needed: Sequence[str]
) -> pl.DataFrame:
    if isinstance(source, str | Path):
        frame = read_trec_run(source) if kind == "run" else read_trec_qrels(source)
        lazy = frame.lazy()
    elif isinstance(source, pl.DataFrame):
        lazy = source.lazy()
    elif isinstance(source, pl.LazyFrame):
        lazy = source
    else:
        msg = f"`{kind}` must be a path, a DataFrame or a LazyFrame, got {type(source).__name__}"
        raise TypeError(msg)
    available = lazy.collect_schema().names()
    selected = []
    for name in needed:
        column = mapping.get(name, name)
        if column not in available:
            optional = name == "run_id"
            if optional:
                continue
            msg = (
                f"the {kind} has no column {column!r} (for {name!r}); its columns are "
                f"{available}; map yours with `columns={{{name!r}: ...}}`"
            )
            raise ValueError(msg)
        selected.append(pl.col(column).alias(name))
    frame = lazy.select(selected).collect()
    if frame.height == 0:
        msg = f"the {kind} is empty: it has no rows"
        raise ValueError(msg)
    casts = {"query": pl.String, "doc": pl.String}
    return frame.with_columns(pl.col(name).cast(dtype) for name, dtype in casts.items())


def _check_unique(frame: pl.DataFrame, kind: str) -> None:
    pair = pl.struct("query", "doc")
    # Counting distinct 64-bit hashes is a few times cheaper than comparing the
    # strings; only when two hashes collide are the pairs compared exactly.
    if frame.select(pair.hash().n_unique()).item() == frame.height:
        return
    duplicated = frame.select("query", "doc").filter(pair.is_duplicated())
    if duplicated.height:
        query, doc = duplicated.row(0)
        msg = (
            f"the {kind} lists document {doc!r} more than once for query {query!r}; "
            "each (query, document) pair must appear once (trec_eval rejects it too)"
        )
        raise ValueError(msg)


def _truncate(run: pl.DataFrame, max_per_query: int) -> pl.DataFrame:
    """Return the top ``max_per_query`` documents of each query, in trec_eval's order."""
    ordered = run.sort(["query", "score", "doc"], descending=[False, True, True], nulls_last=True)
    return ordered.filter(pl.int_range(pl.len()).over("query") < max_per_query)


def _summary(measure: Measure) -> pl.Expr:
    column = pl.col(measure.name)
    if measure.summary == "sum":
        return column.sum().cast(pl.Float64)
    if measure.summary == "geometric":
        return geometric_mean(column)
    return column.mean()


def evaluate(
    run: Source,
    qrels: Source,
    measures: str | Sequence[str],
    *,
    complete: bool = False,
    max_per_query: int | None = None,
    relevance_level: int = 1,
    columns: Mapping[str, str] | None = None,
) -> Evaluation:
    """
    Evaluate a run against qrels, with trec_eval's conventions and numbers.

    The run and qrels are joined per (query, document); relevant documents that
    were not retrieved get a null score, so they still count in R and in the
    ideal DCG. Each query's documents are ordered as trec_eval orders them:
    score descending, ties broken by document id descending (string
    comparison); the rank column is ignored. All measures are computed from one
    sort per query.

    Which queries count (trec_eval's rules):

    - by default, the queries in both the run and the qrels;
    - with ``complete=True`` (trec_eval ``-c``), every qrels query, those
      missing from the run scoring 0;
    - queries in the run but not in the qrels are ignored.

    What is ignored is reported on the result (``ignored_queries``,
    ``missing_queries``), never dropped silently.

    Parameters
    ----------
    run
        A TREC run file, or a frame with columns ``query``, ``doc``, ``score``
        (and optionally ``run_id``).
    qrels
        A TREC qrels file, or a frame with columns ``query``, ``doc``, ``relevance``.
    measures
        Measure names, trec_eval style (``map``, ``P_10``, ``P.5,10``,
        ``ndcg_cut_10``, ``iprec_at_recall_0.10``, ``ndcg.1=3,2=9``, the sets
        ``official`` and ``all_trec``) or ir_measures style (``AP``, ``AP@10``,
        ``P@10``, ``R@100``, ``nDCG@10``, ``RR``, ``Rprec``, ``Success@5``). An
        ir_measures name means what it means in ir_measures: ``AP@10`` is
        trec_eval's ``map_cut_10``, with denominator R.
    complete
        Average over every qrels query (trec_eval ``-c``).
    max_per_query
        Keep only the first this many documents of each query (trec_eval ``-M``).
    relevance_level
        A label >= this integer is relevant (trec_eval ``-l``), >= 1.
    columns
        For frames not in TREC layout: a mapping from ``query``, ``doc``,
        ``score``, ``relevance``, ``run_id`` to your column names.

    Returns
    -------
    Evaluation
        ``per_query`` and ``aggregate`` frames, the run id, and query counts.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankmetrics as rm
    >>> run = pl.DataFrame(
    ...     {
    ...         "query": ["q1", "q1", "q1", "q2", "q2", "q3"],
    ...         "doc": ["a", "b", "c", "d", "e", "f"],
    ...         "score": [3.0, 2.0, 1.0, 2.0, 1.0, 1.0],
    ...     }
    ... )
    >>> qrels = pl.DataFrame(
    ...     {
    ...         "query": ["q1", "q1", "q2", "q2"],
    ...         "doc": ["b", "x", "d", "e"],
    ...         "relevance": [1, 1, 0, 2],
    ...     }
    ... )
    >>> result = rm.evaluate(run, qrels, ["map", "P@2", "ndcg_cut_10"])
    >>> result.per_query
    shape: (2, 4)
    ┌───────┬──────┬─────┬─────────────┐
    │ query ┆ map  ┆ P@2 ┆ ndcg_cut_10 │
    │ ---   ┆ ---  ┆ --- ┆ ---         │
    │ str   ┆ f64  ┆ f64 ┆ f64         │
    ╞═══════╪══════╪═════╪═════════════╡
    │ q1    ┆ 0.25 ┆ 0.5 ┆ 0.386853    │
    │ q2    ┆ 0.5  ┆ 0.5 ┆ 0.63093     │
    └───────┴──────┴─────┴─────────────┘
    >>> result.aggregate
    shape: (1, 3)
    ┌───────┬─────┬─────────────┐
    │ map   ┆ P@2 ┆ ndcg_cut_10 │
    │ ---   ┆ --- ┆ ---         │
    │ f64   ┆ f64 ┆ f64         │
    ╞═══════╪═════╪═════════════╡
    │ 0.375 ┆ 0.5 ┆ 0.508891    │
    └───────┴─────┴─────────────┘
    >>> result.ignored_queries  # q3 has no judgements
    1
    """
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        msg = "`measures` must name at least one measure"
        raise ValueError(msg)
    parsed = tuple(measure for name in names for measure in parse_measures(name))
    if (
        isinstance(relevance_level, bool)
        or not isinstance(relevance_level, int)
        or relevance_level < 1
    ):
        msg = f"`relevance_level` must be an int >= 1, got {relevance_level!r}"
        raise ValueError(msg)
    if max_per_query is not None and (
        isinstance(max_per_query, bool) or not isinstance(max_per_query, int) or max_per_query < 1
    ):
        msg = f"`max_per_query` must be a positive int or None, got {max_per_query!r}"
        raise ValueError(msg)
    mapping = dict(columns or {})
    unknown = set(mapping) - {"query", "doc", "score", "relevance", "run_id"}
    if unknown:
        msg = (
            f"`columns` maps unknown names {sorted(unknown)}; "
            "use query, doc, score, relevance, run_id"
        )
        raise ValueError(msg)

    run_frame = _columns_of(run, "run", mapping, ["query", "doc", "score", "run_id"])
    qrels_frame = _columns_of(qrels, "qrels", mapping, ["query", "doc", "relevance"])
    run_frame = run_frame.with_columns(pl.col("score").cast(pl.Float64))
    _check_unique(run_frame, "run")
    _check_unique(qrels_frame, "qrels")
    run_id = ""
    if "run_id" in run_frame.columns:
        last = run_frame.get_column("run_id")[-1]
        run_id = "" if last is None else str(last)
    if max_per_query is not None:
        run_frame = _truncate(run_frame, max_per_query)

    ranking = Ranking.build(
        "relevance", by=["score", "doc"], descending=True, threshold=relevance_level - 1
    )
    statistic = measures_expression(ranking, parsed, "zero")
    joined = (
        run_frame.lazy()
        .select("query", "doc", "score", pl.lit(True).alias(_IN_RUN))
        .join(
            qrels_frame.lazy().select("query", "doc", "relevance", pl.lit(True).alias(_IN_QRELS)),
            on=["query", "doc"],
            how="full",
            coalesce=True,
        )
    )
    relevant = (pl.col("relevance") >= relevance_level).fill_null(False)
    per_group = (
        joined.group_by("query")
        .agg(
            statistic.alias("_measures"),
            pl.col(_IN_RUN).any().alias(_IN_RUN),
            pl.col(_IN_QRELS).any().alias(_IN_QRELS),
            relevant.any().alias("_has_relevant"),
        )
        .collect()
    )
    in_run, in_qrels = pl.col(_IN_RUN), pl.col(_IN_QRELS)
    counts = per_group.select(
        ignored=(in_run & ~in_qrels).sum(),
        missing=(in_qrels & ~in_run).sum(),
        any_relevant=(in_qrels & pl.col("_has_relevant")).any(),
    ).row(0, named=True)
    if not counts["any_relevant"]:
        msg = (
            f"the qrels have no relevant document (relevance >= {relevance_level}): "
            "every measure would be 0"
        )
        raise ValueError(msg)
    evaluated = per_group.filter(in_qrels & (in_run | complete)).sort("query")
    if evaluated.height == 0:
        msg = (
            "no query is in both the run and the qrels: check that their query ids match "
            f"(run has {counts['ignored']} query ids the qrels lack)"
        )
        raise ValueError(msg)

    values = evaluated.select("query", in_run, "_has_relevant", pl.col("_measures").struct.unnest())
    # A query missing from the run scores 0 on everything but R and num_q (trec_eval -c).
    zeroed = [
        pl.when(in_run)
        .then(pl.col(m.name))
        .otherwise(pl.lit("" if m.dtype == pl.String else 0.0))
        .cast(m.dtype)
        .alias(m.name)
        for m in parsed
        if m.family not in ("num_rel", "num_q")
    ]
    values = values.with_columns(zeroed)
    aggregate = values.select(_summary(m).alias(m.name) for m in parsed if m.summary != "none")
    per_query = values.select("query", *(m.name for m in parsed if m.per_query))
    return Evaluation(
        per_query=per_query,
        aggregate=aggregate,
        run_id=run_id,
        measures=parsed,
        n_queries=values.height,
        ignored_queries=int(counts["ignored"]),
        missing_queries=int(counts["missing"]),
        no_relevant_queries=int((~values.get_column("_has_relevant")).sum()),
    )
