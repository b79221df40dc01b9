"""Buying in the supplier's terms: supplier items (unit, pack, minimum, multiple, lead
time, price breaks), the company's exchange rates, which supplier a planned purchase goes
to (choice.py, no database), and recipe yield (yields.py, no database). Orders and
planning read it; it reads only the stock row and below."""
