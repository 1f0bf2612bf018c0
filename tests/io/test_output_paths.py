"""Where an output goes (issue 31, item 3): only a regular file is ever replaced. A symbolic
link is written through to its target and stays a link; a pipe is written to as a stream; a
device is never replaced; ``-`` is standard output, with the command's summary on stderr."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from judge_app.cli import main as cli

pytestmark = pytest.mark.skipif(os.name != "posix", reason="links, pipes and devices of POSIX")


@pytest.fixture
def demo(tmp_path, capsys):
    path = tmp_path / "demo.sqlite"
    assert cli(["demo", str(path)]) == 0
    capsys.readouterr()
    return str(path)


def expected_qrels(demo, tmp_path, capsys) -> str:
    plain = tmp_path / "plain.qrels"
    assert cli(["export", demo, "--qrels", str(plain)]) == 0
    capsys.readouterr()
    return plain.read_text(encoding="utf-8")


def test_a_symbolic_link_is_written_through_and_stays_a_link(demo, tmp_path, capsys):
    target = tmp_path / "kept" / "campaign.qrels"
    target.parent.mkdir()
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "latest.qrels"
    link.symlink_to(target)
    dangling = tmp_path / "new.qrels"
    dangling.symlink_to(tmp_path / "kept" / "made.qrels")
    for path in (link, dangling):
        assert cli(["export", demo, "--qrels", str(path)]) == 0
    assert link.is_symlink() and dangling.is_symlink()
    expected = expected_qrels(demo, tmp_path, capsys)
    assert target.read_text(encoding="utf-8") == expected
    assert (tmp_path / "kept" / "made.qrels").read_text(encoding="utf-8") == expected
    assert not list(tmp_path.rglob("*.part"))


def test_a_pipe_is_written_to_as_a_stream(demo, tmp_path, capsys):
    fifo = tmp_path / "to-reader"
    os.mkfifo(fifo)
    read = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    assert cli(["export", demo, "--qrels", str(fifo)]) == 0
    reader.join(timeout=30)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert read == [expected_qrels(demo, tmp_path, capsys)]


def test_a_device_is_written_to_never_replaced(demo, tmp_path):
    link = tmp_path / "discard.csv"
    link.symlink_to("/dev/null")
    assert cli(["export", demo, "--judgments", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == "/dev/null"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not list(tmp_path.glob(".*.part"))


def test_a_dash_is_standard_output_and_the_summary_goes_to_stderr(
    demo, tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # where a file called "-" would be made
    expected = expected_qrels(demo, tmp_path, capsys)
    assert cli(["export", demo, "--qrels", "-"]) == 0
    said = capsys.readouterr()
    assert said.out == expected
    assert said.err.startswith("-: ") and "graded pairs" in said.err
    assert not (tmp_path / "-").exists()
