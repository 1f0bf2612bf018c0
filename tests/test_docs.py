"""The user guide and the README hold true: the guide builds with ``mkdocs build --strict``
(a warning fails it), every page is in its nav, and every shell example of the guide and the
README runs and prints what it shows.

Shell examples are ``console`` blocks: a line ``$ command`` (continued by a trailing ``\\``)
is run, the lines after it are its output. Each page's examples run in order, in one shell,
in a fresh folder holding the demo database ``demo.sqlite`` and links to the checkout's
``resources/``, ``docs/`` and ``mkdocs.yml``, with ``judge-app`` and ``python`` the
environment's own. A command must exit with 0, and the output shown must be printed: its
lines as they are (trailing spaces aside), ``...`` standing for lines left out. A block
that must not run (it opens the window, installs packages or needs a server) says why on the
line before it: ``<!-- no-run: REASON -->``; those are reported as skipped with their
reason. Other shell blocks (``sh``, ``bash``) are refused, so that no example escapes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from paths import ROOT

DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
ENVIRONMENT = Path(sys.executable).parent
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)\s*$")
NO_RUN = re.compile(r"^<!-- no-run: (?P<reason>.+?) -->$")
SHELLS = {"sh", "bash", "shell", "zsh"}
GAP = "..."


@dataclass
class Command:
    text: str
    output: list[str] = field(default_factory=list)


@dataclass
class Block:
    page: Path
    line: int
    commands: list[Command]
    no_run: str | None

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    """The page's console blocks, in order; a shell block of another tag fails the test."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks = []
    number = 0
    while number < len(lines):
        opened = FENCE.match(lines[number])
        if not opened:
            number += 1
            continue
        start, indent = number, len(opened["indent"])
        number += 1
        body = []
        while number < len(lines) and not FENCE.match(lines[number]):
            body.append(lines[number][indent:])
            number += 1
        number += 1
        language = opened["lang"]
        assert language not in SHELLS, (
            f"{page.name}:{start + 1}: a shell example is a ```console block of $ lines"
        )
        if language != "console":
            continue
        above = lines[start - 1].strip() if start else ""
        no_run = NO_RUN.match(above)
        blocks.append(Block(page, start + 1, commands_of(body), no_run and no_run["reason"]))
    return blocks


def commands_of(body: list[str]) -> list[Command]:
    commands: list[Command] = []
    continued = False
    for line in body:
        if continued:
            commands[-1].text += "\n" + line
        elif line.startswith("$ "):
            commands.append(Command(line[2:]))
        else:
            assert commands, f"output before any command: {line!r}"
            commands[-1].output.append(line.rstrip())
        continued = line.endswith("\\") and (continued or line.startswith("$ "))
    return commands


def shows(output: list[str], printed: list[str]) -> bool:
    """Whether ``printed`` holds the lines shown, each run between ``...`` in one piece."""
    pieces: list[list[str]] = [[]]
    for line in output:
        if line == GAP:
            pieces.append([])
        else:
            pieces[-1].append(line)
    at = 0
    for piece in pieces:
        if not piece:
            continue
        found = next(
            (
                start
                for start in range(at, len(printed) - len(piece) + 1)
                if printed[start : start + len(piece)] == piece
            ),
            None,
        )
        if found is None:
            return False
        at = found + len(piece)
    return True


ALL_BLOCKS = [block for page in PAGES for block in blocks_of(page)]


@pytest.fixture(scope="module")
def demo_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo campaign, built once with the environment's ``judge-app demo``."""
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    built = subprocess.run(
        [str(ENVIRONMENT / "judge-app"), "demo", str(path)], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stderr
    return path


def run_examples(blocks: list[Block], folder: Path, demo: Path) -> list[tuple[Command, Path]]:
    """Run the blocks' commands in order in one shell in ``folder`` (stopping at the first
    that fails); each command with the folder of its output, stdout, stderr and exit code."""
    work = folder / "work"
    work.mkdir()
    shutil.copy(demo, work / "demo.sqlite")
    for name in ("resources", "docs", "mkdocs.yml"):
        (work / name).symlink_to(ROOT / name)
    script = ["set -u"]
    ran = []
    for block in blocks:
        for command in block.commands:
            out = folder / f"out{len(ran)}"
            out.mkdir()
            script += [
                f"{{ {command.text}",
                f'}} >"{out}/stdout" 2>"{out}/stderr" </dev/null',
                f'echo $? >"{out}/rc"',
                f'[ "$(cat "{out}/rc")" = 0 ] || exit 0',
            ]
            ran.append((command, out))
    env = {
        **os.environ,
        "PATH": f"{ENVIRONMENT}{os.pathsep}{os.environ.get('PATH', '')}",
        "JUDGE_APP_SETTINGS": str(folder / "settings.ini"),
        "QT_QPA_PLATFORM": "offscreen",
    }
    env.pop("JUDGE_APP_PASSWORD", None)
    # a command that waits for ever (the window, unmarked) fails the test instead of hanging it
    subprocess.run(["bash", "-c", "\n".join(script)], cwd=work, env=env, check=True, timeout=300)
    return ran


RUN = [page for page in PAGES if any(block.no_run is None for block in blocks_of(page))]


@pytest.mark.slow
@pytest.mark.parametrize("page", RUN, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_shell_example_runs_and_prints_what_it_shows(page, demo_database, tmp_path):
    blocks = [block for block in blocks_of(page) if block.no_run is None]
    for command, out in run_examples(blocks, tmp_path, demo_database):
        printed = (out / "stdout").read_text() if (out / "stdout").exists() else ""
        said = (out / "stderr").read_text() if (out / "stderr").exists() else ""
        rc = (out / "rc").read_text().strip() if (out / "rc").exists() else "not run"
        where = f"{page.name}: $ {command.text}"
        assert rc == "0", f"{where}\nexit {rc}\n{printed}{said}"
        lines = [line.rstrip() for line in (printed + said).splitlines()]
        assert shows(command.output, lines), (
            f"{where}\nshows:\n" + "\n".join(command.output) + "\nprinted:\n" + printed + said
        )


def test_examples_not_run_say_why_and_are_few():
    """An example is left out only for a reason it gives (an install, the window, a server
    this suite has no account on), and most run."""
    left_out = [block for block in ALL_BLOCKS if block.no_run is not None]
    for block in left_out:
        assert block.commands and block.no_run.strip(), block.where
    assert len(left_out) * 2 < len(ALL_BLOCKS)


def test_shell_examples_are_commands():
    assert ALL_BLOCKS
    for block in ALL_BLOCKS:
        assert block.commands and all(command.text.strip() for command in block.commands)


def test_the_guide_builds_without_a_warning(tmp_path):
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    for page in DOCS.glob("*.md"):
        assert (tmp_path / page.with_suffix(".html").name).is_file()
    shown = (tmp_path / "commands.html").read_text(encoding="utf-8")
    assert "usage: judge-app eval" in shown and "<!-- generated" not in shown


def nav_pages(entries: list) -> list[str]:
    pages = []
    for entry in entries:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            pages.extend(nav_pages(value) if isinstance(value, list) else [value])
    return pages


def test_every_page_is_in_the_nav_and_every_entry_is_a_page():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = nav_pages(config["nav"])
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(page.name for page in DOCS.glob("*.md"))


def test_the_readme_gives_the_test_command_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    command = ci[ci.index("# The README's test command:") + 1]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"$ {command}\n" in readme


def test_the_readme_links_to_files_that_exist():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [target for target in targets if "://" not in target]
    assert local
    for target in local:
        assert (ROOT / target).exists(), target
