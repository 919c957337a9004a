"""The online bad-input table (docs/guide/reliability.md, Online evaluation): each row tested."""

from __future__ import annotations

import math

import polars as pl
import pytest

from polars_rankmetrics import online


def log(**changes: list) -> pl.DataFrame:
    columns = {
        "session": [1, 1, 1, 2, 2, 2],
        "query": ["q"] * 6,
        "document": ["a", "b", "c", "b", "a", "c"],
        "rank": [1, 2, 3, 1, 2, 3],
        "click": [1, 0, 1, 0, 0, 0],
    }
    return pl.DataFrame({**columns, **changes})


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"click": [2, 0, 1, 0, 0, 0]}, r"column 'click' .* only 0 and 1 .*found 2"),
        ({"click": [-1, 0, 1, 0, 0, 0]}, r"column 'click' .* only 0 and 1"),
        ({"click": [0.5, 0, 1, 0, 0, 0]}, r"column 'click' .* only 0 and 1"),
        ({"click": [None, 0, 1, 0, 0, 0]}, r"column 'click' .* only 0 and 1"),
        ({"click": ["1", "0", "1", "0", "0", "0"]}, r"column 'click' \(the click\) must hold 0/1"),
        ({"rank": [0, 1, 2, 0, 1, 2]}, r"column 'rank' .* ranks starting at 0"),
        ({"rank": [1, 1, 2, 1, 2, 3]}, r"column 'rank' .* a rank repeated"),
        ({"rank": [1, 2, 4, 1, 2, 3]}, r"column 'rank' .* \(a gap\)"),
        ({"rank": [1, None, 3, 1, 2, 3]}, r"column 'rank' .* a null rank"),
        (
            {"rank": [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]},
            r"column 'rank' \(the rank\) must hold integers",
        ),
        ({"query": ["q", "q", "r", "q", "q", "q"]}, r"column 'query' .* more than one query"),
    ],
)
@pytest.mark.parametrize("entry", ["fit", "log_likelihood", "perplexity"])
def test_bad_logs_are_refused_naming_the_column(changes: dict, message: str, entry: str) -> None:
    bad = log(**changes)
    with pytest.raises(ValueError, match=message):
        if entry == "fit":
            online.fit(bad, "dbn", iterations=1)
        else:
            getattr(online, entry)(online.fit(log(), "pbm", iterations=1), bad)


def test_the_column_named_is_the_users() -> None:
    renamed = log(click=[2, 0, 1, 0, 0, 0]).rename({"click": "clicked", "rank": "position"})
    with pytest.raises(ValueError, match="column 'clicked'"):
        online.fit(renamed, "pbm", click="clicked", rank="position")
    with pytest.raises(ValueError, match="has no column 'click'"):
        online.fit(renamed, "pbm", rank="position")


def test_boolean_clicks_are_clicks() -> None:
    as_bool = log().with_columns(pl.col("click").cast(pl.Boolean))
    for model in online.MODELS:
        expected = online.fit(log(), model, iterations=3).attractiveness
        assert online.fit(as_bool, model, iterations=3).attractiveness.equals(expected)


@pytest.mark.parametrize("model", online.MODELS)
def test_sessions_without_a_click_are_kept(model: str) -> None:
    """Documented: every result of a session without a click was shown and not clicked."""
    no_clicks = log(click=[0] * 6)
    fitted = online.fit(no_clicks, model, iterations=5)
    assert fitted.attractiveness.get_column("attractiveness").max() < 0.5  # pulled below the prior
    ll = online.log_likelihood(fitted, no_clicks)
    assert math.isfinite(ll) and ll < 0


