"""The one policy table: which tools are destructive, and the shared coaching text.

Destructiveness follows the tool's name, not each author's judgement, so that hosts
see the same rule for every tool and nobody has to remember it.
"""

from __future__ import annotations

from dataclasses import dataclass

from shopfloor.registry.actor import Role

DESTRUCTIVE_PREFIXES = ("delete_", "modify_", "correct_", "rebuild_")
DESTRUCTIVE_NAMES = frozenset({
    "update_stock_adjustment",
    "update_recipe",
    "batch_update_recipes",
    "import_items",
    "fulfill_order",
    "receive_purchase_order",
    "complete_manufacturing_order",
})

COACHING = (
    "Previews first (preview=true). After a preview, end your turn; apply (preview=false with "
    "its preview_token) only after the user confirms on the card or in chat."
)


def is_destructive(name: str) -> bool:
    return name.startswith(DESTRUCTIVE_PREFIXES) or name in DESTRUCTIVE_NAMES


@dataclass(frozen=True)
class Policy:
    writes: bool
    role: Role
    destructive: bool
    job: bool = False

    @classmethod
    def read(cls) -> Policy:
        return cls(writes=False, role=Role.viewer, destructive=False)

    @classmethod
    def write(cls, name: str, role: Role, *, job: bool = False) -> Policy:
        return cls(writes=True, role=role, destructive=is_destructive(name), job=job)

    @classmethod
    def start(cls, role: Role) -> Policy:
        """Starts a background job: commits a queued job row, changes no stock."""
        return cls(writes=False, role=role, destructive=False, job=True)
