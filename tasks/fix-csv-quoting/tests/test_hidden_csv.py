import pytest

import csvlite
from csvlite import CSVError, format_row, parse, read_records, write_rows


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", []),
        ("\n", []),
        ("a,b,c\n1,2,3\n", [["a", "b", "c"], ["1", "2", "3"]]),
        ("a,b\n1,2", [["a", "b"], ["1", "2"]]),
        ("a,b\r\n1,2\r\n", [["a", "b"], ["1", "2"]]),
        ("a\n\n\nb\n", [["a"], ["b"]]),
        ("a\r\n\r\nb\r\n", [["a"], ["b"]]),
        ('"a",b\n', [["a", "b"]]),
        ('name,city\n"Smith, John",Boston\n', [["name", "city"], ["Smith, John", "Boston"]]),
        ('"a,b,c"\n', [["a,b,c"]]),
        ('"She said ""hi""",x\n', [['She said "hi"', "x"]]),
        ('""""\n', [['"']]),
        ('"",x\n', [["", "x"]]),
        ('""\n', [[""]]),
        ('x,""\n', [["x", ""]]),
        ('1,"line one\nline two"\n', [["1", "line one\nline two"]]),
        ('1,"crlf\r\ninside"\r\n2,z\r\n', [["1", "crlf\r\ninside"], ["2", "z"]]),
        ('"a\n\nb"\n', [["a\n\nb"]]),
        ('"x, ""y""\nz",w', [['x, "y"\nz', "w"]]),
        ('ab"c,d\n', [['ab"c', "d"]]),
        ('a,b"",c\n', [["a", 'b""', "c"]]),
        (" a , b \n", [[" a ", " b "]]),
        ("a,\n", [["a", ""]]),
        (",\n", [["", ""]]),
        (",,\n", [["", "", ""]]),
        ('a,"b"', [["a", "b"]]),
        ('"a"', [["a"]]),
        (" \n", [[" "]]),
    ],
)
def test_parse(text, expected):
    assert parse(text) == expected


def test_other_delimiter_and_quote():
    assert parse("a;'b;c';d\n", delimiter=";", quotechar="'") == [["a", "b;c", "d"]]
    assert parse("'it''s'\t\"q\"\n", delimiter="\t", quotechar="'") == [["it's", '"q"']]
    assert parse('a|"b|c"\n', delimiter="|") == [["a", "b|c"]]


@pytest.mark.parametrize(
    "text, line",
    [
        ('"never closed\n', 1),
        ('a,b\n1,"open\nstill open\n', 2),
        ('a\nb\nc,"x""\n', 3),
        ('"', 1),
    ],
)
def test_unterminated_quote(text, line):
    with pytest.raises(CSVError) as info:
        parse(text)
    assert info.value.line == line
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("text", ['"ab"c,d\n', '"ab" ,d\n', 'x,"a"b\n', '"a""b"c\n'])
def test_text_after_closing_quote(text):
    with pytest.raises(CSVError):
        parse(text)


def test_records_with_quoting():
    text = 'id,name,note\r\n1,"Smith, John","said ""hi""\r\ntwice"\r\n2,Ann,\r\n'
    assert read_records(text) == [
        {"id": "1", "name": "Smith, John", "note": 'said "hi"\r\ntwice'},
        {"id": "2", "name": "Ann", "note": ""},
    ]


def test_record_errors_still_raised():
    with pytest.raises(CSVError) as info:
        read_records('a,b\n"1,2"\n')
    assert info.value.line == 2
    with pytest.raises(CSVError):
        read_records("a,a\n1,2\n")
    assert read_records("") == []


ROWS = [
    ["plain", "with,comma", 'with "quotes"'],
    ["multi\nline", "crlf\r\nline", ""],
    ["", "", ""],
    [" spaced ", '"', '""'],
    [""],
    ["trailing,", ",leading", "a\"b,c\nd"],
]


@pytest.mark.parametrize("delimiter, quotechar", [(",", '"'), (";", "'"), ("\t", '"')])
def test_round_trip(delimiter, quotechar):
    text = write_rows(ROWS, delimiter, quotechar)
    assert parse(text, delimiter, quotechar) == ROWS


def test_writer_unchanged():
    assert format_row(["a", "b,c", 'say "x"']) == 'a,"b,c","say ""x"""'
    assert format_row([""]) == '""'
    assert write_rows([["a", "b"], ["1", "2"]]) == "a,b\n1,2\n"


def test_dialect_validation_unchanged():
    with pytest.raises(ValueError):
        parse("a", delimiter=",", quotechar=",")
    with pytest.raises(ValueError):
        parse("a", delimiter="ab")
    assert csvlite.sniff_delimiter('a;"b,c";d\n1;2;3') == ";"
