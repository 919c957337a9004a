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

A new subcommand adds its row to :data:`.defaults.DEFAULTS` (the test of the
matrix fails until it does), calls :func:`.options.add_shared_options` with its
name and :func:`.options.remember_defaults` on its parser (so that
:func:`.options.refuse_unused` can refuse its options where they change
nothing), uses :class:`.options.DefaultsFormatter`, and reads its inputs with
:mod:`.reading`.
"""
