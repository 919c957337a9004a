"""Measure-name resolution is one pipeline: a name goes down once, through each module once.

``polars_rankmetrics.measures.resolve`` offers a name to each dialect in turn
(trec_eval, ir_measures, ranx, the other tools); a dialect that does not claim
the name returns at once, and the one that does reads it, through the shared
grammar, into registry columns. The registry is where the walk ends (each
column is built there, so a name of several columns reaches it several times);
the statistic's parameter checks below it are not part of the name's walk.

Checked here, by tracing the calls with :func:`sys.setprofile` while one name
is resolved:

- no module of :mod:`polars_rankmetrics.measures` is entered twice: once the
  walk has left a module (no frame of it on the stack), it never comes back,
  and no module calls back into one that is still on the stack (a step back up);
- nothing is called in :mod:`polars_rankmetrics.measures` while the registry
  builds a column (the registry never calls back into a dialect);

and, statically, that the dialects import only the grammar and the registry.
ir_measures' measure objects (``ir_measures.nDCG@10``) resolve as their names do.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.measures import parse_measures
from polars_rankmetrics.measures.objects import ir_measures_name
from tests.test_architecture import PACKAGE, import_graph
from tests.test_peer_names import assert_per_query, collection, ir_measures_run

LAYER = "polars_rankmetrics.measures"
REGISTRY = "polars_rankmetrics.measures.registry"
DIALECTS = ("trec_names", "ir_names", "ranx_names", "peer_names", "objects")

NAMES = [
    "AP(rel=2)",  # ir_measures, after trec_eval declined it
    "ndcg@10",  # ranx, after trec_eval and ir_measures declined it
    "nDCG(dcg='exp-log2')@10",
    "P.5,10",  # trec_eval, two columns
    "P_10",
    "ndcg_cut_20,4",  # pytrec_eval's spelling of trec_eval's
    "official",  # a trec_eval nickname
    "map-l2",
    "rbp.95",  # ranx's, before trec_eval's rbp
    "alpha-nDCG@20",  # ndeval
    "INST-T=1.0",  # cwl_eval
    "roc_auc",  # scikit-learn
    "retrieval_fall_out@10",  # torchmetrics
    "nERR@10",  # NTCIREVAL
]


def walk(resolve: Any) -> list[str]:
    """The modules of the measures layer entered while ``resolve()`` runs; fails on a bounce."""
    stack: list[str] = []
    entered: list[str] = []
    problems: list[str] = []

    def profile(frame: FrameType, event: str, _: object) -> None:
        if event == "call":
            module = str(frame.f_globals.get("__name__", ""))
            here = next((m for m in reversed(stack) if m), None)
            tracked = module == LAYER or module.startswith(LAYER + ".")
            if tracked and module != here:
                if REGISTRY in stack:
                    problems.append(f"the registry calls back into {module}")
                elif module in stack:
                    problems.append(f"{here} calls back up into {module}")
                elif module in entered and module != REGISTRY:
                    problems.append(f"{module} is entered again (after {entered})")
                if not entered or entered[-1] != module:
                    entered.append(module)
            stack.append(module if tracked else "")
        elif event == "return":
            stack.pop()

    sys.setprofile(profile)
    try:
        resolve()
    finally:
        sys.setprofile(None)
    assert not problems, problems
    return entered


@pytest.mark.parametrize("name", NAMES)
def test_a_name_passes_through_each_module_once(name: str) -> None:
    entered = walk(lambda: parse_measures(name))
    assert entered[0] == f"{LAYER}.resolve"
    assert entered[-1] == REGISTRY or REGISTRY in entered


def test_the_walk_of_a_name_is_the_pipeline() -> None:
    short = [m.removeprefix(LAYER + ".") for m in walk(lambda: parse_measures("AP(rel=2)"))]
    assert short == ["resolve", "trec_names", "ir_names", "grammar", "registry"]
    short = [m.removeprefix(LAYER + ".") for m in walk(lambda: parse_measures("ndcg@10"))]
    assert short == ["resolve", "trec_names", "ir_names", "ranx_names", "grammar", "registry"]


def test_the_walk_fails_on_a_bounce() -> None:
    """The tracer is not blind: a dialect that calls another one is caught."""
    from polars_rankmetrics.measures import ir_names, trec_names

    def bouncing() -> None:
        trec_names.parse_trec_name("AP")
        ir_names.parse_ir_measures_name("AP")
        trec_names.parse_trec_name("map")

    with pytest.raises(AssertionError, match="trec_names is entered again"):
        walk(bouncing)


def test_the_dialects_import_only_the_grammar_and_the_registry() -> None:
    graph = import_graph(PACKAGE)
    lower = {f"{LAYER}.grammar", REGISTRY}
    for dialect in DIALECTS:
        imported = {m for m in graph[f"{LAYER}.{dialect}"] if m.startswith(LAYER)}
        assert imported <= lower, (dialect, imported)
    assert not {m for m in graph[f"{LAYER}.grammar"] if m.startswith(LAYER)} - {REGISTRY}
    assert not {m for m in graph[REGISTRY] if m.startswith(LAYER)}


# ------------------------------------------------------------ measure objects

ir_measures = pytest.importorskip("ir_measures")

OBJECTS = [
    ir_measures.nDCG @ 10,
    ir_measures.AP(rel=2),
    ir_measures.AP(rel=2) @ 10,
    ir_measures.P @ 5,
    ir_measures.nDCG(dcg="exp-log2") @ 10,
    ir_measures.nDCG(judged_only=True) @ 10,
    ir_measures.SetP(relative=True),
    ir_measures.RR,
    ir_measures.RR @ 10,
    ir_measures.R @ 100,
    ir_measures.Judged @ 10,
    ir_measures.Bpref,
    ir_measures.NumRet(rel=1),
]


@pytest.mark.parametrize("measure", OBJECTS, ids=str)
def test_an_ir_measures_object_is_its_name(measure: Any) -> None:
    assert ir_measures_name(measure) == str(measure)
    from_object = parse_measures(measure)
    from_name = parse_measures(str(measure))
    assert from_object == from_name
    walk(lambda: parse_measures(measure))


def test_other_objects_are_refused() -> None:
    assert ir_measures_name("nDCG@10") is None
    assert ir_measures_name(ir_measures.Qrel("q", "d", 1)) is None
    with pytest.raises(ValueError, match="a measure name must be a string"):
        parse_measures(10)
    with pytest.raises(ValueError, match="unknown measure 'SDCG@10'"):
        parse_measures(ir_measures.SDCG @ 10)


def test_objects_give_ir_measures_numbers() -> None:
    """An object in evaluate() gives ir_measures' own per-query values for that object."""
    qrels, run = collection(1)
    names = [str(measure) for measure in OBJECTS]
    ours = rm.evaluate(qrels, run, OBJECTS)
    theirs, _ = ir_measures_run(names, qrels, run)
    gdeval = [name for name in names if "exp-log2" in name]
    assert_per_query(ours.per_query, theirs, [n for n in names if n not in gdeval], 1e-9)
    assert_per_query(ours.per_query, theirs, gdeval, 6e-6)  # gdeval prints %.5f
