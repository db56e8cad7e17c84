# The native core: the depth-first search and the scheduling of its three searches.
# Included by _core.pyx (one compilation unit, so the hot loop inlines across files).

# ---------------------------------------------------------------------------------------------
# Search

cdef struct Edge:
    Slot key                      # key of the position the move leads to; a == 0: a win
    Move move
    uint8_t talon                 # talon size there (for the cursor's dominance)
    uint8_t marks                 # EDGE_BUILDS_NEXT, EDGE_STORED, EDGE_TWIN

cdef enum:
    EDGE_BUILDS_NEXT = 1          # the position only builds on the card the move placed
    EDGE_STORED = 2               # the position was added to the table as the move was kept
    EDGE_TWIN = 4                 # ... and the table held it with another cursor (see covered_by_twin)

cdef struct Frame:
    State s
    uint64_t ka
    uint64_t kb
    bint stored
    bint twin                     # the table held the position with another cursor when it was
                                  # stored (see covered_by_twin)
    int nmoves
    int next
    int nsafe
    size_t base                   # its moves: S.edges[base .. base + nmoves - 1] (see edges_of)
    uint8_t safe[2 * MAX_CARD]    # safe moves after the move here (see apply_safe_moves)

cdef struct Search:
    Config cfg
    Table table
    Frame* stack
    int cap
    int max_cap         # the deepest stack allowed (see init_search)
    Edge* edges         # the frames' moves, one frame's after the other's
    size_t edge_cap
    size_t max_edges    # the most moves the stack may hold (see init_search)
    Move generated[MAX_MOVES]   # a node's moves as generated, before expand keeps the new ones
    bint truncated      # a child was left unsearched at that depth: exhausting proves nothing
    int depth           # index of the frame being expanded; the win is in stack[depth + 1]
    long long nodes
    long long known     # children dropped as already in the table (see last_counts)
    long long dead      # children pruned by the dead-end test
    long long max_nodes
    long long stop_at   # the caller's node limit, exact (0: none; see cap)
    double deadline
    int limit
    size_t peak         # most positions held by the table in any phase
    State scratch
    bint shuffle        # try each node's moves in a random order (see solve_position)
    uint64_t rng        # xorshift64 state for the shuffles
    int d               # where a stopped search resumes: the frame being expanded ...
    bint pending        # ... and whether its newest child still awaits its expansion

cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9

cdef bint on_path(const Search* S, int upto, uint64_t ka, uint64_t kb) noexcept nogil:
    """Whether a position not held by the table is on the current path (a loop)."""
    cdef int d
    for d in range(upto + 1):
        if not S.stack[d].stored and S.stack[d].ka == ka and S.stack[d].kb == kb:
            return True
    return False


cdef inline Edge* edges_of(const Search* S, const Frame* f) noexcept nogil:
    """Frame f's moves (valid until the stack's moves grow: see reserve)."""
    return S.edges + f.base

cdef int reserve(Search* S, int depth) noexcept nogil:
    """Make room for frames 0 .. depth - 1, the last of them expanded (the moves of all but the
    last kept, MAX_MOVES for it): 1 done, 0 beyond the stack's bounds, -1 out of memory."""
    cdef Frame* grown
    cdef Edge* more
    cdef size_t edges = S.stack[depth - 2].base + S.stack[depth - 2].nmoves + MAX_MOVES
    if depth > S.cap:
        if S.cap * 2 > S.max_cap:
            return 0
        grown = <Frame*>realloc(S.stack, sizeof(Frame) * S.cap * 2)
        if grown == NULL:
            return -1
        S.stack = grown
        S.cap *= 2
    if edges > S.edge_cap:
        if S.edge_cap * 2 > S.max_edges:
            return 0
        more = <Edge*>realloc(S.edges, sizeof(Edge) * S.edge_cap * 2)
        if more == NULL:
            return -1
        S.edges = more
        S.edge_cap *= 2
    return 1

