"""The web admin: every tool as a form, and pages for the day's work."""

from shopfloor.surfaces.admin.routes import admin_routes

__all__ = ["admin_routes"]
