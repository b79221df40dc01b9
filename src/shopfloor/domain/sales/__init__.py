"""Sales orders: taking, shipping, closing short, and their pick lists."""
