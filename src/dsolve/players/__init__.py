"""Players who see only what a person at the table sees: a hidden-information player, a careless
one, and the grade of a deal from their plays."""
