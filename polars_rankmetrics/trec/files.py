"""trec_eval's reading of its input files, for ``rankmetrics trec-eval``.

The public readers (:mod:`.readers`) refuse what is not a number; trec_eval
reads numbers with C's ``atof``/``atol`` (a header line is a document whose
score is 0) and has its own rules for comments, blank lines and line numbers.
This module reads as trec_eval 10 does, byte for byte:

- **run** (``topic iter docno rank score run_id``): leading white space
  (C's ``isspace``: space, tab, CR, LF, VT, FF) is skipped; blank lines and
  lines whose first non-blank byte is ``#`` are skipped; a line needs six
  fields, and anything after the sixth is ignored; the iteration and rank are
  never read; the score is ``atof`` of its field; the run id is the last
  content line's. ``Malformed line N`` counts content lines only.
- **qrels** (``topic iter docno rel``): exactly four fields (leading and
  trailing white space allowed, a blank line is malformed); ``rel`` is
  ``atol`` of its field; a line starting with ``#`` is a comment only at the
  start of the file or right after a data line, so of two consecutive comment
  lines the second is data.
- A UTF-8 byte order mark is part of the first topic id, bytes that are not
  UTF-8 are compared as bytes (both files are then read as Latin-1, which
  maps each byte to one character), and a NUL byte ends its field (and, at
  the start of a line, the file).

Beyond trec_eval (which refuses them): a run from standard input (a name
starting with ``-``), a named pipe or ``<(zcat run.gz)`` (read once), gzip
files, and parquet files with columns ``query, doc, score`` (``run_id``
optional) or ``query, doc, relevance``.
"""

from __future__ import annotations

import gzip
import io
import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from polars_rankmetrics.measures.trec_names import c_atof, c_atol
from polars_rankmetrics.trec.readers import QRELS_SCHEMA, RUN_SCHEMA, read_common_case

SPACE = " \t\n\v\f\r"
"""C's ``isspace`` in the C locale."""

_TOKEN = "([^ \t\n\v\f\r]+)"
_GAP = "[ \t\v\f\r]+"
_PARQUET = b"PAR1"
_GZIP = b"\x1f\x8b"


