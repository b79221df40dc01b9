"""Job kinds that are not writes: MRP reads the whole company and returns a plan.

Write jobs (import, bulk recipe change, rebuild) are their tools' own handlers, run by
the registry (`Registry.job_runners`), so they keep the preview -> apply guarantees.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from shopfloor.domain import planning
from shopfloor.domain.context import Op
from shopfloor.registry.jobs import JobContext, Runner


def run_mrp(ctx: JobContext) -> dict[str, Any]:
    today = date.fromisoformat(ctx.arguments["today"]) if ctx.arguments.get("today") \
        else date.today()
    with ctx.store.reading() as session:
        op = Op(session, ctx.actor, datetime.now(UTC), dialect=ctx.store.dialect)
        result = planning.plan(op, today=today, location=ctx.arguments.get("location"),
                               progress=ctx.progress)
    mos, pos = result["manufacturing_orders"], result["purchase_orders"]
    lines = sum(len(p["lines"]) for p in pos)
    result["summary"] = (f"MRP: {len(mos)} manufacturing orders and {lines} purchase lines "
                         f"from {len(pos)} suppliers suggested")
    return result


KINDS: dict[str, Runner] = {"mrp": run_mrp}
