import time, polars as pl
d='/tmp/bench_recsys/'
train = pl.read_parquet(d+'train.parquet').lazy()
def t(name, q):
    s=time.time(); r=q.collect(); print(name, round(time.time()-s,3), r.height)
for _ in range(2):
    t('nunique', train.group_by('item').agg(pl.col('user').n_unique(), pl.len()))
    t('len', train.group_by('item').agg(pl.len()))
    t('two-level', train.group_by('item','user').agg(pl.len().alias('n')).group_by('item').agg(pl.len(), pl.col('n').sum()))
    key = (pl.col('item').cast(pl.UInt64) * (1<<32) + pl.col('user').cast(pl.UInt64))
    t('packed', train.select(key.unique().alias('k')).select((pl.col('k') // (1<<32)).alias('item')).group_by('item').agg(pl.len()))
    t('users', train.select(pl.col('user').n_unique()))
    t('sorted', train.sort('item','user').group_by('item').agg(pl.col('user').n_unique(), pl.len()))
