"""TREC run and qrels readers.

A TREC run has one line per retrieved document, ``topic Q0 docno rank score
run_id``; qrels have one line per judgement, ``topic iteration docno relevance``.
Fields are separated by tabs or runs of spaces. The readers parse with polars'
CSV reader and string kernels, so a multi-GB run reads in seconds.
"""

from __future__ import annotations

import io
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


_SPACE = " \t\n\v\f\r"
"""The white space that separates fields: C's ``isspace``, as trec_eval splits."""

_TOKEN = "([^ \t\n\v\f\r]+)"
_GAP = "[ \t\n\v\f\r]+"
_SHOWN = 80
"""How much of a malformed line an error message quotes."""


def _scan_lines(path: str | Path) -> pl.LazyFrame:
    """Every line of ``path`` as one string, with its 1-based line number.

    NUL never occurs in TREC files (trec_eval forbids it), so it serves as a
    separator that keeps each whole line in one field; blank lines stay
    (as null) so that line numbers are exact. Bytes that are not UTF-8 are
    read as U+FFFD, which :func:`_parse_batch` reports.
    """
    return pl.scan_csv(
        path,
        has_header=False,
        separator="\x00",
        quote_char=None,
        schema={_LINE: pl.String},
        row_index_name=_NUMBER,
        row_index_offset=1,
        encoding="utf8-lossy",
    )


def _skipped(lines: pl.Series) -> pl.Series:
    """Blank lines and comment lines (first non-blank character ``#``), which are skipped."""
    stripped = lines.str.strip_chars_start(_SPACE)
    return (stripped.is_null() | (stripped == "") | stripped.str.starts_with("#")).fill_null(True)


def _split_fields(
    lines: pl.Series, names: Sequence[str], *, rest: bool
) -> tuple[pl.DataFrame, pl.Series]:
    """Split whitespace-separated ``lines`` into ``names`` (null where malformed).

    Returns the fields and which lines are skipped (blank or comments). Fields
    are separated by runs of C's white space (space, tab, CR, LF, VT, FF), as
    ``bytes.split()`` and trec_eval split them; other Unicode spaces (such as
    U+00A0) belong to their field. With ``rest``, anything after the last
    field is ignored; without, it makes the line malformed.
    """
    tail = f"(?:{_GAP}.*)?$" if rest else f"[{_SPACE}]*$"
    pattern = f"^[{_SPACE}]*" + _GAP.join([_TOKEN] * len(names)) + tail
    groups = lines.str.extract_groups(pattern).struct.unnest()
    fields = groups.select(pl.col(str(i + 1)).alias(name) for i, name in enumerate(names))
    return fields, _skipped(lines)


