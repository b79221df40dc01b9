"""The browser tests of a process share one Chromium (tests/surfaces/browser/harness.py),
closed once they are done."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.surfaces.browser import harness


@pytest.fixture(scope="session", autouse=True)
def shared_chromium() -> Iterator[None]:
    yield
    harness.close()
