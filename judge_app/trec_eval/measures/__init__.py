"""trec_eval's measures, one module per family; each family's docstring says what its
functions compute and how. The table of measures (names, parameters, summaries, in
trec_eval's order) is ``judge_app.trec_eval.catalog``: a new family adds a module here and
its rows there."""
