import json
import os
import pathlib
import subprocess
import sys

import pytest

import wordstats
from wordstats.cli import main

WORKSPACE = str(pathlib.Path(wordstats.__file__).resolve().parent.parent)

A_TEXT = "The cat sat on the mat.\nThe dog didn't.\n"
B_TEXT = "a b c\nb c\nc"


def run_cli(args, cwd, stdin=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = WORKSPACE
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "wordstats", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a.txt").write_text(A_TEXT, encoding="utf-8")
    (tmp_path / "b.txt").write_text(B_TEXT, encoding="utf-8")
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    return tmp_path


def check_shape(doc):
    assert set(doc) == {"files", "totals", "top_words"}
    assert set(doc["totals"]) == {"files", "lines", "words", "chars"}
    for f in doc["files"]:
        assert set(f) == {"path", "lines", "words", "chars"}
        for key in ("lines", "words", "chars"):
            assert type(f[key]) is int
    for t in doc["top_words"]:
        assert set(t) == {"word", "count"}
        assert type(t["count"]) is int


def test_main_single_file(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main(["--json", "a.txt"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    check_shape(doc)
    assert doc["files"] == [{"path": "a.txt", "lines": 2, "words": 9, "chars": len(A_TEXT)}]
    assert doc["totals"] == {"files": 1, "lines": 2, "words": 9, "chars": len(A_TEXT)}
    assert doc["top_words"] == [
        {"word": "the", "count": 3},
        {"word": "cat", "count": 1},
        {"word": "didn't", "count": 1},
        {"word": "dog", "count": 1},
        {"word": "mat", "count": 1},
    ]


def test_main_several_files_and_options(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main(["--json", "--top", "2", "b.txt", "a.txt", "empty.txt"]) == 0
    doc = json.loads(capsys.readouterr().out)
    check_shape(doc)
    assert [f["path"] for f in doc["files"]] == ["b.txt", "a.txt", "empty.txt"]
    assert doc["files"][0] == {"path": "b.txt", "lines": 3, "words": 6, "chars": len(B_TEXT)}
    assert doc["files"][2] == {"path": "empty.txt", "lines": 0, "words": 0, "chars": 0}
    assert doc["totals"] == {
        "files": 3,
        "lines": 5,
        "words": 15,
        "chars": len(A_TEXT) + len(B_TEXT),
    }
    assert doc["top_words"] == [{"word": "c", "count": 3}, {"word": "the", "count": 3}]


def test_min_length_and_top_zero(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main(["--json", "--min-length", "4", "a.txt", "b.txt"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["top_words"] == [{"word": "didn't", "count": 1}]
    assert main(["--json", "--top", "0", "a.txt"]) == 0
    assert json.loads(capsys.readouterr().out)["top_words"] == []
    assert main(["--json", "empty.txt"]) == 0
    assert json.loads(capsys.readouterr().out)["top_words"] == []


def test_path_kept_exactly_as_given(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    sub = files / "sub dir"
    sub.mkdir()
    (sub / "ünï.txt").write_text("x\n", encoding="utf-8")
    given = ["./a.txt", str(files / "b.txt"), "sub dir/ünï.txt"]
    assert main(["--json", *given]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [f["path"] for f in doc["files"]] == given


def test_text_mode_unchanged(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main(["--top", "2", "a.txt", "b.txt"]) == 0
    out = capsys.readouterr().out
    assert out == (
        "   lines    words    chars  path\n"
        f"       2        9 {len(A_TEXT):>8}  a.txt\n"
        f"       3        6 {len(B_TEXT):>8}  b.txt\n"
        f"       5       15 {len(A_TEXT) + len(B_TEXT):>8}  total\n"
        "top words: c (3), the (3)\n"
    )
    assert not out.lstrip().startswith("{")


def test_missing_file_in_json_mode(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main(["--json", "a.txt", "missing.txt"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "wordstats: cannot read" in captured.err


def test_subprocess_json(files):
    result = run_cli(["--json", "a.txt", "b.txt"], cwd=files)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    check_shape(doc)
    assert doc["totals"]["files"] == 2
    assert doc["totals"]["words"] == 15
    assert doc["top_words"][:2] == [{"word": "c", "count": 3}, {"word": "the", "count": 3}]


def test_subprocess_stdin(files):
    result = run_cli(["--json", "--top", "1", "-"], cwd=files, stdin="x y x\n")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["files"] == [{"path": "-", "lines": 1, "words": 3, "chars": 6}]
    assert doc["top_words"] == [{"word": "x", "count": 2}]


def test_subprocess_error(files):
    result = run_cli(["--json", "nope.txt"], cwd=files)
    assert result.returncode == 1
    assert result.stdout == ""
    assert "cannot read" in result.stderr


def test_subprocess_help_mentions_json(files):
    result = run_cli(["--help"], cwd=files)
    assert result.returncode == 0
    assert "--json" in result.stdout


def test_json_matches_table_numbers(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    text = "Ünïcode lines\r\nwith CRLF\r\nand\ttabs   here\n\nend"
    (files / "c.txt").write_text(text, encoding="utf-8", newline="")
    assert main(["c.txt"]) == 0
    table = capsys.readouterr().out.splitlines()[1].split()
    assert main(["--json", "c.txt"]) == 0
    doc = json.loads(capsys.readouterr().out)
    f = doc["files"][0]
    assert [str(f["lines"]), str(f["words"]), str(f["chars"]), f["path"]] == table
