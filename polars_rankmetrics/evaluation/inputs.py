"""Runs and qrels in every shape the peers use, as the frames :func:`evaluate` reads.

:func:`read_qrels` and :func:`read_run` take what users of trec_eval,
pytrec_eval, ir_measures, ranx and ir_datasets already have, without any
conversion by the user:

- a path: a TREC file (plain or ``.gz``), ``-`` for standard input, or parquet
  (``.parquet``, ``.pq``);
- a polars ``DataFrame`` or ``LazyFrame``, a pandas ``DataFrame``, a pyarrow
  ``Table`` or ``RecordBatch`` (or any object with ``__arrow_c_stream__``);
- pytrec_eval's and ranx's nested dicts, ``{query: {doc: label}}`` and
  ``{query: {doc: score}}``;
- ranx ``Qrels`` and ``Run`` objects;
- ir_datasets' qrels and scored documents: iterables of its namedtuples
  (``dataset.qrels_iter()``, ``dataset.scoreddocs_iter()``, ir_measures'
  ``Qrel``/``ScoredDoc``), or the dataset itself.

Columns are found by their usual names (``query``/``query_id``/``qid``/``q_id``,
``doc``/``doc_id``/``docno``, ``relevance``/``label``/``rel``, ``score``) or by
a mapping per side. pandas, ranx and ir_datasets are never imported here: an
object is recognised by its type's module, which is loaded only if the user
passed such an object.

Inputs that look like the other side (a run with scores passed as the qrels, a
TREC file with a run's six fields passed as qrels) raise ``ValueError`` asking
"did you swap qrels and run?".
"""

from __future__ import annotations

import gzip
import itertools
import shutil
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import polars as pl

from polars_rankmetrics.evaluation.ranx_bulk import Joined, ranx_frame, ranx_joined, ranx_positioned
from polars_rankmetrics.trec.readers import read_trec_qrels, read_trec_run

Side = Literal["qrels", "run"]

ROLES = ("query", "doc", "score", "relevance", "run_id", "subtopic")
"""The columns a mapping may name (``subtopic``: diversity qrels' second field)."""

CANDIDATES: dict[str, tuple[str, ...]] = {
    "query": ("query", "query_id", "qid", "q_id", "topic"),
    "doc": ("doc", "doc_id", "docno", "docid"),
    "relevance": ("relevance", "label", "rel"),
    "score": ("score",),
    "run_id": ("run_id",),
    "subtopic": ("subtopic", "subtopic_id", "iteration"),
}
"""The column names recognised for each role, first match wins: this library's,
ir_datasets' and ir_measures', PyTerrier's, ranx's ``to_dataframe()``."""

_NEEDED: dict[Side, tuple[str, ...]] = {
    "qrels": ("query", "doc", "relevance"),
    "run": ("query", "doc", "score"),
}
_VALUE: dict[Side, str] = {"qrels": "relevance", "run": "score"}
_OTHER: dict[Side, Side] = {"qrels": "run", "run": "qrels"}
_TREC_FIELDS: dict[Side, int] = {"qrels": 4, "run": 6}
_TREC_LAYOUT: dict[Side, str] = {
    "qrels": "topic iteration docno relevance",
    "run": "topic Q0 docno rank score run_id",
}
_SWAP = "did you swap qrels and run? (evaluate takes the qrels first)"


def _swapped(side: Side, what: str) -> ValueError:
    return ValueError(f"`{side}` looks like a {_OTHER[side]}: {what}; {_SWAP}")


def _is_instance(obj: object, module: str, name: str) -> bool:
    """``isinstance(obj, module.name)``, without importing ``module``."""
    loaded = sys.modules.get(module)
    cls = getattr(loaded, name, None) if loaded is not None else None
    return isinstance(cls, type) and isinstance(obj, cls)


# ------------------------------------------------------------------ files


def _stdin_copy(directory: Path) -> Path:
    target = directory / "stdin"
    with target.open("wb") as file:
        shutil.copyfileobj(sys.stdin.buffer, file)
    return target


def _gunzipped(path: Path, directory: Path) -> Path:
    target = directory / path.name.removesuffix(".gz")
    with gzip.open(path, "rb") as compressed, target.open("wb") as file:
        shutil.copyfileobj(compressed, file)
    return target


def _fields_of_first_line(path: Path) -> int | None:
    """The number of whitespace-separated fields of the first data line, if any."""
    with path.open(encoding="utf-8", errors="replace") as file:
        for line in file:
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                return len(stripped.split())
    return None


