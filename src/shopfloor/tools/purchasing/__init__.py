"""The purchasing toolset: purchase orders (orders.py) and the supplier's terms they are
placed in, exchange rates and landed costs (terms.py)."""
