"""Shared fixtures: where ../shared lives, and skips when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout; a worktree nested one level deeper finds it higher up.
SHARED = next(
    (folder / "shared" for folder in PROJECT.parents if (folder / "shared").is_dir()),
    PROJECT.parent / "shared",
)
TREC_EVAL = SHARED / "trec_eval"


@pytest.fixture(scope="session")
def trec_eval_dir() -> Path:
    """The trec_eval 10.0 conformance files from ../shared/trec_eval."""
    if not (TREC_EVAL / "qrels.test").is_file():
        pytest.skip(f"trec_eval conformance data not found at {TREC_EVAL}")
    return TREC_EVAL
