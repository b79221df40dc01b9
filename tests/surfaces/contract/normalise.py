"""Make payloads from different surfaces comparable: volatile values become placeholders.

Only values that are different by nature (tokens, generated ids of operations, times)
are masked; everything else must match byte for byte.
"""

from __future__ import annotations

import re
from typing import Any

VOLATILE_KEYS = {"operation_id", "preview_token", "idempotency_key", "created_at", "expires_at",
                 "started_at", "finished_at"}
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def normalise(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (f"<{k}>" if k in VOLATILE_KEYS and v is not None else normalise(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, str):
        return _UUID.sub("<uuid>", value)
    return value


def differences(a: Any, b: Any, path: str = "$") -> list[str]:
    """Where two normalised payloads differ (empty: equal)."""
    if type(a) is not type(b):
        return [f"{path}: {type(a).__name__} != {type(b).__name__}"]
    if isinstance(a, dict):
        out = [f"{path}.{k}: only on one side" for k in set(a) ^ set(b)]
        for k in set(a) & set(b):
            out += differences(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]
