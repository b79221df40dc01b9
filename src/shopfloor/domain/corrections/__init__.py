"""Fixing mistakes without editing history: corrections of documents, reverts of
operations, and the cost adjustments both leave behind."""
