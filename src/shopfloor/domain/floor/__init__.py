"""The shop floor: work centres and their calendars, routings, the scheduling of
manufacturing orders through them, and the load it puts on each centre.

It sits below production (which schedules and costs its orders here) and beside lots;
planning reads it to date planned orders by their routing.
"""
