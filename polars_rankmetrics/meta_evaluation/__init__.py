"""Meta-evaluation: how rankings, judges, reproductions and predictors agree.

- :mod:`.rbo`: rank-biased overlap per query (pure polars).
- :mod:`.correlation`: Kendall's tau-a/tau-b, Spearman, Pearson, tau_AP, sMARE.
- :mod:`.agreement`: Cohen's and Fleiss' kappa, Krippendorff's alpha, and the
  "qrels A vs qrels B" report.
- :mod:`.systems`: system orderings under two qrels or two measures, QPP
  evaluation, discriminative power and swap rate.
- :mod:`.reproducibility`: repro_eval's measures (KTU, RBO, RMSE, nRMSE, ER,
  DeltaRI, t-tests).
- :mod:`.topic_set_size`: Sakai's topic set size design (paired t-test, one-way
  ANOVA, confidence interval width) and the variances it needs.

Every module but :mod:`.rbo` needs numpy and scipy (the ``stats`` extra), so
they are loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from polars_rankmetrics.meta_evaluation.rbo import ranked_lists, rbo, rbo_runs

_LAZY = {
    "average_ranks": "correlation",
    "kendall_tau": "correlation",
    "pearson": "correlation",
    "smare": "correlation",
    "spearman": "correlation",
    "tau_ap": "correlation",
    "cohen_kappa": "agreement",
    "confusion_matrix": "agreement",
    "compare_qrels": "agreement",
    "fleiss_kappa": "agreement",
    "krippendorff_alpha": "agreement",
    "label_pairs": "agreement",
    "per_query_agreement": "agreement",
    "QrelsAgreement": "agreement",
    "discriminative_power": "systems",
    "swap_rate": "systems",
    "Discrimination": "systems",
    "qpp_evaluation": "systems",
    "ranking_agreement": "systems",
    "system_scores": "systems",
    "topic_set_size_anova": "topic_set_size",
    "topic_set_size_ci": "topic_set_size",
    "topic_set_size_t": "topic_set_size",
    "topic_set_variance": "topic_set_size",
    "REPRO_MEASURES": "reproducibility",
    "ktu": "reproducibility",
    "rbo_truncated": "reproducibility",
    "reproduce": "reproducibility",
    "Reproduction": "reproducibility",
}


def __getattr__(name: str) -> Any:
    """Import the numpy/scipy modules on first access."""
    if name in _LAZY:
        module = importlib.import_module(f"polars_rankmetrics.meta_evaluation.{_LAZY[name]}")
        return getattr(module, name)
    msg = f"module 'polars_rankmetrics.meta_evaluation' has no attribute {name!r}"
    raise AttributeError(msg)


__all__ = ["ranked_lists", "rbo", "rbo_runs", *_LAZY]
