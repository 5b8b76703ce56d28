from csvlite import format_row, write_rows


def test_format_row_quotes_when_needed():
    assert format_row(["a", "b,c", 'say "x"']) == 'a,"b,c","say ""x"""'


def test_write_rows():
    assert write_rows([["a", "b"], ["1", "2"]]) == "a,b\n1,2\n"
