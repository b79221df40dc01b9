"""Lots as people ask about them: holds and recalls, trace forward and back, expiry."""
