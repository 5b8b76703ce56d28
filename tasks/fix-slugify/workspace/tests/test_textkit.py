from textkit import camel_case, collapse_whitespace, slugify, snake_case, truncate_words


def test_slugify_simple():
    assert slugify("Hello World") == "hello-world"


def test_collapse_whitespace():
    assert collapse_whitespace("  a \t b\n c ") == "a b c"


def test_case_conversion():
    assert snake_case("HelloWorld") == "hello_world"
    assert camel_case("hello_world") == "helloWorld"


def test_truncate_words():
    assert truncate_words("one two three", 2) == "one two…"
    assert truncate_words("one two", 5) == "one two"
