"""A book of entries, in integer cents."""

from ledger.money import parse_amount


class Book:
    def __init__(self):
        self.entries = []

    def add(self, text):
        self.entries.append(parse_amount(text))

    def balance(self):
        return sum(self.entries)