cdef void expand(Search* S, int d) noexcept nogil:
    """Generate the moves of frame d (room made by reserve), key the position each leads to, and
    drop those already in the table. Its moves follow those of frame d - 1 in S.edges: the
    stack holds a node's moves it has kept, not room for MAX_MOVES each, so it can grow deep.

    All keys are computed (and their table slots prefetched) before any is looked up, so the
    cache misses of a node's children overlap instead of coming one after another. A child
    kept is added to the table in the same probe, so the search visits it without probing again
    (its slot is long out of the cache by then). Every child kept is visited in turn, so a
    position marked so is searched, from here, however else it is reached before that: the
    search still expands each position reached once.

    A position reached by a draw-1 reserve's card onto the tableau with no safe move after it
    makes only the moves that build on that card (see builds_next)."""
    cdef Frame* f = &S.stack[d]
    cdef int i, kept = 0, nsafe, stored
    cdef int n = gen_moves(&S.cfg, &f.s, S.generated, not covered_by_twin(&S.cfg, f))
    cdef uint64_t ka, kb
    cdef bint twin
    cdef Edge* e
    cdef Move placed
    f.base = S.stack[d - 1].base + S.stack[d - 1].nmoves if d > 0 else 0
    e = edges_of(S, f)
    if d > 0 and f.nsafe == 0:
        placed = edges_of(S, &S.stack[d - 1])[S.stack[d - 1].next - 1].move
        if builds_next(&S.cfg, placed):
            n = builds_on(S.generated, n, placed.dst)
    state_key(&S.cfg, &f.s, &ka, &kb)      # refreshes f's pile keys, which the children copy
    for i in range(n):
        e[i].move = S.generated[i]
        if quick_key(&S.cfg, &f.s, e[i].move, &e[i].key.a, &e[i].key.b, &e[i].talon):
            if verify_quick_keys:
                check_quick_key(S, f, &e[i])
            e[i].marks = builds_next(&S.cfg, e[i].move)   # quick keys: no safe move after
        else:
            nsafe = key_made_child(S, f, &e[i], &e[i].key.a, &e[i].key.b, &e[i].talon)
            e[i].marks = nsafe == 0 and e[i].key.a != 0 and builds_next(&S.cfg, e[i].move)
        if e[i].key.a != 0:
            __builtin_prefetch(&S.table.slot[table_home(&S.table, e[i].key.a)])
            if e[i].marks & EDGE_BUILDS_NEXT:
                __builtin_prefetch(&S.table.slot[table_home(&S.table, e[i].key.a ^ builds_next_key(e[i].move.card))])
    for i in range(n):
        if e[i].marks & EDGE_BUILDS_NEXT:
            # the same cards, searched already with every move, cover it
            if table_has(&S.table, &S.cfg, e[i].talon, e[i].key.a, e[i].key.b):
                continue
            e[i].key.a ^= builds_next_key(e[i].move.card)
        if e[i].key.a != 0:
            stored = table_find_or_add(&S.table, &S.cfg, e[i].talon, e[i].key.a, e[i].key.b, &twin)
            if stored == 1:
                continue
            e[i].marks = (EDGE_STORED | (EDGE_TWIN if twin else 0)) if stored == 0 else 0
        e[kept] = e[i]
        kept += 1
    f.nmoves = kept
    S.known += n - kept
    f.next = 0
    if S.shuffle:
        shuffle_moves(S, f)


cdef inline bint covered_by_twin(const Config* cfg, const Frame* f) noexcept nogil:
    """Whether frame f's talon moves to the positions every cursor reaches (see
    every_cursor_reaches) may be left out: passes are unlimited, and the table held f's position
    with another cursor (its twin) when f was stored.

    Sound: with unlimited passes, a talon move to such a position j leads to the same position
    whatever the cursor was (that card out, the cursor at j, nothing else changed), and every
    cursor reaches j, in its pass or after a redeal: the twin makes each of these children too.
    Being in the table, the twin has been searched, is being searched or will be (a child kept
    on the stack), or was pruned as a dead end (lost, and so are its children): these children
    are searched from it (or lead to no win), just as if each were found in the table here. The
    twins share lane a of their key, so the probe that stores f passes its twin (see
    table_probe): the test costs nothing. In draw-3 losses that hang on the stock's order (seeds
    701, 765, 679) half the positions expanded had a twin, and these moves were 14 to 18 % of the
    children keyed; the same positions are searched, with fewer children keyed and probed."""
    return cfg.unlimited and f.twin


