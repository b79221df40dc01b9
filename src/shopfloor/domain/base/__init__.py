"""What every concept stands on: the unit of work (Op), keys to rows, batched lookups,
number limits and document numbering."""
