# The native core: the depth-first search and the scheduling of its three searches.
# Included by _core.pyx (one compilation unit, so the hot loop inlines across files).

# ---------------------------------------------------------------------------------------------
# Search

cdef struct Frame:
    State s
    uint64_t ka
    uint64_t kb
    bint stored
    int nmoves
    int next
    int nsafe
    uint8_t safe[2 * MAX_CARD]    # safe moves after the move here (see apply_safe_moves)
    Move moves[MAX_MOVES]
    Slot child_key[MAX_MOVES]     # key of the position each move leads to; a == 0: a win
    uint8_t child_talon[MAX_MOVES]  # talon size there (for the cursor's dominance)

cdef struct Search:
    Config cfg
    Table table
    Frame* stack
    int cap
    int max_cap         # the deepest stack allowed (see init_search)
    bint truncated      # a child was left unsearched at that depth: exhausting proves nothing
    int depth           # index of the frame being expanded; the win is in stack[depth + 1]
    long long nodes
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


cdef bint reserve(Search* S, int depth) noexcept nogil:
    cdef Frame* grown
    if depth < S.cap:
        return True
    if S.cap * 2 > S.max_cap:
        return False
    grown = <Frame*>realloc(S.stack, sizeof(Frame) * S.cap * 2)
    if grown == NULL:
        return False
    S.stack = grown
    S.cap *= 2
    return True

cdef void expand(Search* S, Frame* f) noexcept nogil:
    """Generate f's moves, key the position each leads to, and drop those already in the table.

    All keys are computed (and their table slots prefetched) before any is looked up, so the
    cache misses of a node's children overlap instead of coming one after another."""
    cdef int i, kept = 0
    cdef int n = gen_moves(&S.cfg, &f.s, f.moves)
    cdef uint64_t ka, kb
    state_key(&S.cfg, &f.s, &ka, &kb)      # refreshes f's pile keys, which the children copy
    for i in range(n):
        if quick_key(&S.cfg, &f.s, f.moves[i], &f.child_key[i].a, &f.child_key[i].b,
                     &f.child_talon[i]):
            if verify_quick_keys:
                check_quick_key(S, f, i)
        else:
            key_made_child(S, f, i, &f.child_key[i].a, &f.child_key[i].b, &f.child_talon[i])
        if f.child_key[i].a != 0:
            __builtin_prefetch(&S.table.slot[table_home(&S.table, f.child_key[i].a)])
    for i in range(n):
        if f.child_key[i].a != 0 and table_has(&S.table, &S.cfg, f.child_talon[i],
                                               f.child_key[i].a, f.child_key[i].b):
            continue
        f.moves[kept] = f.moves[i]
        f.child_key[kept] = f.child_key[i]
        f.child_talon[kept] = f.child_talon[i]
        kept += 1
    f.nmoves = kept
    f.next = 0
    if S.shuffle:
        shuffle_moves(S, f)

cdef bint verify_quick_keys = False
cdef long long quick_keys_checked = 0, quick_keys_wrong = 0

cdef void made_child_key(const Config* cfg, const State* parent, Move m, State* child,
                         uint64_t* ka, uint64_t* kb) noexcept nogil:
    """Make in ``child`` the position move m leads to from ``parent``, safe moves included, and
    key it (``ka`` 0: a win)."""
    cdef uint8_t sent[2 * MAX_CARD]
    memcpy(child, parent, sizeof(State))
    apply_move(cfg, child, m)
    safe_moves_after(cfg, child, m, sent)
    if child.total_home == cfg.total:
        ka[0] = kb[0] = 0
    else:
        state_key(cfg, child, ka, kb)

cdef void key_made_child(Search* S, const Frame* f, int i, uint64_t* ka, uint64_t* kb,
                         uint8_t* talon_len) noexcept nogil:
    """Key the position f's i-th move leads to (``ka`` 0: a win), and its talon size, by making
    it in S.scratch."""
    made_child_key(&S.cfg, &f.s, f.moves[i], &S.scratch, ka, kb)
    talon_len[0] = S.scratch.talon_len

