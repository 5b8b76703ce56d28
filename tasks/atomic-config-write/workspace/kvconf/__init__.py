"""kvconf: a small key-value configuration store kept in one text file."""
from .format import FormatError, dumps, loads
from .store import ConfigStore, InvalidKey

__all__ = ["ConfigStore", "FormatError", "InvalidKey", "dumps", "loads"]
