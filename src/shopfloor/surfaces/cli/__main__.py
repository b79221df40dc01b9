"""`python -m shopfloor.surfaces.cli`: the tests run the CLI as a fresh process."""

from shopfloor.surfaces.cli import main

main()