_NUMERIC_FIELDS: dict[Side, tuple[int, ...]] = {"qrels": (3,), "run": (3, 4)}
"""The fields that hold numbers: the qrels' relevance, the run's rank and score."""


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _header_line(path: Path, side: Side) -> int | None:
    """The byte offset of the first content line if it is a header line, else None.

    A header is the first line that is neither blank nor a comment, with this
    side's fields, none of whose numeric fields (a run's rank and score, the
    qrels' relevance) is a number: ``topic Q0 docid rank score run_id``,
    ``query iteration doc relevance``. Any later line must be data.
    """
    offset = 0
    with path.open("rb") as file:
        for raw in file:
            stripped = raw.decode("utf-8", errors="replace").strip()
            if stripped and not stripped.startswith("#"):
                fields = stripped.split()
                if len(fields) < _TREC_FIELDS[side] or (side == "qrels" and len(fields) > 4):
                    return None
                numbers = [_is_number(fields[i]) for i in _NUMERIC_FIELDS[side]]
                return None if any(numbers) else offset
            offset += len(raw)
    return None


def _without_header(path: Path, side: Side, directory: Path) -> Path:
    """``path``, or a copy whose header line (:func:`_header_line`) is a comment.

    The header turned into a comment keeps every later line's number, so that a
    malformed line is named by its number in the user's file.
    """
    offset = _header_line(path, side)
    if offset is None:
        return path
    data = path.read_bytes()
    target = directory / f"headless-{path.name}"
    target.write_bytes(data[:offset] + b"#" + data[offset:])
    return target


def _read_trec(path: Path, side: Side, shown: str, directory: Path) -> pl.DataFrame:
    """A TREC file, after checking that its first line has this side's fields.

    A header line is skipped (:func:`_header_line`).
    """
    path = _without_header(path, side, directory)
    fields = _fields_of_first_line(path)
    if fields == _TREC_FIELDS[_OTHER[side]]:  # 6 fields in qrels, 4 in a run
        layout = _TREC_LAYOUT[_OTHER[side]]
        raise _swapped(side, f"{shown} has {fields} fields per line ({layout!r})")
    try:
        return read_trec_qrels(path) if side == "qrels" else read_trec_run(path)
    except ValueError as error:  # name the file the user gave, not a temporary copy
        raise ValueError(str(error).replace(str(path), shown)) from None


def _is_trec_file(source: object) -> bool:
    if not isinstance(source, str | Path):
        return False
    return Path(source).suffix.lower() not in (".parquet", ".pq")


def _read_path(source: str | Path, side: Side) -> pl.LazyFrame:
    shown = str(source)
    path = Path(source)
    suffixes = [suffix.lower() for suffix in path.suffixes]
    if suffixes[-1:] in ([".parquet"], [".pq"]):
        if not path.is_file():
            msg = f"`{side}`: no such parquet file: {shown!r}"
            raise FileNotFoundError(msg)
        return pl.scan_parquet(path)
    with tempfile.TemporaryDirectory(prefix="rankmetrics-") as directory:
        if shown == "-":
            path = _stdin_copy(Path(directory))
        elif suffixes[-1:] == [".gz"]:
            if not path.is_file():
                msg = f"`{side}`: no such file: {shown!r}"
                raise FileNotFoundError(msg)
            path = _gunzipped(path, Path(directory))
        elif not path.is_file():
            msg = f"`{side}`: no such TREC file: {shown!r}"
            raise FileNotFoundError(msg)
        return _read_trec(path, side, shown, Path(directory)).lazy()


# ------------------------------------------------------ Python structures


def _keys(name: str, keys: list[Any], side: Side) -> pl.Series:
    """A dict's query or document keys as strings: ints and strings may mix (``1`` is ``'1'``)."""
    try:
        return pl.Series(name, keys).cast(pl.String)
    except (TypeError, pl.exceptions.PolarsError):
        odd = next((key for key in keys if not isinstance(key, str | int)), None)
        if odd is not None or any(isinstance(key, bool) for key in keys):
            example = odd if odd is not None else next(k for k in keys if isinstance(k, bool))
            msg = (
                f"`{side}` as a dict must have str or int {name} keys, got {example!r} "
                f"({type(example).__name__})"
            )
            raise ValueError(msg) from None
        return pl.Series(name, [str(key) for key in keys], dtype=pl.String)


