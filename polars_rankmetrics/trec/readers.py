"""TREC run and qrels readers.

A TREC run has one line per retrieved document, ``topic Q0 docno rank score
run_id``; qrels have one line per judgement, ``topic iteration docno relevance``.
Fields are separated by tabs or runs of spaces. The readers parse with polars'
CSV reader and string kernels, so a multi-GB run reads in seconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path

import polars as pl

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
