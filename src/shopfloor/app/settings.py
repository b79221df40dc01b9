"""One settings object: SHOPFLOOR_* environment variables over an optional TOML file.

Precedence: explicit arguments (CLI flags) > environment > `shopfloor.toml` > defaults.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any


def _default_db() -> str:
    return f"sqlite:///{Path.cwd() / 'shopfloor.db'}"


@dataclass(frozen=True)
class Settings:
    database_url: str = ""
    secret: str | None = None
    host: str = "127.0.0.1"
    port: int = 8765
    local_actor: str = "local"
    local_role: str = "admin"
    require_preview_token: bool = False
    preview_ttl_minutes: int = 15
    confirm_writes: str = "destructive"
    """Which applies without a preview token ask the person first, in their MCP host's own
    dialog (clients that declare elicitation): `destructive` (and any call whose preview
    lowers stock), `all`, or `none`."""
    jwt_issuer: str | None = None
    """With JWKS_URL: the identity provider's issuer its tokens must name."""
    jwt_audience: str | None = None
    """With JWKS_URL: the audience the identity provider's tokens must name."""
    jwks_url: str | None = None
    mcp_output_schemas: bool = True
    toolsets: str = "default"
    """Which toolsets MCP lists (`default,floor`, `all`); an HTTP client may choose its own
    by the X-Shopfloor-Toolsets header or the /mcp/x/{toolsets} path. Any tool the role
    allows answers when called by name, listed or not."""
    job_heartbeat_seconds: float = 2.0
    job_stale_seconds: float = 20.0
    mcp_progress_wait_seconds: float = 300.0
    session_minutes: float = 480.0
    """How long a password sign-in lasts (a working day); sign-out ends it sooner."""
    currency: str = "EUR"
    """ISO 4217 code the admin and cards show the company's money in; a document in a
    partner's currency (a purchase order in USD) is shown in its own."""
    time_zone: str = ""
    """IANA zone for dates in the admin; empty: the reader's own (the browser's)."""
    webhook_allow_private: bool = False
    """Let webhooks point at loopback, link-local and private addresses (tests, a
    receiver on the same network); off, only public addresses are taken and called."""
    webhook_lease_seconds: float = 30.0
    """How long a worker holds the deliveries it took; a killed worker's are sent again
    after this (and the next sweep)."""
    webhook_timeout_seconds: float = 10.0
    """How long a receiver has to answer one delivery before it counts as failed."""
    pg_bin_dir: str = ""
    """Where pg_dump and pg_restore are, for backups; empty: PATH, then the newest
    /usr/lib/postgresql/*/bin (a newer pg_dump reads an older server, not the reverse)."""

    @classmethod
    def load(cls, config: str | Path | None = None, **overrides: Any) -> Settings:
        values: dict[str, Any] = {}
        path = Path(config or os.environ.get("SHOPFLOOR_CONFIG", "shopfloor.toml"))
        if path.is_file():  # (tomllib only then: most starts have no file)
            import tomllib

            values.update(tomllib.loads(path.read_text()).get("shopfloor", {}))
        for f in fields(cls):
            env = os.environ.get(f"SHOPFLOOR_{f.name.upper()}")
            if env is not None:
                values[f.name] = _coerce(f.type, env)
        values.update({k: v for k, v in overrides.items() if v is not None})
        settings = cls(**values)
        if not settings.database_url:
            settings = replace(settings, database_url=_default_db())
        return settings


def _coerce(kind: Any, text: str) -> Any:
    if kind in ("bool", bool):
        return text.strip().lower() in ("1", "true", "yes", "on")
    if kind in ("int", int):
        return int(text)
    if kind in ("float", float):
        return float(text)
    return text
