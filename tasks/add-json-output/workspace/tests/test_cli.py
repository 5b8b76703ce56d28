from wordstats.cli import main


def test_text_report(tmp_path, capsys):
    p = tmp_path / "a.txt"
    p.write_text("the cat\nthe dog\n", encoding="utf-8")
    assert main([str(p)]) == 0
    out = capsys.readouterr().out
    assert "top words: the (2), cat (1), dog (1)" in out
    assert f"       2        4       16  {p}" in out


def test_missing_file(tmp_path, capsys):
    assert main([str(tmp_path / "nope.txt")]) == 1
    assert "cannot read" in capsys.readouterr().err
