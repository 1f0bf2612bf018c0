"""An evaluation of runs, without a store or a screen: what is asked (``options``: the
options, what to compute beside them), the campaign it is asked of (``campaign``: graded
judgments and run results as integer codes, from a database or files), the one engine that
answers (``engine.evaluate``) and what it answers (``result``), with the runs' means corrected
by an automatic judge (``corrected``), whether that judge learned anything
(``judge_quality``) and how far it agrees with the humans (``calibration``). The command
line, the window and the report all ask it through ``judge_app.commands.evaluate``."""
