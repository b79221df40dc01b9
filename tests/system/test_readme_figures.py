"""The README's figures are the catalogue's (issue 29: it said 61 tools when there were
94): every "N tools" it prints is the number of tools the registry serves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shopfloor.app.wiring import catalogue_tools

pytestmark = pytest.mark.quick

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_tool_count_in_the_readme_is_the_catalogues() -> None:
    counts = [int(n.replace(",", "")) for n in re.findall(r"\b(\d[\d,]*) tools\b",
                                                          README.read_text("utf-8"))]
    assert counts, "the README names how many tools there are"
    assert set(counts) == {len(catalogue_tools())}, counts
