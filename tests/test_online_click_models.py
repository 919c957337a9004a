"""Click models: the EM and closed forms against brute-force references, recovery, simulation.

The references (tests/online_reference.py) enumerate every assignment of each
model's hidden variables, so their posteriors are the definitions; the library
computes the same updates with polars expressions. Equal to 1e-9 after the same
iterations, on small random logs (sessions of 3 results: 2**9 assignments per
DBN session).
"""

from __future__ import annotations

import math
import random

import polars as pl
import pytest

from polars_rankmetrics import online
from tests import online_reference as ref

TOLERANCE = 1e-9


def random_sessions(seed: int, n_sessions: int = 24, depth: int = 3) -> list[ref.Session]:
    rng = random.Random(seed)
    sessions = []
    for _ in range(n_sessions):
        query = rng.choice(["q1", "q2"])
        docs = rng.sample([f"{query}-{i}" for i in range(5)], depth)
        clicks = [int(rng.random() < 0.35) for _ in docs]
        sessions.append((query, docs, clicks))
    return sessions


def as_log(sessions: list[ref.Session]) -> pl.DataFrame:
    rows = [
        (s, query, doc, r, click)
        for s, (query, docs, clicks) in enumerate(sessions)
        for r, (doc, click) in enumerate(zip(docs, clicks, strict=True), 1)
    ]
    return pl.DataFrame(
        rows, schema=["session", "query", "document", "rank", "click"], orient="row"
    )


def pair_values(frame: pl.DataFrame, name: str) -> dict:
    return {(q, d): v for q, d, v in frame.select("query", "document", name).iter_rows()}


def assert_close(got: dict, expected: dict) -> None:
    assert set(got) == set(expected)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=TOLERANCE, rel=0), key


def library_params(model: online.ClickModel) -> ref.Params:
    params: ref.Params = {"attractiveness": pair_values(model.attractiveness, "attractiveness")}
    if model.satisfaction is not None:
        params["satisfaction"] = pair_values(model.satisfaction, "satisfaction")
    if model.model == "pbm":
        params["examination"] = dict(model.examination.select("rank", "examination").iter_rows())
    if model.model == "ubm":
        params["examination"] = {
            (r, j): v
            for r, j, v in model.examination.select(
                "rank", "previous_click", "examination"
            ).iter_rows()
        }
    if model.model == "dcm":
        params["continuation"] = dict(model.continuation.select("rank", "continuation").iter_rows())
    if model.model == "dbn":
        params["continuation"] = model.continuation
    return params


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("model", ["pbm", "ubm", "dbn"])
def test_em_equals_the_brute_force_updates(model: str, seed: int) -> None:
    sessions = random_sessions(seed)
    iterations = 4
    fitted = online.fit(as_log(sessions), model, iterations=iterations)
    if model == "dbn":
        expected = ref.em_dbn(sessions, iterations)
    else:
        expected = ref.em_pbm(sessions, iterations, ubm=model == "ubm")
    got = library_params(fitted)
    for name, values in expected.items():
        if isinstance(values, float):
            assert got[name] == pytest.approx(values, abs=TOLERANCE, rel=0)
        else:
            assert_close(got[name], dict(values))
    assert fitted.iterations == iterations


@pytest.mark.parametrize("model", ["cm", "dcm", "sdbn"])
def test_closed_forms_equal_the_books_counts(model: str) -> None:
    sessions = random_sessions(2, n_sessions=40, depth=4)
    sessions.append(
        ("q1", ["q1-0", "q1-1", "q1-2", "q1-3"], [0, 0, 0, 0])
    )  # no click: all examined
    fitted = online.fit(as_log(sessions), model)
    expected = ref.mle(sessions, model)
    got = library_params(fitted)
    assert_close(got["attractiveness"], expected["attractiveness"])
    if model == "sdbn":
        assert_close(got["satisfaction"], expected["satisfaction"])
    if model == "dcm":  # ranks never clicked keep the prior's 1/2
        assert_close(
            {r: v for r, v in got["continuation"].items() if r in expected["continuation"]},
            expected["continuation"],
        )
        assert all(
            v == 0.5 for r, v in got["continuation"].items() if r not in expected["continuation"]
        )
    assert fitted.iterations == 0


