# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The native core: decides thoughtful Klondike deals by depth-first search.

A position (``State``) holds its piles explicitly, the talon (stock + waste) as indices into the
original stock, and the foundation heights. The search is a depth-first search over macro moves
with a transposition table of 127-bit keys of a canonical encoding: piles without face-down cards
are interchangeable, so their order does not matter, and positions that differ only in which of
two twin parents (same rank and colour) a card lies on share a key when that cannot change the
verdict (twin classes, see state_key). The stock is searched as K+ macro moves: every talon card
reachable by turning (and at most one redeal) is a move of its own.

Losses that hang on the order of the stock are often proved far sooner in a relaxation in which
every talon card is always reachable; its search takes turns with the game's (relax_config).

Only sound reductions are used; each carries its argument where it is applied:
safe moves to the foundation (also of a safe card only a lone child covers), partial-run moves
only when the exposed card goes home next, one empty column as the target of a move, no
pointless whole-pile moves, no worrying back of a card that would be safe, the cursor
normalisation of unlimited redeals, no talon moves that a twin with another cursor makes
(covered_by_twin), and twin classes.
"""
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memmove, memset
from posix.mman cimport MADV_HUGEPAGE, MAP_ANONYMOUS, MAP_FAILED, MAP_PRIVATE, PROT_READ, PROT_WRITE
from posix.mman cimport madvise, mmap, munmap
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec


AUTO_HOME = 255          # kind of a recorded automatic (safe) move to the foundation
AUTO_TRANSFER = 254      # kind of a recorded lone child's move onto its other parent (safe_home)

cdef enum:
    TRANSFER = 0x80      # marks a recorded card (< MAX_CARD) as a lone child moved, not sent home

cdef extern from *:
    """
    #define DSOLVE_ONE_DECK(cfg) __builtin_expect((cfg)->unique_cards, 1)
    """
    void __builtin_prefetch(const void* address) nogil
    int ctz64 "__builtin_ctzll" (unsigned long long x) nogil

cdef extern from "Python.h":
    # Declared without an exception clause on purpose: a pending KeyboardInterrupt must come back
    # as a return value, so the search can stop with LIMIT_INTERRUPT and solve_position raise it.
    # (Raised inside the noexcept search it would be "ignored" and the search return a verdict.)
    int check_signals "PyErr_CheckSignals" () noexcept

cdef enum:
    LIMIT_NONE = 0
    LIMIT_NODES = 1
    LIMIT_SECONDS = 2
    LIMIT_MEMORY = 3
    LIMIT_INTERRUPT = 4

cdef extern from *:
    # Whether the game has one deck (Config.unique_cards), hinted as the likely case: the
    # one-deck search pays for the two-deck switches with branches laid out out of its way
    # (without the hint they cost it about 5 % of its speed).
    bint one_deck "DSOLVE_ONE_DECK" (const Config* cfg) nogil

include "_core_state.pxi"
include "_core_movegen.pxi"
include "_core_dead_ends.pxi"
include "_core_keys.pxi"
include "_core_table.pxi"
include "_core_search.pxi"


# ---------------------------------------------------------------------------------------------
# Loading a position, and the Python API

cdef int hidden_region(Config* cfg, int p, const uint8_t* cards, int length,
                       int face_down) noexcept nogil:
    """How many cards at the bottom of pile p (``length`` cards, the lowest ``face_down`` face
    down) are hidden: the face-down cards and the face-up cards below the pile's top run.

    A face-up card that is not in the top run cannot move until every card above it has left:
    exactly like a face-down card whose identity is known. The face-up cards split, from the
    top, into maximal runs; the top one is movable, the others are locked, and each bottom card
    of a run does not build on the card under it. When the cards above a locked run are gone,
    the whole run is the pile's top run at once: cfg.reveal[p][d] is how many cards turn up when
    the pile is down to its d hidden cards (1 for a face-down card), and cfg.carried[p] marks the
    locked cards that lie on their parent in their run (they can leave with it, not only alone).
    A dealt pile (one face-up card) has no locked run: every reveal is 1."""
    cdef int k, i, j = length, top = -1
    for k in range(1, face_down + 1):
        cfg.reveal[p][k] = 1
    while j > face_down:
        i = j - 1
        while i > face_down and can_stack(cards[i], cards[i - 1]):
            i -= 1
        if top < 0:
            top = i
        else:
            cfg.reveal[p][j] = <uint8_t>(j - i)
            for k in range(i + 1, j):
                cfg.carried[p] |= (<uint32_t>1) << k
        j = i
    return top if top >= 0 else face_down


cdef int load_position(Config* cfg, State* start, list piles, list down, list talon, int suits,
                       int ranks, int draw, int passes, int empty_rule, bint worry_back, list home,
                       int waste, int passes_used, int decks, int foundations) except -1:
    """Set up the configuration and the starting state of a position (see solve_position);
    ValueError for one beyond the core's fixed sizes."""
    cdef int p, k, byte, hidden, lowest
    cdef uint32_t* pairs
    cdef uint8_t pile[PILE_CAP]
    if len(piles) > MAX_PILES or len(talon) > MAX_TALON or len(down) != len(piles):
        raise ValueError("deal too large for the native core")
    if not 0 <= waste <= len(talon) or (passes > 0 and not 1 <= passes_used <= passes):
        raise ValueError("bad talon cursor or pass count")
    if not (decks == 1 and foundations == 4 or decks == 2 and foundations in (4, 8)):
        raise ValueError("decks 1 with 4 foundations, or 2 with 4 or 8")
    memset(cfg, 0, sizeof(Config))
    cfg.unlimited = passes == 0
    cfg.empty_rule = empty_rule
    cfg.worry_back = worry_back
    cfg.suits = suits
    cfg.ranks = ranks
    cfg.piles = len(piles)
    cfg.total = suits * ranks * decks
    cfg.unique_cards = decks == 1
    cfg.two_rounds = decks == 2 and foundations == 4
    cfg.home_slots = 8 if foundations == 8 else 4
    cfg.draw1_reserve = draw == 1 and passes == 0
    cfg.relaxation = False
    # Not under EMPTY_ANY: there a part of a run may go into an empty column when the card it
    # leaves behind goes home (gen_runs), and of two classmates only one may have a parent under
    # its child that goes home: the position searched would not make every move its classmates
    # could (key_of). tests/test_solver.py checks classmates' moves through position_keys.
    # Nor with two decks (see _core_state.pxi).
    cfg.twin_classes = empty_rule != EMPTY_ANY and decks == 1
    set_draw(cfg, draw)
    memset(cfg.stock_index, NOT_IN_STOCK, MAX_CARD)
    for k in range(len(talon)):
        cfg.stock_card[k] = talon[k]
        cfg.stock_index[<uint8_t>talon[k]] = k
    # each byte value's pairs: those of its value without its lowest bit, and that bit's card's
    for k in range(0, len(talon), 8):
        pairs = &cfg.talon_pairs[(k >> 3) * 256]
        for byte in range(1, 256):
            lowest = k + ctz64(byte)
            pairs[byte] = pairs[byte & (byte - 1)]
            if lowest < len(talon):
                pairs[byte] |= child_bit(cfg.stock_card[lowest])
    memset(start, 0, sizeof(State))
    for p in range(len(piles)):
        if len(piles[p]) > PILE_CAP or not 0 <= down[p] < max(len(piles[p]), 1):
            raise ValueError("bad pile for the native core")
        for k in range(len(piles[p])):
            pile[k] = piles[p][k]
        hidden = hidden_region(cfg, p, pile, len(piles[p]), down[p])
        if hidden + ranks > PILE_CAP:       # room for the hidden cards and a run of every rank
            raise ValueError(f"pile {p + 1} has {hidden} hidden cards; the native core holds "
                             f"at most {PILE_CAP - ranks}")
        memcpy(start.card[p], pile, len(piles[p]))
        start.length[p] = len(piles[p])
        start.down[p] = hidden
    if home is not None and len(home) > cfg.home_slots:
        raise ValueError("too many foundation heights")
    for k in range(len(home) if home is not None else 0):
        start.home[k] = home[k]
        start.total_home += home[k]
    start.talon_len = len(talon)
    for k in range(len(talon)):
        start.talon[k] = k
        start.talon_mask |= (<uint64_t>1) << k
    start.waste_len = waste
    start.redeals_left = UNLIMITED if passes == 0 else passes - passes_used
    start.stale = (1 << MAX_PILES) - 1
    normalise_cursor(cfg, start)
    return 0


