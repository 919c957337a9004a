"""The seeded sample of a parity sweep (the ``sweep`` marker; hooks in ``tests/conftest.py``).

A parametrized test marked ``@pytest.mark.sweep(by="method", keep=2)`` runs ``keep`` of its
cases for each value of its parameter ``method``, so every method stays covered while the
other parameters (normalisations, ranking options, seeds) are sampled. The cases are chosen
from a seed, so a run is reproducible: ``RANKMETRICS_SWEEP`` unset runs the sample of seed 0
(what CI runs, like hypothesis' ``ci`` profile), ``RANKMETRICS_SWEEP=<integer>`` another
sample, ``RANKMETRICS_SWEEP=all`` every case.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence

ENV = "RANKMETRICS_SWEEP"
"""The environment variable choosing the sample: unset (seed 0), an integer, or ``all``."""
DEFAULT_SEED = 0


def parse_sweep(value: str | None) -> int | None:
    """The seed that ``RANKMETRICS_SWEEP`` names; None for ``all`` (every case)."""
    if value is None or value.strip() == "":
        return DEFAULT_SEED
    text = value.strip()
    if text.lower() == "all":
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{ENV} must be 'all' or an integer seed, got {value!r}") from None


def pick_cases(
    cases: Sequence[Mapping[str, Hashable]],
    *,
    by: str | Sequence[str],
    keep: int,
    seed: int | None,
    salt: str = "",
) -> list[int]:
    """The indices (ascending) of the cases to run.

    ``cases`` holds each case's parameters (name -> a hashable key of the value). Every
    value of ``by`` (a parameter's name, or several names: every combination of their values)
    keeps ``min(keep, its case count)`` cases. The choice is greedy over a
    seeded shuffle: each value of ``by`` in turn takes the case that covers the most
    (parameter, value) pairs of the other parameters not yet covered, so with enough strata
    every value of every other parameter runs; once nothing new can be covered, coverage
    starts over (a new rotation). ``seed=None`` keeps every case. ``salt`` (the test's name)
    makes the sample differ between tests of one seed.
    """
    if keep < 1:
        raise ValueError(f"keep must be at least 1, got {keep}")
    if seed is None:
        return list(range(len(cases)))
    names = (by,) if isinstance(by, str) else tuple(by)
    for case in cases:
        missing = [name for name in names if name not in case]
        if missing or not names:
            raise ValueError(f"sweep by={by!r} is not a parameter of the test: {sorted(case)}")
    order = list(range(len(cases)))
    random.Random(f"{seed}:{salt}").shuffle(order)
    strata: dict[Hashable, list[int]] = {}
    for index in order:
        strata.setdefault(tuple(cases[index][name] for name in names), []).append(index)
    pairs = [{(k, v) for k, v in case.items() if k not in names} for case in cases]
    every_pair = set().union(*pairs) if pairs else set()
    covered: set[tuple[str, Hashable]] = set()
    chosen: set[int] = set()
    for _ in range(keep):
        for members in strata.values():
            left = [index for index in members if index not in chosen]
            if not left:
                continue
            if covered >= every_pair:
                covered = set()  # every value of the other parameters ran: rotate again
            best = max(left, key=lambda index: len(pairs[index] - covered))
            chosen.add(best)
            covered |= pairs[best]
    return sorted(chosen)
