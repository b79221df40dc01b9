"""Planning: time-phased MRP with pegging, lot sizing and action messages (mrp.py), the
projected stock record and availability by date (projection.py), and the pegs an applied
plan leaves on its orders (pegging.py). Nothing is imported here: a report that reads
`planning.reports` does not load MRP and the shop floor with it."""
