"""Things addressed the way a person types them, or by id: an item by `sku` or `id`, a
document by `number` or `id`.

Handlers turn either into the human key at once, so the domain keeps one way in. Both
given and naming different things is refused rather than one silently winning.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select

from shopfloor.domain.base.context import Op
from shopfloor.kernel.errors import NotFound, ValidationFailed
from shopfloor.store.tables import Item
from shopfloor.tools.fields import Id, Key


def _one_of(key: str) -> ConfigDict:
    return ConfigDict(json_schema_extra={"anyOf": [{"required": [key]}, {"required": ["id"]}]})


class NumberOrId(BaseModel):
    model_config = _one_of("number")

    number: Key | None = None
    id: Id | None = None


class SkuOrId(BaseModel):
    model_config = _one_of("sku")

    sku: Key | None = None
    id: Id | None = None


def _key(op: Op, model: Any, column: Any, key: str | None, ident: int | None, *,
         key_field: str, what: str) -> str:
    if ident is None:
        if key is None:
            raise ValidationFailed(f"give {key_field} or id", field=key_field)
        return key
    found: str | None = op.session.execute(
        select(column).where(model.id == ident)).scalar_one_or_none()
    if found is None:
        raise NotFound(f"no {what} with id {ident}", field="id")
    if key is not None and key != found:
        raise ValidationFailed(f"id {ident} is {what} {found}, not {key}", field="id")
    return found


def number_of(op: Op, model: Any, ref: NumberOrId, what: str) -> str:
    return _key(op, model, model.number, ref.number, ref.id, key_field="number", what=what)


D = TypeVar("D")


def document(op: Op, model: Any, ref: NumberOrId, what: str,
             by_number: Callable[..., D]) -> D:
    """The document a write names, found and locked once, to be handed to the domain
    whole: by number through the domain's own lookup (`by_number`), by id in one query
    here. Both given and naming different documents is refused."""
    if ref.id is None:
        if ref.number is None:
            raise ValidationFailed("give number or id", field="number")
        return by_number(op, ref.number, lock=True)
    found: Any = op.session.scalars(
        op.lock(select(model).where(model.id == ref.id))).unique().one_or_none()
    if found is None:
        raise NotFound(f"no {what} with id {ref.id}", field="id")
    if ref.number is not None and ref.number != found.number:
        raise ValidationFailed(f"id {ref.id} is {what} {found.number}, not {ref.number}",
                               field="id")
    return cast(D, found)


def sku_of(op: Op, ref: SkuOrId) -> str:
    return _key(op, Item, Item.sku, ref.sku, ref.id, key_field="sku", what="item")
