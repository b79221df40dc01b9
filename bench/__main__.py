"""`make bench`: every benchmark, each printing its figures, its baseline and the ratio."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPTS = ["mcp_startup", "mcp_overhead", "apply_throughput", "ledger_scale", "memory", "mrp_scale"]


def main() -> int:
    here = Path(__file__).parent
    failed = 0
    for name in SCRIPTS:
        print(f"== {name}", flush=True)
        failed += subprocess.run([sys.executable, str(here / f"{name}.py")]).returncode != 0
    return failed


if __name__ == "__main__":
    sys.exit(main())
