"""Print PySolFC's own Double Klondike deals as JSON lines (reference vectors for dsolve's tests).

Usage: python3 pysolfc_double_klondike.py PYSOLFC_CHECKOUT [GAME_ID [SEED...]]
(game 21, "Double Klondike", by default; without seeds, the seeds of the stored vectors)

Runs PySolFC's game code headless: the game's createGame, createCards, shuffle and startGame, the
stacks' dealing and PySolFC's moves, with only drawing (canvas items, animation) stubbed out. A game
number goes through construct_random, as PySolFC's "--deal" option and its game-number dialog do.
"""
import json
import random
import sys

sys.path.insert(0, sys.argv[1])

import pysollib.game  # noqa: E402
import pysollib.games.harp  # noqa: E402,F401  (registers Double Klondike)
import pysollib.games.klondike  # noqa: E402,F401  (registers Klondike, to check this harness)
import pysollib.layout  # noqa: E402
import pysollib.stack  # noqa: E402
from pysollib.acard import AbstractCard  # noqa: E402
from pysollib.gamedb import GAME_DB  # noqa: E402
from pysollib.pysolrandom import construct_random  # noqa: E402

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = "CSHD"  # PySolFC's suit numbers


class Inert:
    """Stands for any drawing object: every attribute and call is another Inert, false."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return Inert()

    def __call__(self, *args, **kwargs):
        return Inert()

    def __bool__(self):
        return False


class Images(Inert):
    def __getattr__(self, name):
        return 50 if name.isupper() else Inert()  # card sizes and offsets


class App(Inert):
    images = Images()

    def getFont(self, name):
        return ("helvetica", 12)


class Canvas(Inert):
    xmargin = ymargin = preview = 0


class Card(AbstractCard):
    def showFace(self, unhide=1):
        self.face_up = 1

    def showBack(self, unhide=1):
        self.face_up = 0


for module in (pysollib.stack, pysollib.layout, pysollib.game):
    for name in dir(module):
        if name.startswith("MfxCanvas"):
            setattr(module, name, Inert)


def make_game(game_id):
    info = GAME_DB.get(game_id)
    game = info.gameclass(info)
    game.app, game.canvas, game.top = App(), Canvas(), Inert()
    game.texts = pysollib.game.GameTexts()
    game.createGame()
    game.allstacks = tuple(game.allstacks)
    game.sg.to_tuples()
    game.s.to_tuples()
    for stack in game.allstacks:
        stack.prepareStack()
        stack.assertStack()

    def create_card(id, deck, suit, rank, x, y):
        card = Card(id, deck, suit, rank, game, x, y)
        card.item = Inert()
        return card

    game._createCard = create_card
    game.cards = game.createCards()
    game.animatedMoveTo = lambda *args, **kwargs: None  # drawing only
    return game


def name(card):
    return RANKS[card.rank] + SUITS[card.suit]


def deal(game, seed):
    game.reset()
    game.resetGame()
    game.createRandom(construct_random(str(seed)))
    game.shuffle()
    game.startGame()
    rows = game.s.rows
    assert [r.x for r in rows] == sorted(r.x for r in rows)  # left to right
    for k, row in enumerate(rows):
        assert [c.face_up for c in row.cards] == [0] * k + [1], (seed, k)
    turned = [name(c) for c in game.s.waste.cards]  # startGame turns the first stock card(s)
    return {"convention": "pysol", "game": game.id, "random": type(game.random).__name__,
            "seed": str(seed), "tableau": [[name(c) for c in row.cards] for row in rows],
            "stock": turned + [name(c) for c in reversed(game.s.talon.cards)]}


def vector_seeds():
    """Both generators' small numbers and their switch, larger ones, and eight random 20-digit ones."""
    seeds = [*range(1, 21), 100, 1000, 31998, 31999, 32000, 32001, 123456789,
             2**31 - 1, 2**31, 2**32 + 5, 10**17 + 9, 10**20 - 1]
    rng = random.Random(21)
    return seeds + [rng.randrange(10**19, 10**20) for _ in range(8)]


game = make_game(int(sys.argv[2]) if len(sys.argv) > 2 else 21)
for seed in sys.argv[3:] or vector_seeds():
    print(json.dumps(deal(game, int(seed))))