cdef uint64_t BUILDS_NEXT_KEY = <uint64_t>0x7d2c9e1a5b3f6480  # even: lane a's lowest bit stays on

cdef inline uint64_t builds_next_key(uint8_t card) noexcept nogil:
    """What keys apart a position that only builds on ``card`` (see builds_next): one constant
    for each card (an odd multiple of an even one: even, and distinct for distinct cards)."""
    return BUILDS_NEXT_KEY * (2 * <uint64_t>card + 1)

cdef inline bint builds_next(const Config* cfg, Move m) noexcept nogil:
    """Whether the position move m leads to, when no safe move follows it, makes only the moves
    that build on the card m placed: m plays a card of the draw-1 reserve (draw 1, unlimited
    passes: every talon card reachable at any time) onto the tableau. One deck.

    Sound by the argument of gen_talon, which this completes: in a winning line, delay the
    placement of reserve card x onto card t to just before the first move that uses it. Until
    then t stays uncovered, which only adds moves (and builders, see could_build_on: x is one
    from the reserve), and the safe moves differ in nothing: if t turns safe so does x (one rank
    lower, other colour: with worrying back x's foundation is then one below x, t's own at x's
    rank, both others of t's colour at least x's less one, see safe_at; without it t cannot turn
    safe before x is home), so in the line x went home from t and then t, as both do from the
    reserve and the tableau in the delayed one. x's first use is a card built on it, which the
    delayed line makes right after placing it, or a move of x itself (home, onto another card,
    carried with the run under it), which the delayed line makes from the reserve or leaves for
    later (the run moves without it). So some winning line, if any, builds on every reserve card
    it places at once.

    Such a position (the card just placed, nothing built on it) is keyed apart from the same
    cards reached otherwise (builds_next_key: it makes fewer moves, so a later visit making them
    all must not be pruned by it), and dropped when that other position has been searched. It is
    keyed apart by the card placed as well: the same cards with another reserve card just placed
    (the first placed earlier, its builder since gone) make other moves, and must not prune it."""
    return cfg.draw1_reserve and m.kind == MV_TALON_TABLEAU and one_deck(cfg)

cdef int builds_on(Move* moves, int n, int pile) noexcept nogil:
    """Keep of ``moves`` those onto ``pile`` (onto the card just placed there: see builds_next)."""
    cdef int i, kept = 0
    for i in range(n):
        if (moves[i].kind == MV_TABLEAU_TABLEAU or moves[i].kind == MV_TALON_TABLEAU
                or moves[i].kind == MV_FOUNDATION_TABLEAU) and moves[i].dst == pile:
            moves[kept] = moves[i]
            kept += 1
    return kept

cdef bint verify_quick_keys = False
cdef long long quick_keys_checked = 0, quick_keys_wrong = 0

cdef int made_child_key(const Config* cfg, const State* parent, Move m, State* child,
                        uint64_t* ka, uint64_t* kb) noexcept nogil:
    """Make in ``child`` the position move m leads to from ``parent``, safe moves included, and
    key it (``ka`` 0: a win); returns the number of safe moves made."""
    cdef uint8_t sent[2 * MAX_CARD]
    cdef int nsafe
    memcpy(child, parent, sizeof(State))
    apply_move(cfg, child, m)
    nsafe = safe_moves_after(cfg, child, m, sent)
    if child.total_home == cfg.total:
        ka[0] = kb[0] = 0
    else:
        state_key(cfg, child, ka, kb)
    return nsafe

cdef int key_made_child(Search* S, const Frame* f, const Edge* e, uint64_t* ka, uint64_t* kb,
                        uint8_t* talon_len) noexcept nogil:
    """Key the position f's move e leads to (``ka`` 0: a win), and its talon size, by making
    it in S.scratch; returns the number of safe moves made."""
    cdef int nsafe = made_child_key(&S.cfg, &f.s, e.move, &S.scratch, ka, kb)
    talon_len[0] = S.scratch.talon_len
    return nsafe