def position_keys(list piles, list down, list talon, int suits, int ranks, int draw, int passes,
                  int empty_rule, bint worry_back, list home=None, int waste=0, int passes_used=1,
                  int decks=1, int foundations=4):
    """For the tests: the key of a position after its safe moves to the foundation (as the search
    keys it), and the sorted keys of the positions its generated moves lead to ((0, 0): a win).
    Arguments as for solve_position."""
    cdef Config cfg
    cdef State s
    cdef State child
    cdef Move moves[MAX_MOVES]
    cdef uint8_t record[2 * MAX_CARD]
    cdef uint64_t ka, kb
    cdef int i, n
    load_position(&cfg, &s, piles, down, talon, suits, ranks, draw, passes, empty_rule,
                  worry_back, home, waste, passes_used, decks, foundations)
    apply_safe_moves(&cfg, &s, record)
    state_key(&cfg, &s, &ka, &kb)
    key = (ka, kb)
    n = gen_moves(&cfg, &s, moves, True)
    children = []
    for i in range(n):
        made_child_key(&cfg, &s, moves[i], &child, &ka, &kb)
        children.append((ka, kb))
    return key, sorted(children)


def solve_position(list piles, list down, list talon, int suits, int ranks, int draw,
                   int passes, int empty_rule, bint worry_back, long long max_nodes=0,
                   double timeout=0.0, double memory_mb=1024.0, long long restarts=100000,
                   bint relax=True, bint relax_only=False, list home=None, int waste=0,
                   int passes_used=1, int decks=1, int foundations=4):
    """Decide a position. ``piles`` bottom -> top with ``down`` face-down cards each (any face-up
    cards above them: see hidden_region); ``talon`` the waste (bottom -> top, its first ``waste``
    cards) then the stock (first turned first); ``home`` the foundation heights by suit (default
    empty; two decks: by slot, see home_slot: with 4 foundations the cards of both rounds, with 8
    the suits' higher piles, then their lower ones); ``decks`` 1 or 2, ``foundations`` 4 or 8
    (two decks only); ``passes_used`` the passes through the stock begun (1 in the first). ``passes`` 0
    means unlimited; ``empty_rule`` 0 king, 1 any, 2 none.

    Three complete searches (each proves a loss when it runs out of moves) take turns, resumed
    where they stopped:

    * the game's search in the generator's order: QUICK_NODES positions first, which decide most
      deals outright, then slices of SLICE_NODES;
    * when the talon is not always wholly reachable and ``relax`` is set, the relaxation's search
      (see relax_config; only its loss decides), a slice of RELAX_SLICE_NODES after each of the
      game's: 16 times as long. Where the relaxation decides a loss it mostly does so in a
      fraction of the game's positions; where it is won (decides nothing) it mostly is soon, and
      is dropped: so it runs long mostly on losses it will prove;
    * searches with every node's moves in a random order (fixed seed: the same call gives the
      same result), the i-th of RESTART_NODES * luby(i) positions: as many positions of them as
      the game's search has had, up to ``restarts`` (at most a tenth of ``max_nodes``), then one
      more whenever the other searches have used RESTART_SHARE times its size. The time a
      depth-first search needs to find a win is heavy-tailed, and a fresh order often finds at
      once a win the first order buried.
      ``restarts`` 0: none. Where the two-deck safe-move rule is unproved (4 foundations,
      worrying back, spaces) these searches take it on trust and only look for wins, the first of
      them in the generator's order before all else (see schedule).

    ``relax_only`` runs the relaxation alone (for the tests): verdict 0 when it is lost, else -1.
    Returns ``(verdict, line, nodes, seconds, table_peak, limit, dead)`` with verdict 1 winnable,
    0 unwinnable, -1 unknown; ``line`` the winning macro moves (see :func:`solution`); ``dead``
    the cards that can never move when the loss is proved before any search (see dead_end:
    after the safe moves to the foundation), else empty."""
    global decided_by
    cdef Search S
    cdef Search R
    cdef Search T
    cdef State start_state
    cdef State relaxed_start
    cdef int result = 0
    cdef uint64_t why = 0
    cdef double start = now()
    cdef double deadline = start + timeout if timeout > 0 else 0.0
    cdef size_t table_bytes = <size_t>(memory_mb * 1048576.0), game_bytes, relax_bytes
    load_position(&S.cfg, &start_state, piles, down, talon, suits, ranks, draw, passes, empty_rule,
                  worry_back, home, waste, passes_used, decks, foundations)
    relax = relax_only or (relax and not S.cfg.draw1_reserve and len(talon) > 0)
    memset(&R, 0, sizeof(Search))          # no stack, no table: free_search is a no-op
    memset(&T, 0, sizeof(Search))
    R.cfg = S.cfg
    T.cfg = S.cfg
    memcpy(&relaxed_start, &start_state, sizeof(State))
    relax_config(&R.cfg, &relaxed_start)
    # The relaxation's table gets a quarter of the memory while it runs; a restart's needs little.
    game_bytes = table_bytes - table_bytes // 64
    relax_bytes = table_bytes // 4 if relax else 0
    ok = init_search(&S, game_bytes - relax_bytes)
    ok = init_search(&T, table_bytes - game_bytes) and ok
    if relax:
        ok = init_search(&R, relax_bytes) and ok
    if not ok:
        free_search(&S)
        free_search(&R)
        free_search(&T)
        raise MemoryError("cannot allocate the search")
    if max_nodes > 0 and restarts > max_nodes // 10:
        restarts = max_nodes // 10          # at once, the random-order searches take a tenth
    line = []
    try:
        with nogil:
            if relax_only:
                decided_by = DECIDED_RELAXATION
                R.stop_at = max_nodes
                result = run_phase(&R, &relaxed_start, False, max_nodes, deadline)
                S.limit = R.limit if R.limit != LIMIT_NONE else LIMIT_NODES
                result = 0 if result == 0 else -1
            else:
                result = schedule(&S, &R, &T, &start_state, &relaxed_start, relax, restarts,
                                  max_nodes, deadline, game_bytes)
        keep_counts(&S, &R, &T)
        if result == 2:
            line = []
            safe_steps(&S.stack[0], line)
            result = 1
        elif result == 1:
            line = solution(&S, S.depth) if S.depth >= 0 else solution(&T, T.depth)
        if result == 0 and S.nodes + R.nodes == 0 and not relax_only:
            dead_end(&S.cfg, &S.stack[0].s, &why)   # lost at the root of the game's search
        if result != -1:
            S.limit = LIMIT_NONE
        elif S.limit == LIMIT_NONE:
            S.limit = LIMIT_NODES
        if S.limit == LIMIT_INTERRUPT:
            propagate_pending()
        limit = LIMIT_NAMES[S.limit]
        if (S.limit == LIMIT_NODES or S.limit == LIMIT_SECONDS) and (
                S.table.full or (R.table.slot != NULL and R.table.full)):
            limit = "table"     # the game's or the relaxation's table filled before that
        return (result, line, S.nodes + R.nodes + T.nodes, now() - start,
                max(S.peak, R.peak, T.peak), limit,
                [c for c in range(MAX_CARD) if (why >> c) & 1])
    finally:
        free_search(&S)
        free_search(&R)
        free_search(&T)


# The codes of Rules.empty_rule (the one source: api and the tests read them here).
EMPTY_RULE_CODES = {"king": EMPTY_KING, "any": EMPTY_ANY, "none": EMPTY_NONE}

# Move kinds as Python sees them in a winning line.
TABLEAU_FOUNDATION = MV_TABLEAU_FOUNDATION
TABLEAU_TABLEAU = MV_TABLEAU_TABLEAU
TALON_FOUNDATION = MV_TALON_FOUNDATION
TALON_TABLEAU = MV_TALON_TABLEAU
FOUNDATION_TABLEAU = MV_FOUNDATION_TABLEAU
THEN_HOME = FLAG_THEN_HOME
