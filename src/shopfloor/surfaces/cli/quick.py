"""The two commands scripts run most, without the CLI framework: `call NAME --arg k=v
--json ...` and `tools list`.

A script of a hundred calls pays start-up a hundred times, so these import only what the
call needs: no typer or click, no MCP SDK, no Alembic while the schema is current, no
password hashing, no admin or PDF stack, and of the catalogue only the called tool's
module (`tools list` reads the catalogue's cached description and opens no database).
Any other command line, or anything these do not recognise (`--help`, `--wait`, an
unknown option), goes to the full CLI (commands.py), which behaves the same way.
"""

from __future__ import annotations

import json
import sys
from typing import Any

EXIT_CODES = {
    "internal": 1,
    "validation_error": 2,
    "not_found": 3,
    "conflict": 4,
    "insufficient_stock": 5,
    "stale_preview": 6,
    "forbidden": 7,
    "unauthenticated": 8,
    "period_locked": 9,
}
GLOBAL = ("--db", "--fmt", "--config")


def _options(argv: list[str], names: tuple[str, ...], repeat: tuple[str, ...] = ()
             ) -> tuple[dict[str, Any], list[str]] | None:
    """`--name value` and `--name=value` pairs from the front of `argv`, then the rest;
    None for a flag it does not know (or a value missing)."""
    found: dict[str, Any] = {}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        name, eq, value = argv[i].partition("=")
        if name not in names:
            return None
        if not eq:
            if i + 1 >= len(argv):
                return None
            value = argv[i + 1]
            i += 1
        if name in repeat:
            found.setdefault(name, []).append(value)
        else:
            found[name] = value
        i += 1
    return found, argv[i:]


def run(argv: list[str]) -> int | None:
    """The exit status of a command line this module serves; None for any other."""
    front = _options(argv, GLOBAL)
    if front is None:
        return None
    options, rest = front
    from shopfloor.surfaces.render import FORMATS

    fmt = options.get("--fmt", "text")
    if fmt not in FORMATS:
        return None
    if rest == ["tools", "list"]:
        return _tools_list(fmt)
    if rest[:1] == ["mcp"]:
        flags = _options(rest[1:], ("--toolsets",))
        if flags is None or flags[1]:
            return None
        from shopfloor.app.settings import Settings

        serve_mcp(Settings.load(options.get("--config"), database_url=options.get("--db")),
                  flags[0].get("--toolsets"))
        return 0
    if len(rest) >= 2 and rest[0] == "call" and not rest[1].startswith("-"):
        tail = _options(rest[2:], ("--json", "--arg"), repeat=("--arg",))
        if tail is None or tail[1]:
            return None
        return _call(options, fmt, rest[1], tail[0].get("--json"), tail[0].get("--arg", []))
    return None


def serve_mcp(settings: Any, toolsets: str | None) -> None:
    """`shopfloor mcp`. A host waits for tools/list before anything else: it is answered
    from the catalogue's cached description (described in a child process the first time,
    forked before anything heavy is imported) while this one loads only the SDK; the
    database opens once the session is serving. Start-up builds long-lived objects only,
    so the collector is paused until serve_stdio has built the server."""
    import gc

    gc.disable()
    if toolsets:
        from dataclasses import replace

        settings = replace(settings, toolsets=toolsets)
    from shopfloor.app.wiring import describe_catalogue_in_child

    catalogue = describe_catalogue_in_child()
    import anyio

    from shopfloor.surfaces.mcp.surface import serve_stdio

    anyio.run(serve_stdio, settings, catalogue)


def _out(payload: Any, fmt: str) -> None:
    from shopfloor.surfaces.render import render

    sys.stdout.write(render(payload, fmt) + "\n")
    sys.stdout.flush()


def failed(payload: dict[str, Any], fmt: str) -> int:
    """An error as every CLI command shows it: the payload on stdout for --fmt json, the
    message on stderr, and the code's exit status."""
    err = payload["error"]
    if fmt == "json":
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    where = f" (field: {err['field']})" if err.get("field") else ""
    sys.stderr.write(f"error[{err['code']}]: {err['message']}{where}\n")
    return EXIT_CODES.get(err["code"], 1)


def _call(options: dict[str, Any], fmt: str, name: str, raw_json: str | None,
          pairs: list[str]) -> int:
    import gc

    gc.disable()  # one call, then exit: the collector would only walk the imports
    from shopfloor.app.settings import Settings
    from shopfloor.app.wiring import local_actor, open_registry
    from shopfloor.kernel.errors import ShopfloorError

    try:
        settings = Settings.load(options.get("--config"), database_url=options.get("--db"))
        registry = open_registry(settings, lazy=True)  # (imports this tool's module only)
        try:
            schema: dict[str, Any] | None = registry.get(name).input_schema
        except ShopfloorError:
            schema = None  # invoke says there is no such tool
        args = parse_args(raw_json, pairs, schema)
        result = registry.invoke(name, args, local_actor(settings))
    except ShopfloorError as exc:
        return failed(exc.to_payload(), fmt)
    _out(result, fmt)
    return 0


def tool_rows(described: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"toolset": t["toolset"], "name": t["name"], "title": t["title"],
             "kind": "write" if t["writes"] else "read", "role": t["role"],
             "destructive": t["destructive"], "description": t["description"],
             "input_schema": t["input_schema"], "output_schema": t["output_schema"]}
            for t in described]


def _tools_list(fmt: str) -> int:
    from shopfloor.app.described import cached_catalogue

    rows = tool_rows(cached_catalogue())
    if fmt in ("text", "md"):
        _out({"tools": [{k: v for k, v in r.items() if "schema" not in k and k != "description"}
                        for r in rows]}, fmt)
    else:
        _out({"tools": rows}, fmt)
    return 0


def _is_text(prop: Any) -> bool:
    """Whether an input-schema property takes text only (a string, perhaps null)."""
    if not isinstance(prop, dict):
        return False
    kinds = prop.get("type")
    if kinds is None and isinstance(prop.get("anyOf"), list):
        kinds = [v.get("type") for v in prop["anyOf"] if isinstance(v, dict)]
    found = {kinds} if isinstance(kinds, str) else set(kinds or ())
    return "string" in found and found <= {"string", "null"}


def parse_args(raw_json: str | None, pairs: list[str],
               schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """--json, then each --arg key=value. A value is JSON if it parses, except for a field
    the tool's input schema types as text: that gets the raw text (sku=1001 is the SKU
    "1001", not the number 1001)."""
    from shopfloor.kernel.errors import ValidationFailed

    properties = (schema or {}).get("properties") or {}
    args: dict[str, Any] = {}
    if raw_json is not None:
        text = sys.stdin.read() if raw_json == "-" else raw_json
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValidationFailed(f"--json is not valid JSON: {exc.msg}") from None
        if not isinstance(loaded, dict):
            raise ValidationFailed("--json must be a JSON object")
        args.update(loaded)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValidationFailed(f"--arg {pair!r} is not key=value", field=key or None)
        if _is_text(properties.get(key)):
            args[key] = value
            continue
        try:
            args[key] = json.loads(value)
        except json.JSONDecodeError:
            args[key] = value
    return args
