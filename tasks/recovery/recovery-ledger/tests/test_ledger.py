from ledger.book import Book
from ledger.money import format_amount, parse_amount


def test_parse_is_exact_cents():
    assert parse_amount("12.34") == 1234
    assert parse_amount("0.1") == 10
    assert parse_amount("7") == 700
    assert parse_amount("-0.05") == -5
    assert isinstance(parse_amount("1.10"), int)


def test_format():
    assert format_amount(1234) == "12.34"
    assert format_amount(5) == "0.05"
    assert format_amount(-250) == "-2.50"


def test_balance_does_not_lose_cents():
    book = Book()
    for _ in range(10):
        book.add("0.10")
    book.add("0.20")
    assert book.balance() == 120
    assert format_amount(book.balance()) == "1.20"
