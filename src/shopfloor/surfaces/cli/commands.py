"""The `shopfloor` command (typer): set-up, the tool catalogue, and `call` for any tool.
`call` and `tools list` are served without typer when their command line is plain
(quick.py); what they print is the same either way.

`call` goes through the registry like every other surface; `--fmt json` prints exactly
the registry's payload (errors too, on stdout, with the message on stderr), so scripts
and the contract test see what HTTP and MCP clients see.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from shopfloor.surfaces.cli import backup as books
from shopfloor.surfaces.cli.context import Context, fail
from shopfloor.surfaces.cli.quick import EXIT_CODES, parse_args, tool_rows
from shopfloor.surfaces.cli.users import user_app
from shopfloor.surfaces.render import FORMATS, render

if TYPE_CHECKING:
    from shopfloor.registry.actor import Actor
    from shopfloor.registry.registry import Registry


# Plain help (no Rich): Rich re-wraps every line at the terminal width, which breaks the
# host configuration `shopfloor mcp --help` prints for copying.
app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                  help="Shopfloor: inventory and manufacturing, safe for people and agents.")
tools_app = typer.Typer(no_args_is_help=True, help="The tool catalogue.")
app.add_typer(tools_app, name="tools")
token_app = typer.Typer(no_args_is_help=True, help="API tokens (JWT) for the HTTP surface.")
app.add_typer(token_app, name="token")
app.add_typer(user_app, name="user")
app.command("backup")(books.backup)
app.command("restore")(books.restore)


def _ctx(ctx: typer.Context) -> Context:
    obj = ctx.find_root().obj
    assert isinstance(obj, Context)
    return obj


@app.callback()
def main_options(
    ctx: typer.Context,
    db: Annotated[str | None, typer.Option("--db", envvar="SHOPFLOOR_DATABASE_URL",
                                           help="database URL (default: ./shopfloor.db)")] = None,
    fmt: Annotated[str, typer.Option("--fmt", help="text, json, yaml or md")] = "text",
    config: Annotated[str | None, typer.Option("--config", help="TOML settings file")] = None,
) -> None:
    if fmt not in FORMATS:
        raise typer.BadParameter(f"use one of {', '.join(FORMATS)}", param_hint="--fmt")
    ctx.obj = Context(db, fmt, config)


@app.command()
def init(ctx: typer.Context) -> None:
    """Create or migrate the database, its signing secret and its tokens' issuer and
    audience."""
    from shopfloor.app.wiring import load_token_names

    c = _ctx(ctx)
    registry = c.registry()
    issuer, audience = load_token_names(registry.store)
    typer.echo(f"Database ready: {registry.store.url.split('@')[-1]}", err=True)
    typer.echo(f"Tokens name issuer {issuer!r} and audience {audience!r}", err=True)


@app.command()
def demo(ctx: typer.Context,
         if_empty: Annotated[bool, typer.Option(help="only load into an empty database")] = False,
         ) -> None:
    """Load the demo company (a small furniture maker) through the registry."""
    from shopfloor.app import demo as demo_data

    c = _ctx(ctx)
    registry = c.registry()
    from shopfloor.registry.actor import Actor

    actor = Actor.of("demo", "admin")
    if demo_data.has_data(registry, actor):
        if if_empty:
            typer.echo("Database already has data; demo not loaded.", err=True)
            return
        typer.echo("error[conflict]: the database already has data", err=True)
        raise typer.Exit(EXIT_CODES["conflict"])
    counts = demo_data.load(registry, actor)
    typer.echo("Loaded the demo company: " + ", ".join(f"{n} {k}" for k, n in counts.items()),
               err=True)


@app.command()
def overview(ctx: typer.Context) -> None:
    """A short picture of the company, read through the registry, and what to try next."""
    from shopfloor.registry.actor import Actor

    c = _ctx(ctx)
    settings = c.settings()
    registry = c.registry()
    actor = Actor.of(settings.local_actor, settings.local_role)

    def ask(tool: str, **args: Any) -> dict[str, Any]:
        return registry.invoke(tool, args, actor)

    items = ask("search_items", limit=500)["items"]
    low = ask("list_low_stock")["items"]
    short = [r for r in low if r["to_order"]]  # the tool's one rule, as the admin's Home
    from shopfloor.kernel.statuses import BY_KIND, said

    orders = {
        "purchase": ask("list_purchase_orders", limit=500)["orders"],
        "sales": ask("list_sales_orders", limit=500)["orders"],
        "manufacturing": ask("list_manufacturing_orders", limit=500)["orders"],
    }
    still_open = {kind: BY_KIND[f"{kind}_order"].open for kind in orders}
    typer.echo(f"Shopfloor on {settings.database_url}\n")
    typer.echo(f"{len(items)} items; {len(short)} below their reorder point (available plus "
               f"on order), {len(low) - len(short)} more low with enough on order")
    for kind, rows in orders.items():
        open_rows = [o for o in rows if o["status"] in still_open[kind]]
        typer.echo(f"{len(open_rows)} open {kind} orders: "
                   + ", ".join(f"{o['number']} ({said(o['status'])})"
                               for o in open_rows[:6]))
    typer.echo("\nBelow reorder point:")
    c.out({"low_stock": [{k: r[k] for k in ("sku", "name", "available", "reorder_point",
                                            "on_order", "suggested_quantity")} for r in short]})
    typer.echo(
        "\nTry:\n"
        "  .venv/bin/shopfloor tools list\n"
        "  .venv/bin/shopfloor call get_stock --arg sku=OAK-BOARD-25\n"
        "  .venv/bin/shopfloor call check_availability --arg sku=TABLE-DINING --arg quantity=3\n"
        "  .venv/bin/shopfloor call create_stock_adjustment --json "
        "'{\"location\": \"MAIN\", \"reason\": \"cycle count\", "
        "\"lines\": [{\"sku\": \"FELT-PAD\", \"counted_quantity\": 1350}]}'\n"
        "    (a preview; repeat with preview=false and the preview_token to apply)\n\n"
        f"Web admin and API: http://{settings.host}:{settings.port}/  (sign in with a token "
        "from: .venv/bin/shopfloor token create --role admin)\n"
        f"MCP: .venv/bin/shopfloor mcp (stdio), or http://{settings.host}:{settings.port}/mcp"
    )


@tools_app.command("list")
def tools_list(ctx: typer.Context) -> None:
    """Every tool with its toolset and policy; --fmt json adds the input and output
    schemas."""
    from shopfloor.app.described import cached_catalogue

    c = _ctx(ctx)
    rows = tool_rows(cached_catalogue())
    if c.fmt in ("text", "md"):
        c.out({"tools": [{k: v for k, v in r.items() if "schema" not in k and k != "description"}
                         for r in rows]})
    else:
        c.out({"tools": rows})


@tools_app.command("schema")
def tools_schema(ctx: typer.Context, name: str) -> None:
    """The input and output JSON Schema of one tool."""
    from shopfloor.kernel.errors import ShopfloorError

    c = _ctx(ctx)
    try:
        t = c.registry().get(name)
    except ShopfloorError as exc:
        fail(c, exc.to_payload())
    payload = {"name": t.name, "description": t.full_description,
               "input_schema": t.input_schema, "output_schema": t.output_schema}
    typer.echo(json.dumps(payload, indent=2) if c.fmt in ("text", "json")
               else render(payload, c.fmt))


@app.command()
def call(
    ctx: typer.Context,
    name: str,
    json_args: Annotated[str | None, typer.Option("--json", help="arguments as a JSON object "
                                                                 "(- reads stdin)")] = None,
    arg: Annotated[list[str] | None, typer.Option(
        "--arg", help="key=value: text for a text field, else JSON if it parses")] = None,
    wait: Annotated[bool, typer.Option(
        "--wait", help="for a job: wait for it (run it here if no worker takes it)")] = False,
) -> None:
    """Invoke one tool as the local actor, e.g. `shopfloor call get_stock --arg sku=OAK-BOARD`."""
    from shopfloor.app.wiring import local_actor
    from shopfloor.kernel.errors import ShopfloorError

    c = _ctx(ctx)
    try:
        settings = c.settings()
        registry = c.registry(lazy=True)  # (imports the called tool's module only)
        try:
            schema: dict[str, Any] | None = registry.get(name).input_schema
        except ShopfloorError:
            schema = None  # invoke says there is no such tool
        args = parse_args(json_args, arg or [], schema)
        actor = local_actor(settings)
        result = registry.invoke(name, args, actor)
        if wait and isinstance(result.get("job_id"), str):
            result = wait_for_job(registry, actor, result["job_id"])
    except ShopfloorError as exc:
        fail(c, exc.to_payload())
    c.out(result)


def wait_for_job(registry: Registry, actor: Actor, job_id: str) -> dict[str, Any]:
    """Poll the job with a progress bar on stderr; run it here if no worker claims it."""
    import time

    from shopfloor.app.wiring import worker_for
    from shopfloor.kernel.statuses import JOB_TERMINAL, JobState

    started = time.monotonic()
    with typer.progressbar(length=1000, label=f"job {job_id[:8]}", file=sys.stderr) as bar:
        shown = 0
        while True:
            job = registry.invoke("get_job", {"job_id": job_id}, actor)
            done = int(float(job["progress"]) * 1000)
            bar.update(done - shown)
            shown = done
            if job["status"] in JOB_TERMINAL:
                return job
            if job["status"] == JobState.queued and time.monotonic() - started > 1.0:
                worker_for(registry).run_one(job_id)  # nobody took it: run it here
                continue
            time.sleep(0.2)


@app.command()
def worker(ctx: typer.Context,
           poll: Annotated[float, typer.Option(help="seconds between polls when idle")] = 0.5,
           ) -> None:
    """Run jobs until stopped (any number of workers may share one database)."""
    import signal
    import threading

    c = _ctx(ctx)
    registry = c.registry()
    from shopfloor.app.wiring import worker_for

    stop = threading.Event()
    told: list[str] = []

    def stopping(sig: int, _frame: object) -> None:
        told.append(signal.Signals(sig).name)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, stopping)
    w = worker_for(registry, c.settings(), poll=poll)
    typer.echo(f"worker {w.name} on {registry.store.url.split('@')[-1]}", err=True)
    given = w.run(stop)
    back = f"; gave back {given} job{'s' if given != 1 else ''} to the queue" if given else ""
    typer.echo(f"worker {w.name} stopped on {told[0] if told else 'request'}{back}", err=True)


@token_app.command("create")
def token_create(
    ctx: typer.Context,
    role: Annotated[str, typer.Option(help="viewer, operator or admin")],
    subject: Annotated[str, typer.Option(help="who: recorded as the actor")] = "admin",
    ttl: Annotated[int, typer.Option(help="lifetime in seconds")] = 86400,
    needs_approval: Annotated[bool, typer.Option(
        "--needs-approval", help="its applies are held as proposals for someone to approve")
    ] = False,
) -> None:
    """Mint a bearer token signed with this deployment's secret."""
    from shopfloor.surfaces.auth import Authenticator

    if ttl <= 0:
        raise typer.BadParameter(f"{ttl} is not a lifetime: give a number of seconds, at "
                                 "least 1", param_hint="--ttl")
    c = _ctx(ctx)
    try:
        token = Authenticator(c.registry(), c.settings()).mint(
            subject, [role], ttl, needs_approval=needs_approval)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--role") from None
    typer.echo(token)


