import time, polars as pl
import polars_rankmetrics as rm
from polars_rankmetrics.recsys import frames
from benchmarks.bench_recsys import METRICS
d='/tmp/bench_recsys/'
for i in range(2):
    t=time.time(); r=rm.recsys.evaluate(d+'reco.parquet', metrics=METRICS, interactions=d+'test.parquet', train=d+'train.parquet'); print('evaluate', round(time.time()-t,3))
t=time.time(); frames.check_reco(frames.recommendations(d+'reco.parquet')); print('check', round(time.time()-t,3))
t=time.time(); pl.collect_all([frames.item_popularity(d+'train.parquet'), frames.train_totals(d+'train.parquet')]); print('pop+totals', round(time.time()-t,3))
t=time.time(); pl.scan_parquet(d+'test.parquet').unique().collect(); print('test', round(time.time()-t,3))
t=time.time(); f=frames.judged(frames.recommendations(d+'reco.parquet'), pl.scan_parquet(d+'test.parquet').unique()).collect(); print('judged', round(time.time()-t,3))
