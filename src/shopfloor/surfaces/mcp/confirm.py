"""Confirmation in the host's own dialog (DESIGN section 3, "Confirmation through the
host").

A client that declared (form) elicitation and calls a write with `preview: false` and no
token is asked first, when the deployment's `confirm_writes` rule says so: the write is
previewed, and the preview in words goes to the person with one boolean, `confirm`.

- MCP 2026-07-28 (stdio and streamable HTTP): the call answers `input_required` with the
  elicitation; the preview token, the idempotency key and the question are sealed in
  `requestState` (AES-GCM under a key derived from the deployment secret, so any server
  sharing the database can verify it: nothing is remembered between the two calls). The
  client retries with the person's answer and the state.
- The 2025-11-25 handshake over stdio: the SDK's server-initiated `elicitation/create`,
  answered within the same call. (Stateless streamable HTTP on the handshake has no
  channel back to the client and no client capabilities on a call: today's contract.)

Accept applies exactly once: the apply carries the preview's token (refused as stale if
anything the preview read has changed) and an idempotency key (a repeated accept replays
the first result). Decline or cancel applies nothing and says so. Every other client, and
every call with a token, keeps the contract it had.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import is_version_at_least
from pydantic import TypeAdapter, ValidationError

from shopfloor.registry.confirm import ConfirmWrites, asks, in_words
from shopfloor.surfaces.render import safe

if TYPE_CHECKING:
    from mcp.server.request_state import AESGCMRequestStateCodec

    from shopfloor.registry.actor import Actor
    from shopfloor.registry.registry import Registry

INPUT_REQUIRED_VERSION = "2026-07-28"
ASK = "confirm"
"""The key of the one input request, and the name of its one field."""
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {ASK: {"type": "boolean", "title": "Apply this change",
                         "description": "Yes applies it now; no applies nothing.",
                         "default": False}},
    "required": [ASK],
}
STATE_VERSION = 1
log = logging.getLogger("shopfloor.mcp")


def _invalid_state(reason: str) -> MCPError:
    """The SDK's own refusal of a state it cannot trust (the reason goes to the log only)."""
    log.warning("requestState refused: %s", reason)
    return MCPError(code=types.INVALID_PARAMS, message="Invalid or expired requestState",
                    data={"reason": "invalid_request_state"})


def can_elicit(ctx: ServerRequestContext[Any]) -> bool:
    """The client declared form elicitation (a bare `elicitation: {}`, from before modes
    existed, counts as form) and this connection can carry the question: on 2026-07-28 in
    the result itself, on the handshake as a request the server sends back."""
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def modern(ctx: ServerRequestContext[Any]) -> bool:
    version = ctx.protocol_version
    return bool(version) and is_version_at_least(version, INPUT_REQUIRED_VERSION)


