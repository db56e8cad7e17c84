"""``python -m dsolve`` runs the command line."""
from .cli import main

main()
