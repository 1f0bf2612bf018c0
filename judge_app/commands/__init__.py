"""The application's use cases, one module each, shared by the command line and the window:
each takes one options type, checks it, does the work on the core (store, io, metrics,
agreement, reports) and returns what a front end shows. No Qt here; the front ends are thin
adapters that build the options from arguments or controls and show the result.

One calling shape: ``use_case(database, options) -> Result``. ``database`` is an open
``Database`` (the window's worker's own) or the path or URL of one, which the use case opens
as it needs it (read-only for a read; a file an import creates is removed again if it
fails); ``options`` is a frozen dataclass; hooks a front end listens with (``progress``,
``cancelled``, ``retrying``, ``step``) follow as keywords. The store only stores: the
deciding, checking and summing up are here.

- ``options``: the options of an evaluation, and the parsing and checking of names, k, numbers
- ``evaluate``: NDCG and its family from files or a database (``eval``, the evaluation page)
- ``explain``: one query's NDCG position by position (the drill-down)
- ``agree``: inter-annotator agreement (``agreement``, the agreement page)
- ``report``: the campaign report, HTML or PDF (``report``, File ▸ Export report…)
- ``autojudge``, ``autojudge_local``: an LLM judge, the local judge learned from the humans
- ``export``, ``importing``, ``assign``, ``info``, ``demo``, ``packets``, ``adjudicate``,
  ``gold``
"""
