"""The accountant's side of stock: the chart the stock books post to, the journal every
valued movement writes, and the reports and exports read from it (issue 31)."""
