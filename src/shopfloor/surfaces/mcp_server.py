"""The SDK's low-level server as Shopfloor declares itself: MCP Apps where every client can
see it, and no promise of a changing tool list."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions


class ShopfloorServer(Server[Any]):
    """The SDK's low-level server, declaring MCP Apps where every client can see it.

    `capabilities.extensions` exists only from protocol 2026-07-28 on: the SDK strips it
    from a handshake-era (2025-11-25) initialize result. Those clients find the extension
    under `capabilities.experimental` instead, on stdio and streamable HTTP alike.
    """

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        declared = self.extensions if extensions is None else extensions
        experimental = {**declared, **(experimental_capabilities or {})}
        return super().create_initialization_options(
            notification_options, experimental or None, extensions)

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        """The SDK says `tools.listChanged` wherever `subscriptions/listen` is served; the
        catalogue never changes while a server runs, so it would be a promise not kept."""
        found = super().get_capabilities(*args, **kwargs)
        if found.tools is not None:
            found.tools.list_changed = False
        return found
