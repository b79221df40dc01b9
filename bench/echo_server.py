"""Baseline: the smallest MCP server on the SDK's low-level server (one echo tool), over
stdio, or with `http PORT [json]` over stateless streamable HTTP under uvicorn, served as
`shopfloor serve` serves (its own process, uvicorn's defaults, access log at info): with
the SDK's default answers (an SSE event per response), or with `json` as plain JSON."""

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


def serve_http(port: int, json_response: bool) -> None:
    import uvicorn

    app = server().streamable_http_app(stateless_http=True, json_response=json_response)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info")


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["http"]:
        serve_http(int(sys.argv[2]), sys.argv[3:4] == ["json"])
    else:
        anyio.run(main)
