"""Planning: time-phased MRP with pegging, lot sizing and action messages (mrp.py), the
projected stock record and availability by date (projection.py), and the pegs an applied
plan leaves on its orders (pegging.py)."""

from __future__ import annotations

from shopfloor.domain.planning.mrp import plan

__all__ = ["plan"]
