"""Purchase orders: placing, receiving and closing short, in the supplier's units and
currency."""
