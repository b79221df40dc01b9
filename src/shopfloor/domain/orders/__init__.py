"""Returns against purchase and sales orders, and what suppliers' bills have billed of a
purchase line: what reads back an order of either kind."""
