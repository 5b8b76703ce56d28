import pytest

import textkit
from textkit import slugify, strip_accents
from textkit.slug import slugify as slugify_direct


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Hello World", "hello-world"),
        ("Crème Brûlée Recipes", "creme-brulee-recipes"),
        ("Ñandú señor", "nandu-senor"),
        ("Hello,   World!", "hello-world"),
        ("  --Draft: notes--  ", "draft-notes"),
        ("already-slugged--text", "already-slugged-text"),
        ("snake_case_name", "snake-case-name"),
        ("a & b @ c", "a-b-c"),
        ("Python 3.11 released!", "python-3-11-released"),
        ("東京 Tokyo", "tokyo"),
        ("Tokyo 東京 guide", "tokyo-guide"),
        ("ﬁle ﬂow", "file-flow"),
        ("ＡＢＣ ｄｅｆ", "abc-def"),
        ("\tTabs\nand\r\nnewlines ", "tabs-and-newlines"),
        ("café-au-lait", "cafe-au-lait"),
    ],
)
def test_slugify_default(text, expected):
    assert slugify(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "!!!", "---", "東京", "\u0301\u0301"])
def test_slugify_nothing_usable(text):
    assert slugify(text) == ""


def test_custom_separator():
    assert slugify("Crème  Brûlée -- Recipes", separator="_") == "creme_brulee_recipes"
    assert slugify("__init__ file", separator="_") == "init_file"
    assert slugify("a-b c", separator=".") == "a.b.c"


def test_keep_case():
    assert slugify("Crème Brûlée", lowercase=False) == "Creme-Brulee"
    assert slugify("  Hello,  World!  ", lowercase=False) == "Hello-World"
    assert slugify("ÜBER  alles", lowercase=False) == "UBER-alles"


def test_max_length_never_ends_with_separator():
    assert slugify("Hello World", max_length=6) == "hello"
    assert slugify("Hello World", max_length=5) == "hello"
    assert slugify("Hello World", max_length=7) == "hello-w"
    assert slugify("Crème Brûlée Recipes", max_length=13) == "creme-brulee"
    assert slugify("Crème Brûlée Recipes", max_length=100) == "creme-brulee-recipes"
    assert slugify("a b c d e", separator="_", max_length=4) == "a_b"


@pytest.mark.parametrize(
    "text",
    [
        "Crème Brûlée Recipes",
        "  --Draft: notes--  ",
        "a  b   c",
        "---x---",
        "Ça va? Oui!",
        "x" * 10 + " " + "y" * 10,
    ],
)
@pytest.mark.parametrize("max_length", [None, 1, 2, 3, 5, 11, 12, 40])
def test_slug_invariants(text, max_length):
    slug = slugify(text, max_length=max_length)
    assert not slug.startswith("-")
    assert not slug.endswith("-")
    assert "--" not in slug
    assert slug == slug.lower()
    assert slug.isascii()
    if max_length is not None:
        assert len(slug) <= max_length
    for ch in slug:
        assert ch == "-" or ch.isalnum()


def test_package_api_unchanged():
    assert textkit.slugify is slugify_direct
    for name in ["camel_case", "collapse_whitespace", "slugify", "snake_case", "strip_accents",
                 "truncate_words"]:
        assert callable(getattr(textkit, name))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Crème Brûlée", "Creme Brulee"),
        ("naïve café", "naive cafe"),
        ("Ñandú", "Nandu"),
        ("no accents here!", "no accents here!"),
        ("  spaces  kept ", "  spaces  kept "),
        ("Ångström 5°C", "Angstrom 5°C"),
        ("", ""),
    ],
)
def test_strip_accents(text, expected):
    assert strip_accents(text) == expected


def test_other_helpers_still_work():
    assert textkit.collapse_whitespace("  a \t b\n c ") == "a b c"
    assert textkit.snake_case("HelloWorld") == "hello_world"
    assert textkit.camel_case("hello_world") == "helloWorld"
    assert textkit.truncate_words("one two three", 2) == "one two…"