cdef void check_quick_key(Search* S, Frame* f, const Edge* e) noexcept nogil:
    """Key f's child by move e the long way and count whether quick_key agreed (see
    quick_key_check)."""
    global quick_keys_checked, quick_keys_wrong
    cdef uint64_t ka, kb
    cdef uint8_t talon_len
    key_made_child(S, f, e, &ka, &kb, &talon_len)
    quick_keys_checked += 1
    if ka != e.key.a or kb != e.key.b or talon_len != e.talon:
        quick_keys_wrong += 1

def quick_key_check(bint on):
    """Turn on (or off) keying every child that quick_key keys the long way as well, for the
    tests; returns the (children checked, keys that differed) since it was last turned on."""
    global verify_quick_keys, quick_keys_checked, quick_keys_wrong
    counts = (quick_keys_checked, quick_keys_wrong)
    verify_quick_keys = on
    if on:
        quick_keys_checked = quick_keys_wrong = 0
    return counts

cdef void shuffle_moves(Search* S, Frame* f) noexcept nogil:
    """Put f's moves (and their child keys) in a random order (Fisher-Yates, xorshift64)."""
    cdef int i, j
    cdef Edge* e = edges_of(S, f)
    cdef Edge t
    for i in range(f.nmoves - 1, 0, -1):
        S.rng ^= S.rng << 13
        S.rng ^= S.rng >> 7
        S.rng ^= S.rng << 17
        j = <int>(S.rng % <uint64_t>(i + 1))
        t = e[i]; e[i] = e[j]; e[j] = t

cdef inline bint may_newly_dead_end(const Config* cfg, const State* s, Move m) noexcept nogil:
    """Whether dead_end could hold after move m when it did not before: without worrying back,
    after any move (parents go home for good); with it, only once no redeal is left and m turned
    the stock (G grows only with the waste, see dead_end)."""
    if not cfg.worry_back:
        return True
    return s.redeals_left == 0 and (m.kind == MV_TALON_FOUNDATION or m.kind == MV_TALON_TABLEAU)

cdef int search(Search* S) noexcept nogil:
    """Depth-first search from stack[0], resumed where it last stopped. Returns 1 win, 0
    exhausted, -1 stopped (S.limit says why; calling again with larger limits goes on)."""
    cdef Frame* f
    cdef Frame* child
    cdef Edge* e
    cdef int d = S.d, stored, room
    cdef bint interrupted, twin
    S.limit = LIMIT_NONE
    if S.pending:
        S.pending = False
        d += 1
        expand(S, d)
    while d >= 0:
        f = &S.stack[d]
        if f.next == f.nmoves:
            d -= 1
            continue
        room = reserve(S, d + 2)
        if room != 1:
            f = &S.stack[d]
            if room == 0:
                # Too deep for the stack's bounds: this child is left unsearched; the search
                # goes on (it may still find a win), but its running out of moves no longer
                # proves a loss (see below).
                S.truncated = True
                f.next += 1
                continue
            S.limit = LIMIT_MEMORY
            S.d = d
            return -1
        f = &S.stack[d]
        child = &S.stack[d + 1]
        e = edges_of(S, f) + f.next
        child.ka = e.key.a
        child.kb = e.key.b
        f.next += 1
        if child.ka != 0 and not (e.marks & EDGE_STORED):
            # The table was full when the move was kept (see expand): a position already
            # searched (or on the current path) is pruned; a new one is stored if there is room.
            stored = table_find_or_add(&S.table, &S.cfg, e.talon, child.ka, child.kb, &twin)
            if stored == 1 or (stored == -1 and on_path(S, d, child.ka, child.kb)):
                continue
            child.stored = stored == 0
            child.twin = child.stored and twin
        else:
            child.stored = True
            child.twin = (e.marks & EDGE_TWIN) != 0
        memcpy(&child.s, &f.s, sizeof(State))
        apply_move(&S.cfg, &child.s, e.move)
        child.nsafe = safe_moves_after(&S.cfg, &child.s, e.move, child.safe)
        if child.ka == 0:
            S.depth = d
            return 1
        if may_newly_dead_end(&S.cfg, &child.s, e.move) and dead_end(&S.cfg, &child.s, NULL):
            S.dead += 1
            continue
        S.nodes += 1
        if (S.nodes & 1023) == 0 or S.nodes == S.stop_at:
            if S.max_nodes > 0 and S.nodes >= S.max_nodes:
                S.limit = LIMIT_NODES
            elif S.deadline > 0 and now() > S.deadline:
                S.limit = LIMIT_SECONDS
            elif (S.nodes & 65535) == 0:
                with gil:
                    interrupted = check_signals() != 0
                if interrupted:
                    S.limit = LIMIT_INTERRUPT
            if S.limit != LIMIT_NONE:
                S.d = d
                S.pending = True
                return -1
        d += 1
        expand(S, d)
    S.d = -1
    if S.truncated:
        S.limit = LIMIT_MEMORY
        return -1
    return 0


