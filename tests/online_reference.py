"""Slow, obviously-correct click models: the book's updates by brute force over hidden variables.

A session is ``(query, documents, clicks)``. Each model is written as its
Bayesian network (Chuklin, Markov and de Rijke 2015, chapter 3): every
assignment of the hidden variables (attractiveness A, examination E,
satisfaction S, DBN's going on G) is enumerated, its probability multiplied out,
the ones that do not produce the observed clicks dropped. The EM update of a
parameter is then its definition: the expected number of times the hidden
variable is 1 over the expected number of times it is drawn (with the same
pseudo-counts as the library), and the session's likelihood is the sum over the
assignments. Exponential in the session length: for sessions of 3 or 4 results.
The closed-form models (CM, DCM, SDBN) are counted as the book counts them.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

Session = tuple[str, list[str], list[int]]
Params = dict[str, dict]


def _bits(n: int) -> list[tuple[int, ...]]:
    return list(itertools.product((0, 1), repeat=n))


def _p(value: float, bit: int) -> float:
    return value if bit else 1 - value


def pbm_posteriors(session: Session, params: Params, ubm: bool = False):
    """Yield (rank, P(A=1|C), P(E=1|C), exam key) per rank of a PBM/UBM session by enumeration."""
    query, docs, clicks = session
    n = len(docs)
    previous = []
    last = 0
    for r in range(1, n + 1):
        previous.append(last)
        if clicks[r - 1]:
            last = r
    keys = [(r, previous[r - 1]) if ubm else r for r in range(1, n + 1)]
    total = 0.0
    a_post = [0.0] * n
    e_post = [0.0] * n
    for a_bits in _bits(n):
        for e_bits in _bits(n):
            if any(a * e != c for a, e, c in zip(a_bits, e_bits, clicks, strict=True)):
                continue
            p = 1.0
            for i in range(n):
                p *= _p(params["attractiveness"][(query, docs[i])], a_bits[i])
                p *= _p(params["examination"][keys[i]], e_bits[i])
            total += p
            for i in range(n):
                a_post[i] += p * a_bits[i]
                e_post[i] += p * e_bits[i]
    return total, [a / total for a in a_post], [e / total for e in e_post], keys


def em_pbm(sessions: list[Session], iterations: int, prior=(1.0, 2.0), ubm: bool = False) -> Params:
    """PBM (or UBM) by EM: the mean posterior of A per pair and of E per rank (per rank and r')."""
    clicks0, views0 = prior
    pairs = {(q, d) for q, docs, _ in sessions for d in docs}
    keys = {k for s in sessions for k in pbm_posteriors(s, _flat(pairs, {}, prior), ubm)[3]}
    params = _flat(pairs, keys, prior)
    for _ in range(iterations):
        num_a, den_a = defaultdict(float), defaultdict(float)
        num_e, den_e = defaultdict(float), defaultdict(float)
        for session in sessions:
            _, a_post, e_post, session_keys = pbm_posteriors(session, params, ubm)
            for i, doc in enumerate(session[1]):
                num_a[(session[0], doc)] += a_post[i]
                den_a[(session[0], doc)] += 1
                num_e[session_keys[i]] += e_post[i]
                den_e[session_keys[i]] += 1
        params = {
            "attractiveness": {k: (clicks0 + num_a[k]) / (views0 + den_a[k]) for k in pairs},
            "examination": {k: (clicks0 + num_e[k]) / (views0 + den_e[k]) for k in keys},
        }
    return params


class _Default(dict):
    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def __missing__(self, key):
        return self.value


def _flat(pairs, keys, prior) -> Params:
    start = prior[0] / prior[1]
    examination = _Default(start)
    examination.update(dict.fromkeys(keys, start))
    return {"attractiveness": dict.fromkeys(pairs, start), "examination": examination}


def dbn_joint(session: Session, params: Params):
    """Yield (probability, A, S, G, E) for every assignment that produces the session's clicks.

    E_1 = 1; E_{r+1} = E_r * G_r * (1 - C_r S_r); C_r = E_r A_r. E has n + 1 entries
    (a virtual rank below the last, for gamma's update).
    """
    query, docs, clicks = session
    n = len(docs)
    alpha = [params["attractiveness"][(query, d)] for d in docs]
    sigma = [params["satisfaction"][(query, d)] for d in docs]
    gamma = params["continuation"]
    for a_bits in _bits(n):
        for s_bits in _bits(n):
            for g_bits in _bits(n):
                e = [1]
                ok = True
                for i in range(n):
                    c = e[i] * a_bits[i]
                    if c != clicks[i]:
                        ok = False
                        break
                    e.append(e[i] * g_bits[i] * (1 - c * s_bits[i]))
                if not ok:
                    continue
                p = 1.0
                for i in range(n):
                    p *= _p(alpha[i], a_bits[i]) * _p(sigma[i], s_bits[i]) * _p(gamma, g_bits[i])
                yield p, a_bits, s_bits, e


def em_dbn(sessions: list[Session], iterations: int, prior=(1.0, 2.0)) -> Params:
    """DBN by EM: alpha and sigma per pair, one gamma; posteriors by enumeration."""
    clicks0, views0 = prior
    start = clicks0 / views0
    pairs = {(q, d) for q, docs, _ in sessions for d in docs}
    params = {
        "attractiveness": dict.fromkeys(pairs, start),
        "satisfaction": dict.fromkeys(pairs, start),
        "continuation": start,
    }
    for _ in range(iterations):
        num_a, den_a = defaultdict(float), defaultdict(float)
        num_s, den_s = defaultdict(float), defaultdict(float)
        num_g = den_g = 0.0
        for session in sessions:
            query, docs, clicks = session
            joint = list(dbn_joint(session, params))
            total = sum(p for p, *_ in joint)
            for i, doc in enumerate(docs):
                key = (query, doc)
                num_a[key] += sum(p * a[i] for p, a, _, _ in joint) / total
                den_a[key] += 1
                if clicks[i]:
                    num_s[key] += sum(p * s[i] for p, _, s, _ in joint) / total
                    den_s[key] += 1
                # not satisfied at r: S_r = 0 or no click at r
                unsat = [(p, e) for p, _, s, e in joint if not (clicks[i] and s[i])]
                num_g += sum(p * e[i] * e[i + 1] for p, e in unsat) / total
                den_g += sum(p * e[i] for p, e in unsat) / total
        params = {
            "attractiveness": {k: (clicks0 + num_a[k]) / (views0 + den_a[k]) for k in pairs},
            "satisfaction": {k: (clicks0 + num_s[k]) / (views0 + den_s[k]) for k in pairs},
            "continuation": (clicks0 + num_g) / (views0 + den_g),
        }
    return params


def mle(sessions: list[Session], model: str, prior=(1.0, 2.0)) -> Params:
    """CM, DCM and SDBN's closed forms, counted row by row as the book states them."""
    clicks0, views0 = prior
    num_a, den_a = defaultdict(float), defaultdict(float)
    num_x, den_x = defaultdict(float), defaultdict(float)
    pairs = set()
    for query, docs, clicks in sessions:
        click_ranks = [r for r, c in enumerate(clicks, 1) if c]
        first = click_ranks[0] if click_ranks else len(docs)
        last = click_ranks[-1] if click_ranks else len(docs)
        for r, (doc, c) in enumerate(zip(docs, clicks, strict=True), 1):
            key = (query, doc)
            pairs.add(key)
            if r <= (first if model == "cm" else last):
                num_a[key] += c
                den_a[key] += 1
            if c and model == "dcm":
                num_x[r] += r != last
                den_x[r] += 1
            if c and model == "sdbn":
                num_x[key] += r == last
                den_x[key] += 1
    params = {"attractiveness": {k: (clicks0 + num_a[k]) / (views0 + den_a[k]) for k in pairs}}
    if model == "dcm":
        params["continuation"] = {r: (clicks0 + num_x[r]) / (views0 + den_x[r]) for r in den_x}
    if model == "sdbn":
        params["satisfaction"] = {k: (clicks0 + num_x[k]) / (views0 + den_x[k]) for k in pairs}
    return params


def cascade_likelihood(
    session: Session, alpha: list[float], after: list[float], g: float
) -> tuple[float, list[float]]:
    """A cascade's P(clicks) and P(C_r = 1) by enumeration over A and the going-on coins K.

    E_1 = 1; E_{r+1} = E_r K_r, with P(K_r = 1) = after_r after a click and g after a skip.
    """
    _, docs, clicks = session
    n = len(docs)
    likelihood = 0.0
    marginal = [0.0] * n
    for a_bits in _bits(n):
        for k_bits in _bits(n):
            e, p, produced = 1, 1.0, []
            for i in range(n):
                c = e * a_bits[i]
                produced.append(c)
                p *= _p(alpha[i], a_bits[i])
                if e:
                    p *= _p(after[i] if c else g, k_bits[i])
                elif k_bits[i]:
                    p = 0.0  # the coin of an unexamined rank is not drawn: count it once
                e = e * k_bits[i]
            for i in range(n):
                marginal[i] += p * produced[i]
            if produced == list(clicks):
                likelihood += p
    return likelihood, marginal


def ubm_likelihood(session: Session, alpha: list[float], gamma) -> tuple[float, list[float]]:
    """UBM's P(clicks) and P(C_r = 1) by enumeration over every click vector."""
    _, docs, clicks = session
    n = len(docs)
    likelihood = 0.0
    marginal = [0.0] * n
    for produced in _bits(n):
        p, last = 1.0, 0
        for i in range(n):
            p *= _p(alpha[i] * gamma(i + 1, last), produced[i])
            if produced[i]:
                last = i + 1
        for i in range(n):
            marginal[i] += p * produced[i]
        if list(produced) == list(clicks):
            likelihood = p
    return likelihood, marginal


def log_likelihood(
    sessions: list[Session], model: str, params: Params
) -> tuple[float, list[list[float]]]:
    """The log-likelihood of the sessions and each session's P(C_r = 1), by enumeration."""
    total, marginals = 0.0, []
    for session in sessions:
        query, docs, _ = session
        alpha = [params["attractiveness"].get((query, d), 0.5) for d in docs]
        n = len(docs)
        if model in ("pbm", "ubm"):
            exam = params["examination"]
            if model == "pbm":
                gamma = lambda r, last, exam=exam: exam.get(r, 0.5)  # noqa: E731
            else:
                gamma = lambda r, last, exam=exam: exam.get((r, last), 0.5)  # noqa: E731

            likelihood, marginal = ubm_likelihood(session, alpha, gamma)
        else:
            sigma = [params.get("satisfaction", {}).get((query, d), 0.5) for d in docs]
            g = params["continuation"] if model == "dbn" else 1.0
            after = {
                "cm": [0.0] * n,
                "dcm": [params.get("continuation", {}).get(r, 0.5) for r in range(1, n + 1)]
                if model == "dcm"
                else None,
                "sdbn": [1 - s for s in sigma],
                "dbn": [g * (1 - s) for s in sigma],
            }[model]
            likelihood, marginal = cascade_likelihood(session, alpha, after, g)
        total += math.log(likelihood) if likelihood > 0 else -math.inf
        marginals.append(marginal)
    return total, marginals
