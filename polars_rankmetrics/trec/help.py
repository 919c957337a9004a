"""The help of ``rankmetrics trec-eval -h``: trec_eval's flags, and every measure it knows."""

from __future__ import annotations

from polars_rankmetrics.measures.registry import BY_KEY
from polars_rankmetrics.measures.trec_names import (
    FAMILIES,
    NICKNAMES,
    PREFERENCE_MEASURES,
    PREFERENCE_NICKNAMES,
)

FLAGS = """\
rankmetrics trec-eval [options] trec_rel_file trec_top_file

trec_eval 10's command line: the same flags, output bytes and exit statuses.
Options and files may come in any order; short flags combine (-qc), values may
be attached (-l2, -mmap) and long options abbreviated (--query).

  -h, --help                     this help (with -m: still the whole list below)
  -v, --version                  print the version on standard error, exit 0
  -q, --query_eval_wanted        also print each query's values
  -m, --measure NAME[.PARAMS]    compute NAME (repeatable); default: official
  -c, --complete_rel_info_wanted average over every qrels query: a query missing
                                 from the run is scored against one placeholder
                                 document (without -c it stops with status 4)
  -l, --level_for_rel N          the lowest relevant level (default 1; below 0 not
                                 supported); gain measures (ndcg, G, rbp...) do
                                 not use it
  -n, --nosummary                no summary lines
  -D, --Debug_level N[.QID]      evaluate only query QID; trec_eval's debug
                                 traces (N > 0) are not printed
  -J, --Judged_docs_only         drop unjudged documents after -M
  -N, --Number_docs_in_coll N    collection size, for utility (default 0)
  -M, --Max_retrieved_per_topic N
                                 evaluate only the top N documents of a query
                                 (default: every document); also --depth N
                                 (the whole word only), as every subcommand
  -R, --Rel_info_format FORMAT   qrels (default) or qrels_jg (judgement groups);
                                 prefs and qrels_prefs are not supported
  -T, --Results_format FORMAT    trec_results (the only one)
  -o                             obsolete, changes nothing (as in trec_eval)
  -Z, --Zscore FILE              print z-scores against FILE's 'query measure
                                 mean stddev' lines
  --output FILE                  write to FILE (atomically), not standard output
                                 (the default; -o is trec_eval's obsolete flag);
                                 the format follows its extension unless --format:
                                 .json, .csv, .parquet, else trec_eval's text
  --format trec|json|csv|parquet trec_eval's text (default), or a table; parquet
                                 to a terminal is refused (status 2)
  --queries RULE                 which queries are averaged, as rankmetrics
                                 compare and evaluate(queries=) take it (the whole
                                 word only): trec_eval (default: a qrels query
                                 missing from the run stops with status 4), qrels
                                 (-c), relevant (qrels queries with a relevant
                                 document, missing ones scored as -c), run (the
                                 run's judged queries)
  --quiet                        no progress bar (default: off; the whole word
                                 only: --q and --qu stay --query_eval_wanted)

A progress bar appears on standard error when it is a terminal and the work
lasts over a second; standard output never changes.

Inputs: a run file may be '-' (standard input), a named pipe or <(zcat run.gz),
a gzip file or a parquet file (query, doc, score[, run_id]); qrels may be gzip
or parquet (query, doc, relevance). trec_eval itself refuses all but '-'.

Exit status: 0 done; 1 bad command line or measure name; 2 unreadable or
malformed file, bad parameters; 4 a measure cannot be computed (a qrels query
missing from the run without -c, a document listed twice in an evaluated
query); 7 no query evaluated; 255 a bad -Z file.

Measures (-m NAME, or NAME.PARAMS, e.g. P.5,10  ndcg.1=3,2=9  rbp.p=0.8):
"""


def help_text() -> str:
    """The help: the flags, the nicknames and one line per measure."""
    lines = [FLAGS]
    for family in FAMILIES:
        if family.key is None:
            meaning = "the run id (summary only)"
        else:
            meaning = BY_KEY[family.key].description
            if family.name.endswith("_avgjg"):
                meaning = f"with -R qrels_jg: the mean over judgement groups of {meaning}"
        params = f" (default {family.default})" if family.default else ""
        lines.append(f"  {family.name:<22}{meaning}{params}\n")
    lines.append("\nNicknames:\n")
    for nickname, members in {**NICKNAMES, **PREFERENCE_NICKNAMES}.items():
        lines.append(f"  {nickname:<22}{' '.join(members)}\n")
    lines.append(
        f"\nNot supported (preference judgements, -R prefs): {', '.join(PREFERENCE_MEASURES)}.\n"
        "Other tools' names also work: nDCG@10, AP@100, P(rel=2)@5, RR, ...\n"
    )
    return "".join(lines)
