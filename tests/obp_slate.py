"""obp 0.5.7's slate estimators, loaded without torch, and seeded random slate logs.

obp pins Python < 3.11 and imports torch from ``obp/__init__.py`` and
``obp/utils.py``; its slate estimators are numpy. ``.ci/run`` installs it with
``pip install --no-deps --ignore-requires-python obp==0.5.7``; here
``obp/utils.py`` and ``obp/ope/estimators_slate.py`` are loaded from their files
under empty ``obp`` and ``obp.ope`` packages (so that neither ``__init__`` runs),
with a stub ``torch`` module in ``sys.modules`` while they load (``utils.py``
names ``torch.tensor`` in one annotation only).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

_PACKAGES = ("obp", "obp.ope")


def _load(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_obp_slate() -> types.ModuleType:
    """obp's ``estimators_slate`` module; skips the test when obp is not installed."""
    spec = importlib.util.find_spec("obp")
    if spec is None or not spec.submodule_search_locations:
        if os.environ.get("CI") == "true":
            pytest.fail("obp 0.5.7 is missing in CI: .ci/run installs it")
        pytest.skip("obp 0.5.7 is not installed (.ci/run installs it)")
    root = Path(next(iter(spec.submodule_search_locations)))
    saved = {name: sys.modules.get(name) for name in (*_PACKAGES, "obp.utils", "torch")}
    try:
        sys.modules["torch"] = types.SimpleNamespace(tensor=object, Tensor=object)  # type: ignore[assignment]
        for name, folder in zip(_PACKAGES, (root, root / "ope"), strict=True):
            package = types.ModuleType(name)
            package.__path__ = [str(folder)]
            sys.modules[name] = package
        _load("obp.utils", root / "utils.py")
        return _load("obp.ope.estimators_slate", root / "ope" / "estimators_slate.py")
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def random_log(
    seed: int, n_slates: int, len_list: int, *, equal: bool = False, n_actions: int = 4
) -> pl.DataFrame:
    """A log of (slate, position) rows with every column obp's estimators read.

    Slates of 1 .. ``len_list`` rows (all ``len_list`` with ``equal``), rewards
    with zeros and ties, propensities down to 1e-6, evaluation propensities with
    zeros; ``q_hat`` and ``evaluation_policy_action_dist`` are lists over
    ``n_actions`` actions.
    """
    rng = np.random.default_rng(seed)
    lengths = np.full(n_slates, len_list) if equal else rng.integers(1, len_list + 1, n_slates)
    slate = np.repeat(np.arange(n_slates), lengths)
    position = np.concatenate([np.arange(m) for m in lengths])
    n = len(slate)

    def probabilities(zeros: bool) -> np.ndarray:
        values = rng.choice([1e-6, 0.01, 0.25, 0.5, 1.0, rng.random()], n) if zeros else None
        drawn = rng.uniform(1e-6, 1.0, n)
        drawn[rng.random(n) < 0.2] = 0.5  # ties
        if zeros:
            drawn = np.where(rng.random(n) < 0.5, drawn, values)
            drawn[rng.random(n) < 0.1] = 0.0
        return drawn

    logging, target = probabilities(False), probabilities(True)
    slate_logging = np.repeat(rng.uniform(1e-6, 1.0, n_slates), lengths)
    slate_target = np.repeat(rng.choice([0.0, 0.3, rng.random()], n_slates), lengths)
    reward = rng.choice([0.0, 0.0, 1.0, 1.0, 0.5, rng.random()], n)
    q_hat = rng.random((n, n_actions))
    dist = rng.dirichlet(np.ones(n_actions), n)
    return pl.DataFrame(
        {
            "slate_id": slate,
            "position": position,
            "action": rng.integers(0, n_actions, n),
            "reward": reward,
            "pscore": slate_logging,
            "evaluation_policy_pscore": slate_target,
            "pscore_item_position": logging,
            "evaluation_policy_pscore_item_position": target,
            "pscore_cascade": _cum(logging, slate),
            "evaluation_policy_pscore_cascade": _cum(target, slate),
            "q_hat": q_hat,
            "evaluation_policy_action_dist": dist,
        },
        schema_overrides={
            "q_hat": pl.List(pl.Float64),
            "evaluation_policy_action_dist": pl.List(pl.Float64),
        },
    )


def _cum(step: np.ndarray, slate: np.ndarray) -> np.ndarray:
    """The cumulative product of ``step`` along each slate."""
    out = step.copy()
    for i in range(1, len(out)):
        if slate[i] == slate[i - 1]:
            out[i] *= out[i - 1]
    return out


def _estimator(
    module: types.ModuleType, name: str, log: pl.DataFrame
) -> tuple[Any, dict[str, Any]]:
    """obp's estimator named ``name`` for ``log``, and the log's columns as its arrays."""
    arrays: dict[str, Any] = {c: log[c].to_numpy() for c in log.columns if c not in _LISTS}
    len_list = int(log["position"].max()) + 1  # type: ignore[arg-type]
    if name == "cascade-dr":
        n_actions = len(log["q_hat"][0])
        estimator = module.SlateCascadeDoublyRobust(len_list=len_list, n_unique_action=n_actions)
        for c in _LISTS:
            arrays[c] = np.concatenate(log[c].to_list()).astype(float)
        return estimator, arrays
    classes = {
        "sips": module.SlateStandardIPS,
        "iips": module.SlateIndependentIPS,
        "rips": module.SlateRewardInteractionIPS,
        "snsips": module.SelfNormalizedSlateStandardIPS,
        "sniips": module.SelfNormalizedSlateIndependentIPS,
        "snrips": module.SelfNormalizedSlateRewardInteractionIPS,
    }
    return classes[name](len_list=len_list), arrays


def obp_value(module: types.ModuleType, name: str, log: pl.DataFrame) -> float:
    """obp's ``estimate_policy_value`` of the estimator named ``name`` on ``log``."""
    estimator, arrays = _estimator(module, name, log)
    return float(estimator.estimate_policy_value(**arrays))


_LISTS = ("q_hat", "evaluation_policy_action_dist")


def obp_interval(
    module: types.ModuleType, name: str, log: pl.DataFrame, **options: Any
) -> dict[str, float]:
    """obp's ``estimate_interval`` of the estimator named ``name`` on ``log``."""
    estimator, arrays = _estimator(module, name, log)
    return dict(estimator.estimate_interval(**arrays, **options))