def _from_nested(nested: Mapping[Any, Any], side: Side) -> pl.LazyFrame:
    """pytrec_eval's and ranx's ``{query: {doc: value}}``; int keys are read as strings."""
    queries: list[Any] = []
    docs: list[Any] = []
    values: list[Any] = []
    for query, inner in nested.items():
        if not isinstance(inner, Mapping):
            msg = (
                f"`{side}` as a dict must map each query to a dict {{doc: {_VALUE[side]}}}; "
                f"query {query!r} maps to {type(inner).__name__}"
            )
            raise ValueError(msg)
        queries.extend([query] * len(inner))
        docs.extend(inner.keys())
        values.extend(inner.values())
    if not values:
        msg = f"the {side} is empty: it has no rows"
        raise ValueError(msg)
    try:
        value = pl.Series(_VALUE[side], values)
    except (TypeError, pl.exceptions.PolarsError):
        value = pl.Series(_VALUE[side], [], dtype=pl.String)  # refused below, naming the values
    frame = pl.DataFrame([_keys("query", queries, side), _keys("doc", docs, side), value])
    if not value.dtype.is_numeric() and value.dtype != pl.Boolean:
        example = next((v for v in values if not isinstance(v, int | float)), values[:1])
        msg = f"`{side}` as a dict must hold numbers ({_VALUE[side]}s), got {example!r}"
        raise ValueError(msg)
    return frame.lazy()


def _from_ranx(obj: Any, side: Side) -> pl.LazyFrame:
    """Ranx's ``Qrels`` or ``Run``: their numba dicts of dicts."""
    is_run = hasattr(obj, "run") and type(obj).__name__ == "Run"
    if (side == "qrels") == is_run:
        kind = "Run" if is_run else "Qrels"
        raise _swapped(side, f"it is a ranx {kind}")
    nested = obj.run if is_run else obj.qrels
    dtype = pl.Float64 if is_run else pl.Int64
    return ranx_frame(nested, _VALUE[side], dtype).lazy()  # in bulk (see .ranx_bulk)


def _is_ranx(obj: object) -> bool:
    return type(obj).__module__.startswith("ranx.") and type(obj).__name__ in ("Qrels", "Run")


def unique_pairs(source: object) -> bool:
    """Whether ``source`` lists each (query, document) once by construction.

    True for ranx's ``Qrels`` and ``Run``: the keys of typed dicts of dicts, read
    as the same strings (a plain dict is not: ``1`` and ``'1'`` both read as
    ``'1'``). Its duplicate check can be skipped.
    """
    return _is_ranx(source)


def positioned_run(source: Any, position: str) -> pl.DataFrame | None:
    """:func:`read_run` of a ranx ``Run``, with each row's place in trec_eval's order.

    ``position`` names the column (see :func:`.ranx_bulk.ranx_positioned`).
    None for any other source, and where the compiled reader cannot place the
    rows (then :func:`read_run` reads it).
    """
    if not (_is_ranx(source) and type(source).__name__ == "Run" and hasattr(source, "run")):
        return None
    return ranx_positioned(source.run, position)


def joined_ranx(qrels: Any, run: Any) -> Joined | None:
    """Ranx's ``Qrels`` and ``Run`` joined in bulk (:func:`.ranx_bulk.ranx_joined`), or None.

    None for any other pair of sources, and where the compiled reader cannot
    join them (then :func:`read_qrels` and :func:`positioned_run` read them).
    """
    if not (_is_ranx(qrels) and type(qrels).__name__ == "Qrels" and hasattr(qrels, "qrels")):
        return None
    if not (_is_ranx(run) and type(run).__name__ == "Run" and hasattr(run, "run")):
        return None
    return ranx_joined(qrels.qrels, run.run)


def _from_records(records: Iterable[Any], side: Side) -> pl.LazyFrame:
    """ir_datasets' (and ir_measures') namedtuples: ``query_id, doc_id, relevance|score``."""
    iterator = iter(records)
    first = next(iterator, None)
    if first is None:
        msg = f"the {side} is empty: it has no rows"
        raise ValueError(msg)
    fields = getattr(first, "_fields", None)
    needed = {"query_id", "doc_id", _VALUE[side]}
    if isinstance(first, tuple) and fields and not needed <= set(fields):
        other = {"query_id", "doc_id", _VALUE[_OTHER[side]]}
        if other <= set(fields):
            raise _swapped(
                side, f"its records are {type(first).__name__}s with a {_VALUE[_OTHER[side]]}"
            )
    if not (isinstance(first, tuple) and fields and needed <= set(fields)):
        msg = (
            f"`{side}` as an iterable must hold namedtuples with the fields "
            f"{sorted(needed)} (ir_datasets' {side}), got {first!r}"
        )
        raise ValueError(msg)
    frame = pl.DataFrame(itertools.chain([first], iterator), schema=list(fields), orient="row")
    # ir_measures' qrels keep a diversity qrels' subtopic in `iteration`.
    subtopic = [name for name in ("subtopic_id", "iteration") if name in fields][:1]
    return frame.lazy().select(
        pl.col("query_id").alias("query"), pl.col("doc_id").alias("doc"), _VALUE[side], *subtopic
    )


