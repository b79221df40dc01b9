"""Shopfloor: inventory and manufacturing that people and AI agents can run safely."""

__version__ = "0.1.0"
