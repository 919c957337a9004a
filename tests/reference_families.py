"""Slow, obviously-correct references of the peers' measures: ERR, diversity, C/W/L, Compat, ...

One query at a time, plain Python, in the style of ``tests/reference.py``. Each
was checked against its oracle (gdeval.pl, pyndeval, cwl_eval, ir_measures,
scikit-learn, torchmetrics 1.9) on random data; the tests compare the library
with the oracles where they are installed and with these elsewhere (cutoffs
beyond ndeval's 20, intent weights, the exact ideal, torchmetrics' measures).

Rows
----
Each function takes the rows of one query as ``(score, label)`` or
``(score, label, doc)`` tuples in input order. A ``None`` or NaN score means
judged but not retrieved; a ``None`` label means unjudged. ``doc`` (a string) is
needed only where a tie-break or the subtopic judgements refer to documents; if
it is missing, the row's input position (as a zero-padded string) stands in.

Ordering and ties
-----------------
Retrieved rows are ranked by score, highest first. ``ties`` chooses the order
inside a group of equal scores (see :func:`ranked`):

* ``"stable"``      input order (Python's stable sort; cwl_eval via ir_measures)
* ``"doc_desc"``    docno descending (trec_eval, gdeval.pl, ndeval ``-traditional``)
* ``"doc_asc"``     docno ascending (pyndeval, ir_measures' Compat)
* ``"optimistic"``  higher label first (unjudged/negative count as 0), then input order
* ``"pessimistic"`` lower label first, then input order

The exact expectation over every ordering of every tie group (the meaning of
the project's ``ties="average"``) is :func:`expected_over_ties`, by brute force.

Results
-------
``None`` means undefined (the project's ``no_relevant="null"``); each function's
docstring says when. Oracles write 0 (or NaN) there: DEFINITIONS.md lists which.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

Row = tuple  # (score, label) or (score, label, doc)
TIES = ("stable", "doc_desc", "doc_asc", "optimistic", "pessimistic")


# --------------------------------------------------------------------------- basics


def _retrieved(score: float | None) -> bool:
    return score is not None and not math.isnan(score)


def _doc(row: Row, position: int) -> str:
    return row[2] if len(row) > 2 else f"{position:09d}"


def _grade(label: float | None) -> float:
    """Unjudged and negative labels have grade 0."""
    return 0.0 if label is None or label < 0 else float(label)


def is_relevant(label: float | None, threshold: float = 0.0) -> bool:
    return label is not None and label > threshold


def ranked_positions(rows: Sequence[Row], ties: str = "stable") -> list[int]:
    """Input positions of the retrieved rows in rank order (score descending, ``ties``
    inside equal scores)."""
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {ties!r}")
    items = [i for i, row in enumerate(rows) if _retrieved(row[0])]
    if ties in ("doc_desc", "doc_asc"):
        # sort by docno first, then stably by score: equal scores keep the docno order
        items.sort(key=lambda i: _doc(rows[i], i), reverse=(ties == "doc_desc"))
    elif ties == "optimistic":
        items.sort(key=lambda i: -_grade(rows[i][1]))
    elif ties == "pessimistic":
        items.sort(key=lambda i: _grade(rows[i][1]))
    items.sort(key=lambda i: -rows[i][0])  # stable: keeps the tie order set above
    return items


def ranked(rows: Sequence[Row], ties: str = "stable") -> list[Row]:
    """The retrieved rows in rank order."""
    return [rows[i] for i in ranked_positions(rows, ties)]


def tie_groups(rows: Sequence[Row]) -> list[list[Row]]:
    """Retrieved rows grouped by equal score, highest score first, input order inside."""
    groups: list[list[Row]] = []
    for row in ranked(rows, "stable"):
        if groups and groups[-1][0][0] == row[0]:
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups


def expected_over_ties(
    measure: Callable[..., float | None], rows: Sequence[Row], *args: Any, **kwargs: Any
) -> float | None:
    """Mean of ``measure(rows', *args, ties="stable", **kwargs)`` over every ordering of
    every tie group (brute force; keep tie groups small). Unretrieved rows are passed
    through. Returns None when the measure is None (undefined does not depend on order).
    Rows are re-scored n, n-1, ... in each order, so doc-based measures need the doc
    column, and a measure that reads score values (Compat's ir_measures ideal order)
    sees the substituted scores. Float-valued measures only."""
    groups = tie_groups(rows)
    unretrieved = [row for row in rows if not _retrieved(row[0])]
    total, count = 0.0, 0
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        # give each row a distinct score in the chosen order so any tie mode is moot
        flat = [row for group in orders for row in group]
        n = len(flat)
        new_rows = [(float(n - i), *tuple(row[1:])) for i, row in enumerate(flat)]
        value = measure(new_rows + unretrieved, *args, ties="stable", **kwargs)
        if value is None:
            return None
        total += value
        count += 1
    return total / count if count else measure(list(rows), *args, ties="stable", **kwargs)


# --------------------------------------------------------------------------- ERR, nERR


def _err_stop_probabilities(
    labels: Iterable[float | None], max_grade: float, above_max: str
) -> list[float]:
    probabilities = []
    for label in labels:
        grade = _grade(label)
        if grade > max_grade:
            if above_max == "error":
                raise ValueError(f"label {label} above max_grade={max_grade}")
            grade = max_grade
        probabilities.append((2.0**grade - 1.0) / 2.0**max_grade)
    return probabilities


def _err(probabilities: Sequence[float], k: int | None) -> float:
    """Cascade model: the user stops at rank r with probability R_r * prod_{i<r}(1 - R_i),
    and ERR = sum_r (1/r) P(stop at r)."""
    value, keep_going = 0.0, 1.0
    for rank, stop in enumerate(probabilities, start=1):
        if k is not None and rank > k:
            break
        value += keep_going * stop / rank
        keep_going *= 1.0 - stop
    return value


def err_at_k(
    rows: Sequence[Row],
    k: int | None = None,
    max_grade: float = 4,
    ties: str = "stable",
    above_max: str = "error",
) -> float:
    """ERR@k (Chapelle et al. 2009) as gdeval.pl computes it.

    Stop probability R = (2**g - 1) / 2**max_grade with g the label (unjudged and
    negative labels: 0). gdeval fixes max_grade = 4 and dies on a larger label
    (``above_max="error"``); ``"clip"`` caps the grade instead. k=None: no cutoff.
    Always defined (0 with no relevant row); gdeval prints nothing for such a query
    and ir_measures fills in 0."""
    labels = [row[1] for row in ranked(rows, ties)]
    return _err(_err_stop_probabilities(labels, max_grade, above_max), k)


def nerr_at_k(
    rows: Sequence[Row],
    k: int | None = None,
    max_grade: float = 4,
    ties: str = "stable",
    above_max: str = "error",
) -> float | None:
    """nERR@k = ERR@k / ERR@k of the ideal list: every judged row (retrieved or not)
    by label descending (this order maximises ERR). None when no row has a label > 0."""
    ideal_labels = sorted((_grade(row[1]) for row in rows), reverse=True)
    ideal = _err(_err_stop_probabilities(ideal_labels, max_grade, above_max), k)
    if ideal == 0:
        return None
    return err_at_k(rows, k, max_grade, ties, above_max) / ideal


# --------------------------------------------------------------------------- diversity

Judgement = tuple  # (subtopic, doc, relevance)


class Intents:
    """The subtopic judgements of one query, binarised as ndeval does.

    ``judgements``: (subtopic, doc, relevance) triples, as in a TREC diversity qrels
    file (``topic subtopic docno relevance``). A doc is relevant to a subtopic when
    relevance >= ``rel_level`` (pyndeval / ir_measures ``rel``, default 1; the ndeval
    C program's file reader makes every positive judgement 1). Subtopics with no
    relevant doc are dropped (ndeval's ``actualSubtopics``). ``weights``: intent
    probabilities per subtopic, normalised over the kept subtopics; None = uniform.
    Gains are exact fractions so that the greedy ideal sees exact ties.
    """

    def __init__(
        self,
        judgements: Iterable[Judgement],
        rel_level: float = 1,
        weights: Mapping[Any, float] | None = None,
    ) -> None:
        self.judged: list[str] = []
        self.relevant: dict[str, set[Any]] = {}
        seen: set[str] = set()
        for subtopic, doc, relevance in judgements:
            if doc not in seen:
                seen.add(doc)
                self.judged.append(doc)
                self.relevant[doc] = set()
            if relevance is not None and relevance >= rel_level:
                self.relevant[doc].add(subtopic)
        self.subtopics = sorted({s for subs in self.relevant.values() for s in subs}, key=str)
        self.n_relevant = {
            s: sum(s in subs for subs in self.relevant.values()) for s in self.subtopics
        }
        if weights is None:
            raw = {s: Fraction(1) for s in self.subtopics}
        else:
            raw = {s: Fraction(weights.get(s, 0.0)) for s in self.subtopics}
        total = sum(raw.values())
        self.weight = {s: w / total for s, w in raw.items()} if total else {}

    @property
    def defined(self) -> bool:
        return bool(self.subtopics) and bool(self.weight)

    def covers(self, doc: str) -> set[Any]:
        return self.relevant.get(doc, set())


def _run_docs(rows: Sequence[Row], ties: str) -> list[str]:
    return [_doc(rows[i], i) for i in ranked_positions(rows, ties)]


def _novelty_gains(docs: Sequence[str], intents: Intents, alpha: Fraction) -> list[Fraction]:
    """gain_r = sum over subtopics j covered by doc_r of w_j * (1 - alpha)**c_j, c_j the
    number of earlier docs covering j (alpha-nDCG / ERR-IA / NRBP novelty gain)."""
    seen = {s: 0 for s in intents.subtopics}
    gains = []
    for doc in docs:
        gain = Fraction(0)
        for s in intents.covers(doc):
            gain += intents.weight[s] * (1 - alpha) ** seen[s]
            seen[s] += 1
        gains.append(gain)
    return gains


def greedy_ideal(intents: Intents, alpha: Fraction, tie: str = "doc_desc") -> list[str]:
    """ndeval's ideal: every judged doc, each rank taking the doc of largest marginal
    novelty gain; ties to the largest docno (ndeval: ``strcmp(...) > 0``) or smallest,
    or (``"subtopics"``, the library's rule without document ids) to the doc whose
    sorted subtopics compare largest."""
    cache = intents.__dict__.setdefault("_greedy_cache", {})
    if (alpha, tie) in cache:
        return cache[(alpha, tie)]
    remaining = list(intents.judged)
    seen = {s: 0 for s in intents.subtopics}
    order = []
    while remaining:
        best, best_gain = None, None
        for doc in remaining:
            gain = sum(
                (intents.weight[s] * (1 - alpha) ** seen[s] for s in intents.covers(doc)),
                Fraction(0),
            )
            if (
                best is None
                or gain > best_gain
                or (gain == best_gain and _wins(intents, doc, best, tie))
            ):
                best, best_gain = doc, gain
        order.append(best)
        remaining.remove(best)
        for s in intents.covers(best):
            seen[s] += 1
    cache[(alpha, tie)] = order
    return order


def _wins(intents: Intents, doc: str, best: str, tie: str) -> bool:
    """Whether ``doc`` beats ``best`` in a tie of the greedy ideal."""
    if tie == "subtopics":
        key = lambda d: tuple(sorted(intents.covers(d), key=str))  # noqa: E731
        return key(doc) > key(best)
    return (doc > best) if tie == "doc_desc" else (doc < best)


def exact_ideal_value(
    intents: Intents, alpha: Fraction, k: int, discount: Callable[[int], float]
) -> float:
    """max over every ordering of the relevant docs (up to k of them) of
    sum_r discount(r) * gain_r: the true ideal (exponential; small queries only)."""
    docs = [d for d in intents.judged if intents.covers(d)]
    best = 0.0
    for perm in itertools.permutations(docs, min(k, len(docs))):
        gains = _novelty_gains(perm, intents, alpha)
        best = max(best, sum(float(g) * discount(r) for r, g in enumerate(gains, start=1)))
    return best


def _dcg_discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


def _rr_discount(rank: int) -> float:
    return 1.0 / rank


def _discounted(gains: Sequence[Fraction], k: int, discount: Callable[[int], float]) -> float:
    return sum(float(g) * discount(r) for r, g in enumerate(gains[:k], start=1))


def _ideal_ideal(alpha: Fraction, k: int, discount: Callable[[int], float]) -> float:
    """A list whose every doc covers every subtopic: gain (1 - alpha)**(r - 1)."""
    return sum(float((1 - alpha) ** (r - 1)) * discount(r) for r in range(1, k + 1))


def _diversity_setup(rows, judgements, rel_level, weights, ties):
    intents = (
        judgements if isinstance(judgements, Intents) else Intents(judgements, rel_level, weights)
    )
    return intents, _run_docs(rows, ties)


def _ndeval_k1(value_at_1: Fraction, intents: Intents) -> float:
    """ndeval leaves position 1 of alpha-DCG and ERR-IA un-normalised: with uniform
    intents the raw sum over subtopics, i.e. S times the weighted gain."""
    return float(value_at_1 * len(intents.subtopics))


def alpha_dcg_at_k(
    rows, judgements, k, alpha=0.5, rel_level=1, weights=None, ties="stable", ndeval_k1=False
) -> float | None:
    """ndeval's alpha-DCG@k ("collection-independent normalisation"):
    sum_{r<=k} gain_r / log2(r+1)  divided by  sum_{r<=k} (1-alpha)**(r-1) / log2(r+1)
    (the 'ideal ideal': every doc covers every subtopic). ``ndeval_k1=True``
    reproduces ndeval at k=1, which skips the division (value = S * gain_1).
    None when no subtopic has a relevant doc (ndeval: 0)."""
    alpha = Fraction(alpha)
    intents, docs = _diversity_setup(rows, judgements, rel_level, weights, ties)
    if not intents.defined:
        return None
    gains = _novelty_gains(docs, intents, alpha)
    if ndeval_k1 and k == 1:
        return _ndeval_k1(gains[0] if gains else Fraction(0), intents)
    return _discounted(gains, k, _dcg_discount) / _ideal_ideal(alpha, k, _dcg_discount)


def alpha_ndcg_at_k(
    rows,
    judgements,
    k,
    alpha=0.5,
    rel_level=1,
    weights=None,
    ties="stable",
    ideal="greedy",
    ideal_ties="doc_desc",
) -> float | None:
    """alpha-nDCG@k (Clarke et al. 2008): alpha-DCG@k of the run over alpha-DCG@k of
    the ideal list. ``ideal="greedy"`` is ndeval's greedy list over every judged doc
    (ties to the largest docno); ``"exact"`` the true maximum (brute force).
    None when no subtopic has a relevant doc (ndeval: 0)."""
    alpha = Fraction(alpha)
    intents, docs = _diversity_setup(rows, judgements, rel_level, weights, ties)
    if not intents.defined:
        return None
    value = _discounted(_novelty_gains(docs, intents, alpha), k, _dcg_discount)
    if ideal == "greedy":
        best = _discounted(
            _novelty_gains(greedy_ideal(intents, alpha, ideal_ties), intents, alpha),
            k,
            _dcg_discount,
        )
    else:
        best = exact_ideal_value(intents, alpha, k, _dcg_discount)
    return value / best


def err_ia_at_k(
    rows, judgements, k, alpha=0.5, rel_level=1, weights=None, ties="stable", ndeval_k1=False
) -> float | None:
    """ndeval's ERR-IA@k: sum_{r<=k} gain_r / r  divided by  sum_{r<=k} (1-alpha)**(r-1) / r.
    Equivalently sum_j w_j ERR_j@k / ERR_max@k, with ERR_j the binary-relevance ERR of
    subtopic j with stop probability alpha for a relevant doc and ERR_max@k that of an
    all-relevant list. ``ndeval_k1``: see alpha_dcg_at_k. None when undefined (ndeval: 0)."""
    alpha = Fraction(alpha)
    intents, docs = _diversity_setup(rows, judgements, rel_level, weights, ties)
    if not intents.defined:
        return None
    gains = _novelty_gains(docs, intents, alpha)
    if ndeval_k1 and k == 1:
        return _ndeval_k1(gains[0] if gains else Fraction(0), intents)
    return _discounted(gains, k, _rr_discount) / _ideal_ideal(alpha, k, _rr_discount)


def nerr_ia_at_k(
    rows,
    judgements,
    k,
    alpha=0.5,
    rel_level=1,
    weights=None,
    ties="stable",
    ideal="greedy",
    ideal_ties="doc_desc",
) -> float | None:
    """nERR-IA@k: ERR-IA@k of the run over that of the ideal list (ndeval: the same
    greedy list as alpha-nDCG). None when undefined (ndeval: 0)."""
    alpha = Fraction(alpha)
    intents, docs = _diversity_setup(rows, judgements, rel_level, weights, ties)
    if not intents.defined:
        return None
    value = _discounted(_novelty_gains(docs, intents, alpha), k, _rr_discount)
    if ideal == "greedy":
        best = _discounted(
            _novelty_gains(greedy_ideal(intents, alpha, ideal_ties), intents, alpha),
            k,
            _rr_discount,
        )
    else:
        best = exact_ideal_value(intents, alpha, k, _rr_discount)
    return value / best


def _nrbp_raw(gains: Sequence[Fraction], alpha: Fraction, beta: Fraction) -> float:
    return float((1 - (1 - alpha) * beta) * sum(g * beta**i for i, g in enumerate(gains)))


def nrbp(
    rows, judgements, alpha=0.5, beta=0.5, rel_level=1, weights=None, ties="stable"
) -> float | None:
    """NRBP (Clarke et al. 2009): (1 - (1-alpha)*beta) * sum_r beta**(r-1) * gain_r over
    the whole run (no depth limit). None when undefined (ndeval: 0)."""
    alpha, beta = Fraction(alpha), Fraction(beta)
    intents, docs = _diversity_setup(rows, judgements, rel_level, weights, ties)
    if not intents.defined:
        return None
    return _nrbp_raw(_novelty_gains(docs, intents, alpha), alpha, beta)


def nnrbp(
    rows,
    judgements,
    alpha=0.5,
    beta=0.5,
    rel_level=1,
    weights=None,
    ties="stable",
    ideal_ties="doc_desc",
) -> float | None:
    """nNRBP: NRBP over NRBP of ndeval's greedy ideal list (every judged doc).
    None when undefined (ndeval: NaN, from 0/0)."""
    alpha, beta = Fraction(alpha), Fraction(beta)
    intents, docs = _diversity_setup(rows, judgements, rel_level, weights, ties)
    if not intents.defined:
        return None
    best = _nrbp_raw(
        _novelty_gains(greedy_ideal(intents, alpha, ideal_ties), intents, alpha), alpha, beta
    )
    return _nrbp_raw(_novelty_gains(docs, intents, alpha), alpha, beta) / best


def p_ia_at_k(rows, judgements, k, rel_level=1, weights=None, ties="stable") -> float | None:
    """P-IA@k = sum_j w_j * |{r <= k: doc_r relevant to j}| / k (denominator always k).
    None when undefined (ndeval: 0)."""
    intents, docs = _diversity_setup(rows, judgements, rel_level, weights, ties)
    if not intents.defined:
        return None
    return float(
        sum(
            intents.weight[s] * sum(s in intents.covers(d) for d in docs[:k])
            for s in intents.subtopics
        )
        / k
    )


def subtopic_recall_at_k(rows, judgements, k, rel_level=1, ties="stable") -> float | None:
    """S-recall@k (StRecall, ndeval strec@k): subtopics covered by the top k over
    subtopics with a relevant doc. Unweighted. None when undefined (ndeval: 0)."""
    intents, docs = _diversity_setup(rows, judgements, rel_level, None, ties)
    if not intents.defined:
        return None
    covered = set().union(*(intents.covers(d) for d in docs[:k])) if docs[:k] else set()
    return len(covered) / len(intents.subtopics)


def ap_ia(rows, judgements, rel_level=1, weights=None, ties="stable") -> float | None:
    """AP-IA (ndeval MAP-IA per query): sum_j w_j AP_j, AP_j the binary AP of subtopic j
    over the whole run with R_j = judged docs relevant to j (retrieved or not).
    None when undefined (ndeval: 0)."""
    intents, docs = _diversity_setup(rows, judgements, rel_level, weights, ties)
    if not intents.defined:
        return None
    total = Fraction(0)
    for s in intents.subtopics:
        hits, summed = 0, Fraction(0)
        for rank, doc in enumerate(docs, start=1):
            if s in intents.covers(doc):
                hits += 1
                summed += Fraction(hits, rank)
        total += intents.weight[s] * summed / intents.n_relevant[s]
    return float(total)


# --------------------------------------------------------------------------- C/W/L


def _cwl_vectors(rows, ties, max_rel, min_rel, costs, max_n, min_cost, max_cost, best):
    """Gain and cost of ranks 1..max_n. Worst case (best=False): unjudged gain 0, unknown
    cost max_cost, ranks past the run gain 0 / cost max_cost. Best case: unjudged and
    past-the-run gain 1 (cwl_eval's max_gain), unknown cost min_cost."""
    order = ranked_positions(rows, ties)[:max_n]
    gains, cost_vec = [], []
    for position in order:
        label = rows[position][1]
        if label is None:
            gains.append(1.0 if best else 0.0)
        elif max_rel is None:
            if not 0.0 <= label <= 1.0:
                raise ValueError("cwl_eval gains must lie in [0, 1]; pass max_rel to scale labels")
            gains.append(float(label))
        else:
            clipped = min(
                max(max(label, 0), min_rel), max_rel
            )  # negative -> 0 first, as ir_measures
            gains.append((clipped - min_rel) / (max_rel - min_rel))
        cost = None if costs is None else costs[position]
        cost_vec.append(cost if cost is not None else (min_cost if best else max_cost))
    while len(gains) < max_n:
        gains.append(1.0 if best else 0.0)
        cost_vec.append(min_cost if best else max_cost)
    return gains, cost_vec


def _continuation(measure: str, params: Mapping[str, float], gains, costs) -> list[float] | None:
    n = len(gains)
    cum_gain = list(itertools.accumulate(gains))
    cum_cost = list(itertools.accumulate(costs))
    if measure == "INST":
        T = params.get("T", 1.0)
        return [
            ((i + T + (T - cum_gain[i - 1]) - 1) / (i + T + (T - cum_gain[i - 1]))) ** 2
            for i in range(1, n + 1)
        ]
    if measure == "INSQ":
        T = params.get("T", 1.0)
        return [((i + 2 * T - 1) / (i + 2 * T)) ** 2 for i in range(1, n + 1)]
    if measure == "BPM":
        T, K = params.get("T", 1.0), params.get("K", 10)
        return [1.0 if (cum_gain[i] < T and cum_cost[i] < K) else 0.0 for i in range(n)]
    return None


def _weights_direct(measure: str, params: Mapping[str, float], costs) -> list[float]:
    n = len(costs)
    starts = [0.0, *list(itertools.accumulate(costs))[:-1]]  # cost spent before rank i
    if measure == "U":
        L = params.get("L", 1000)
        raw = [max(0.0, 1.0 - starts[i] / L) for i in range(n - 1)] + [0.0]
    elif measure == "TBG":
        H = params.get("H", 224)
        raw = [H * 2.0 ** (-starts[i] / H) / math.log(2.0) for i in range(n)]
    else:
        raise ValueError(measure)
    norm = sum(raw)
    return [w / norm for w in raw]


def _cwl_once(measure, params, gains, costs) -> dict[str, float]:
    n = len(gains)
    cont = _continuation(measure, params, gains, costs)
    if cont is not None:
        # W_i proportional to prod_{j<i} C_j over ranks 1..n (truncated at max_n)
        reach = [1.0]
        for i in range(n - 1):
            reach.append(reach[-1] * cont[i])
        total = sum(reach)
        W = [r / total for r in reach]
    else:
        W = _weights_direct(measure, params, costs)
        cont = [(W[i + 1] / W[i]) if W[i] > 0 else 0.0 for i in range(n - 1)] + [0.0]
    # L_i = P(stop at i) = prod_{j<i} C_j * (1 - C_i)
    L, survive = [], 1.0
    for i in range(n):
        L.append(survive * (1.0 - cont[i]))
        survive *= cont[i]
    cum_gain = list(itertools.accumulate(gains))
    cum_cost = list(itertools.accumulate(costs))
    return {
        "EU": sum(w * g for w, g in zip(W, gains, strict=True)),
        "ETU": sum(stop * g for stop, g in zip(L, cum_gain, strict=True)),
        "EC": sum(w * c for w, c in zip(W, costs, strict=True)),
        "ETC": sum(stop * c for stop, c in zip(L, cum_cost, strict=True)),
        "ED": 1.0 / W[0],
    }


def cwl(
    rows: Sequence[Row],
    measure: str,
    *,
    ties: str = "stable",
    max_rel: float | None = None,
    min_rel: float = 0.0,
    costs: Sequence[float | None] | None = None,
    max_n: int = 1000,
    min_cost: float = 1.0,
    max_cost: float = 1.0,
    **params: float,
) -> dict[str, float]:
    """A C/W/L measure as cwl_eval 1.0.12 computes it. ``measure``: "INST" (T), "INSQ" (T),
    "BPM" (T, K: BPM-Static), "U" (L), "TBG" (H). Gains: the label itself (must lie in
    [0, 1]) when max_rel is None, else ir_measures' scaling
    (clip(max(label, 0), min_rel, max_rel) - min_rel) / (max_rel - min_rel). ``costs``:
    per row, None = unknown. The ranking is cut or padded to max_n ranks.

    Returns cwl_eval's columns EU, ETU, EC, ETC, ED (worst case: unjudged = gain 0) and
    ResEU ... ResED (best case, unjudged and past-the-run ranks of gain 1 and unknown
    costs of min_cost, minus worst case). EU is the value ir_measures reports. Always
    defined."""
    worst = _cwl_once(
        measure,
        params,
        *_cwl_vectors(rows, ties, max_rel, min_rel, costs, max_n, min_cost, max_cost, False),
    )
    best = _cwl_once(
        measure,
        params,
        *_cwl_vectors(rows, ties, max_rel, min_rel, costs, max_n, min_cost, max_cost, True),
    )
    out = dict(worst)
    for key in worst:
        out["Res" + key] = best[key] - worst[key]
    return out


# --------------------------------------------------------------------------- Compatibility


def _rbo(ranking: Sequence[str], ideal: Sequence[str], p: float, depth: int) -> float:
    """sum_{d=1..depth} p**(d-1) |top_d(ranking) & top_d(ideal)| / d, over sum p**(d-1)."""
    score = norm = 0.0
    for d in range(1, depth + 1):
        overlap = len(set(ranking[:d]) & set(ideal[:d]))
        score += p ** (d - 1) * overlap / d
        norm += p ** (d - 1)
    return score / norm


def compat(
    rows: Sequence[Row],
    p: float = 0.95,
    normalize: bool = True,
    ties: str = "doc_asc",
    ideal_order: str = "ir_measures",
) -> float | None:
    """Compatibility (Clarke, Vtyurina and Smucker 2020) as ir_measures 0.4.3 computes it.

    Ranking: retrieved rows (``ties="doc_asc"`` is ir_measures' order). Ideal: rows with
    label > 0 (retrieved or not) by label descending; equal labels by run score
    descending with 0.0 for an unretrieved row, then input (qrels) order
    (``ideal_order="ir_measures"``), or by that score and then retrieved rows in run
    rank order, unretrieved ones after them in input order (``"run_rank"``). RBO truncated at depth
    max(#retrieved, #relevant), normalised by the finite weight sum; with ``normalize``
    divided by the RBO of the ideal with itself.
    None when no row has label > 0 (ir_measures: 0)."""
    run = [_doc(rows[i], i) for i in ranked_positions(rows, ties)]
    relevant = [(i, row) for i, row in enumerate(rows) if row[1] is not None and row[1] > 0]
    if not relevant:
        return None
    rank_of = {d: r for r, d in enumerate(run)}

    def key(item: tuple[int, Row]) -> tuple[float, ...]:
        position, row = item
        if ideal_order == "ir_measures":
            return (-row[1], -(row[0] if _retrieved(row[0]) else 0.0), position)
        score = row[0] if _retrieved(row[0]) else 0.0
        return (-row[1], -score, rank_of.get(_doc(row, position), len(run)), position)

    ideal = [_doc(row, i) for i, row in sorted(relevant, key=key)]
    depth = max(len(run), len(ideal))
    value = _rbo(run, ideal, p, depth)
    if normalize:
        value /= _rbo(ideal, ideal, p, depth)
    return value


# --------------------------------------------------------------------------- classifier-style


def _binary(rows, threshold, unretrieved):
    """(score, positive) pairs. Unjudged rows are negatives (target 0, as in
    scikit-learn / torchmetrics). Unretrieved rows: dropped, or ranked below every
    retrieved row and tied with each other (``"bottom"``)."""
    retrieved = [row for row in rows if _retrieved(row[0])]
    pairs = [(row[0], is_relevant(row[1], threshold)) for row in retrieved]
    if unretrieved == "bottom":
        pairs += [
            (-math.inf, is_relevant(row[1], threshold)) for row in rows if not _retrieved(row[0])
        ]
    elif unretrieved != "drop":
        raise ValueError(unretrieved)
    return pairs


def roc_auc(rows: Sequence[Row], threshold: float = 0.0, unretrieved: str = "drop") -> float | None:
    """ROC AUC of one query: P(score of a random positive > score of a random negative),
    a tie counting 1/2 (= scikit-learn's trapezoidal AUC = the expectation over tie orders).
    None with only one class (scikit-learn 1.9: NaN and a warning)."""
    pairs = _binary(rows, threshold, unretrieved)
    pos = [s for s, y in pairs if y]
    neg = [s for s, y in pairs if not y]
    if not pos or not neg:
        return None
    wins = sum((sp > sn) + 0.5 * (sp == sn) for sp in pos for sn in neg)
    return wins / (len(pos) * len(neg))


def gauc(
    queries: Iterable[Sequence[Row]],
    threshold: float = 0.0,
    weight: str = "pairs",
    unretrieved: str = "drop",
) -> float | None:
    """Grouped AUC: sum_q w_q AUC_q / sum_q w_q over queries with both classes.
    weight="pairs": w_q = positives * negatives (= all within-query pairs pooled);
    "rows": rows of the query (impressions); "queries": 1. None if no query counts."""
    total = weights = 0.0
    for rows in queries:
        value = roc_auc(rows, threshold, unretrieved)
        if value is None:
            continue
        pairs = _binary(rows, threshold, unretrieved)
        n_pos = sum(y for _, y in pairs)
        w = {"pairs": n_pos * (len(pairs) - n_pos), "rows": len(pairs), "queries": 1}[weight]
        total += w * value
        weights += w
    return total / weights if weights else None


def sklearn_average_precision(rows: Sequence[Row], threshold: float = 0.0) -> float | None:
    """scikit-learn's average_precision_score per query: one threshold per distinct score,
    AP = sum over tie groups (highest first) of (relevant in group / R) * precision at
    the group's end. R counts every relevant row, retrieved or not (scikit-learn sees
    only scored rows: multiply its value by R_retrieved / R). None when R = 0
    (scikit-learn: 0.0 with a warning)."""
    total = sum(is_relevant(row[1], threshold) for row in rows)
    if total == 0:
        return None
    ap, tp, pp = 0.0, 0, 0
    for group in tie_groups(rows):
        hits = sum(is_relevant(row[1], threshold) for row in group)
        tp += hits
        pp += len(group)
        ap += hits / total * (tp / pp)
    return ap


def fall_out_at_k(
    rows: Sequence[Row], k: int | None = None, threshold: float = 0.0, ties: str = "stable"
) -> float | None:
    """FallOut@k (torchmetrics retrieval_fall_out): non-relevant rows in the top k over
    all non-relevant rows of the query (unjudged = non-relevant, retrieved or not).
    k=None: every retrieved row. None when the query has no non-relevant row
    (torchmetrics functional: 0; RetrievalFallOut class: empty_target_action, default
    "pos" = 1)."""
    negatives = sum(not is_relevant(row[1], threshold) for row in rows)
    if negatives == 0:
        return None
    top = ranked(rows, ties)
    if k is not None:
        top = top[:k]
    return sum(not is_relevant(row[1], threshold) for row in top) / negatives


def recall_at_fixed_precision(
    rows: Sequence[Row],
    min_precision: float,
    max_k: int | None = None,
    threshold: float = 0.0,
    ties: str = "stable",
    adaptive_k: bool = False,
) -> tuple[float, int] | None:
    """torchmetrics RetrievalRecallAtFixedPrecision on one query: over k = 1..max_k
    (default: the number of retrieved rows), the largest recall@k among the k with
    precision@k >= min_precision, and the largest such k for it; (0.0, max_k) when
    none or when that recall is 0. precision@k divides by k even past the end of the
    list (unless adaptive_k: k is capped at the list length, repeating the last point).
    R counts relevant rows retrieved or not. None when R = 0 (torchmetrics: 'neg' ->
    zero curve -> (0.0, max_k); 'pos' -> (1.0, max_k))."""
    total = sum(is_relevant(row[1], threshold) for row in rows)
    if total == 0:
        return None
    top = ranked(rows, ties)
    if max_k is None:
        max_k = len(top)
    best = None
    hits = 0
    for k in range(1, max_k + 1):
        kk = min(k, len(top)) if adaptive_k else k
        hits = sum(is_relevant(row[1], threshold) for row in top[:kk])
        precision, recall = hits / kk, hits / total
        if precision >= min_precision and (best is None or (recall, k) > best):
            best = (recall, k)
    if best is None or best[0] == 0.0:
        return (0.0, max_k)
    return best


# --------------------------------------------------------------------------- metric table


def subtopics_of(label: float | None) -> list[str] | None:
    """The subtopics the metric table derives from a label: "1" .. "label" (none if <= 0)."""
    if label is None or math.isnan(label):
        return None
    return [str(i) for i in range(1, int(label) + 1)]


def with_subtopics(rows: Sequence[Row]) -> tuple[list[Row], list[Judgement]]:
    """Rows of (score, label) as rows with document ids and their subtopic judgements.

    Each row's document is its input position; a label l >= 1 makes it relevant to
    subtopics "1" .. "l", a label <= 0 judges it relevant to none, a null label
    leaves it unjudged.
    """
    documents = [(row[0], row[1], f"{i:09d}") for i, row in enumerate(rows)]
    judgements: list[Judgement] = []
    for _score, label, doc in documents:
        subtopics = subtopics_of(label)
        if subtopics is None:
            continue
        judgements += [(s, doc, 1) for s in subtopics] or [("1", doc, 0)]
    return documents, judgements


def on_subtopics(measure: Callable[..., float | None], *args: Any, **kwargs: Any):
    """``measure`` as a reference of the metric table (rows of (score, label))."""

    def reference(rows: Sequence[Row], ties: str = "stable") -> float | None:
        documents, judgements = with_subtopics(rows)
        return measure(documents, judgements, *args, ties=ties, **kwargs)

    return reference


def cwl_value(model: str, output: str = "EU", **params: float):
    """A C/W/L output as a reference of the metric table."""

    def reference(rows: Sequence[Row], ties: str = "stable") -> float:
        return cwl(rows, model, ties=ties, **params)[output]

    return reference
