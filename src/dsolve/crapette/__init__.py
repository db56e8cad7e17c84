"""Crapette (Double Solitaire, Zank-Patience): the rules engine, players, rounds and matches."""
