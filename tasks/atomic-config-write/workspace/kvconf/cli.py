"""python -m kvconf FILE get KEY | set KEY VALUE | delete KEY | list"""
import argparse
import sys

from .format import escape_value
from .store import ConfigStore, InvalidKey


def build_parser():
    parser = argparse.ArgumentParser(prog="kvconf", description="Read and change a kvconf file.")
    parser.add_argument("file")
    commands = parser.add_subparsers(dest="command", required=True)
    get = commands.add_parser("get", help="print one value")
    get.add_argument("key")
    set_ = commands.add_parser("set", help="set one value")
    set_.add_argument("key")
    set_.add_argument("value")
    delete = commands.add_parser("delete", help="remove one key")
    delete.add_argument("key")
    commands.add_parser("list", help="print every key and value")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    store = ConfigStore(args.file)
    if args.command == "get":
        value = store.get(args.key)
        if value is None:
            print(f"kvconf: no key {args.key!r}", file=sys.stderr)
            return 1
        print(value)
    elif args.command == "set":
        try:
            store.set(args.key, args.value)
        except InvalidKey as error:
            print(f"kvconf: {error}", file=sys.stderr)
            return 2
    elif args.command == "delete":
        store.delete(args.key)
    else:
        for key, value in store.items():
            print(f"{key} = {escape_value(value)}")
    return 0
