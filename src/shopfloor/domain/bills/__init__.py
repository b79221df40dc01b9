"""Supplier bills matched three ways (ordered, received, billed): `posting` enters and
reverts them, `reads` lists them and what is still unbilled, `matching` holds the rules."""
