import pytest

from csvlite import CSVError, parse, read_records


def test_plain_fields():
    assert parse("a,b,c\n1,2,3\n") == [["a", "b", "c"], ["1", "2", "3"]]


def test_quoted_field():
    assert parse('"a",b\n') == [["a", "b"]]


def test_quoted_comma():
    assert parse('name,city\n"Smith, John",Boston\n') == [
        ["name", "city"],
        ["Smith, John", "Boston"],
    ]


def test_escaped_quotes():
    assert parse('"She said ""hi""",x\n') == [['She said "hi"', "x"]]


def test_newline_inside_quotes():
    assert parse('id,note\n1,"line one\nline two"\n') == [
        ["id", "note"],
        ["1", "line one\nline two"],
    ]


def test_records():
    text = "id,name\n1,Ann\n2,Bob\n"
    assert read_records(text) == [{"id": "1", "name": "Ann"}, {"id": "2", "name": "Bob"}]


def test_wrong_field_count():
    with pytest.raises(CSVError):
        read_records("a,b\n1\n")
