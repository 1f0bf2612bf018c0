"""The window's modules form no import cycle: a dialog or a page is given the workspace, never
the main window, so none of them imports the module that imports it. Imports read only by
type checkers (under ``if TYPE_CHECKING:``) and inside functions count too: a cycle hidden
there is still a cycle of the design."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import judge_app.gui

PACKAGE = "judge_app.gui"


def gui_modules() -> dict[str, Path]:
    """Every module of judge_app.gui (the package itself too) and its source file."""
    folder = Path(judge_app.gui.__file__).parent
    modules = {PACKAGE: folder / "__init__.py"}
    for info in pkgutil.iter_modules(judge_app.gui.__path__):
        modules[f"{PACKAGE}.{info.name}"] = folder / f"{info.name}.py"
    return modules


def imported(node: ast.AST, modules: dict[str, Path]) -> set[str]:
    """The modules of ``modules`` an import statement names. ``from judge_app.gui import x``
    names the module ``x`` when there is one, else the package."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    if not isinstance(node, ast.ImportFrom) or node.level or node.module is None:
        return set()
    found = set()
    for alias in node.names:
        submodule = f"{node.module}.{alias.name}"
        if submodule in modules:
            found.add(submodule)
        elif node.module in modules:
            found.add(node.module)
    return found


def import_graph() -> dict[str, set[str]]:
    """Each gui module and the gui modules its source imports, anywhere in it."""
    modules = gui_modules()
    return {
        name: {
            target
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            for target in imported(node, modules)
        }
        - {name}
        for name, path in modules.items()
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` (its modules in import order, the first again last), or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        if name in path:
            return path[path.index(name) :] + [name]
        if name in done:
            return None
        path.append(name)
        for target in sorted(graph.get(name, ())):
            if cycle := visit(target):
                return cycle
        path.pop()
        done.add(name)
        return None

    for name in sorted(graph):
        if cycle := visit(name):
            return cycle
    return None


def test_every_gui_module_imports():
    for name in gui_modules():
        importlib.import_module(name)


def test_the_gui_modules_import_one_another_without_a_cycle():
    graph = import_graph()
    assert "judge_app.gui.workspace" in graph["judge_app.gui.window"]  # the graph is read
    assert "judge_app.gui.window" in graph["judge_app.gui.app"]
    assert find_cycle(graph) is None, " → ".join(find_cycle(graph) or [])


def test_a_cycle_is_found_wherever_it_hides():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from judge_app.gui.window import MainWindow\n"
    modules = {PACKAGE: Path(), "judge_app.gui.window": Path()}
    found = {t for node in ast.walk(ast.parse(source)) for t in imported(node, modules)}
    assert found == {"judge_app.gui.window"}