class Confirmer:
    """Asks before an apply where the rule says so; see the module docstring."""

    def __init__(self, rule: ConfirmWrites) -> None:
        self.rule = rule
        self._codecs: dict[int, AESGCMRequestStateCodec] = {}

    def _codec(self, registry: Registry) -> AESGCMRequestStateCodec:
        codec = self._codecs.get(id(registry))
        if codec is None:  # (the SDK's codec loads cryptography: only once it is needed)
            from mcp.server.request_state import AESGCMRequestStateCodec

            codec = AESGCMRequestStateCodec([registry.key("mcp-request-state")])
            self._codecs[id(registry)] = codec
        return codec

    def seal(self, registry: Registry, state: dict[str, Any]) -> str:
        return self._codec(registry).seal(json.dumps(state, separators=(",", ":")).encode())

    def unseal(self, registry: Registry, sealed: str, tool: str, actor: Actor
               ) -> dict[str, Any]:
        """The state this deployment sealed for this tool and this actor, or a protocol
        error: the echoed state is the client's to tamper with."""
        from mcp.server.request_state import InvalidRequestState

        try:
            state = json.loads(self._codec(registry).unseal(sealed))
        except (InvalidRequestState, ValueError):
            raise _invalid_state("seal") from None
        if not isinstance(state, dict) or state.get("v") != STATE_VERSION:
            raise _invalid_state("malformed")
        if state.get("tool") != tool or state.get("actor") != actor.subject:
            raise _invalid_state("request binding")
        return state  # its age is the preview token's to judge: expired is stale_preview

    def wanted(self, ctx: ServerRequestContext[Any], registry: Registry, name: str,
               arguments: dict[str, Any]) -> bool:
        """An apply without a token, of a write, from a client that can be asked.
        `preview` is read as the request model reads it (`"false"` and `0` apply too)."""
        if self.rule is ConfirmWrites.none or not _applies(arguments.get("preview", True)):
            return False
        if arguments.get("preview_token") or not can_elicit(ctx):
            return False
        return registry.get(name).facts.writes

    async def call(self, ctx: ServerRequestContext[Any], registry: Registry,
                   params: types.CallToolRequestParams, arguments: dict[str, Any],
                   actor: Actor) -> dict[str, Any] | types.InputRequiredResult | None:
        """The answer to this call if confirmation has a part in it; None when the call
        goes on as it always did."""
        if params.request_state is not None:
            return await self._resume(registry, params, arguments, actor)
        if not self.wanted(ctx, registry, params.name, arguments):
            return None
        name = params.name
        given = arguments.get("idempotency_key")
        if isinstance(given, str) and given and await anyio.to_thread.run_sync(
                registry.recorded, given):
            return None  # a repeat of an apply already made: it replays, nothing to ask
        preview = await anyio.to_thread.run_sync(
            registry.invoke, name, {**arguments, "preview": True}, actor)
        token = preview.get("preview_token")
        if not token:
            return None  # it cannot apply: the apply says why, with its coded error
        key = arguments.get("idempotency_key") or preview["apply"]["arguments"]["idempotency_key"]
        if not asks(self.rule, destructive=registry.get(name).facts.destructive,
                    preview=preview):
            return await _apply(registry, name, arguments, actor, token, key)
        message = in_words(preview, clean=safe)
        state = {"v": STATE_VERSION, "tool": name, "actor": actor.subject, "token": token,
                 "key": key, "summary": preview.get("summary"), "message": message}
        if modern(ctx):
            return self._ask(registry, state)
        answer = await ctx.session.elicit_form(message, SCHEMA, related_request_id=ctx.request_id)
        return await _answered(registry, name, arguments, actor, state, answer)

    def _ask(self, registry: Registry, state: dict[str, Any]) -> types.InputRequiredResult:
        question = types.ElicitRequest(params=types.ElicitRequestFormParams(
            message=state["message"], requested_schema=SCHEMA))
        return types.InputRequiredResult(input_requests={ASK: question},
                                         request_state=self.seal(registry, state))

    async def _resume(self, registry: Registry, params: types.CallToolRequestParams,
                      arguments: dict[str, Any], actor: Actor
                      ) -> dict[str, Any] | types.InputRequiredResult:
        """The retry that carries the person's answer. No answer to the question: ask it
        again (the same question, the same sealed preview)."""
        assert params.request_state is not None
        state = self.unseal(registry, params.request_state, params.name, actor)
        answer = (params.input_responses or {}).get(ASK)
        if answer is None:
            return self._ask(registry, state)
        return await _answered(registry, params.name, arguments, actor, state, answer)


_BOOL: TypeAdapter[bool] = TypeAdapter(bool)


def _applies(preview: Any) -> bool:
    try:
        return _BOOL.validate_python(preview) is False
    except ValidationError:
        return False  # not a boolean at all: the registry refuses it, naming the field


async def _apply(registry: Registry, name: str, arguments: dict[str, Any], actor: Actor,
                 token: str, key: str) -> dict[str, Any]:
    applying = {**arguments, "preview": False, "preview_token": token, "idempotency_key": key}
    result: dict[str, Any] = await anyio.to_thread.run_sync(
        registry.invoke, name, applying, actor)
    return result


async def _answered(registry: Registry, name: str, arguments: dict[str, Any], actor: Actor,
                    state: dict[str, Any], answer: Any) -> dict[str, Any]:
    """Accept with `confirm: true` applies (once); anything else applies nothing."""
    action = getattr(answer, "action", None)
    content = getattr(answer, "content", None) or {}
    if action == "accept" and content.get(ASK) is True:
        return await _apply(registry, name, arguments, actor, state["token"], state["key"])
    said = {"accept": "did not confirm", "decline": "declined",
            "cancel": "cancelled"}.get(str(action), "did not answer")
    subject = registry.get(name).subject
    return {"applied": False, "confirmed": False, "answer": action or "none", "tool": name,
            "summary": f"Nothing was applied: the person {said} {subject} "
                       f"({state.get('summary')}).",
            "changes": [], "warnings": []}

