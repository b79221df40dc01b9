"""What a tool declares about itself, in one frozen record on its decorator.

Every fact a surface, the registry or the revert path needs about a tool lives here and
nowhere else: nothing below the registry keeps a table keyed by tool name. The naming
rules (`delete_*` is destructive, ...) are a test over the declared facts, not a lookup.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING

from shopfloor.kernel.roles import Role

if TYPE_CHECKING:
    from shopfloor.domain.base.context import Op
    from shopfloor.domain.corrections.ledger import Original, Reverser
    from shopfloor.registry.jobs import Runner

COACHING = (
    "Preview first, end your turn; once the user confirms (card or chat), apply with "
    "preview=false, preview_token, idempotency_key."
)
"""DESIGN section 3: one short text shared by every write's description. It is paid for
in context once per write tool on every turn, so each word must carry the protocol: a
preview is the default; the user confirms before anything applies; what the apply sends."""

NOT_REVERTIBLE = ("it moved no stock and changed no document a revert can restore; change "
                  "it with its own tools")


@dataclass(frozen=True)
class Undo:
    """How a revert undoes an applied write: a domain reverser that writes the
    opposite rows, or the reason it cannot and what to do instead."""

    reverser: Reverser | None = None
    instead: str = NOT_REVERTIBLE

    @classmethod
    def using(cls, reverser: Reverser) -> Undo:
        return cls(reverser=reverser)

    @classmethod
    def imported(cls, module: str, name: str) -> Undo:
        """A reverser imported by name when a revert first runs it: a tool module whose
        reverser lives in a heavy domain module (corrections/bulk.py imports orders and
        production) does not make every call of its other tools import that first."""

        def reverser(op: Op, original: Original) -> None:
            getattr(import_module(module), name)(op, original)

        reverser.__qualname__ = f"{module}.{name}"
        return cls(reverser=reverser)

    @classmethod
    def refused(cls, instead: str) -> Undo:
        return cls(instead=instead)


NEVER = Undo()


# What a write acts on, as the card names it to the agent ("User cancelled the stock
# adjustment preview."): a noun phrase with its own article, derived from the tool's name
# unless the tool declares its own `subject`.
_VERB_NOUNS = {"modify": "changes", "delete": "deletion", "update": "update",
               "receive": "receipt", "fulfill": "fulfilment", "complete": "completion",
               "cancel": "cancellation", "rebuild": "rebuild", "import": "import",
               "correct": "correction", "close": "close", "revert": "revert"}


def subject_of(name: str) -> str:
    verb, _, thing = name.partition("_")
    thing = thing.replace("_", " ")
    noun = _VERB_NOUNS.get(verb)
    return f"the {thing} {noun}" if noun else f"the {thing}"


@dataclass(frozen=True)
class Facts:
    """`writes`: previewed, applied once, logged. `destructive`: can lower stock, value or
    a document's state (MCP's destructiveHint). `job`: its work runs in the background;
    `runs` is the (kind, runner) a job-starting tool queues. `toolset`: the area it
    belongs to, which MCP hosts choose by (registry/toolsets.py) and the admin and `tools
    list` group by; `everyday`: one of an office day's tools, listed by `default`.
    `subject`: what a card calls it. `app_only`: for cards, hidden from the model (MCP
    Apps visibility ["app"]). `approves`: applies a held proposal as
    its proposer (the registry does it; see registry/proposals.py). `decides`: approves or
    rejects a held proposal, so never by an actor whose own writes are held (two agents
    must not approve each other's writes). `open_world`: what it sets up reaches outside
    the books (a webhook posts to another system): MCP's openWorldHint. `enables`: its
    result names toolsets (`toolsets`) a session that listens should now be listed.
    `holds`: its preview may warn `held_for_approval`; its apply is then held as a
    proposal for someone else to approve, whoever asks (a bill beyond its tolerance)."""

    writes: bool
    role: Role
    destructive: bool
    job: bool = False
    runs: tuple[str, Runner] | None = None
    undo: Undo = NEVER
    toolset: str = ""
    everyday: bool = False
    subject: str = ""
    app_only: bool = False
    approves: bool = False
    decides: bool = False
    open_world: bool = False
    enables: bool = False
    holds: bool = False

    @property
    def plain_read(self) -> bool:
        """Reads the database and nothing else, within a page: short enough to run on a
        single-client event loop (MCP stdio) instead of paying for a thread hop. Writes,
        job starts and anything that waits keep to a worker thread."""
        return not self.writes and not self.job