@pytest.mark.parametrize("model", online.MODELS)
def test_log_likelihood_and_perplexity_equal_enumeration(model: str) -> None:
    train = random_sessions(3, n_sessions=30)
    held_out = random_sessions(4, n_sessions=12)
    if (
        model == "cm"
    ):  # CM gives a second click probability 0: held-out sessions with one click at most
        held_out = [(q, d, c if sum(c) <= 1 else [1, 0, 0]) for q, d, c in held_out]
    fitted = online.fit(as_log(train), model, iterations=3)
    expected_ll, marginals = ref.log_likelihood(held_out, model, library_params(fitted))
    assert online.log_likelihood(fitted, as_log(held_out)) == pytest.approx(
        expected_ll, abs=TOLERANCE, rel=0
    )
    # perplexity at rank r: 2 ** -(mean over sessions of log2 P(C_r = c_r)), P(C_r = 1) the marginal
    table = online.perplexity(fitted, as_log(held_out))
    for r in range(3):
        bits = [
            math.log2(m[r] if clicks[r] else 1 - m[r])
            for (_, _, clicks), m in zip(held_out, marginals, strict=True)
        ]
        expected = 2 ** (-sum(bits) / len(bits))
        assert table.row(r, named=True)["perplexity"] == pytest.approx(
            expected, abs=TOLERANCE, rel=0
        )
    # predict is the same marginal, row by row
    rankings = as_log(held_out).drop("click")
    predicted = online.predict(fitted, rankings).get_column("click_probability").to_list()
    flat = [p for m in marginals for p in m]
    assert predicted == pytest.approx(flat, abs=TOLERANCE, rel=0)


def test_cm_gives_a_second_click_probability_zero() -> None:
    sessions = [("q", ["a", "b"], [1, 1])]
    fitted = online.fit(as_log(sessions), "cm")
    assert online.log_likelihood(fitted, as_log(sessions)) == -math.inf


# Recovery: logs simulated from known parameters, fitted back. 1 query, 6 documents, every
# session a random permutation of 5 of them (so that position and document are not confounded).
DOCUMENTS = [f"d{i}" for i in range(6)]
TRUE_ALPHA = [0.9, 0.7, 0.5, 0.35, 0.2, 0.1]
TRUE_SIGMA = [0.8, 0.6, 0.5, 0.4, 0.3, 0.2]


def random_rankings(n_sessions: int, seed: int, depth: int = 5) -> pl.DataFrame:
    rng = random.Random(seed)
    rows = []
    for s in range(n_sessions):
        for r, doc in enumerate(rng.sample(DOCUMENTS, depth), 1):
            rows.append((s, "q", doc, r))
    return pl.DataFrame(rows, schema=["session", "query", "document", "rank"], orient="row")


def true_model(model: str) -> online.ClickModel:
    alpha = pl.DataFrame({"query": "q", "document": DOCUMENTS, "attractiveness": TRUE_ALPHA})
    sigma = pl.DataFrame({"query": "q", "document": DOCUMENTS, "satisfaction": TRUE_SIGMA})
    ranks = list(range(1, 6))
    extra: dict = {
        "pbm": {
            "examination": pl.DataFrame({"rank": ranks, "examination": [1.0, 0.8, 0.6, 0.45, 0.3]})
        },
        "cm": {},
        "dcm": {
            "continuation": pl.DataFrame({"rank": ranks, "continuation": [0.7, 0.6, 0.5, 0.4, 0.3]})
        },
        "ubm": {
            "examination": pl.DataFrame(
                [(r, j, 0.95 ** (r - j) * (0.9 if j else 0.8)) for r in ranks for j in range(r)],
                schema=["rank", "previous_click", "examination"],
                orient="row",
            )
        },
        "dbn": {"satisfaction": sigma, "continuation": 0.85},
        "sdbn": {"satisfaction": sigma},
    }[model]
    return online.ClickModel(model, attractiveness=alpha, **extra)


