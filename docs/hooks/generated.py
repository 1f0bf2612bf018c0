"""MkDocs hook: the parts of the user guide that are generated from the code when it is built,
so that they cannot fall behind it.

A page asks for one with an HTML comment alone on its line, which is replaced by Markdown:

- ``<!-- generated: command NAME [ACTION] -->``: ``judge-app NAME [ACTION]``'s usage, its
  description and a table of its arguments, read from the argparse parser of
  ``judge_app/cli.py`` (``trec-eval``: its own ``-h`` text, as it has its own command line);
- ``<!-- generated: commands -->``: every command with its one-line help, linked to its section;
- ``<!-- generated: judging-keys -->``: the judging screen's key maps (``judging/keys.py``);
- ``<!-- generated: skip-reasons -->``: the preset reasons of a skip;
- ``<!-- generated: measure-names -->``: the measure names ``--measure`` takes
  (``metrics/measure_names.py``);
- ``<!-- generated: layers -->``, ``<!-- generated: contracts -->``: the import contracts of
  ``pyproject.toml``'s ``[tool.importlinter]``.

An unknown marker, and a command of the parser that ``commands.md`` does not show, are
warnings, which ``mkdocs build --strict`` (tests/test_docs.py) turns into a failed build.
"""

from __future__ import annotations

import argparse
import logging
import re
from typing import Any

log = logging.getLogger("mkdocs.hooks.generated")

MARKER = re.compile(r"^<!-- generated: (?P<what>[\w-]+)(?P<args>(?: [\w-]+)*) -->$", re.M)
COMMANDS_PAGE = "commands.md"
WIDTH = 88  # usage lines wrapped as on a terminal of this width, whatever the builder's
KEYMAP_COLUMNS = ("standard", "home-row", "numpad")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """The page with its markers replaced; warns of what is unknown or missing."""
    rendered, shown = render(markdown, page.file.src_uri)
    if page.file.src_uri == COMMANDS_PAGE:
        for name in sorted(set(command_names()) - shown):
            log.warning(f"{COMMANDS_PAGE}: judge-app {name} has no <!-- generated: command -->")
    return rendered


def render(markdown: str, where: str = "a page") -> tuple[str, set[str]]:
    """``markdown`` with every marker replaced, and the commands it showed."""
    shown: set[str] = set()

    def replaced(match: re.Match[str]) -> str:
        what, args = match["what"], match["args"].split()
        if what == "command" and args:
            text = command_section(args)
            if text is not None:
                shown.add(" ".join(args))
                return text
        elif what in SIMPLE and not args:
            return SIMPLE[what]()
        log.warning(f"{where}: unknown marker {match[0]!r}")
        return match[0]

    return MARKER.sub(replaced, markdown), shown


# commands ---------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    from judge_app.cli import _parser as cli_parser

    return cli_parser()


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    return next(
        (a for a in parser._actions if isinstance(a, argparse._SubParsersAction)),
        None,
    )


def command_names() -> list[str]:
    """Every command and action of ``judge-app``: ``eval``, ``packet export`` …"""
    names = []
    commands = _subcommands(_parser())
    assert commands is not None
    for name, parser in commands.choices.items():
        actions = _subcommands(parser)
        if actions is None:
            names.append(name)
        else:
            names.extend(f"{name} {action}" for action in actions.choices)
    return names


def _find(words: list[str]) -> argparse.ArgumentParser | None:
    parser: argparse.ArgumentParser | None = _parser()
    for word in words:
        commands = _subcommands(parser) if parser is not None else None
        parser = None if commands is None else commands.choices.get(word)
    return parser


def command_section(words: list[str]) -> str | None:
    """Usage, description and arguments of ``judge-app WORDS``; None if there is none."""
    if words == ["trec-eval"]:
        from judge_app.commands.trec_eval import options_from_arguments

        return _fenced(str(options_from_arguments(["-h"])))
    parser = _find(words)
    if parser is None:
        return None
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=WIDTH)
    parts = [_fenced(parser.format_usage())]
    if parser.description:
        parts.append(_escaped(parser.description))
    subcommands = _subcommands(parser)
    if subcommands is not None:  # packet, team: their actions, each shown on its own
        rows = [f"| `{a.dest}` | {_escaped(a.help or '')} |" for a in subcommands._choices_actions]
        parts.append("| action | what it does |\n|---|---|\n" + "\n".join(rows))
        return "\n\n".join(parts)
    formatter = parser._get_formatter()
    for title, arguments in _groups(parser):
        rows = [_row(argument, formatter) for argument in arguments]
        parts.append(f"**{title}**\n\n| argument | what it is |\n|---|---|\n" + "\n".join(rows))
    for group in parser._mutually_exclusive_groups:
        options = ", ".join(f"`{action.option_strings[0]}`" for action in group._group_actions)
        how = "exactly one" if group.required else "at most one"
        parts.append(f"Of {options}: {how}.")
    return "\n\n".join(parts)


