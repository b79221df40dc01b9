"""Local accounts: who may sign in, with which role. Managing them is a rule like any
other (tools call it through an `Op`, previewed and logged); signing in and sessions stay
with the app, which asks this package for the password rules and the hasher."""
