"""What every ``rankmetrics`` subcommand shares: one defaults table, one set of options, one reader.

- :mod:`.defaults`: the table of the shared options (``--queries``,
  ``-M/--depth``, ``-o/--output``, ``--quiet``) and each subcommand's default
  for each, or why it refuses one. ``docs/guide/cli.md`` lists it, and a test
  builds the subcommand × option matrix from it.
- :mod:`.options`: the options added to a subcommand's parser from that
  table, the ``--help`` formatter that shows every default, and the one-line
  errors.
- :mod:`.reading`: qrels and runs read alike by every subcommand (TREC files
  with or without a header line, ``.gz``, parquet, ``-``), runs named by their
  run id and cut to a depth.
"""
