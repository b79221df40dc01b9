"""Purchase and sales orders: placing, receiving, shipping, closing short, returns."""
