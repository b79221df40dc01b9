"""The catalogue's description (every tool's name, facts and schemas, as surfaces list
them), kept in a cache file between processes.

Describing the catalogue imports every tool module, the domain under them and pydantic's
schema generation: most of a second on a small machine, paid by `shopfloor tools list`
and by every `shopfloor mcp` before its first tools/list. The description changes only
when the code does, so it is written once per version of the source (its key: the
package's version and every module's size and modification time) and read back as JSON.
Where the cache cannot be read or written the description is built in the process:
same code, same result.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shopfloor

if TYPE_CHECKING:
    from shopfloor.registry.tool import Tool


def describe(t: Tool) -> dict[str, Any]:
    """What a surface lists of a tool (everything but its handler), JSON-ready."""
    return {"name": t.name, "title": t.title, "description": t.full_description,
            "input_schema": t.input_schema, "output_schema": t.output_schema,
            "writes": t.facts.writes, "job": t.facts.job,
            "destructive": t.facts.destructive, "app_only": t.app_only,
            "open_world": t.facts.open_world, "toolset": t.facts.toolset,
            "everyday": t.facts.everyday, "role": t.facts.role.name}


def describe_catalogue() -> list[dict[str, Any]]:
    """Every tool, in catalogue order, without a database: what tools/list shows."""
    from shopfloor.tools import every_tool

    return [describe(t) for t in every_tool()]


def cache_dir() -> Path:
    found = os.environ.get("SHOPFLOOR_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME")
    base = Path(found) if found else Path.home() / ".cache"
    return base if os.environ.get("SHOPFLOOR_CACHE_DIR") else base / "shopfloor"


def source_key() -> str:
    """Changes whenever any module of the package does (or the interpreter)."""
    root = Path(shopfloor.__file__).parent
    digest = hashlib.sha256(f"{shopfloor.__version__}|{sys.version}|{root}".encode())
    for folder, dirs, files in sorted(os.walk(root)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return digest.hexdigest()[:24]


def cache_path() -> Path:
    return cache_dir() / f"catalogue-{source_key()}.json"


def cached_only() -> list[dict[str, Any]] | None:
    """The cached description, or None when there is none (or it cannot be read)."""
    try:
        found: list[dict[str, Any]] = json.loads(cache_path().read_bytes())
        return found
    except (OSError, ValueError):
        return None


def cached_catalogue() -> list[dict[str, Any]]:
    found = cached_only()
    if found is not None:
        return found
    path = cache_path()
    described = describe_catalogue()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(described, separators=(",", ":")))
        partial.replace(path)  # whole or not at all: a reader never sees half a file
        _prune(path)
    except OSError:
        pass
    return described


def _prune(kept: Path) -> None:
    """Descriptions of older code, untouched for a day, go (each edit makes a new key)."""
    import time

    for old in kept.parent.glob("catalogue-*.json"):
        try:
            if old != kept and old.stat().st_mtime < time.time() - 86_400:
                old.unlink()
        except OSError:
            pass
