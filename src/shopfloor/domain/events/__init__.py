"""Events as the outbox tells them: where a webhook may point, how it is made and
retired, and when a failed delivery is tried again."""
