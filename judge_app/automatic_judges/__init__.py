"""Automatic judges: a prompt and its parsing (``prompt``), a chat-completions client
(``llm``), a model learned from the campaign's human grades (``local``, ``local_model``,
``features``, ``embeddings``). No Qt: the ``autojudge`` use case runs them."""
