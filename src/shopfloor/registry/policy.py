"""The one policy table: which tools are destructive, and the shared coaching text.

Destructiveness follows the tool's name, not each author's judgement, so that hosts
see the same rule for every tool and nobody has to remember it.
"""

from __future__ import annotations

from dataclasses import dataclass

from shopfloor.kernel.roles import Role

DESTRUCTIVE_PREFIXES = ("delete_", "modify_", "correct_", "rebuild_", "revert_", "close_")
DESTRUCTIVE_NAMES = frozenset({
    "update_stock_adjustment",
    "update_recipe",
    "batch_update_recipes",
    "import_items",
    "fulfill_order",
    "receive_purchase_order",
    "complete_manufacturing_order",
    "hold_lot",
    "release_lot",
})

COACHING = (
    "Preview first, end your turn; once the user confirms (card or chat), apply with "
    "preview=false, preview_token, idempotency_key."
)
"""DESIGN section 3: one short text shared by every write's description. It is paid for
in context once per write tool on every turn, so each word must carry the protocol: a
preview is the default; the user confirms before anything applies; what the apply sends."""


# What a write acts on, as the card names it to the agent ("User cancelled the stock
# adjustment preview."): a noun phrase with its own article, derived from the tool's name.
_VERB_NOUNS = {"modify": "changes", "delete": "deletion", "update": "update",
               "receive": "receipt", "fulfill": "fulfilment", "complete": "completion",
               "cancel": "cancellation", "rebuild": "rebuild", "import": "import",
               "correct": "correction", "close": "close", "revert": "revert"}
_SUBJECTS = {"apply_mrp_plan": "the MRP plan", "fulfill_order": "the sales order fulfilment",
             "batch_update_recipes": "the batch recipe update",
             "update_stock_adjustment": "the stock adjustment changes",
             "import_items": "the item import", "rebuild_balances": "the balance rebuild"}


def subject(name: str) -> str:
    if name in _SUBJECTS:
        return _SUBJECTS[name]
    verb, _, thing = name.partition("_")
    thing = thing.replace("_", " ")
    noun = _VERB_NOUNS.get(verb)
    return f"the {thing} {noun}" if noun else f"the {thing}"


def is_destructive(name: str) -> bool:
    return name.startswith(DESTRUCTIVE_PREFIXES) or name in DESTRUCTIVE_NAMES


@dataclass(frozen=True)
class Policy:
    writes: bool
    role: Role
    destructive: bool
    job: bool = False

    @property
    def plain_read(self) -> bool:
        """Reads the database and nothing else, within a page: short enough to run on a
        single-client event loop (MCP stdio) instead of paying for a thread hop. Writes,
        job starts and anything that waits keep to a worker thread."""
        return not self.writes and not self.job

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
