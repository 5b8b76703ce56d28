import pytest

from kvconf import ConfigStore, InvalidKey


def test_set_get_persists(tmp_path):
    path = tmp_path / "agent.conf"
    store = ConfigStore(path)
    store.set("region", "eu-west")
    store.update({"log.level": "info", "upstream.primary": "10.0.0.7:9000"})
    again = ConfigStore(path)
    assert again.get("region") == "eu-west"
    assert again.items() == [
        ("log.level", "info"),
        ("region", "eu-west"),
        ("upstream.primary", "10.0.0.7:9000"),
    ]


def test_delete(tmp_path):
    path = tmp_path / "agent.conf"
    store = ConfigStore(path)
    store.update({"a": "1", "b": "2"})
    store.delete("a")
    store.delete("missing")
    assert ConfigStore(path).items() == [("b", "2")]


def test_invalid_key(tmp_path):
    store = ConfigStore(tmp_path / "agent.conf")
    with pytest.raises(InvalidKey):
        store.set("has space", "x")


def test_missing_file_is_empty(tmp_path):
    assert len(ConfigStore(tmp_path / "nope.conf")) == 0
