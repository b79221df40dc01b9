"""The schema, one module per concept; importing the package registers every table on
`Base.metadata` (Alembic, the tests' truncation and the violation reader need them all)."""

from shopfloor.store.tables.accounting import *  # noqa: F403
from shopfloor.store.tables.accounts import *  # noqa: F403
from shopfloor.store.tables.bills import *  # noqa: F403
from shopfloor.store.tables.buying import *  # noqa: F403
from shopfloor.store.tables.company import *  # noqa: F403
from shopfloor.store.tables.core import *  # noqa: F403
from shopfloor.store.tables.corrections import *  # noqa: F403
from shopfloor.store.tables.events import *  # noqa: F403
from shopfloor.store.tables.floor import *  # noqa: F403
from shopfloor.store.tables.lots import *  # noqa: F403
from shopfloor.store.tables.operations import *  # noqa: F403
from shopfloor.store.tables.planning import *  # noqa: F403
from shopfloor.store.tables.proposals import *  # noqa: F403
from shopfloor.store.tables.valuation import *  # noqa: F403