@token_app.command("revoke")
def token_revoke(
    ctx: typer.Context,
    subject: Annotated[str, typer.Option(help="whose tokens: the subject they name")],
    reason: Annotated[str | None, typer.Option(help="why, kept with it")] = None,
) -> None:
    """Refuse every token of SUBJECT issued until now, and withdraw its pending
    proposals (tokens minted afterwards hold again)."""
    from shopfloor.app.accounts import Accounts
    from shopfloor.kernel.errors import ShopfloorError

    c = _ctx(ctx)
    try:
        withdrawn = Accounts(c.registry().store).revoke_tokens(
            subject, c.settings().local_actor, reason)
    except ShopfloorError as exc:
        fail(c, exc.to_payload())
    typer.echo(f"Revoked the tokens of {subject.strip()}; withdrew {withdrawn} pending "
               f"proposal{'s' if withdrawn != 1 else ''}.", err=True)


# Where `serve` and `run` listen; unset, the settings' (SHOPFLOOR_HOST, SHOPFLOOR_PORT).
Host = Annotated[str | None, typer.Option(help="default 127.0.0.1")]
Port = Annotated[int | None, typer.Option(help="default 8765")]


@app.command()
def serve(ctx: typer.Context, host: Host = None, port: Port = None) -> None:
    """Serve the HTTP API, the web admin and MCP over streamable HTTP at /mcp."""
    # Start-up builds what lives as long as the process (modules, the catalogue, schemas,
    # the app): frozen out of the cyclic collector's passes. Every MCP request over HTTP
    # allocates enough to set off collections, and each full one walked all of start-up:
    # ~0.2 ms a call, about a fifth of a get_item over /mcp.
    import gc

    gc.disable()
    from shopfloor.surfaces.server import build_app
    from shopfloor.surfaces.server import serve as serving

    c = _ctx(ctx)
    settings = c.settings()
    application = build_app(c.registry(), settings)
    gc.freeze()
    gc.enable()
    told = serving(application, host or settings.host, port or settings.port)
    typer.echo(f"shopfloor serve stopped on {told or 'request'}", err=True)