def _dataset_records(obj: object, side: Side) -> Iterable[Any] | None:
    """An ir_datasets dataset's qrels or scored documents, if ``obj`` is one."""
    method = "qrels_iter" if side == "qrels" else "scoreddocs_iter"
    other = "scoreddocs_iter" if side == "qrels" else "qrels_iter"
    if not type(obj).__module__.startswith("ir_datasets"):
        return None
    if hasattr(obj, method):
        records: Iterable[Any] = getattr(obj, method)()
        return records
    if hasattr(obj, other):
        raise _swapped(side, f"the ir_datasets dataset has no {method}() but {other}()")
    return None


# ------------------------------------------------------------------- tables


def _as_lazy(source: object, side: Side) -> pl.LazyFrame:
    """Any supported source as a LazyFrame, columns as given."""
    if isinstance(source, str | Path):
        return _read_path(source, side)
    if isinstance(source, pl.LazyFrame):
        return source
    if isinstance(source, pl.DataFrame):
        return source.lazy()
    if _is_instance(source, "pandas", "DataFrame"):
        return pl.from_pandas(source).lazy()
    if _is_instance(source, "pyarrow", "Table") or _is_instance(source, "pyarrow", "RecordBatch"):
        table = pl.from_arrow(source)
        assert isinstance(table, pl.DataFrame)
        return table.lazy()
    if _is_ranx(source):
        return _from_ranx(source, side)
    if isinstance(source, Mapping):
        return _from_nested(source, side)
    if hasattr(source, "__arrow_c_stream__"):
        return pl.DataFrame(source).lazy()
    records = _dataset_records(source, side)
    if records is not None:
        return _from_records(records, side)
    if isinstance(source, Iterable) and not isinstance(source, bytes | pl.Series):
        return _from_records(source, side)
    msg = (
        f"`{side}` must be a path (TREC file, .gz, '-' for stdin, or parquet), a polars, "
        f"pandas or pyarrow table, a dict {{query: {{doc: {_VALUE[side]}}}}}, a ranx "
        f"{'Qrels' if side == 'qrels' else 'Run'} or ir_datasets {side}; "
        f"got {type(source).__name__}"
    )
    raise ValueError(msg)


def check_mapping(mapping: Mapping[str, str] | None, argument: str) -> dict[str, str]:
    """A column mapping: from roles (``query``, ``doc``, ...) to column names."""
    if mapping is None:
        return {}
    if not isinstance(mapping, Mapping) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in mapping.items()
    ):
        msg = f"`{argument}` must map roles to column names, got {mapping!r}"
        raise ValueError(msg)
    unknown = sorted(set(mapping) - set(ROLES))
    if unknown:
        msg = f"`{argument}` maps unknown names {unknown}; use {', '.join(ROLES)}"
        raise ValueError(msg)
    return dict(mapping)


def _find_columns(
    available: list[str],
    side: Side,
    mapping: Mapping[str, str],
    argument: str,
    extra: tuple[str, ...] = (),
) -> dict[str, str]:
    """The column of each role this side needs, and ``extra`` (and ``run_id`` if present)."""
    roles = [*_NEEDED[side], *extra, *(["run_id"] if side == "run" else [])]
    found: dict[str, str] = {}
    for role in roles:
        if role in mapping:
            if mapping[role] not in available:
                msg = (
                    f"`{argument}` maps {role!r} to {mapping[role]!r}, which the {side} "
                    f"lacks; its columns are {available}"
                )
                raise ValueError(msg)
            found[role] = mapping[role]
            continue
        column = next((name for name in CANDIDATES[role] if name in available), None)
        if column is not None:
            found[role] = column
        elif role != "run_id":
            value = _VALUE[_OTHER[side]]
            if role == _VALUE[side] and any(c in available for c in CANDIDATES[value]):
                hint = ""
                if side == "qrels":
                    hint = (
                        " (if that column holds the labels, as in ranx's to_dataframe(), "
                        "pass qrels_columns={'relevance': 'score'})"
                    )
                raise _swapped(side, f"it has a {value} column but no {role} column{hint}")
            msg = (
                f"the {side} has no {role} column (looked for {list(CANDIDATES[role])}); "
                f"its columns are {available}; map yours with "
                f"`{argument}={{{role!r}: ...}}` (--{side}-columns {role}=... "
                "on the command line)"
            )
            raise ValueError(msg)
    return found


