"""Automatic judges: a prompt and its parsing (``prompt``), a chat-completions client
(``llm``). No Qt, no SQL: the ``autojudge`` use case reads the pairs and writes the grades."""
