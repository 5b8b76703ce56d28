"""ConfigStore: the settings of one agent, kept in one kvconf file."""
import os
import re
import stat
import tempfile

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
        """Writes the whole store to `self.path`, atomically (see `atomic_write`)."""
        atomic_write(self.path, kvformat.dumps(self._data).encode("utf-8"))


def _current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path, data):
    """Replaces the file at `path` with `data` (bytes) so that a crash leaves old or new content.

    The bytes go to a temporary file in the same folder, which is fsynced and then renamed over
    `path` with os.replace (atomic on POSIX). The folder is fsynced afterwards so that the rename
    itself is durable. On any failure the temporary file is removed and the error propagates.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_current_umask()
    fd, temp_path = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_path, mode)
        os.replace(temp_path, path)
    except BaseException:
        try:
            os.unlink(temp_path)
        except FileNotFoundError:
            pass
        raise
    _fsync_folder(folder)


def _fsync_folder(folder):
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
