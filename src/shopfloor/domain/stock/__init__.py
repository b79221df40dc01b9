"""The valued ledger: items, balances per location and lot, moving-average cost, lot
numbering and picking, adjustments, transfers, counts, imports and rebuilds."""
