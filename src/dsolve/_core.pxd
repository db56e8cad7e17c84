# Declarations of the native core: the position, the macro move and the game configuration.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t

cdef enum:
    MAX_PILES = 9        # two-deck Klondike deals nine columns
    PILE_CAP = 32        # face-down cards (at most 8) + a run of at most 13 cards + slack
    MAX_TALON = 64       # stock + waste cards; 59 in two-deck Klondike, fits a 64-bit mask
    TALON_BYTES = 8      # bytes of such a mask
    MAX_MOVES = 1024
    MAX_CARD = 52        # card numbers are rank * 4 + suit, suits C, H, S, D
    UNLIMITED = 255      # redeals_left when passes are unlimited
    NOT_IN_STOCK = 255

# Empty-column rules, as in Rules.empty_rule.
cdef enum:
    EMPTY_KING = 0
    EMPTY_ANY = 1
    EMPTY_NONE = 2

# Macro-move kinds.
cdef enum:
    MV_TABLEAU_FOUNDATION = 0    # top card of pile src home
    MV_TABLEAU_TABLEAU = 1       # run from index idx of pile src onto pile dst
    MV_TALON_FOUNDATION = 2      # talon card at position idx home (turning the stock as needed)
    MV_TALON_TABLEAU = 3         # talon card at position idx onto pile dst
    MV_FOUNDATION_TABLEAU = 4    # top card of foundation src onto pile dst

# Move flags.
cdef enum:
    FLAG_REDEAL = 1              # talon move that needs one redeal first
    FLAG_THEN_HOME = 2           # partial-run move followed by the exposed card going home


cdef struct Move:
    uint8_t kind
    uint8_t src
    uint8_t dst
    uint8_t idx
    uint8_t flags
    uint8_t card


cdef struct Config:
    int draw
    int unlimited                # passes unlimited
    int empty_rule
    int worry_back
    int suits                    # suits in play (first suits of C, H, S, D)
    int ranks                    # ranks in play (A upward); ranks - 1 is the "king"
    int piles
    int total                    # cards in the deal
    int draw1_reserve            # draw 1 with unlimited passes: every talon card is always reachable
    int relaxation               # the relaxation of a game with a stock (see relax_config)
    int twin_classes             # positions keyed by twin class (not under EMPTY_ANY; see state_key)
    int unique_cards             # one deck: every card once (the reductions that need it, see
                                 # _core_state.pxi); 0 for two decks
    int two_rounds               # two decks, 4 foundations: each built A..K, then A..K again
    int home_slots               # foundation piles in State.home: 4, or 8 (two decks, 8
                                 # foundations: slot s and s + 4 for suit s, kept s's >= s+4's)
    int trust_unproved           # the searches that only look for wins: take the two-deck
                                 # safe-move rule where it is unproved (see safe_two_decks)
    int greedy_home              # ... and every other one of them sends home every card that
                                 # fits its foundation (see schedule)
    uint64_t draw_multiples      # bit k set when k is a multiple of draw (k < 64: no division)
    uint8_t stock_card[MAX_TALON]  # original stock, first turned first
    uint8_t stock_index[MAX_CARD]  # each card's index in stock_card, NOT_IN_STOCK if none
    uint32_t talon_pairs[TALON_BYTES * 256]  # [k * 256 + v]: the (rank, colour) pairs of the
                                             # stock cards of byte k of a talon_mask, v (builders)
    uint8_t reveal[MAX_PILES][PILE_CAP]  # [p][d]: cards turned up when pile p's face-up cards are
                                         # gone above its d hidden ones (see hidden_region)
    uint32_t carried[MAX_PILES]  # bit k: pile p's hidden card k is face up on its parent in a
                                 # locked run, so may leave as part of a run (see dead_end)


cdef struct PileKey:
    uint64_t a                          # the two lanes of the pile's share of the key
    uint64_t b
    uint64_t upper                      # face-up cards lying on another card
    uint64_t on_high_twin               # those whose parent is the higher-numbered of its twins
    uint64_t face_up                    # all face-up cards


cdef struct State:
    uint8_t card[MAX_PILES][PILE_CAP]   # pile cards, bottom -> top
    uint8_t length[MAX_PILES]
    uint8_t down[MAX_PILES]             # hidden cards at the bottom of each pile: face down, or
                                        # face up below the top run (see hidden_region)
    uint8_t home[8]                     # cards on each foundation (see Config.home_slots)
    uint8_t talon[MAX_TALON]            # remaining stock + waste as indices into Config.stock_card
    uint8_t talon_len
    uint8_t waste_len                   # talon[0 .. waste_len-1] is the waste, its top the last
    uint8_t redeals_left                # UNLIMITED when passes are unlimited
    uint8_t total_home
    uint64_t talon_mask                 # bit i set while original stock card i is in the talon
    PileKey pile_key[MAX_PILES]         # each pile's share of the position key (see state_key)
    PileKey piles_key                   # their sums (a, b) and unions (the card sets)
    uint16_t stale                      # piles changed since their pile_key was computed
