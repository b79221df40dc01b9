"""The admin's pages, one module per thing a person works on: home, items, orders,
planning (MRP), stock valuation, jobs, the log; every tool's own form (tools), signing
in, and the pick lists the forms ask.

Each page reads through registry tools as the signed-in actor, and each action is a link
to the tool's own form, pre-filled (receive these lines, ship that order): the form,
preview and Confirm are the generic ones, so an action never has its own write path.
A view whose tool is missing from the catalogue (lots, revert) simply leaves it out.

Each module's `routes(admin)` gives its URLs; `admin/routes.py` mounts them. A page
module imports `core` and the helpers below it, never another page module (the
import-linter contract `admin-pages`): what two pages share lives outside this package.
This file imports none of them, so importing one page does not import the others.
"""
