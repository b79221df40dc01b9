"""A bulk write applied without a preview queues at once, and its job reports rejects as
the preview does.

Before it queues, the apply checks only what is cheap: the request, the CSV's shape, and
the rejects that key reads can find. Everything else is the job's: it decides every row
again, and a reject it finds fails it with the preview's rows in its error (nothing
applied), or, with skip_rejects, is listed in its result as the preview lists it.
"""

from __future__ import annotations

from typing import Any

import pytest

from shopfloor.app.wiring import worker_for
from shopfloor.kernel.errors import ShopfloorError
from shopfloor.registry.registry import Registry
from shopfloor.tools.bulk import MAX_ROWS
from tests.given import Given
from tests.helpers import ADMIN, apply, snapshot

BIG = 30_000


def _big_csv() -> str:
    rows = "\n".join(f"BIG-{i:05d},Big item {i},material,{i % 90 + 1}.25,{i % 50 + 1}"
                     for i in range(BIG))
    return f"sku,name,kind,purchase_price,on_hand:MAIN\n{rows}\n"


def _job(reg: Registry, job_id: str) -> dict[str, Any]:
    return reg.invoke("get_job", {"job_id": job_id}, ADMIN)


def _run(reg: Registry, job_id: str) -> dict[str, Any]:
    assert worker_for(reg).run_one(job_id)
    return _job(reg, job_id)


def _without_jobs(snap: dict[str, Any]) -> dict[str, Any]:
    """Leaves out the job's own rows: its row, its key, and the `job.finished` event."""
    return {k: v for k, v in snap.items()
            if not k.startswith(("jobs", "idempotency", "events"))}


def test_a_30k_row_import_without_a_preview_queues_at_once(registry: Registry, given: Given
                                                          ) -> None:
    """Queued, not done: the answer comes before any row is written (how fast is the
    bench's to say, not a timed test's)."""
    given.company()
    csv = _big_csv()
    before = snapshot(registry)
    queued = apply(registry, "import_items", csv=csv)
    assert queued["queued"] is True and queued["status"] == "queued", queued
    after = snapshot(registry)
    assert after["jobs"] == before["jobs"] + 1
    assert _without_jobs(after) == _without_jobs(before)  # queued, nothing applied yet


SHAPE_ERRORS = {
    "no sku column": "name\nNine\n",
    "unknown column": "sku,colour\nX,red\n",
    "header only": "sku,name\n",
    "unreadable cell": "sku,name\nX," + "a" * 140_000 + "\n",
    "too many rows": "sku\n" + "\n".join(f"R{i}" for i in range(MAX_ROWS + 1)) + "\n",
}


@pytest.mark.parametrize("case", list(SHAPE_ERRORS))
def test_a_bad_file_is_refused_at_once_and_nothing_queued(registry: Registry, given: Given,
                                                          case: str) -> None:
    given.company()
    before = snapshot(registry)
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "import_items", csv=SHAPE_ERRORS[case])
    assert (info.value.code, info.value.field) == ("validation_error", "csv"), \
        info.value.to_payload()
    assert snapshot(registry) == before


def test_rejects_found_by_key_reads_are_refused_at_once(registry: Registry, given: Given) -> None:
    given.company()
    before = snapshot(registry)
    csv = "sku,name,on_hand:MAIN\nNEW,,4\nN2,Two,x\nM1,Fine,1\n"
    preview = registry.invoke("import_items", {"csv": csv}, ADMIN)
    previewed = [r for r in preview["document"]["rows"] if r["action"] == "reject"]
    with pytest.raises(ShopfloorError) as info:
        apply(registry, "import_items", csv=csv)
    assert (info.value.code, info.value.field) == ("validation_error", "csv")
    assert info.value.details["rejected"] == previewed, info.value.details
    assert [r["field"] for r in previewed] == ["name", "on_hand:MAIN"]
    assert snapshot(registry) == before


def test_an_import_job_fails_with_the_rejects_the_preview_shows(registry: Registry,
                                                                given: Given) -> None:
    """M1 is deleted after the apply queued: the job finds the reject, lists every row as
    a preview made now does, and applies nothing."""
    given.company()
    csv = "sku,name,purchase_price,on_hand:MAIN\nN1,New one,2,5\nM1,Renamed,,\nN2,Two,,\n"
    queued = apply(registry, "import_items", csv=csv)
    apply(registry, "delete_item", sku="M1")
    before = snapshot(registry)
    job = _run(registry, queued["job_id"])
    assert job["status"] == "failed", job
    error = job["result"]["error"]
    assert (error["code"], error["field"]) == ("validation_error", "csv"), error
    preview = registry.invoke("import_items", {"csv": csv}, ADMIN)
    assert preview["apply"] is None
    assert error["details"]["rows"] == preview["document"]["rows"], error["details"]
    assert error["details"]["rejected"] == [
        {"line": 3, "sku": "M1", "action": "reject", "detail": "M1 is a deleted item",
         "field": "sku"}]
    assert _without_jobs(snapshot(registry)) == _without_jobs(before)
    assert registry.invoke("search_items", {"query": "N1"}, ADMIN)["items"] == []


def test_an_import_job_skipping_rejects_lists_them_as_the_preview_does(
        registry: Registry, given: Given) -> None:
    given.company()
    csv = "sku,name,purchase_price,on_hand:MAIN\nN1,New one,2,5\nM1,Renamed,,\n"
    queued = apply(registry, "import_items", csv=csv, skip_rejects=True)
    apply(registry, "delete_item", sku="M1")
    preview = registry.invoke("import_items", {"csv": csv, "skip_rejects": True}, ADMIN)
    job = _run(registry, queued["job_id"])
    assert job["status"] == "succeeded", job
    assert job["result"]["rows"] == preview["document"]["rows"]
    assert [r["action"] for r in job["result"]["rows"]] == ["create", "reject"]
    assert (job["result"]["created"], job["result"]["rejected"]) == (1, 1)
    assert registry.invoke("get_item", {"sku": "N1"}, ADMIN)["name"] == "New one"


def test_a_recipe_job_fails_with_the_refusals_the_preview_shows(registry: Registry,
                                                                given: Given) -> None:
    """P2 starts using M3 after the change queued: replacing M1 by M3 there is refused."""
    given.company()
    apply(registry, "create_item", sku="P2", name="Second", kind="product")
    apply(registry, "create_item", sku="M3", name="Better M1")
    given.recipe("P1", {"M1": "2"})
    given.recipe("P2", {"M1": "3"})
    with pytest.raises(ShopfloorError) as info:  # refused at once: a cheap argument check
        apply(registry, "batch_update_recipes", component="M1")
    assert (info.value.code, info.value.field) == ("validation_error", "replace_with")
    queued = apply(registry, "batch_update_recipes", component="M1", replace_with="M3")
    given.recipe("P2", {"M1": "3", "M3": "1"})
    job = _run(registry, queued["job_id"])
    assert job["status"] == "failed", job
    error = job["result"]["error"]
    preview = registry.invoke("batch_update_recipes",
                              {"component": "M1", "replace_with": "M3"}, ADMIN)
    assert error["details"]["recipes"] == preview["document"]["recipes"]
    assert error["details"]["rejected"] == [
        {"product": "P2", "action": "reject", "detail": "already uses M3"}]
    recipe = registry.invoke("get_recipe", {"sku": "P1"}, ADMIN)["components"]
    assert [c["sku"] for c in recipe] == ["M1"]  # nothing applied
