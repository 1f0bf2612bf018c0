"""The built wheel carries its migrations and demo data: install it in a fresh venv and use it."""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from paths import ROOT


@pytest.mark.slow
def test_wheel_installs_and_runs_init_and_demo(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", dist, ROOT],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    wheel = next(dist.glob("judge_app-*.whl"))
    # the package alone: not the tests, nor their trec_eval reference data (4.4 MB)
    assert all(name.startswith("judge_app") for name in zipfile.ZipFile(wheel).namelist())
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--quiet", wheel],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    # The dependencies come from this interpreter's site-packages (a plain path: its .pth
    # files, among them the editable install of the checkout, are not read).
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    where = subprocess.run(
        [python, "-c", "import judge_app.migrations as m; print(m.__file__)"],
        check=True, capture_output=True, text=True, cwd=workdir, env=env,
    ).stdout  # fmt: skip
    assert str(env_dir) in where and str(ROOT) not in where
    script = env_dir / "bin" / "judge-app"
    init = subprocess.run(
        [script, "init", "new.sqlite"], capture_output=True, text=True, cwd=workdir, env=env
    )
    assert init.returncode == 0, init.stderr
    demo = subprocess.run(
        [script, "demo", "demo.sqlite"], capture_output=True, text=True, cwd=workdir, env=env
    )
    assert demo.returncode == 0, demo.stderr
    assert "neural" in demo.stdout
    # every package of the checkout is in the wheel (setuptools is given an explicit list)
    packages = [
        info.name
        for info in pkgutil.walk_packages([str(ROOT / "judge_app")], "judge_app.")
        if info.ispkg
    ]
    check = "import importlib, sys; [importlib.import_module(n) for n in sys.argv[1:]]"
    imported = subprocess.run(
        [python, "-c", check, *packages], capture_output=True, text=True, cwd=workdir, env=env
    )
    assert imported.returncode == 0, imported.stderr


def test_every_package_of_the_source_is_listed_for_the_wheel():
    """A package missing from pyproject's list is missing from the wheel (and a stale
    egg-info can hide that from the wheel test above)."""
    import tomllib

    root = ROOT
    listed = set(
        tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(path.parent.relative_to(root).parts)
        for path in (root / "judge_app").rglob("__init__.py")
    }
    assert found <= listed, sorted(found - listed)
