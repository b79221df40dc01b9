"""Render a result payload for people: text, Markdown, YAML, or the exact JSON.

The JSON form is the registry's payload untouched (the contract); the others are views
of it, so no surface ever computes something the registry did not return.
"""

from __future__ import annotations

import json
from typing import Any

FORMATS = ("text", "json", "yaml", "md")


def render(payload: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(payload, indent=2, ensure_ascii=False)
    if fmt == "yaml":
        import yaml

        return str(yaml.safe_dump(payload, sort_keys=False, allow_unicode=True)).rstrip()
    return _human(payload, md=fmt == "md").strip("\n")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value).replace("\n", " ")


def _table(rows: list[dict[str, Any]], md: bool) -> str:
    cols: list[str] = []
    for row in rows:
        cols += [k for k in row if k not in cols and not isinstance(row[k], list | dict)]
    cells = [[_cell(r.get(c)) for c in cols] for r in rows]
    if md:
        head = "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols)
        return head + "".join("\n| " + " | ".join(c.replace("|", "\\|") for c in r) + " |"
                              for r in cells)
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]
    line = "  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True))
    body = ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join([line, "  ".join("-" * w for w in widths), *body])


def _human(payload: Any, md: bool) -> str:
    if not isinstance(payload, dict):
        return _cell(payload)
    out: list[str] = []
    heading = "## " if md else ""
    if payload.get("preview"):
        out.append(f"{heading}PREVIEW: {payload.get('summary')}")
    elif payload.get("applied"):
        tag = "REPLAYED" if payload.get("replayed") else "APPLIED"
        out.append(f"{heading}{tag}: {payload.get('summary')} "
                   f"(operation {payload.get('operation_id')})")
    scalars = {k: v for k, v in payload.items()
               if not isinstance(v, list | dict) and k not in ("preview", "applied", "summary",
                                                               "replayed", "preview_token")}
    if scalars and not payload.get("preview"):
        out.append(_table([scalars], md) if md else "\n".join(
            f"{k}: {_cell(v)}" for k, v in scalars.items()))
    for key, value in payload.items():
        if key in ("apply", "document") or not isinstance(value, list) or not value:
            continue
        if all(isinstance(v, dict) for v in value):
            out.append(f"\n{'### ' if md else ''}{key}\n" + _table(value, md))
        else:
            out.append(f"{key}: " + ", ".join(_cell(v) for v in value))
    if payload.get("preview"):
        if payload.get("preview_token"):
            out.append("\nTo apply: repeat the call with preview=false and "
                       f"preview_token={payload['preview_token']}")
        else:
            out.append("\nBlocked: a warning above prevents applying this.")
    return "\n".join(out)
