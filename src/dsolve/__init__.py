"""dsolve: decide Klondike-family deals fast and soundly."""
from .cards import DeckShape, card_name, parse_card
from .deal import Deal
from .errors import InputError
from .moves import Move
from .rules import PRESETS, Rules, preset

__version__ = "0.1.0"

__all__ = ["Deal", "DeckShape", "InputError", "Move", "PRESETS", "Rules", "card_name",
           "parse_card", "preset", "__version__"]