cdef void check_quick_key(Search* S, Frame* f, int i) noexcept nogil:
    """Key f's i-th child the long way and count whether quick_key agreed (see quick_key_check)."""
    global quick_keys_checked, quick_keys_wrong
    cdef uint64_t ka, kb
    cdef uint8_t talon_len
    key_made_child(S, f, i, &ka, &kb, &talon_len)
    quick_keys_checked += 1
    if ka != f.child_key[i].a or kb != f.child_key[i].b or talon_len != f.child_talon[i]:
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
    cdef Move m
    cdef Slot k
    cdef uint8_t t
    for i in range(f.nmoves - 1, 0, -1):
        S.rng ^= S.rng << 13
        S.rng ^= S.rng >> 7
        S.rng ^= S.rng << 17
        j = <int>(S.rng % <uint64_t>(i + 1))
        m = f.moves[i]; f.moves[i] = f.moves[j]; f.moves[j] = m
        k = f.child_key[i]; f.child_key[i] = f.child_key[j]; f.child_key[j] = k
        t = f.child_talon[i]; f.child_talon[i] = f.child_talon[j]; f.child_talon[j] = t

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
    cdef int d = S.d, stored
    cdef bint interrupted
    S.limit = LIMIT_NONE
    if S.pending:
        S.pending = False
        d += 1
        expand(S, &S.stack[d])
    while d >= 0:
        f = &S.stack[d]
        if f.next == f.nmoves:
            d -= 1
            continue
        if not reserve(S, d + 2):
            if S.cap * 2 > S.max_cap:
                # Too deep: this child is left unsearched (only two-deck searches wander so
                # deep); the search goes on, but can no longer prove a loss (see below).
                S.truncated = True
                f.next += 1
                continue
            S.limit = LIMIT_MEMORY
            S.d = d
            return -1
        f = &S.stack[d]
        child = &S.stack[d + 1]
        child.ka = f.child_key[f.next].a
        child.kb = f.child_key[f.next].b
        f.next += 1
        if child.ka != 0:
            # A position already searched (or, with the table full, on the current path) is
            # pruned; a new one is stored at once (one probe), even if it proves a dead end.
            stored = table_find_or_add(&S.table, &S.cfg, f.child_talon[f.next - 1], child.ka,
                                       child.kb)
            if stored == 1 or (stored == -1 and on_path(S, d, child.ka, child.kb)):
                continue
            child.stored = stored == 0
        memcpy(&child.s, &f.s, sizeof(State))
        apply_move(&S.cfg, &child.s, f.moves[f.next - 1])
        child.nsafe = safe_moves_after(&S.cfg, &child.s, f.moves[f.next - 1], child.safe)
        if child.ka == 0:
            S.depth = d
            return 1
        if may_newly_dead_end(&S.cfg, &child.s, f.moves[f.next - 1]) and dead_end(&S.cfg, &child.s, NULL):
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
        expand(S, child)
        d += 1
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
        m = S.stack[d].moves[S.stack[d].next - 1]
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
    RESTART_SHARE = 8            # restarts go on within a 1/8 of the other searches' positions


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
    expand(S, root)
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
    start.waste_len = 0
    start.redeals_left = UNLIMITED


cdef int propagate_pending() except -1:
    """Raise the exception a signal handler left pending (KeyboardInterrupt for Ctrl-C)."""
    return -1


cdef enum:
    MIN_STACK_BYTES = 256 << 20   # the stack's bound when the table's is smaller
    MAX_DEPTH_TWO_DECKS = 8192    # two decks: deeper children are left unsearched (truncated)

cdef bint init_search(Search* S, size_t table_bytes) noexcept nogil:
    """Set up a search whose table holds at most ``table_bytes``. Its stack of frames (about
    24 kB each) may grow as large as the table's bound, or MIN_STACK_BYTES (over 10,000 moves
    deep: one-deck lines are hundreds), and no more: a search deeper than that stops as out of
    memory. Two decks: MAX_DEPTH_TWO_DECKS frames (their winning lines are a few hundred macro
    moves; their searches, without the one-deck reductions, can wander tens of thousands of moves
    deep), and a deeper child is skipped rather than the search stopped (see search)."""
    S.max_cap = <int>(max(table_bytes, <size_t>MIN_STACK_BYTES) // sizeof(Frame))
    if not one_deck(&S.cfg):
        S.max_cap = MAX_DEPTH_TWO_DECKS
    S.cap = 64
    S.nodes = 0
    S.stop_at = 0
    S.peak = 0
    S.rng = <uint64_t>0x9e3779b97f4a7c15
    S.table.slot = NULL                  # table_free may run before table_init
    S.stack = <Frame*>malloc(sizeof(Frame) * S.cap)
    return S.stack != NULL and table_init(&S.table, table_bytes)

cdef void free_search(Search* S) noexcept nogil:
    free(S.stack)
    S.stack = NULL
    table_free(&S.table)
    S.table.slot = NULL


cdef int schedule(Search* S, Search* R, Search* T, const State* start,
                  const State* relaxed_start, bint relax, long long restarts,
                  long long max_nodes, double deadline, size_t game_bytes) noexcept nogil:
    """Decide the position with three complete searches taking turns (see solve_position).
    Returns 2 won by safe moves alone, 1 won (S.depth >= 0: S's line, else T's), 0 lost,
    -1 stopped (S.limit says why)."""
    cdef int result = start_search(S, start, False), relaxed = 1, r
    cdef long long quota, end, runs = 0     # random-order searches begun
    if result != -1:
        return result
    result = run_search(S, cap(S, QUICK_NODES, max_nodes, 0), deadline)
    if relax and result == -1:
        relaxed = start_search(R, relaxed_start, False)     # -1 while it runs undecided
        if relaxed == 0:
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
                return 0
            if relaxed == -1 and R.limit != LIMIT_NODES:
                S.limit = R.limit
                return -1
            if relaxed != -1:
                drop_relaxation(S, R, game_bytes)
        quota = restarts + (S.nodes + R.nodes) // RESTART_SHARE if restarts > 0 else 0
        while T.nodes + RESTART_NODES * luby(runs + 1) <= quota:
            runs += 1
            end = cap(T, T.nodes + RESTART_NODES * luby(runs), max_nodes, S.nodes + R.nodes)
            if end <= T.nodes:
                break
            r = run_phase(T, start, True, end, deadline)
            if r != -1:
                if r == 1:
                    S.depth = -1            # the line is T's
                return r
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
