"""The accounting toolset: the chart, the journal and its reports and exports (books.py),
the period lock (period.py) and revaluing stock by hand (revaluing.py)."""
