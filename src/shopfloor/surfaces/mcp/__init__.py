"""The MCP surface: the catalogue as MCP tools, resources and cards, over stdio and
streamable HTTP (`surface`), on the SDK's low-level server (`lowlevel`), with the
confirmation flow (`confirm`), documents and proposals as resources (`resources`), alert
streams (`alerts`) and toolset selection (`toolsets`). Nothing is imported here: a
module that needs only the toolset names does not pay for the SDK."""