def _read(
    source: object, side: Side, columns: Mapping[str, str] | None, extra: tuple[str, ...] = ()
) -> pl.DataFrame:
    argument = f"{side}_columns"
    mapping = check_mapping(columns, argument)
    lazy = _as_lazy(source, side)
    if _is_trec_file(source):
        mapping = {}  # a TREC file's layout is fixed: a mapping is for tables
    available = lazy.collect_schema().names()
    found = _find_columns(available, side, mapping, argument, extra)
    ids = ("query", "doc")  # cast to strings in the same query (a no-op where they are)
    frame = lazy.select(
        (pl.col(column).cast(pl.String) if role in ids else pl.col(column)).alias(role)
        for role, column in found.items()
    ).collect()
    if frame.height == 0:
        msg = f"the {side} is empty: it has no rows"
        raise ValueError(msg)
    value = _VALUE[side]
    dtype = frame.schema[value]
    # Labels may be bool (relevant or not); scores are numbers, as in the metric
    # functions: a bool, string or date score is refused, never cast.
    if not (dtype.is_numeric() or (dtype == pl.Boolean and side == "qrels")):
        kind = "numeric or boolean" if side == "qrels" else "numeric"
        msg = f"the {side}'s {value} column {found[value]!r} must be {kind}, got {dtype}"
        raise ValueError(msg)
    return frame


def read_qrels(
    source: object, columns: Mapping[str, str] | None = None, *, subtopics: bool = False
) -> pl.DataFrame:
    """
    Read qrels from any supported source as ``query: str, doc: str, relevance``.

    With ``subtopics``, diversity qrels: also the ``subtopic`` column (a TREC
    file's second field, ``iteration``; a table's ``subtopic``, ``subtopic_id``
    or ``iteration`` column).

    Parameters
    ----------
    source
        A path (TREC qrels, ``.gz``, ``-`` for stdin, parquet), a polars,
        pandas or pyarrow table, a dict ``{query: {doc: label}}``, a ranx
        ``Qrels``, or ir_datasets qrels (its namedtuples, or the dataset).
    columns
        Your column names for ``query``, ``doc``, ``relevance`` (and
        ``subtopic``), where they are not among the usual ones.
    subtopics
        Whether to read the subtopic column too.

    Examples
    --------
    >>> from polars_rankmetrics.evaluation.inputs import read_qrels
    >>> read_qrels({"q1": {"d1": 2, "d2": 0}})
    shape: (2, 3)
    ┌───────┬─────┬───────────┐
    │ query ┆ doc ┆ relevance │
    │ ---   ┆ --- ┆ ---       │
    │ str   ┆ str ┆ i64       │
    ╞═══════╪═════╪═══════════╡
    │ q1    ┆ d1  ┆ 2         │
    │ q1    ┆ d2  ┆ 0         │
    └───────┴─────┴───────────┘
    """
    return _read(source, "qrels", columns, ("subtopic",) if subtopics else ())


def read_run(source: object, columns: Mapping[str, str] | None = None) -> pl.DataFrame:
    """
    Read a run from any supported source as ``query: str, doc: str, score`` (and ``run_id``).

    Parameters
    ----------
    source
        A path (TREC run, ``.gz``, ``-`` for stdin, parquet), a polars, pandas
        or pyarrow table, a dict ``{query: {doc: score}}``, a ranx ``Run``, or
        ir_datasets scored documents (its namedtuples, or the dataset).
    columns
        Your column names for ``query``, ``doc``, ``score``, ``run_id``, where
        they are not among the usual ones.

    Examples
    --------
    >>> import pandas as pd
    >>> from polars_rankmetrics.evaluation.inputs import read_run
    >>> run = pd.DataFrame({"qid": [1, 1], "docno": ["d1", "d2"], "score": [0.9, 0.1]})
    >>> read_run(run)
    shape: (2, 3)
    ┌───────┬─────┬───────┐
    │ query ┆ doc ┆ score │
    │ ---   ┆ --- ┆ ---   │
    │ str   ┆ str ┆ f64   │
    ╞═══════╪═════╪═══════╡
    │ 1     ┆ d1  ┆ 0.9   │
    │ 1     ┆ d2  ┆ 0.1   │
    └───────┴─────┴───────┘
    """
    return _read(source, "run", columns)


def check_not_swapped(qrels: pl.DataFrame, run: pl.DataFrame) -> None:
    """Refuse qrels with fractional labels next to a run with integer scores: swapped."""
    labels = qrels.get_column("relevance")
    if not labels.dtype.is_float() or run.schema["score"].is_float():
        return
    if (labels != labels.round()).any():
        msg = f"the qrels hold fractional labels and the run integer scores; {_SWAP}"
        raise ValueError(msg)