RECOVERY_SESSIONS = 6000
RECOVERY_TOLERANCE = {"pbm": 0.06, "cm": 0.06, "ubm": 0.06, "dbn": 0.06, "dcm": 0.12, "sdbn": 0.16}
"""Every attractiveness and satisfaction within this of the truth from 6,000 sessions of 5 results.

DCM's and SDBN's closed forms assume that a user stops at her last click; the simulated users
of those models go on (DCM: with probability lambda_r; SDBN: 1 - sigma) and skip what follows,
skips the estimates do not count: they overestimate by up to 0.08 (SDBN's satisfaction: 0.15)
at any size (the book's section 4.2 notes the approximation). DBN's EM, which counts them, has
no such bias.
"""


@pytest.mark.parametrize("model", online.MODELS)
def test_fit_recovers_the_parameters_of_simulated_logs(model: str) -> None:
    truth = true_model(model)
    log = online.simulate(truth, random_rankings(RECOVERY_SESSIONS, seed=5), seed=11)
    fitted = online.fit(log, model, iterations=25)
    got = pair_values(fitted.attractiveness, "attractiveness")
    if model in ("pbm", "ubm"):
        # alpha gamma is identified, not each factor (scale alpha by c, gamma by 1/c): the truth
        # examines rank 1 with gamma_1 = 1 (PBM) or 0.8 * 0.95 (UBM), read alpha through it
        exam = fitted.examination.filter(pl.col("rank") == 1).get_column("examination").item()
        first = 1.0 if model == "pbm" else 0.8 * 0.95
        got = {key: value * exam / first for key, value in got.items()}
    for doc, alpha in zip(DOCUMENTS, TRUE_ALPHA, strict=True):
        assert abs(got[("q", doc)] - alpha) < RECOVERY_TOLERANCE[model], (
            doc,
            got[("q", doc)],
            alpha,
        )
    if truth.satisfaction is not None:
        got = pair_values(fitted.satisfaction, "satisfaction")
        for doc, sigma in zip(DOCUMENTS, TRUE_SIGMA, strict=True):
            assert abs(got[("q", doc)] - sigma) < RECOVERY_TOLERANCE[model], (
                doc,
                got[("q", doc)],
                sigma,
            )
    if model == "dbn":
        assert abs(fitted.continuation - 0.85) < 0.03
    if model == "pbm":
        exam = dict(fitted.examination.iter_rows())
        relative = [exam[r] / exam[1] for r in range(1, 6)]
        assert relative == pytest.approx([1.0, 0.8, 0.6, 0.45, 0.3], abs=RECOVERY_TOLERANCE[model])


@pytest.mark.parametrize("model", online.MODELS)
def test_simulated_click_rates_match_the_predicted_probabilities(model: str) -> None:
    truth = true_model(model)
    rankings = random_rankings(1, seed=0)
    repeated = pl.concat([rankings.with_columns(session=pl.lit(s)) for s in range(4000)])
    clicks = (
        online.simulate(truth, repeated, seed=3)
        .group_by("rank")
        .agg(pl.col("click").mean())
        .sort("rank")
    )
    predicted = online.predict(truth, rankings).get_column("click_probability").to_list()
    # binomial standard error at n = 4000 is at most 0.008: 4 of them
    assert clicks.get_column("click").to_list() == pytest.approx(predicted, abs=0.032)


def test_simulate_is_seeded_and_row_order_free() -> None:
    truth = true_model("dbn")
    rankings = random_rankings(50, seed=1)
    first = online.simulate(truth, rankings, seed=4)
    again = online.simulate(truth, rankings.reverse(), seed=4)
    other = online.simulate(truth, rankings, seed=5)
    assert first.equals(again)
    assert not first.equals(other)


@pytest.mark.parametrize("model", online.MODELS)
def test_fitting_in_parts_gives_the_same_estimates(model: str, tmp_path) -> None:
    """parts=3: the log cut by session hash, each part read once per iteration from parquet."""
    sessions = random_sessions(6, n_sessions=60, depth=4)
    path = tmp_path / "log.parquet"
    as_log(sessions).write_parquet(path)
    whole = library_params(online.fit(as_log(sessions), model, iterations=4))
    in_parts = library_params(online.fit(pl.scan_parquet(path), model, iterations=4, parts=3))
    for name, values in whole.items():
        if isinstance(values, float):
            assert in_parts[name] == pytest.approx(values, abs=1e-12)
        else:
            assert in_parts[name].keys() == values.keys()
            assert [in_parts[name][k] for k in values] == pytest.approx(
                list(values.values()), abs=1e-12
            )
