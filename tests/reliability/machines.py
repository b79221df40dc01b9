"""Running the ledger's hypothesis state machines: each gets a fresh registry per example
(from the `fresh` fixture) and the same settings, bounded in `make test`, longer under
the `long` mark."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from shopfloor.registry.registry import Registry


def run_machine(machine: Any, make: Callable[[], Registry], examples: int, steps: int) -> None:
    machine.make = staticmethod(make)
    run_state_machine_as_test(machine, settings=settings(
        max_examples=examples, stateful_step_count=steps, deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]))
