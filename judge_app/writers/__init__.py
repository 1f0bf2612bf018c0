"""What the core computed, as text for people and machines: tables, sentences, CSV, JSON,
LaTeX and Markdown. The core returns data; every format of it is written here, once, and the
command line, the window and the report take their words from the same functions."""
