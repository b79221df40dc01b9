"""Cancelling a job takes the role of the tool that started it, or being who started it:
an operator may not stop a rebuild, an import or a batch recipe change it could not run."""

from __future__ import annotations

from typing import Any

import pytest

from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.actor import Actor
from shopfloor.registry.registry import Registry
from tests.given import Given
from tests.helpers import ADMIN, apply

OLGA = Actor.of("olga", "operator")
OSCAR = Actor.of("oscar", "operator")
BOB = Actor.of("bob", "admin")


def _queued(registry: Registry, tool: str, actor: Actor, **args: Any) -> str:
    """A write job applied through its preview: queued, nobody runs it here."""
    preview = registry.invoke(tool, args, actor)
    assert preview["apply"], preview["warnings"]
    started = registry.invoke(tool, preview["apply"]["arguments"], actor)
    assert started["status"] == "queued", started
    return str(started["job_id"])


def _status(registry: Registry, job_id: str) -> str:
    return str(registry.invoke("get_job_status", {"job_id": job_id}, ADMIN)["status"])


def _refused(registry: Registry, actor: Actor, job_id: str, *, preview: bool) -> ShopfloorError:
    with pytest.raises(ShopfloorError) as info:
        registry.invoke("cancel_job", {"job_id": job_id, "preview": preview}, actor)
    return info.value


def test_an_operator_cannot_cancel_an_admin_job(registry: Registry, given: Given) -> None:
    given.company()
    rebuild = _queued(registry, "rebuild_balances", ADMIN)
    recipes = _queued(registry, "import_items", ADMIN, csv="sku,name\nZ1,Zed\n")
    for job_id, kind in ((rebuild, "rebuild_balances"), (recipes, "import_items")):
        for preview in (True, False):
            err = _refused(registry, OLGA, job_id, preview=preview)
            assert err.code == "forbidden" and err.field == "job_id", err.to_payload()
            assert kind in err.message and "admin" in err.message, err.message
        assert _status(registry, job_id) == "queued"


def test_an_operator_cancels_its_own_and_another_operators_mrp(registry: Registry,
                                                               given: Given) -> None:
    given.company()
    own = registry.invoke("run_mrp", {}, OLGA)["job_id"]
    assert registry.invoke("cancel_job", {"job_id": own}, OLGA)["preview"] is True
    assert apply(registry, "cancel_job", OLGA, job_id=own)["status"] == "cancelled"
    theirs = registry.invoke("run_mrp", {}, OLGA)["job_id"]
    assert apply(registry, "cancel_job", OSCAR, job_id=theirs)["status"] == "cancelled"


def test_the_actor_of_a_job_may_cancel_it_even_without_the_role_now(
        registry: Registry, given: Given) -> None:
    given.company()
    job_id = _queued(registry, "rebuild_balances", ADMIN)
    demoted = Actor.of(ADMIN.subject, "operator")
    assert apply(registry, "cancel_job", demoted, job_id=job_id)["status"] == "cancelled"


def test_an_admin_cancels_anything(registry: Registry, given: Given) -> None:
    given.company()
    mine = _queued(registry, "rebuild_balances", ADMIN)
    assert apply(registry, "cancel_job", BOB, job_id=mine)["status"] == "cancelled"
    mrp = registry.invoke("run_mrp", {}, OLGA)["job_id"]
    assert apply(registry, "cancel_job", BOB, job_id=mrp)["status"] == "cancelled"
    recipes = _queued(registry, "import_items", ADMIN, csv="sku,name\nZ2,Zed\n")
    assert apply(registry, "cancel_job", BOB, job_id=recipes)["status"] == "cancelled"


def test_a_viewer_still_cannot_cancel(registry: Registry, given: Given) -> None:
    given.company()
    mrp = registry.invoke("run_mrp", {}, OLGA)["job_id"]
    err = _refused(registry, Actor.of("vera", "viewer"), mrp, preview=False)
    assert err.code == "forbidden"


def test_a_cancel_after_the_last_checkpoint_still_cancels_a_job_that_changes_nothing(
        registry: Registry, given: Given) -> None:
    """The card said "cancelling": an MRP run that reaches its end before another
    checkpoint drops its plan rather than report success."""
    from shopfloor.store import queue

    given.company()
    job_id = registry.invoke("run_mrp", {}, ADMIN)["job_id"]
    assert queue.claim(registry.store, "w1", job_id) is not None
    apply(registry, "cancel_job", ADMIN, job_id=job_id)  # still running: at a checkpoint
    queue.finish(registry.store, job_id, "w1", "succeeded", "plan ready", {"plan": 1})
    job = registry.invoke("get_job", {"job_id": job_id}, ADMIN)
    assert (job["status"], job["result"]) == ("cancelled", None)
