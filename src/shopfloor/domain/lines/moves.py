"""What a write on a document's lines did, as data (the lines it moved, the warnings it
raised), so that a tool renders its summary from figures and never reads back the text
the domain logged for people."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Generic, TypeVar

from shopfloor.domain.base.context import Caution, Op

D = TypeVar("D")


@dataclass(frozen=True)
class LineMoved:
    sku: str
    quantity: Decimal  # stock units


@dataclass(frozen=True)
class Moved(Generic[D]):
    document: D
    lines: tuple[LineMoved, ...]
    warnings: tuple[Caution, ...] = ()

    def warned(self, code: str) -> int:
        """How many of its warnings carry `code`."""
        return sum(1 for w in self.warnings if w.code == code)


def raised_since(op: Op, start: int) -> tuple[Caution, ...]:
    """The warnings an operation raised after it held `start` of them: one write's own."""
    return tuple(op.warnings[start:])