class TrecEvalError(Exception):
    """What trec_eval prints on standard error, and the status it exits with."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Input:
    """The bytes of an input file, or the frame of a parquet file."""

    name: str
    data: bytes | None = None
    frame: pl.DataFrame | None = None


def read_input(name: str, what: str, *, stdin: bool = False) -> Input:
    """Read an input file whole, as trec_eval would refuse what it cannot read.

    ``what`` is ``'results'``, ``'qrels'`` or ``'zscores'`` (for the messages).
    With ``stdin``, a name starting with ``-`` is standard input.
    """
    refusal = TrecEvalError(f"Cannot read {what} file '{name}'", 2)
    if stdin and name.startswith("-"):
        return Input(name, _decompressed(sys.stdin.buffer.read()))
    path = Path(name)
    try:
        if path.is_dir():
            raise refusal
        with open(path, "rb") as file:  # a named pipe is read once, here
            data = file.read()
    except OSError:
        raise refusal from None
    if not data:
        raise refusal
    data = _decompressed(data)
    if data.startswith(_PARQUET) and data.endswith(_PARQUET):
        try:
            return Input(name, frame=pl.read_parquet(io.BytesIO(data)))
        except pl.exceptions.PolarsError:
            raise refusal from None
    return Input(name, data)


def _decompressed(data: bytes) -> bytes:
    if data.startswith(_GZIP):
        try:
            return gzip.decompress(data)
        except (OSError, EOFError):
            return data
    return data


def encoding_of(*inputs: Input) -> str:
    """``'utf-8'`` if every file is UTF-8, else ``'latin-1'`` (bytes compared as bytes)."""
    for source in inputs:
        if source.data is None or source.data.isascii():  # a scan, without a 5 MB string
            continue
        try:
            source.data.decode("utf-8")
        except UnicodeDecodeError:
            return "latin-1"
    return "utf-8"


def _lines(text: str) -> pl.Series:
    """The file's lines; a line that starts with NUL ends the file (C's string end)."""
    if "\0" in text:
        cut = text.find("\n\0")
        text = text[: cut + 1] if cut >= 0 else ("" if text.startswith("\0") else text)
    pieces = pl.Series("line", [text]).str.split("\n").explode()
    return pieces.head(len(pieces) - 1) if text.endswith("\n") else pieces


def _fields(lines: pl.Series, count: int, *, rest: bool) -> pl.DataFrame:
    """The first ``count`` fields of each line (null when fewer, or more without ``rest``)."""
    tail = "" if rest else "[ \t\v\f\r]*$"
    pattern = (
        "^[ \t\v\f\r]*" + _GAP.join([_TOKEN] * count) + ("(?:[ \t\v\f\r]|$)" if rest else tail)
    )
    groups = lines.str.extract_groups(pattern).struct.unnest()
    columns = [pl.col(str(i + 1)) for i in range(count)]
    # C strings end at a NUL: a field holding one keeps what comes before it.
    return groups.select(
        column.str.split("\0").list.first().alias(str(i)) for i, column in enumerate(columns)
    )


def _numbers(values: pl.Series, dtype: pl.DataType) -> pl.Series:
    """``atof``/``atol`` of each field: polars' parse, and C's for what polars refuses."""
    parsed = values.cast(dtype, strict=False)
    failed = parsed.is_null() & values.is_not_null()
    if not failed.any():
        return parsed
    convert = c_atof if dtype == pl.Float64 else c_atol
    fixes = {text: convert(text) for text in values.filter(failed).unique().to_list()}
    return pl.select(
        pl.when(failed)
        .then(values.replace_strict(fixes, default=None, return_dtype=dtype))
        .otherwise(parsed)
    ).to_series()


_NEEDS = {
    "results": "6 fields (topic, iteration, document, rank, score, run id)",
    "qrels": "4 fields (topic, iteration, document, relevance)",
    "qrels_jg": "4 fields (topic, judgement group, document, relevance)",
    "zscores": "4 fields (topic, measure, mean, standard deviation)",
}


def _check_lines(what: str, name: str, bad: pl.Series, counted: pl.Series) -> None:
    """Raise for the first bad line: trec_eval's number (lines it reads) and the file's."""
    if not bad.any():
        return
    index = int(bad.arg_true()[0])
    number = int(counted.cum_sum()[index])
    msg = (
        f"Malformed line {number} of {what} file '{name}' (line {index + 1} of the file): "
        f"a line needs {_NEEDS[what]}"
    )
    raise TrecEvalError(msg, 2)


def _fast_table(data: bytes, schema: pl.Schema, *, rest: bool) -> pl.DataFrame | None:
    """A well-formed file read by polars' CSV reader, or None (then the line reader reads it).

    :func:`.readers.read_common_case` (one separator throughout, no other white
    space or NUL byte in a field, every line with the fields of ``schema``, the
    numbers parsed, no comment line), except that a file starting with a UTF-8
    byte order mark is left to the line reader: polars would drop the mark, which
    trec_eval reads as part of the first topic id.
    """
    if not data or data.startswith(b"\xef\xbb\xbf"):
        return None
    return read_common_case(data, schema, rest=rest)


# trec_eval never reads the rank field: any text is kept as text.
_RESULTS_SCHEMA = pl.Schema(
    [(name, pl.String if name == "rank" else dtype) for name, dtype in RUN_SCHEMA.items()]
)


def parse_results(source: Input, encoding: str) -> tuple[pl.DataFrame, str | None]:
    """A run as trec_eval reads it: ``query, doc, score`` in file order, and the run id."""
    if source.frame is not None:
        return _parquet_run(source)
    data = source.data or b""
    fast = _fast_table(data, _RESULTS_SCHEMA, rest=True) if encoding == "utf-8" else None
    if fast is not None and fast.height:
        run_id = fast.get_column("run_id")[-1]
        return fast.select("query", "doc", "score"), run_id
    lines = _lines(data.decode(encoding))
    stripped = lines.str.strip_chars_start(SPACE)
    content = (stripped != "") & ~stripped.str.starts_with("#")
    fields = _fields(lines, 6, rest=True)
    _check_lines("results", source.name, content & fields.get_column("0").is_null(), content)
    kept = fields.filter(content)
    if kept.height == 0:
        return pl.DataFrame(
            schema={"query": pl.String, "doc": pl.String, "score": pl.Float64}
        ), None
    frame = pl.DataFrame(
        {
            "query": kept.get_column("0"),
            "doc": kept.get_column("2"),
            "score": _numbers(kept.get_column("4"), pl.Float64()),
        }
    )
    return frame, kept.get_column("5")[-1]


def _parquet_run(source: Input) -> tuple[pl.DataFrame, str | None]:
    frame = source.frame
    assert frame is not None
    absent = [name for name in ("query", "doc", "score") if name not in frame.columns]
    if absent:
        msg = f"parquet results file '{source.name}' lacks the columns {absent}"
        raise TrecEvalError(msg, 2)
    run_id = None
    if "run_id" in frame.columns and frame.height:
        last = frame.get_column("run_id")[-1]
        run_id = None if last is None else str(last)
    selected = frame.select(
        pl.col("query", "doc").cast(pl.String), pl.col("score").cast(pl.Float64)
    )
    return selected, run_id


def _qrels_data_lines(lines: pl.Series) -> pl.Series:
    """Which lines trec_eval parses as data: a ``#`` line right after a comment is data."""
    hashed = lines.str.starts_with("#")
    frame = pl.DataFrame({"hashed": hashed})
    run = frame.select(
        comment=pl.col("hashed") & (pl.int_range(pl.len()).over(pl.col("hashed").rle_id()) % 2 == 0)
    )
    return ~run.get_column("comment")