@app.command()
def run(ctx: typer.Context, host: Host = None, port: Port = None) -> None:
    """What `make run` does, in one process: create or migrate the database, load the demo
    company into an empty one, show the overview and how to sign in, then serve."""
    init(ctx)
    demo(ctx, if_empty=True)
    overview(ctx)
    from shopfloor.surfaces.cli.users import user_hint

    user_hint(ctx)
    serve(ctx, host=host, port=port)


def _mcp_help() -> str:
    """`shopfloor mcp --help`: a host configuration to copy as it stands. The JSON block
    is a `\\b` paragraph (never re-wrapped) and help is printed without Rich (which wraps
    at the terminal width), so what is copied is valid JSON."""
    from pathlib import Path

    command = json.dumps(str(Path(sys.executable).with_name("shopfloor")))
    host = ('{"mcpServers": {"shopfloor": {\n'
            f'  "command": {command}, "args": ["mcp"],\n'
            '  "env": {"SHOPFLOOR_DATABASE_URL": "sqlite:////path/to/shopfloor.db"}}}}')
    return (
        "Serve MCP over stdio, acting as the configured local actor.\n\n"
        "Add Shopfloor to an MCP host (Claude Desktop, VS Code, the Inspector...) over "
        "stdio with this configuration:\n\n"
        f"\b\n{host}\n\n"
        "Or over streamable HTTP: run `shopfloor serve`, then point the host at this URL, "
        "with the header shown:\n\n"
        "\b\n"
        "http://127.0.0.1:8765/mcp\n"
        "Authorization: Bearer $(shopfloor token create --role operator)\n\n"
        'The local actor is SHOPFLOOR_LOCAL_ACTOR (default "local") with role '
        "SHOPFLOOR_LOCAL_ROLE (default admin). Write tools return a preview card (MCP Apps) "
        "whose Confirm applies.\n\n"
        "The host is listed the office day's tools (toolset `default`) and the discovery "
        "tools (list_toolsets, find_tools, enable_toolset); --toolsets or "
        "SHOPFLOOR_TOOLSETS chooses others (`all` lists every tool). Over HTTP: the "
        "X-Shopfloor-Toolsets header or the /mcp/x/{toolsets} path."
    )


@app.command(help=_mcp_help())
def mcp(ctx: typer.Context,
        toolsets: Annotated[str | None, typer.Option(
            "--toolsets", help="toolsets to list, e.g. default,floor or all (default: "
                               "SHOPFLOOR_TOOLSETS, else default); any tool answers by name")
        ] = None) -> None:
    from shopfloor.surfaces.cli.quick import serve_mcp

    serve_mcp(_ctx(ctx).settings(), toolsets)  # (a plain `mcp` line never reaches typer)

