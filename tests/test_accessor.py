"""The ``.rank`` accessor: polars' own ``Expr.rank`` when called, the metrics as attributes."""

from __future__ import annotations

import importlib
import inspect
import io
import subprocess
import sys

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankmetrics as rm
from polars_rankmetrics import _accessor
from polars_rankmetrics._accessor import RankNameSpace

FRAME = pl.DataFrame(
    {
        "g": [1, 1, 1, 2, 2, 2, 2],
        "s": [3.0, 1.0, 3.0, None, 2.0, 5.0, 2.0],
    }
)
BUILTIN_USES = """
import polars as pl
frame = pl.DataFrame({"g": [1, 1, 1, 2, 2, 2, 2], "s": [3.0, 1.0, 3.0, None, 2.0, 5.0, 2.0]})
out = frame.select(
    plain=pl.col("s").rank(),
    dense_desc=pl.col("s").rank("dense", descending=True),
    ordinal_over=pl.col("s").rank(method="ordinal").over("g"),
    series_min=pl.Series(frame["s"]).rank("min"),
    series_max_desc=frame["s"].rank(method="max", descending=True),
)
"""


def builtin_results() -> pl.DataFrame:
    """The same calls in a fresh interpreter that never imports polars_rankmetrics."""
    script = BUILTIN_USES + "import sys\nout.write_ipc(sys.stdout.buffer)\n"
    produced = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True
    ).stdout
    return pl.read_ipc(io.BytesIO(produced))


def test_calling_rank_gives_exactly_polars_builtin() -> None:
    namespace: dict[str, object] = {}
    exec(BUILTIN_USES, namespace)  # here, with the accessor installed
    assert_frame_equal(namespace["out"], builtin_results())  # type: ignore[arg-type]


def test_class_access_is_the_original_function() -> None:
    assert pl.Expr.rank.__module__ == "polars.expr.expr"
    assert pl.Expr.rank.__qualname__ == "Expr.rank"
    assert_frame_equal(
        FRAME.select(pl.Expr.rank(pl.col("s"), "dense")),
        FRAME.select(pl.col("s").rank("dense")),
    )


def test_attribute_access_gives_the_metrics() -> None:
    df = pl.DataFrame({"score": [0.9, 0.8, 0.7], "relevance": [0, 1, 1]})
    assert_frame_equal(
        df.select(pl.col("relevance").rank.ap_at_k(2, by="score")),
        df.select(rm.ap_at_k("relevance", 2, by="score")),
    )


def test_install_is_idempotent_and_survives_reimport() -> None:
    descriptor = pl.Expr.__dict__["rank"]
    _accessor.install()
    importlib.reload(_accessor)
    _accessor.install()
    importlib.reload(rm)
    assert pl.Expr.__dict__["rank"] is descriptor
    assert isinstance(pl.col("x").rank, RankNameSpace)


def test_install_refuses_to_replace_someone_elses_rank(monkeypatch: pytest.MonkeyPatch) -> None:
    def other_rank(self: pl.Expr) -> pl.Expr:
        return self

    monkeypatch.setattr(pl.Expr, "rank", other_rank)
    with pytest.raises(RuntimeError, match="already been replaced"):
        _accessor.install()


def namespace_methods() -> list[str]:
    return [
        name
        for name, member in inspect.getmembers(RankNameSpace, inspect.isfunction)
        if not name.startswith("_")
    ]


RECEIVERS = ("relevance", "subtopics")
"""The first parameter of a metric function: the labels, or the diversity measures' subtopics."""

SUMMARIES = ("gauc",)
"""Functions over the rows of many queries (a window per query): not per-query methods."""


@pytest.mark.parametrize("name", namespace_methods())
def test_namespace_method_has_the_function_signature(name: str) -> None:
    function = getattr(rm, name)
    function_params = list(inspect.signature(function).parameters.values())
    method_params = list(inspect.signature(getattr(RankNameSpace, name)).parameters.values())
    assert function_params[0].name in RECEIVERS
    assert method_params[0].name == "self"
    assert method_params[1:] == function_params[1:]


def test_every_metric_function_has_a_namespace_method() -> None:
    def is_metric(function: object) -> bool:
        if not inspect.isfunction(function):
            return False
        signature = inspect.signature(function)
        returns_expr = signature.return_annotation in ("pl.Expr", pl.Expr)
        return returns_expr and next(iter(signature.parameters)) in RECEIVERS

    expression_functions = [
        name for name in rm.__all__ if is_metric(getattr(rm, name)) and name not in SUMMARIES
    ]
    assert sorted(expression_functions) == sorted(namespace_methods())
