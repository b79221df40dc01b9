"""Roles are ordered: an admin may do what an operator may, an operator what a viewer may.

They sit in the kernel because the domain checks them too (who may post a negative
balance, who may see costs) and the domain must not reach up into the registry for them.
"""

from __future__ import annotations

from enum import IntEnum


class Role(IntEnum):
    viewer = 1
    operator = 2
    admin = 3

    @classmethod
    def parse(cls, name: str) -> Role:
        try:
            return cls[name.strip().lower()]
        except KeyError:
            raise ValueError(f"unknown role {name!r}; use viewer, operator or admin") from None
