"""Klondike, one deck or two: deals and deal files, moves, the referee, the solver's answers."""