def _malformed(path: str, number: int, line: str | None, expected: str, problem: str) -> ValueError:
    text = "" if line is None else line.rstrip("\n")
    shown = repr(text) if len(text) <= _SHOWN else f"{text[:_SHOWN]!r}... ({len(text)} characters)"
    return ValueError(
        f"{path}:{number}: malformed line ({problem}; expected '{expected}'): {shown}"
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
    if frame.height and frame.get_column(_NUMBER)[0] == 1:  # a byte order mark starts the file
        lines = lines.str.strip_prefix("\ufeff")
    undecodable = lines.str.contains("\ufffd", literal=True).fill_null(False)
    fields, skipped = _split_fields(lines, names, rest=rest)
    parsed = fields.with_columns(
        pl.col(name).cast(dtype, strict=False) for name, dtype in numeric.items()
    )
    missing = fields.select(pl.any_horizontal(pl.col(name).is_null() for name in names))
    bad_number = parsed.select(
        pl.any_horizontal(pl.col(name).is_null() for name in numeric)
    ).to_series()
    bad = undecodable | ((missing.to_series() | bad_number) & ~skipped)
    if bad.any():
        index = int(bad.arg_true()[0])
        number = int(frame.get_column(_NUMBER)[index])
        line = lines[index]
        if undecodable[index]:
            problem = "bytes that are not UTF-8 text"
        elif missing.to_series()[index]:
            problem = f"{len(names)} whitespace-separated fields needed"
        else:
            wrong = [name for name in numeric if parsed.get_column(name)[index] is None]
            problem = f"{wrong[0]} is not a number"
        raise _malformed(path, number, line, expected, problem)
    result = parsed.with_columns(pl.when(~skipped).then(pl.struct(names)).alias("_row"))
    return result.get_column("_row")


def _check_path(path: Path) -> None:
    if path.is_dir():
        msg = f"{str(path)!r} is a directory, not a TREC file"
        raise IsADirectoryError(msg)
    if not path.is_file():
        msg = f"no such TREC file: {str(path)!r}"
        raise FileNotFoundError(msg)


def _scan_trec(
    path: str | Path,
    schema: pl.Schema,
    expected: str,
    *,
    rest: bool,
    numeric: Mapping[str, pl.DataType],
) -> pl.LazyFrame:
    path = Path(path)
    _check_path(path)
    names = list(schema.names())
    parse = partial(
        _parse_batch, path=str(path), names=names, numeric=numeric, expected=expected, rest=rest
    )
    row = pl.struct(_NUMBER, _LINE).map_batches(
        parse, return_dtype=pl.Struct(schema), is_elementwise=True
    )
    return _scan_lines(path).select(row.alias("_row")).drop_nulls("_row").unnest("_row")


def _read_lines(path: str | Path, schema: pl.Schema, expected: str, *, rest: bool) -> pl.DataFrame:
    """Read a TREC file line by line, eagerly: the general case of the readers.

    A NUL byte or bytes that are not UTF-8 are refused, naming the line (unless
    a line before it is malformed, which is then the one named).
    """
    path = Path(path)
    _check_path(path)
    data = path.read_bytes()
    problem, position = None, data.find(b"\0")
    if position >= 0:
        problem = "a NUL byte"
    text = None
    try:
        text = data.decode("utf-8")  # decoded once: kept for the parse
    except UnicodeDecodeError as error:
        if position < 0 or error.start < position:
            position, problem = error.start, "bytes that are not UTF-8 text"
    if problem is None:  # then the text was decoded
        return _parse_text(text or "", path, schema, expected, rest=rest)
    number = data.count(b"\n", 0, position) + 1
    start = data.rfind(b"\n", 0, position) + 1
    _parse_text(data[:start].decode("utf-8"), path, schema, expected, rest=rest)
    end = data.find(b"\n", start)  # not data[start:].split(...): that copies the rest
    line = data[start : len(data) if end < 0 else end].decode("utf-8", errors="replace")
    raise _malformed(str(path), number, line, expected, problem)


def _parse_text(
    text: str, path: Path, schema: pl.Schema, expected: str, *, rest: bool
) -> pl.DataFrame:
    pieces = text.split("\n") if text else []
    if pieces and pieces[-1] == "":
        pieces.pop()
    lines = pl.DataFrame(
        {
            _NUMBER: pl.int_range(1, len(pieces) + 1, eager=True),
            _LINE: pl.Series(pieces, dtype=pl.String),
        }
    )
    numeric = {name: dtype for name, dtype in schema.items() if dtype != pl.String}
    rows = _parse_batch(
        lines.to_struct(), path=str(path), names=list(schema.names()), numeric=numeric,
        expected=expected, rest=rest,
    )  # fmt: skip
    return pl.DataFrame({"_row": rows}).drop_nulls("_row").unnest("_row").cast(schema)


def read_common_case(
    source: str | Path | bytes, schema: pl.Schema, *, rest: bool
) -> pl.DataFrame | None:
    """Read a well-formed TREC file with polars' CSV reader, or return None.

    Most files use one separator (a tab or a single space) throughout and have
    no comments. Those are read natively, a few times faster than line by
    line. Anything else (runs of spaces, mixed whitespace, comments, a short,
    long or unparsable line, bytes that are not UTF-8) shows up here as a
    parse error, a null field, a field holding whitespace or a first field
    starting with ``#``, and returns None: the line-based reader then reads
    the file, naming any malformed line.
    """
    raw = source if isinstance(source, bytes) else Path(source).read_bytes()
    end = raw.find(b"\n")  # not raw.split(b"\n", 1): that copies the rest of the file
    first = (raw if end < 0 else raw[:end]).decode("utf-8", errors="replace")
    separator = "\t" if "\t" in first else " "
    data = io.BytesIO(raw)
    try:
        frame = pl.read_csv(
            data,
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
    # Stray whitespace shifts a later field into the rank, score or relevance,
    # which then fails to parse; but a string field could also absorb it unseen
    # (the run id, or any field of a tab-separated file). Comments are lines too.
    other = ["\t" if separator == " " else " ", "\n", "\v", "\f", "\r", "\x00"]
    # No line break inside a field: a file without the other bytes and "#" (a
    # memchr each, ~20 µs) has neither in its fields, and needs no scan.
    if not any(byte.encode() in raw for byte in [*other[:1], *other[2:], "#"]):
        return frame
    # A column holding one value throughout (q0, the run id, the iteration) has only
    # that value to search: comparing it with its first value is several times cheaper.
    text = [name for name, dtype in schema.items() if dtype == pl.String]
    comment = pl.col(text[0]).str.starts_with("#").any().alias("_comment")
    same = frame.select(comment, *((pl.col(name) == pl.col(name).first()).all() for name in text))
    if same.get_column("_comment").item():
        return None
    first_row = frame.row(0, named=True)
    varying = [name for name in text if not same.get_column(name).item()]
    if any(char in first_row[name] for name in text if name not in varying for char in other):
        return None
    if (
        varying
        and frame.select(pl.any_horizontal(pl.col(varying).str.contains_any(other).any())).item()
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
    _check_path(Path(path))
    frame = read_common_case(path, RUN_SCHEMA, rest=True)
    if frame is not None:
        return frame
    return _read_lines(path, RUN_SCHEMA, "topic Q0 docno rank score run_id", rest=True)


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
    _check_path(Path(path))
    frame = read_common_case(path, QRELS_SCHEMA, rest=False)
    if frame is not None:
        return frame
    return _read_lines(path, QRELS_SCHEMA, "topic iteration docno relevance", rest=False)
