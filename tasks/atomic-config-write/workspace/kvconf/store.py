"""ConfigStore: the settings of one agent, kept in one kvconf file."""
import os
import re

from . import format as kvformat

_KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


class InvalidKey(ValueError):
    """A key with characters the file format cannot hold."""


def _check_key(key):
    if not isinstance(key, str) or not _KEY.match(key):
        raise InvalidKey(f"invalid key {key!r}: use letters, digits, '_', '.' and '-'")


def _check_value(key, value):
    if not isinstance(value, str):
        raise TypeError(f"value for {key!r} must be a str, got {type(value).__name__}")


class ConfigStore:
    """A mapping of str keys to str values, saved to `path` after every change."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._data = {}
        self.reload()

    def reload(self):
        """Reads the file again; a missing file is an empty store."""
        try:
            with open(self.path, encoding="utf-8") as handle:
                text = handle.read()
        except FileNotFoundError:
            self._data = {}
            return
        self._data = kvformat.loads(text)

    def get(self, key, default=None):
        return self._data.get(key, default)

    def __contains__(self, key):
        return key in self._data

    def __len__(self):
        return len(self._data)

    def items(self):
        """The (key, value) pairs, sorted by key."""
        return sorted(self._data.items())

    def set(self, key, value):
        _check_key(key)
        _check_value(key, value)
        self._data[key] = value
        self.save()

    def update(self, mapping):
        """Sets several keys and saves once."""
        for key, value in mapping.items():
            _check_key(key)
            _check_value(key, value)
        self._data.update(mapping)
        self.save()

    def delete(self, key):
        """Removes a key; a missing key is not an error."""
        if key in self._data:
            del self._data[key]
            self.save()

    def save(self):
        """Writes the whole store to `self.path`."""
        with open(self.path, "w", encoding="utf-8") as handle:
            for line in kvformat.dump_lines(self._data):
                handle.write(line)