cdef list solution(Search* S, int win_depth):
    """The winning line as (kind, src, dst, idx, flags, card) tuples, safe moves as (AUTO_HOME,
    card) and (AUTO_TRANSFER, card) (see apply_safe_moves)."""
    cdef list line = []
    cdef int d
    cdef Move m
    safe_steps(&S.stack[0], line)
    for d in range(win_depth + 1):
        m = edges_of(S, &S.stack[d])[S.stack[d].next - 1].move
        line.append((m.kind, m.src, m.dst, m.idx, m.flags, m.card))
        safe_steps(&S.stack[d + 1], line)
    return line

cdef void safe_steps(const Frame* f, list line):
    cdef int k
    for k in range(f.nsafe):
        if f.safe[k] & TRANSFER:
            line.append((AUTO_TRANSFER, f.safe[k] & ~TRANSFER))
        else:
            line.append((AUTO_HOME, f.safe[k]))


LIMIT_NAMES = {LIMIT_NONE: "", LIMIT_NODES: "nodes", LIMIT_SECONDS: "time",
               LIMIT_MEMORY: "memory", LIMIT_INTERRUPT: "interrupt"}


cdef enum:
    QUICK_NODES = 20000          # the first slice of the game's search in the generator's order
    SLICE_NODES = 50000          # its later slices
    RELAX_SLICE_NODES = 800000   # the relaxation's slices, one after each of the game's
    RESTART_NODES = 5000         # the unit of the searches in a random move order (see luby)
    RESTART_SHARE = 8            # restarts go on within a 1/8 of the others' positions (see schedule)
    TRUSTING_SHARE = 1           # ... as many as theirs when the restarts trust the unproved rule


cdef long long luby(long long i) noexcept nogil:
    """The i-th term (from 1) of Luby's sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...: the i-th
    random-order search runs RESTART_NODES times this. Its run lengths are within a log factor of
    the best fixed length for any heavy-tailed run-time distribution (Luby, Sinclair & Zuckerman
    1993); on the draw-3 wins of seeds 1..10,000 taking 1-30 s it needed 16 % fewer positions
    than fixed runs of 20,000."""
    cdef long long half
    while True:
        half = 1
        while 2 * half - 1 < i:
            half *= 2
        if i == 2 * half - 1:
            return half
        i -= half - 1


cdef int start_search(Search* S, const State* start, bint shuffle) noexcept nogil:
    """Set up a search from ``start`` with a cleared table: 2 won by safe moves alone, 0 lost at
    the root, else -1 (then ``search`` runs it)."""
    cdef Frame* root = &S.stack[0]
    S.shuffle = shuffle
    S.limit = LIMIT_NONE
    S.depth = -1
    S.d = 0
    S.pending = False
    S.truncated = False
    table_clear(&S.table)
    memcpy(&root.s, start, sizeof(State))
    root.nsafe = apply_safe_moves(&S.cfg, &root.s, root.safe)
    if root.s.total_home == S.cfg.total:
        return 2
    if dead_end(&S.cfg, &root.s, NULL):
        return 0
    state_key(&S.cfg, &root.s, &root.ka, &root.kb)
    table_add(&S.table, root.ka, root.kb)
    root.stored = not S.table.full
    root.twin = False
    expand(S, 0)
    return -1

