"""The event types and delivery statuses are spelt once (kernel) and the tools' fields
take exactly those words."""

from __future__ import annotations

from typing import get_args

import pytest

from shopfloor.kernel.events import EVENT_TYPES
from shopfloor.kernel.statuses import Delivery
from shopfloor.tools import events

pytestmark = pytest.mark.quick


def test_the_tools_take_exactly_the_kernels_words() -> None:
    assert get_args(events.EventName) == EVENT_TYPES
    assert get_args(events.DeliveryStatus) == tuple(Delivery)


def test_the_retry_schedule_first_retry_within_30_seconds_then_gives_up() -> None:
    from datetime import timedelta

    from shopfloor.domain.events.retries import ATTEMPTS, next_delay

    assert next_delay(1) is not None and next_delay(1) <= timedelta(seconds=30)  # type: ignore[operator]
    delays = [next_delay(n) for n in range(1, ATTEMPTS)]
    assert all(d is not None for d in delays) and delays == sorted(delays)  # type: ignore[type-var]
    assert next_delay(ATTEMPTS) is None
