"""Where the tests find trec_eval's test data: $RANKMETRICS_TREC_EVAL_DATA, else ../shared."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import PROJECT, SHARED, TREC_EVAL_ENV


def _reported(environment: dict[str, str]) -> list[str]:
    code = (
        "from tests.conftest import TREC_EVAL, trec_eval_data_missing; "
        "print(TREC_EVAL); print(trec_eval_data_missing())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=PROJECT,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()


def test_the_variable_names_the_folder_and_the_skip_names_the_variable(tmp_path: Path) -> None:
    environment = {**os.environ, TREC_EVAL_ENV: str(tmp_path)}
    folder, reason = _reported(environment)
    assert folder == str(tmp_path)
    assert TREC_EVAL_ENV in reason and str(tmp_path) in reason
    (tmp_path / "qrels.test").write_text("1 0 d 1\n")
    assert _reported(environment) == [str(tmp_path), "None"]


def test_without_the_variable_the_folder_is_shared_trec_eval() -> None:
    environment = {k: v for k, v in os.environ.items() if k != TREC_EVAL_ENV}
    assert _reported(environment)[0] == str(SHARED / "trec_eval")