def test_rankings_to_predict_are_checked_and_unseen_pairs_get_the_default() -> None:
    model = online.fit(log(), "dbn", iterations=2)
    with pytest.raises(ValueError, match=r"column 'rank' of `rankings`.*ranks starting at 0"):
        online.predict(model, log(rank=[0, 1, 2, 0, 1, 2]).drop("click"))
    with pytest.raises(ValueError, match=r"column 'rank' of `rankings`.*a rank repeated"):
        online.simulate(model, log(rank=[1, 1, 2, 1, 2, 3]).drop("click"))
    unseen = pl.DataFrame({"session": [9], "query": ["new"], "document": ["z"], "rank": [1]})
    assert online.predict(model, unseen).get_column("click_probability").item() == 0.5


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: online.fit(log(), "xyz"), "`model` must be one of"),
        (lambda: online.fit(log(), "pbm", iterations=-1), "`iterations`"),
        (lambda: online.fit(log(), "pbm", prior=(0, 1)), "`prior`"),
        (lambda: online.fit(log(), "pbm", prior=(2, 1)), "`prior`"),
        (lambda: online.fit(log(), "pbm", parts=0), "`parts`"),
        (lambda: online.team_draft("a", "b", k=0), "`k`"),
        (lambda: online.team_draft("a", "b", seed=-1), "`seed`"),
        (lambda: online.probabilistic("a", "b", tau=0), "`tau`"),
        (lambda: online.team_draft_multileave(["a"]), "`rankings`"),
        (lambda: online.team_clicks("i", "c", 1), "`rankings`"),
        (lambda: online.simulate(online.fit(log(), "cm"), log().drop("click"), seed=-2), "`seed`"),
        (lambda: online.ClickModel("pbm", attractiveness=pl.DataFrame()), "needs `examination`"),
    ],
)
def test_bad_parameters_are_refused_by_name(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic"])
def test_rankings_with_a_repeated_or_null_document_are_refused(method: str) -> None:
    interleave = getattr(online, method)
    repeated = pl.DataFrame({"a": [["x", "y"], ["x", "x"]], "b": [["y", "x"], ["y"]]})
    with pytest.raises(ValueError, match=r"`a`: a ranking holds a document twice \(row 1\)"):
        repeated.select(interleave("a", "b"))
    null_document = pl.DataFrame({"a": [["x"]], "b": [["y", None]]})
    with pytest.raises(ValueError, match="`b`: a ranking holds a null document"):
        null_document.select(interleave("a", "b"))
    null_ranking = pl.DataFrame(
        {"a": [["x"]], "b": [None]}, schema={"a": pl.List(pl.String), "b": pl.List(pl.String)}
    )
    with pytest.raises(ValueError, match="`b`: row 0 has a null ranking"):
        null_ranking.select(interleave("a", "b"))


def test_rankings_of_different_lengths() -> None:
    """Documented: team draft and balanced stop when either ranking has nothing left to add;
    probabilistic interleaving shows every document of either; ``k`` caps all three."""
    pairs = pl.DataFrame({"a": [["a1", "a2", "a3", "a4"]], "b": [["b1"]]})
    for seed in range(6):
        td = pairs.select(online.team_draft("a", "b", seed=seed)).item()["document"]
        assert td in (["b1"], ["a1", "b1"])  # B adds b1, then has nothing left
        balanced = pairs.select(online.balanced("a", "b", seed=seed)).item()["document"]
        assert balanced in (["a1", "b1"], ["b1"])
        pi = pairs.select(online.probabilistic("a", "b", seed=seed)).item()["document"]
        assert sorted(pi) == ["a1", "a2", "a3", "a4", "b1"]
        capped = pairs.select(online.probabilistic("a", "b", seed=seed, k=2)).item()["document"]
        assert len(capped) == 2
    empty = pl.DataFrame(
        {"a": [[]], "b": [["b1"]]}, schema={"a": pl.List(pl.String), "b": pl.List(pl.String)}
    )
    assert empty.select(online.team_draft("a", "b")).item()["document"] == []


def test_clicks_must_match_the_interleaved_list() -> None:
    shown = pl.DataFrame({"interleaved": [{"document": ["a", "b"], "team": [0, 1]}]})
    with pytest.raises(ValueError, match="not one per position"):
        shown.with_columns(c=pl.Series([[1]])).select(
            online.interleaving_outcome("interleaved", "c")
        )
    with pytest.raises(ValueError, match="only 0 and 1"):
        shown.with_columns(c=pl.Series([[2, 0]])).select(
            online.interleaving_outcome("interleaved", "c")
        )