cdef int run_search(Search* S, long long max_nodes, double deadline) noexcept nogil:
    """Run (or resume) S's search until it ends or reaches ``max_nodes`` of S or the deadline."""
    S.max_nodes = max_nodes
    S.deadline = deadline
    if S.stop_at > 0 and S.nodes >= S.stop_at:    # the caller's max_nodes is spent
        S.limit = LIMIT_NODES
        return -1
    cdef int result = search(S)
    if S.table.count > S.peak:
        S.peak = S.table.count
    return result

cdef int run_phase(Search* S, const State* start, bint shuffle, long long max_nodes,
                   double deadline) noexcept nogil:
    """One whole search from ``start``: 2 won by safe moves alone, else as search()."""
    cdef int result = start_search(S, start, shuffle)
    if result != -1:
        return result
    return run_search(S, max_nodes, deadline)

cdef void set_draw(Config* cfg, int draw) noexcept nogil:
    """Set the draw and the mask of its multiples (see multiple_of_draw)."""
    cdef int k = 0
    cfg.draw = draw
    cfg.draw_multiples = 0
    while k < 64:
        cfg.draw_multiples |= (<uint64_t>1) << k
        k += draw

cdef void relax_config(Config* cfg, State* start) noexcept nogil:
    """Turn a game into its relaxation in which every talon card is always reachable (draw 1,
    unlimited passes, the same tableau, foundations and talon cards).

    Every position of the real game maps onto one of the relaxation (the stock cursor and the
    redeals forgotten), and every real move onto a move of the relaxation: a talon card reachable
    by turning is reachable there. So a winning line of the real game is one of the relaxation,
    and a lost relaxation means a lost game. Many draw-3 losses are proved there in thousands of
    positions against millions. (A win there proves nothing.)"""
    set_draw(cfg, 1)
    cfg.unlimited = True
    cfg.draw1_reserve = True
    cfg.relaxation = True
    start.waste_len = 0
    start.redeals_left = UNLIMITED


cdef int propagate_pending() except -1:
    """Raise the exception a signal handler left pending (KeyboardInterrupt for Ctrl-C)."""
    return -1


cdef enum:
    MIN_STACK_BYTES = 256 << 20   # the stack's bound when the table's is smaller

