"""Run one contender in this process and print its times and peak RSS as JSON.

``python -m benchmarks.worker NAME GLOB REPEAT OPTIONS_JSON``
"""

from __future__ import annotations

import json
import resource
import sys

import polars as pl

from benchmarks.contenders import BASELINE_RSS_MIB, BOTH_CLOCKS, CLOCK, CONTENDERS, memory_mib


def peak_rss_mib() -> float:
    """This process's peak resident set size."""
    peak = memory_mib("VmHWM")
    if peak is None:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return peak


def main(argv: list[str]) -> int:
    name, glob, repeat, options = argv[0], argv[1], int(argv[2]), json.loads(argv[3])
    stage, timer = CONTENDERS[name]
    CLOCK[0] = options.pop("clock", "wall")
    seconds = timer(glob, repeat, options)
    peak = peak_rss_mib()
    result = {
        "name": name,
        "stage": stage,
        "seconds": seconds,
        "wall": BOTH_CLOCKS["wall"],
        "cpu": BOTH_CLOCKS["cpu"],
        "threads": pl.thread_pool_size(),
        "peak_rss_mib": peak,
        "baseline_rss_mib": BASELINE_RSS_MIB[0],
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
