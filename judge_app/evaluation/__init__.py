"""An evaluation of runs, without a store or a screen: what is asked (``options``: the
options, what to compute beside them), the campaign it is asked of (``campaign``: graded
judgments and run results as integer codes, from a database or files), the one engine that
answers (``engine.evaluate``) and what it answers (``result``), with the runs' means corrected
by an automatic judge (``corrected``). The command line, the window and the report all ask it
through ``judge_app.commands.evaluate``."""