def _groups(parser: argparse.ArgumentParser) -> list[tuple[str, list[argparse.Action]]]:
    """The argument groups with their arguments, groups of one title as one, without -h."""
    titles = {"positional arguments": "Arguments", "options": "Options"}
    groups: dict[str, list[argparse.Action]] = {}
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if not isinstance(a, argparse._HelpAction)]
        if actions:
            title = titles.get(group.title or "", (group.title or "").capitalize())
            groups.setdefault(title, []).extend(actions)
    return list(groups.items())


def _row(action: argparse.Action, formatter: argparse.HelpFormatter) -> str:
    """An argument as its help's left column, and what its help says (with its choices
    where the metavar hides them, its default where the help does not say it)."""
    names = formatter._format_action_invocation(action)
    said = _escaped(formatter._expand_help(action) if action.help else "")
    extra = []
    if action.required and action.option_strings:
        extra.append("required")
    if action.choices is not None and action.metavar is not None:
        extra.append("one of " + ", ".join(f"`{choice}`" for choice in action.choices))
    shown_default = action.default not in (None, False, argparse.SUPPRESS, [])
    helped = action.help or ""
    if shown_default and "default" not in helped and str(action.default) not in helped:
        extra.append(f"default `{action.default}`")
    if action.nargs == "?" and not action.option_strings:
        extra.append("optional")
    if extra:
        said = f"{said} ({'; '.join(extra)})" if said else "; ".join(extra).capitalize()
    return f"| `{names}` | {said or '–'} |"


def commands_table() -> str:
    """Every command, its one-line help and a link to its section."""
    commands = _subcommands(_parser())
    assert commands is not None
    rows = [
        f"| [`{choice.dest}`](#judge-app-{choice.dest}) | {_escaped(choice.help or '')} |"
        for choice in commands._choices_actions
    ]
    return "| command | what it does |\n|---|---|\n" + "\n".join(rows)


# keys and names ---------------------------------------------------------------------------------


def judging_keys() -> str:
    """A row per action of the judging screen, its keys in each key map."""
    from judge_app.judging.keys import ACTIONS, KEYMAP_TITLES, KEYMAPS, key_label, keys_of

    head = " | ".join(KEYMAP_TITLES[name] for name in KEYMAP_COLUMNS)
    lines = [f"| what | {head} |", "|---|" + "---|" * len(KEYMAP_COLUMNS)]
    for action in ACTIONS.values():
        cells = [
            ", ".join(
                dict.fromkeys(f"`{key_label(key)}`" for key in keys_of(KEYMAPS[name], action.name))
            )
            or "–"
            for name in KEYMAP_COLUMNS
        ]
        lines.append(f"| {_escaped(action.title)} | {' | '.join(cells)} |")
    return "\n".join(lines)


def skip_reasons() -> str:
    from judge_app.judging.keys import SKIP_REASONS

    return "\n".join(
        f"{number}. `Alt+{number}`: {reason}" for number, reason in enumerate(SKIP_REASONS, 1)
    )


def layers() -> str:
    """The layers of ``[tool.importlinter]`` in ``pyproject.toml``, top first."""
    contracts = _import_contracts()
    stack = next(c for c in contracts if c["type"] == "layers")["layers"]
    rows = [
        f"| {number} | {', '.join(f'`{name.strip()}`' for name in layer.split('|'))} |"
        for number, layer in enumerate(stack, start=1)
    ]
    return "| layer | packages and modules |\n|---|---|\n" + "\n".join(rows)


def contracts() -> str:
    """Every import contract of ``pyproject.toml`` but the layers, by its name."""
    return "\n".join(
        f"- **{contract['name']}** (`{contract['id']}`)"
        for contract in _import_contracts()
        if contract["type"] != "layers"
    )


def _import_contracts() -> list[dict[str, Any]]:
    import tomllib
    from pathlib import Path

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    return tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def measure_names() -> str:
    from judge_app.metrics.measure_names import names_table

    return names_table().rstrip("\n")


SIMPLE = {
    "commands": commands_table,
    "judging-keys": judging_keys,
    "skip-reasons": skip_reasons,
    "measure-names": measure_names,
    "layers": layers,
    "contracts": contracts,
}


# Markdown ---------------------------------------------------------------------------------------


def _fenced(text: str) -> str:
    return "```text\n" + text.rstrip("\n") + "\n```"


def _escaped(text: str) -> str:
    """Plain text as Markdown that shows it as it is (one line: a table cell, a paragraph)."""
    text = " ".join(text.split())
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)
