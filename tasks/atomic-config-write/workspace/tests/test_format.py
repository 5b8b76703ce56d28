import pytest

from kvconf import FormatError, dumps, loads


def test_roundtrip_plain():
    data = {"b": "2", "a": "1"}
    text = dumps(data)
    assert text == "# kvconf 1\na = 1\nb = 2\n"
    assert loads(text) == data


@pytest.mark.parametrize("value", ["", " lead", "trail ", "multi\nline", "tab\there", "back\\slash", "  "])
def test_roundtrip_awkward_values(value):
    assert loads(dumps({"k": value})) == {"k": value}


def test_comments_and_blank_lines():
    assert loads("# kvconf 1\n\n# note\nx = y\n") == {"x": "y"}


def test_bad_header():
    with pytest.raises(FormatError):
        loads("x = y\n")


def test_bad_line():
    with pytest.raises(FormatError):
        loads("# kvconf 1\nnot a pair\n")
