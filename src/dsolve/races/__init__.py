"""Double solitaire: two seats, each with its own deck and Klondike layout, racing on eight shared
foundations (the open race, and the locked race of Simultaneous Solitaire).

``table.py`` the two-seat game and its legal moves; ``referee.py`` an independent replay of a race
record; ``timing.py`` the simultaneous-race clock and the turn-based mode; ``progress.py`` the check
whether a seat can still progress (a race ends blocked only when none can); ``players.py`` the seat
adapters of the hidden-information, careless and random players; ``race.py`` races in duplicate
format and their report.
"""
