"""Seeded random draws per row for interleaving: a counter-based generator.

Each row has a 64-bit stream key (a hash of the row's key and the seed); its
``t``-th draw is SplitMix64 (Steele, Lea and Flood 2014) of ``key + (t + 1) *
0x9E3779B97F4A7C15``, as a float in [0, 1) from the top 53 bits. Draws do not
depend on the other rows, on their order, or on how polars splits the column
into batches, and a test can replay a row's stream with :func:`draw`.
"""

from __future__ import annotations

from typing import Any

GOLDEN = 0x9E3779B97F4A7C15
MASK = 2**64 - 1


def draw(key: int, t: int) -> float:
    """The ``t``-th uniform draw of the stream ``key`` (pure Python, for tests)."""
    z = (key + (t + 1) * GOLDEN) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return (z >> 11) * 2.0**-53


def draws(keys: Any, t: int) -> Any:
    """The ``t``-th draw of each stream in the uint64 array ``keys`` (numpy)."""
    import numpy as np

    with np.errstate(over="ignore"):
        z = keys + np.uint64(((t + 1) * GOLDEN) & MASK)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53