cdef bint init_search(Search* S, size_t table_bytes) noexcept nogil:
    """Set up a search whose table holds at most ``table_bytes``. Its stack may grow as large as
    the table's bound, or MIN_STACK_BYTES, half for the frames (about 1 kB each: over 100,000
    moves deep; one-deck lines are hundreds, two-deck searches wander thousands deep) and half
    for their moves. A child deeper than that is left unsearched, and the search can then prove
    no loss (see search)."""
    cdef size_t stack_bytes = max(table_bytes, <size_t>MIN_STACK_BYTES) // 2
    S.max_cap = <int>(stack_bytes // sizeof(Frame))
    S.max_edges = stack_bytes // sizeof(Edge)
    S.cap = 64
    S.edge_cap = 4 * MAX_MOVES
    S.edges = <Edge*>malloc(sizeof(Edge) * S.edge_cap)
    S.nodes = 0
    S.known = 0
    S.dead = 0
    S.stop_at = 0
    S.peak = 0
    S.rng = <uint64_t>0x9e3779b97f4a7c15
    S.table.slot = NULL                  # table_free may run before table_init
    S.stack = <Frame*>malloc(sizeof(Frame) * S.cap)
    return S.stack != NULL and S.edges != NULL and table_init(&S.table, table_bytes)

cdef void free_search(Search* S) noexcept nogil:
    free(S.stack)
    S.stack = NULL
    free(S.edges)
    S.edges = NULL
    table_free(&S.table)
    S.table.slot = NULL


cdef enum:
    DECIDED_ROOT = 0             # at the root of the game's search (safe moves, a dead end)
    DECIDED_GAME = 1
    DECIDED_RELAXATION = 2
    DECIDED_RESTARTS = 3

cdef int decided_by = DECIDED_ROOT     # which search decided the last solve (see last_counts)
cdef long long last_nodes[3]           # the last solve's positions by search: S, R, T
cdef long long last_known = 0, last_dead = 0

def last_counts():
    """For the benchmarks: the last solve_position's positions by search (the game's, the
    relaxation's, the random-order restarts'), the children dropped as already in a table and
    pruned by the dead-end test (all searches), and which search decided (or the root: the
    safe moves or a dead end before any search). One record for the process: with solves in
    several threads at once, it is whichever ended last."""
    return {"game_nodes": last_nodes[0], "relaxation_nodes": last_nodes[1],
            "restart_nodes": last_nodes[2], "known": last_known, "dead": last_dead,
            "decided_by": ("root", "game", "relaxation", "restarts")[decided_by]}

cdef void keep_counts(const Search* S, const Search* R, const Search* T) noexcept nogil:
    """Keep the counts of a solve for last_counts."""
    global last_known, last_dead
    last_nodes[0] = S.nodes
    last_nodes[1] = R.nodes
    last_nodes[2] = T.nodes
    last_known = S.known + R.known + T.known
    last_dead = S.dead + R.dead + T.dead


cdef int schedule(Search* S, Search* R, Search* T, const State* start,
                  const State* relaxed_start, bint relax, long long restarts,
                  long long max_nodes, double deadline, size_t game_bytes) noexcept nogil:
    """Decide the position with three complete searches taking turns (see solve_position).
    Returns 2 won by safe moves alone, 1 won (S.depth >= 0: S's line, else T's), 0 lost,
    -1 stopped (S.limit says why).

    Where the two-deck safe-move rule is unproved (safe_rule_unproved), T takes it on trust: its
    searches then only look for wins (each is replayed like every line), and one that runs out of
    moves proves nothing. It is the rule that finds these wins fast (a search without it churns
    cards home and back), so T's first search, in the generator's order, comes first, and T gets
    as many positions as the others (TRUSTING_SHARE; with king spaces, where the complete searches
    bog down in the first round, seed 23 at draw 3 was won in 10.7 million positions in all, against
    260 million with T's usual share, before the greedy searches below). Once one runs out of moves they all would (each searches the
    same positions whole, in its own order): then T runs no more.

    Greedy searches: the first trusting search, in the generator's order, and every other random
    one after it send home every card that fits its foundation, with no card ever taken back
    (cfg.greedy_home: every such card counts as safe). A line of play, not a reduction: it may
    miss every win (a card needed on the tableau), so a greedy search's running out of moves
    proves nothing, and only ends the greedy ones (each searches the same positions whole); the
    others go on. Its wins replay like any. Most two-deck wins send cards home at once, and the
    greedy searches find them far sooner: seeds 1..1000, 4 foundations and king spaces, no
    unknown at 10 s where seeds 23 and 648 (draw 1) and 23 (draw 3) were (docs/speed.md). With one
    deck they bought nothing (the safe-move rule there is strong; 60 draw-3 wins of the survey's
    tail took 35 million positions against 33.5 million without), so they are not used."""
    global decided_by
    cdef int result, relaxed = 1, r, share
    cdef long long quota, end, runs = 0     # random-order searches begun
    cdef bint greedy = False                # greedy searches still to be tried (see above)
    T.cfg.trust_unproved = safe_rule_unproved(&T.cfg)
    share = TRUSTING_SHARE if T.cfg.trust_unproved else RESTART_SHARE
    if T.cfg.trust_unproved and restarts > 0:
        T.cfg.greedy_home = greedy = True
        r = run_phase(T, start, False, cap(T, min(QUICK_NODES, restarts), max_nodes, 0), deadline)
        if r >= 1:
            S.depth = -1                    # the line is T's
            decided_by = DECIDED_RESTARTS
            return 1
        if r == 0:
            greedy = False
        elif T.limit != LIMIT_NODES:
            S.limit = T.limit
            return -1
    result = start_search(S, start, False)
    decided_by = DECIDED_ROOT
    if result != -1:
        return result
    decided_by = DECIDED_GAME
    result = run_search(S, cap(S, QUICK_NODES, max_nodes, T.nodes), deadline)
    if relax and result == -1:
        relaxed = start_search(R, relaxed_start, False)     # -1 while it runs undecided
        if relaxed == 0:
            decided_by = DECIDED_RELAXATION
            return 0
        if relaxed != -1:
            drop_relaxation(S, R, game_bytes)
    while result == -1 and S.limit == LIMIT_NODES:
        if max_nodes > 0 and S.nodes + R.nodes + T.nodes >= max_nodes:
            return -1
        if relaxed == -1:
            relaxed = run_search(R, cap(R, R.nodes + RELAX_SLICE_NODES, max_nodes,
                                        S.nodes + T.nodes), deadline)
            if relaxed == 0:
                decided_by = DECIDED_RELAXATION
                return 0
            if relaxed == -1 and R.limit != LIMIT_NODES:
                S.limit = R.limit
                return -1
            if relaxed != -1:
                drop_relaxation(S, R, game_bytes)
        # the restarts' quota: as many positions as the game's search has had, up to
        # ``restarts`` (all of ``restarts`` at once when they trust the unproved rule: their
        # greedy searches find most two-deck wins), and a share of the game's positions and of the
        # relaxation's once it is won (all of them when the restarts trust the unproved rule).
        # While the relaxation runs undecided it may be proving the loss, which would waste the
        # restarts' positions; a loss the game's search proves in a few slices would waste the
        # whole of ``restarts``. A budget only: each restart is a complete search.
        quota = ((restarts if T.cfg.trust_unproved else min(restarts, S.nodes))
                 + (S.nodes + (R.nodes if relaxed != -1 or T.cfg.trust_unproved else 0)) // share
                 if restarts > 0 else 0)
        while T.nodes + RESTART_NODES * luby(runs + 1) <= quota:
            runs += 1
            end = cap(T, T.nodes + RESTART_NODES * luby(runs), max_nodes, S.nodes + R.nodes)
            if end <= T.nodes:
                break
            T.cfg.greedy_home = greedy and (runs & 1) == 1
            r = run_phase(T, start, True, end, deadline)
            if r >= 1:
                S.depth = -1                # the line is T's (a win by safe moves alone too)
                decided_by = DECIDED_RESTARTS
                return 1
            if r == 0 and T.cfg.greedy_home:
                greedy = False              # proves nothing; the others go on
                continue
            if r == 0:
                if not T.cfg.trust_unproved:
                    decided_by = DECIDED_RESTARTS
                    return 0
                restarts = 0
                break
            if T.limit != LIMIT_NODES:
                S.limit = T.limit
                return -1
        result = run_search(S, cap(S, S.nodes + SLICE_NODES, max_nodes, R.nodes + T.nodes), deadline)
    return result


cdef void drop_relaxation(Search* S, Search* R, size_t game_bytes) noexcept nogil:
    """The relaxation is won, which decides nothing: free it, and let S's table grow to
    ``game_bytes``, its memory with the relaxation's."""
    free_search(R)
    if game_bytes // sizeof(Slot) > S.table.max_slots:
        S.table.max_slots = game_bytes // sizeof(Slot)
    S.table.full = False


cdef inline long long cap(Search* S, long long end, long long max_nodes, long long other) noexcept nogil:
    """S's node limit ``end`` (0: none), lowered so that with the ``other`` searches' nodes the
    total stays within ``max_nodes`` (0: none). A search looks at its limit every 1024 positions,
    but stops exactly at the caller's ``max_nodes`` (S.stop_at)."""
    S.stop_at = max_nodes - other if max_nodes > 0 else 0
    if max_nodes > 0 and (end == 0 or end > max_nodes - other):
        return max_nodes - other
    return end