def parse_qrels(
    source: Input, encoding: str, *, groups: bool = False, second_field: bool = False
) -> pl.DataFrame:
    """Qrels as trec_eval reads them: ``query, doc, relevance``, and ``group``.

    ``group`` is the second field: kept for qrels_jg (``groups``, judgement
    groups, which a parquet file must then have as a ``group`` column) or with
    ``second_field`` (plain qrels, whose second field is an iteration or a
    diversity subtopic: a parquet file's ``group``, ``subtopic`` or
    ``iteration`` column, else ``'0'``).
    """
    what = "qrels_jg" if groups else "qrels"
    keep = groups or second_field
    if source.frame is not None:
        return _parquet_qrels(source, groups=groups, second_field=second_field)
    data = source.data or b""
    fast = _fast_table(data, QRELS_SCHEMA, rest=False) if encoding == "utf-8" else None
    if fast is not None and fast.height:
        group = [pl.col("iteration").alias("group")] if keep else []
        return fast.select("query", *group, "doc", "relevance")
    lines = _lines(data.decode(encoding))
    data_lines = _qrels_data_lines(lines)
    # A comment on the last line makes trec_eval read past its buffer (it crashes);
    # here the file simply ends.
    fields = _fields(lines, 4, rest=False)
    _check_lines(what, source.name, data_lines & fields.get_column("0").is_null(), data_lines)
    kept = fields.filter(data_lines)
    frame = pl.DataFrame(
        {
            "query": kept.get_column("0"),
            "group": kept.get_column("1"),
            "doc": kept.get_column("2"),
            "relevance": _numbers(kept.get_column("3"), pl.Int64()),
        }
    )
    return frame if keep else frame.drop("group")


def _parquet_qrels(source: Input, *, groups: bool, second_field: bool) -> pl.DataFrame:
    frame = source.frame
    assert frame is not None
    needed = ["query", "group", "doc", "relevance"] if groups else ["query", "doc", "relevance"]
    absent = [name for name in needed if name not in frame.columns]
    if absent:
        msg = f"parquet qrels file '{source.name}' lacks the columns {absent}"
        raise TrecEvalError(msg, 2)
    second = next((c for c in ("group", "subtopic", "iteration") if c in frame.columns), None)
    group: list[pl.Expr] = []
    if groups or (second_field and second is not None):
        group = [pl.col(second or "group").cast(pl.String).alias("group")]
    elif second_field:
        group = [pl.lit("0", pl.String).alias("group")]
    return frame.select(
        pl.col("query").cast(pl.String),
        *group,
        pl.col("doc").cast(pl.String),
        pl.col("relevance").cast(pl.Int64),
    )


def looks_like_a_run(source: Input, encoding: str) -> bool:
    """Whether the first content line of ``source`` has a run's six fields or more."""
    if source.data is None:
        return source.frame is not None and "score" in source.frame.columns
    for line in source.data[:65536].decode(encoding, errors="replace").split("\n"):
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            return len(fields) >= 6
    return False


def parse_zscores(source: Input, encoding: str) -> dict[tuple[str, str], tuple[float, float]]:
    """A ``-Z`` file: ``topic measure mean stddev`` per line, exactly four fields.

    trec_eval allows no comments or blank lines here.
    """
    if source.frame is not None:
        raise TrecEvalError(f"Cannot read zscores file '{source.name}' (parquet)", 2)
    lines = _lines((source.data or b"").decode(encoding))
    fields = _fields(lines, 4, rest=False)
    every = pl.Series([True] * len(lines), dtype=pl.Boolean)
    _check_lines("zscores", source.name, fields.get_column("0").is_null(), every)
    means = _numbers(fields.get_column("2"), pl.Float64())
    deviations = _numbers(fields.get_column("3"), pl.Float64())
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for topic, measure, mean, deviation in zip(
        fields.get_column("0"), fields.get_column("1"), means, deviations, strict=True
    ):
        table.setdefault((topic, measure), (mean, deviation))
    return table
