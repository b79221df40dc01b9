"""Who is calling, and what they may do.

Roles are ordered: an admin may do what an operator may, an operator what a viewer may.
The registry checks the role a tool's policy needs against the actor, so every surface
enforces the same rule without knowing it.
"""

from __future__ import annotations

from dataclasses import dataclass

from shopfloor.kernel.roles import Role


@dataclass(frozen=True)
class Actor:
    subject: str
    roles: frozenset[Role]
    needs_approval: bool = False
    """Its applies never apply: each is held as a proposal until someone else approves."""

    @classmethod
    def of(cls, subject: str, *roles: Role | str, needs_approval: bool = False) -> Actor:
        return cls(subject, frozenset(r if isinstance(r, Role) else Role.parse(r) for r in roles),
                   needs_approval)

    @property
    def highest(self) -> Role | None:
        return max(self.roles, default=None)

    def may(self, required: Role) -> bool:
        top = self.highest
        return top is not None and top >= required
