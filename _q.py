import time, polars as pl
from polars_rankmetrics import recsys
from polars_rankmetrics.recsys import frames
d='/tmp/bench_recsys/'
reco = frames.recommendations(d+'reco.parquet').collect().lazy()
test = frames.interactions_table(d+'test.parquet','i').collect().lazy()
m = test.join(reco, on=['user','item'], how='left').with_columns(pl.lit(True).alias('relevant')).collect().lazy()
def t(name, e):
    best=9
    for _ in range(3):
        c=time.process_time(); m.group_by('user').agg(e).collect(); best=min(best,time.process_time()-c)
    print(f"{name:10s} {best:.3f}")
rank=pl.col('rank'); rel=pl.col('relevant')
t('len', pl.len())
t('prec', recsys.precision_at_k(10))
t('recall', recsys.recall_at_k(10))
t('ndcg', recsys.ndcg_at_k(10))
t('map', recsys.map_at_k(10))
t('mrr', recsys.mrr_at_k(10))
t('hit', recsys.hit_rate_at_k(10))
t('mrr-when', pl.when(rel & (rank<=10)).then(rank).min())
t('ndcg-when', pl.when(rel & (rank<=10)).then(1/(rank.cast(pl.Float64)+1).log(2)).otherwise(0.0).sum())
t('hits', (rel & (rank<=10)).sum())
t('relsum', rel.sum())
