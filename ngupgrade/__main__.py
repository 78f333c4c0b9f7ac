"""``python -m ngupgrade`` runs the command line."""

from ngupgrade.cli import main

main()
