"""Baseline: the smallest MCP server on the SDK's low-level server (one echo tool), stdio."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

ECHO = types.Tool(name="echo", description="Echo the text back.",
                  input_schema={"type": "object", "properties": {"text": {"type": "string"}}})


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[ECHO])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    text = str((params.arguments or {}).get("text", ""))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content={"text": text})


def server() -> Server[Any]:
    return Server("echo", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    srv = server()
    async with stdio_server() as (read, write):
        await srv.run(read, write, srv.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
