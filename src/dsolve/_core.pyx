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
normalisation of unlimited redeals, and twin classes.
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


# ---------------------------------------------------------------------------------------------
# Cards

cdef inline int rank_of(uint8_t c) noexcept nogil:
    return c >> 2

cdef inline int suit_of(uint8_t c) noexcept nogil:
    return c & 3

cdef inline bint can_stack(uint8_t c, uint8_t onto) noexcept nogil:
    """Whether card c may be built on card onto: one rank lower, opposite colour."""
    return (onto >> 2) == (c >> 2) + 1 and ((onto ^ c) & 1)

cdef inline bint goes_home(const State* s, uint8_t c) noexcept nogil:
    return s.home[c & 3] == (c >> 2)

cdef inline int height(const Config* cfg, const uint8_t* home, int suit) noexcept nogil:
    """Foundation height; a suit absent from a small deck counts as complete."""
    return home[suit] if suit < cfg.suits else cfg.ranks

cdef inline bint is_safe(const Config* cfg, const State* s, uint8_t c) noexcept nogil:
    return safe_at(cfg, s.home, c)

cdef inline bint safe_at(const Config* cfg, const uint8_t* home, uint8_t c) noexcept nogil:
    """Whether sending c home (it must fit its foundation) can never turn a win into a loss.

    Blake & Gent, Appendix B.1, Theorem 1 / Corollary 3: the only cards that could be built on a
    safe card are themselves safe, so delaying it gains nothing, and any winning line can be
    rewritten to play it at once. With worrying back: rank (1-based) <= 2 above both opposite-
    colour foundations and <= 3 above the other same-colour foundation. Without worrying back the
    cards that could sit on c are home for good once both opposite-colour foundations are within
    one rank, so that alone suffices. Holds for any empty-column rule and pass limit, for moves
    from the tableau (and from the talon only when every talon card is always reachable).
    """
    cdef int r1 = rank_of(c) + 1
    cdef int opp = (c & 1) ^ 1
    cdef int h1 = height(cfg, home, opp)
    cdef int h2 = height(cfg, home, opp + 2)
    cdef int low = h1 if h1 < h2 else h2
    if not cfg.worry_back:
        return r1 <= low + 1
    return r1 <= low + 2 and r1 <= height(cfg, home, suit_of(c) ^ 2) + 3


# ---------------------------------------------------------------------------------------------
# Applying moves

cdef inline void flip(const Config* cfg, State* s, int p) noexcept nogil:
    """Uncover pile p's top hidden cards when nothing is left on them: a face-down card turns
    face up; a locked run (face up but below the top run, see hidden_region) becomes the top run."""
    if s.length[p] == s.down[p] and s.down[p] > 0:
        s.down[p] -= cfg.reveal[p][s.down[p]]

cdef inline void send_home(State* s, uint8_t c) noexcept nogil:
    s.home[c & 3] += 1
    s.total_home += 1

cdef inline void push(State* s, int p, uint8_t c) noexcept nogil:
    s.card[p][s.length[p]] = c
    s.length[p] += 1

cdef inline uint8_t take_talon(const Config* cfg, State* s, int pos) noexcept nogil:
    """Remove the talon card at pos (turning the stock to it); the waste then ends below it."""
    cdef uint8_t idx = s.talon[pos]
    memmove(&s.talon[pos], &s.talon[pos + 1], s.talon_len - pos - 1)
    s.talon_len -= 1
    s.talon_mask &= ~((<uint64_t>1) << idx)
    s.waste_len = pos
    normalise_cursor(cfg, s)
    return cfg.stock_card[idx]

cdef inline bint multiple_of_draw(const Config* cfg, int k) noexcept nogil:
    """k % draw == 0, from a mask below 64."""
    if k >= 64:
        return k % cfg.draw == 0
    return (cfg.draw_multiples >> k) & 1

cdef inline void normalise_cursor(const Config* cfg, State* s) noexcept nogil:
    """With unlimited redeals every cursor at a multiple of the draw, or at the end of the stock,
    reaches exactly the talon positions draw-1, 2*draw-1, ..., last (the waste top c-1 is one of
    them), and each reaches the others for free: they are one position, stored as cursor 0."""
    if cfg.unlimited and (multiple_of_draw(cfg, s.waste_len) or s.waste_len == s.talon_len):
        s.waste_len = 0

cdef void lift(State* s, int src, int idx, int dst) noexcept nogil:
    """Move the cards of pile src from index idx onto pile dst."""
    cdef int n = s.length[src] - idx
    memcpy(&s.card[dst][s.length[dst]], &s.card[src][idx], n)
    s.length[dst] += n
    s.length[src] = idx
    s.stale |= (1 << src) | (1 << dst)

cdef int index_in(const State* s, int p, uint8_t c) noexcept nogil:
    """Index of card c in pile p's face-up cards, -1 if not there."""
    cdef int k
    for k in range(s.down[p], s.length[p]):
        if s.card[p][k] == c:
            return k
    return -1

cdef void apply_move(const Config* cfg, State* s, Move m) noexcept nogil:
    cdef uint8_t c
    if m.kind == MV_TABLEAU_FOUNDATION or m.kind == MV_TABLEAU_TABLEAU:
        s.stale |= 1 << m.src
    if m.kind != MV_TABLEAU_FOUNDATION and m.kind != MV_TALON_FOUNDATION:
        s.stale |= 1 << m.dst
    if m.kind == MV_TABLEAU_FOUNDATION:
        s.length[m.src] -= 1
        send_home(s, s.card[m.src][s.length[m.src]])
        flip(cfg, s, m.src)
    elif m.kind == MV_TABLEAU_TABLEAU:
        lift(s, m.src, m.idx, m.dst)
        if m.flags & FLAG_THEN_HOME:
            s.length[m.src] -= 1
            send_home(s, s.card[m.src][s.length[m.src]])
        flip(cfg, s, m.src)
    elif m.kind == MV_TALON_FOUNDATION or m.kind == MV_TALON_TABLEAU:
        if (m.flags & FLAG_REDEAL) and not cfg.unlimited:
            s.redeals_left -= 1
        c = take_talon(cfg, s, m.idx)
        if m.kind == MV_TALON_FOUNDATION:
            send_home(s, c)
        else:
            push(s, m.dst, c)
    else:  # MV_FOUNDATION_TABLEAU
        s.home[m.src] -= 1
        s.total_home -= 1
        push(s, m.dst, <uint8_t>(s.home[m.src] * 4 + m.src))

cdef inline bint goes_safely(const Config* cfg, const State* s, uint8_t c) noexcept nogil:
    return goes_home(s, c) and is_safe(cfg, s, c)

cdef inline bint twin_goes_safely(const Config* cfg, const State* s, uint8_t c) noexcept nogil:
    """Under twin classes: whether c's twin is in the deck and goes home safely."""
    return cfg.twin_classes and (c ^ 2) & 3 < cfg.suits and goes_safely(cfg, s, c ^ 2)

cdef inline bint top_goes_safely(const Config* cfg, const State* s, int p) noexcept nogil:
    """Whether pile p's top card, or under twin classes its twin, goes home safely."""
    cdef uint8_t c
    if s.length[p] == 0:
        return False
    c = s.card[p][s.length[p] - 1]
    return goes_safely(cfg, s, c) or twin_goes_safely(cfg, s, c)

cdef int safe_moves_after(const Config* cfg, State* s, Move m, uint8_t* record) noexcept nogil:
    """apply_safe_moves after move m from a position that had none left. A move that raises no
    foundation makes no card newly safe, and the only new top cards are those of its piles: when
    none of them (nor its twin, see safe_home) goes home safely there is nothing to do. (Nor does
    such a move make a child lone: its twin leaves a card only for the foundation.)"""
    if m.kind == MV_TABLEAU_TABLEAU and not (m.flags & FLAG_THEN_HOME):
        if not top_goes_safely(cfg, s, m.src) and not top_goes_safely(cfg, s, m.dst):
            return 0
    elif m.kind == MV_TALON_TABLEAU or m.kind == MV_FOUNDATION_TABLEAU:
        if not top_goes_safely(cfg, s, m.dst):
            return 0
    return apply_safe_moves(cfg, s, record)

cdef bint find_face_up(const Config* cfg, const State* s, uint8_t c, int* p, int* k) noexcept nogil:
    """Where face-up card c lies on the tableau, if it does."""
    for p[0] in range(cfg.piles):
        k[0] = index_in(s, p[0], c)
        if k[0] >= 0:
            return True
    return False

cdef bint lone_child_on(const Config* cfg, const State* s, int p, int k) noexcept nogil:
    """Whether the card above index k of pile p is a lone child (its twin lies on no card)."""
    cdef int q, j
    if k + 1 >= s.length[p]:
        return False
    return not find_face_up(cfg, s, s.card[p][k + 1] ^ 2, &q, &j) or j == s.down[q]

cdef int safe_home(const Config* cfg, State* s, int p, int k, uint8_t* record, int n) noexcept nogil:
    """Send safe card c = pile p's card k home, with twin classes (see state_key) where
    classmates differ: returns the new length of ``record``, or n when nothing moved.

    A top card goes home; but when its twin c' also goes home safely, and carries a lone child,
    c is the lower-numbered of the two (the class keys the child there), the child moves onto c
    and c' goes home instead. A covered card goes home when the cards on it are a lone child's
    and its twin is a free top: they move onto the twin first. Every classmate then makes the
    same moves and ends in the same class. Sound: the child's move is reversible, and sending a
    safe card home loses no win (is_safe)."""
    cdef uint8_t c = s.card[p][k]
    cdef int q, j
    if k == s.length[p] - 1:
        if (not (c & 2) and twin_goes_safely(cfg, s, c) and find_face_up(cfg, s, c ^ 2, &q, &j)
                and lone_child_on(cfg, s, q, j)):
            record[n] = s.card[q][j + 1] | TRANSFER
            lift(s, q, j + 1, p)
            p = q
            c = c ^ 2
            n += 1
    else:
        # The twin must be a free top: face up with nothing on it.
        if (not cfg.twin_classes or not find_face_up(cfg, s, c ^ 2, &q, &j)
                or j != s.length[q] - 1 or not lone_child_on(cfg, s, p, k)):
            return n
        record[n] = s.card[p][k + 1] | TRANSFER
        lift(s, p, k + 1, q)
        n += 1
    s.length[p] -= 1
    s.stale |= 1 << p
    send_home(s, c)
    flip(cfg, s, p)
    record[n] = c
    return n + 1

cdef int apply_safe_moves(const Config* cfg, State* s, uint8_t* record) noexcept nogil:
    """Send every safe card home (see is_safe and safe_home) until none is left; record the
    cards moved (a lone child's move onto its other parent as the card | TRANSFER).

    From the talon only under draw 1 with unlimited redeals, where the talon is a reserve whose
    every card is reachable at any time, so a talon card is as free as a pile's top card."""
    cdef int n = 0, m, p, j, k, su
    cdef bint changed = True
    cdef uint8_t c, idx
    while changed:
        changed = False
        for p in range(cfg.piles):
            if s.length[p] > 0 and goes_safely(cfg, s, s.card[p][s.length[p] - 1]):
                n = safe_home(cfg, s, p, s.length[p] - 1, record, n)
                changed = True
        if cfg.draw1_reserve:
            for su in range(cfg.suits):
                if s.home[su] == cfg.ranks:
                    continue
                c = <uint8_t>(s.home[su] * 4 + su)
                idx = cfg.stock_index[c]
                if idx == NOT_IN_STOCK or not (s.talon_mask >> idx) & 1 or not is_safe(cfg, s, c):
                    continue
                j = 0
                while s.talon[j] != idx:
                    j += 1
                take_talon(cfg, s, j)
                send_home(s, c)
                record[n] = c
                n += 1
                changed = True
        if not changed and cfg.twin_classes:
            refresh_pile_keys(s)                # for the set of face-up cards
            for su in range(cfg.suits):
                if s.home[su] == cfg.ranks:
                    continue
                c = <uint8_t>(s.home[su] * 4 + su)
                if ((s.piles_key.face_up >> c) & 1 and is_safe(cfg, s, c)
                        and find_face_up(cfg, s, c, &p, &k)):
                    m = safe_home(cfg, s, p, k, record, n)
                    changed = m != n
                    n = m
                    if changed:
                        break
    return n


# ---------------------------------------------------------------------------------------------
# Move generation

cdef inline int run_start(const State* s, int p) noexcept nogil:
    """Lowest index of the face-up run that can move as a block from pile p."""
    cdef int k = s.length[p] - 1
    while k > s.down[p] and can_stack(s.card[p][k], s.card[p][k - 1]):
        k -= 1
    return k

cdef inline bint may_fill_empty(const Config* cfg, uint8_t head) noexcept nogil:
    if cfg.empty_rule == EMPTY_ANY:
        return True
    if cfg.empty_rule == EMPTY_KING:
        return rank_of(head) == cfg.ranks - 1
    return False

cdef inline int add(Move* moves, int n, uint8_t kind, int src, int dst, int idx, int flags,
                    uint8_t card) noexcept nogil:
    moves[n].kind = kind
    moves[n].src = <uint8_t>src
    moves[n].dst = <uint8_t>dst
    moves[n].idx = <uint8_t>idx
    moves[n].flags = <uint8_t>flags
    moves[n].card = card
    return n + 1

cdef inline int first_empty(const Config* cfg, const State* s) noexcept nogil:
    cdef int p
    for p in range(cfg.piles):
        if s.length[p] == 0:
            return p
    return -1

cdef enum:
    MAX_RUN_MOVES = 256  # tableau-to-tableau moves: one per two piles, a run's cards into a column

# Tableau-to-tableau moves, by class, in this order of promise: whole face-up runs that leave
# face-down cards behind (flipping one); parts of runs whose exposed card goes home next; whole
# piles with nothing face down onto another card (emptying a column).
cdef struct RunMoves:
    Move reveals[MAX_RUN_MOVES]
    Move partial[MAX_RUN_MOVES]
    Move empties[MAX_RUN_MOVES]
    int n_reveals
    int n_partial
    int n_empties
    uint32_t heads      # the (rank, colour) pairs (see child_bit) of the cards that may head one

cdef inline int pair_of(uint8_t c) noexcept nogil:
    """c's (rank, colour) pair: an index into an Accepting map, a bit of a builders() set."""
    return rank_of(c) * 2 + (c & 1)

cdef inline int child_pair_of(uint8_t y) noexcept nogil:
    """The (rank, colour) pair of the cards that go on y (y not an ace)."""
    return (rank_of(y) - 1) * 2 + ((y & 1) ^ 1)

# The piles whose top card takes a card, by the card's (rank, colour) pair (see pair_of).
ctypedef uint16_t Accepting[2 * 13]

cdef void accepting(const Config* cfg, const State* s, uint16_t* accept) noexcept nogil:
    """For each (rank, colour) pair, the set of piles (bit p) whose top card takes such a card."""
    cdef int b
    cdef uint8_t t
    memset(accept, 0, sizeof(Accepting))
    for b in range(cfg.piles):
        if s.length[b] > 0:
            t = s.card[b][s.length[b] - 1]
            if rank_of(t) > 0:
                accept[child_pair_of(t)] |= <uint16_t>(1 << b)

cdef inline uint32_t targets(const Config* cfg, const uint16_t* accept, uint8_t c,
                             int empty) noexcept nogil:
    """The piles card c may go onto: tops that take it, and the first empty column if it may."""
    cdef uint32_t to = accept[pair_of(c)]
    if empty >= 0 and may_fill_empty(cfg, c):
        to |= (<uint32_t>1) << empty
    return to

cdef void gen_runs(const Config* cfg, const State* s, const uint16_t* accept, RunMoves* out,
                   int empty) noexcept nogil:
    """Tableau-to-tableau moves, by source pile, then target pile.

    Partial runs (leaving a face-up card behind) are moved only when the exposed card goes home
    at once (Blake & Gent, Appendix B.2, Theorem 4, for red-black building with runs moved like
    single cards; Theorem 5: compatible with safe moves). A whole pile with nothing face down never
    moves to an empty column (relabelling the columns gives the same position), and only the
    first empty column is a target (all empty columns are alike)."""
    cdef int a, b, i, rs, top, down
    cdef uint32_t to, onto
    cdef int at[MAX_PILES]       # the run's card that a pile's top takes (ranks differ: one)
    out.n_reveals = out.n_partial = out.n_empties = 0
    out.heads = 0
    for a in range(cfg.piles):
        top = s.length[a]
        if top == 0:
            continue
        down = s.down[a]
        rs = run_start(s, a)
        to = 0
        for i in range(rs, top):
            if not may_head(s, a, i):
                continue
            out.heads |= child_bit(s.card[a][i])
            onto = targets(cfg, accept, s.card[a][i], empty) & ~((<uint32_t>1) << a)
            to |= onto
            while onto:
                at[ctz64(onto)] = i
                onto &= onto - 1
        while to:
            b = ctz64(to)
            to &= to - 1
            if b != empty:
                classify_run(s, out, a, b, at[b], down)
                continue
            # Only the bottom card of a run can be a king; any card may head a run under 'any'.
            for i in range(rs, top):
                if may_fill_empty(cfg, s.card[a][i]) and may_head(s, a, i):
                    classify_run(s, out, a, b, i, down)

cdef inline bint may_head(const State* s, int a, int i) noexcept nogil:
    """Whether face-up card i of pile a may head a tableau move: the pile's lowest face-up card,
    or a partial run's whose exposed card goes home next (see gen_runs)."""
    return i == s.down[a] or goes_home(s, s.card[a][i - 1])

cdef inline void classify_run(const State* s, RunMoves* out, int a, int b, int i,
                              int down) noexcept nogil:
    """File the move of pile a's run from card i (which may head one) onto pile b by its class."""
    if i == down:
        if down > 0:
            out.n_reveals = add(out.reveals, out.n_reveals, MV_TABLEAU_TABLEAU, a, b, i, 0,
                                s.card[a][i])
        elif s.length[b] > 0:
            out.n_empties = add(out.empties, out.n_empties, MV_TABLEAU_TABLEAU, a, b, i, 0,
                                s.card[a][i])
    else:
        out.n_partial = add(out.partial, out.n_partial, MV_TABLEAU_TABLEAU, a, b, i,
                            FLAG_THEN_HOME, s.card[a][i])

cdef int talon_reach(const Config* cfg, const State* s, int* pos, int* pflags) noexcept nogil:
    """The talon positions reachable now (K+, Bjarnason, Tadepalli & Fern 2007), each with
    FLAG_REDEAL when it takes a redeal. With c cards in the waste, L in the talon and draw N: this
    pass reaches c-1, c+N-1, c+2N-1, ... and L-1; after one redeal N-1, 2N-1, ...; further redeals
    reach nothing new. A position reachable in this pass is never taken through a redeal (same
    result, one redeal fewer spent)."""
    cdef int L = s.talon_len, c = s.waste_len, N = cfg.draw, j, npos = 0
    cdef uint64_t seen = 0
    if L == 0:
        return 0
    if c > 0:
        pos[npos] = c - 1; pflags[npos] = 0; npos += 1
        seen |= (<uint64_t>1) << (c - 1)
    j = c + N - 1
    while j < L:
        pos[npos] = j; pflags[npos] = 0; npos += 1
        seen |= (<uint64_t>1) << j
        j += N
    if c < L and not (seen >> (L - 1)) & 1:
        pos[npos] = L - 1; pflags[npos] = 0; npos += 1
        seen |= (<uint64_t>1) << (L - 1)
    if cfg.unlimited or s.redeals_left > 0:
        j = N - 1
        while j < L:
            if not (seen >> j) & 1:
                pos[npos] = j; pflags[npos] = FLAG_REDEAL; npos += 1
            j += N
    return npos

cdef inline uint32_t child_bit(uint8_t z) noexcept nogil:
    """z's bit in a set of (rank, colour) pairs."""
    return (<uint32_t>1) << pair_of(z)

cdef uint32_t builders(const Config* cfg, const State* s, uint32_t heads) noexcept nogil:
    """The (rank, colour) pairs (see child_bit) of the cards the next move could build on a
    tableau card: in the talon, heading a run move the generator makes (``heads``, see
    gen_runs), or on top of their foundation, free to come back. (Any talon card counts: an
    over-approximation of what is reachable, exact for draw 1 with unlimited passes.)"""
    cdef uint32_t bits = heads
    cdef int q
    cdef uint8_t z
    cdef uint64_t talon = s.talon_mask
    cdef const uint32_t* pairs = cfg.talon_pairs
    while talon:
        bits |= pairs[talon & 0xFF]
        talon >>= 8
        pairs += 256
    if cfg.worry_back:
        for q in range(cfg.suits):
            if s.home[q] > 0:
                z = <uint8_t>((s.home[q] - 1) * 4 + q)
                if not is_safe(cfg, s, z):
                    bits |= child_bit(z)
    return bits

cdef inline bint could_build_on(uint32_t builders, uint8_t y) noexcept nogil:
    """Whether the next move could build on y once y is on the tableau (``builders`` as above)."""
    return rank_of(y) > 0 and (builders >> child_pair_of(y)) & 1

cdef bint could_come_back(const Config* cfg, const State* s, uint8_t c) noexcept nogil:
    """Whether foundation card c (its suit's next-to-top; -4 wraps past an ace) could come back
    onto the tableau by the next move once the card above it has: not safe, and some pile's top
    card or an empty column takes it."""
    cdef int a
    if c >= MAX_CARD or is_safe(cfg, s, c):
        return False
    for a in range(cfg.piles):
        if s.length[a] == 0:
            if may_fill_empty(cfg, c):
                return True
        elif can_stack(c, s.card[a][s.length[a] - 1]):
            return True
    return False

cdef int gen_talon(const Config* cfg, const State* s, const uint16_t* accept, Move* moves, int n,
                   int empty, uint32_t builds) noexcept nogil:
    """Every reachable talon card to its foundation, then every one onto the tableau, as one
    move each.

    With draw 1 and unlimited passes the talon is a reserve: taking a card out changes nothing
    else about it, so a card played onto the tableau matters only once it is used. Its first use
    is a card built on it; a move of the card itself rewrites into playing it from the talon
    straight to where it goes. Every move in between touches neither it nor the card it covers,
    so can be made first: some winning line, if any, builds on it at once. There, a talon card
    goes to the tableau only when something could be built on it next (could_build_on)."""
    cdef int pos[MAX_TALON]
    cdef int pflags[MAX_TALON]
    cdef int npos = talon_reach(cfg, s, pos, pflags), j
    cdef uint32_t to
    cdef uint8_t x
    for j in range(npos):
        x = cfg.stock_card[s.talon[pos[j]]]
        if goes_home(s, x):
            n = add(moves, n, MV_TALON_FOUNDATION, 0, 0, pos[j], pflags[j], x)
    for j in range(npos):
        x = cfg.stock_card[s.talon[pos[j]]]
        if cfg.draw1_reserve and not could_build_on(builds, x):
            continue
        to = targets(cfg, accept, x, empty)
        while to:
            n = add(moves, n, MV_TALON_TABLEAU, 0, ctz64(to), pos[j], pflags[j], x)
            to &= to - 1
    return n

cdef int gen_moves(const Config* cfg, const State* s, Move* moves) noexcept nogil:
    """All macro moves worth trying, most promising first: cards home (from the piles, then from
    the talon), talon cards onto the tableau, run moves that flip a card, partial runs, runs that
    empty a column, foundation cards back.

    The order decides only how soon a win is found (a loss is searched whole whatever it is).
    Against the earlier order (run moves that flip a card, cards home, the talon's moves; after
    Bjarnason et al. §4.4) it found the draw-3 wins of seeds 10,001..14,000 in 46 % fewer
    positions, and the wins among 54 survey seeds drawn with chances in proportion to their
    solve time in 5 times fewer (every talon card home before any onto the tableau: with each
    position's two moves side by side, 2.5 times fewer)."""
    cdef int n = 0, p, su
    cdef int empty = first_empty(cfg, s)
    cdef uint32_t to
    cdef uint8_t c
    cdef Accepting accept
    cdef bint have_builds = cfg.draw1_reserve      # builders(), worked out when first needed
    cdef uint32_t builds = 0
    cdef RunMoves runs
    accepting(cfg, s, accept)
    gen_runs(cfg, s, accept, &runs, empty)
    if have_builds:
        builds = builders(cfg, s, runs.heads)
    for p in range(cfg.piles):
        if s.length[p] > 0:
            c = s.card[p][s.length[p] - 1]
            if goes_home(s, c):
                n = add(moves, n, MV_TABLEAU_FOUNDATION, p, 0, 0, 0, c)
    n = gen_talon(cfg, s, accept, moves, n, empty, builds)
    memcpy(&moves[n], runs.reveals, runs.n_reveals * sizeof(Move))
    n += runs.n_reveals
    memcpy(&moves[n], runs.partial, runs.n_partial * sizeof(Move))
    n += runs.n_partial
    memcpy(&moves[n], runs.empties, runs.n_empties * sizeof(Move))
    n += runs.n_empties
    if cfg.worry_back:
        for su in range(cfg.suits):
            if s.home[su] == 0:
                continue
            c = <uint8_t>((s.home[su] - 1) * 4 + su)
            # A card that would be safe at once would go straight back home: the two moves cancel
            # (Blake & Gent, Corollary 2). Its safety does not depend on its own foundation.
            # A card taken back matters only once used: by a card built on it, or by taking back
            # the card under it on the foundation too (a move of the card itself rewrites into
            # taking it straight where it goes). Moves in between touch neither it, nor the pile
            # it covers, nor its foundation, so can be made first: some winning line, if any,
            # uses it at once, and it comes back only when a use could follow.
            if is_safe(cfg, s, c):
                continue
            if not have_builds:
                builds = builders(cfg, s, runs.heads)
                have_builds = True
            if not could_build_on(builds, c) and not could_come_back(cfg, s, <uint8_t>(c - 4)):
                continue
            to = targets(cfg, accept, c, empty)
            while to:
                n = add(moves, n, MV_FOUNDATION_TABLEAU, su, ctz64(to), 0, 0, c)
                to &= to - 1
    return n


# ---------------------------------------------------------------------------------------------
# Dead ends

cdef bint dead_end(const Config* cfg, const State* s, uint64_t* why) noexcept nogil:
    """Whether some card provably can never move again (so the position cannot be won); if so
    and ``why`` is not NULL, the set of those cards (bit c for card c) goes there.

    Candidates are the cards at or below each pile's lowest face-up card, but for the cards of a
    locked run that lie on their parent in it (cfg.carried, see hidden_region): such a card leaves
    only by moving itself, home or as the head of a run. Once no redeal is left, the waste is one more
    such pile: each of its cards leaves only as the top, after every card above it. G starts as
    all candidates; a card leaves G while one of its routes may still open: home (every lower
    card of its suit is home, or could get there: not itself in G, not under a card of G), onto a
    parent (one rank up, other colour: on a pile and not under a card of G, in the waste above
    every card of G, in the stock, or home when worrying back is allowed), or into an empty
    column (allowed for it by the rule). What is left is sound (the greatest fixed point): the
    first card of G ever to move would need a route that only a move of a card of G could open.
    Nothing ever enters the region below a pile's lowest face-up card, nor the waste below its
    top, so cards added later only cover more. On the tableau G only shrinks as play goes on (new
    dead ends come from parents sent home for good); the waste grows, so G with it."""
    cdef signed char pile_of[MAX_CARD]
    cdef signed char pos_of[MAX_CARD]
    cdef bint stuck[MAX_PILES + 1][MAX_TALON]
    cdef int top_stuck[MAX_PILES + 1]
    cdef int length[MAX_PILES + 1]
    cdef uint8_t* cards[MAX_PILES + 1]
    cdef uint8_t waste[MAX_TALON]
    cdef int waste_pile = cfg.piles, npiles = cfg.piles, p, k, q, r, su, x, n_stuck = 0
    cdef bint changed = True, movable
    cdef uint8_t d
    if cfg.empty_rule == EMPTY_ANY:
        return False
    memset(pile_of, -1, MAX_CARD)
    for p in range(cfg.piles):
        cards[p] = <uint8_t*>s.card[p]
        length[p] = s.length[p]
    if not cfg.unlimited and s.redeals_left == 0 and s.waste_len > 0:
        for k in range(s.waste_len):
            waste[k] = cfg.stock_card[s.talon[k]]
        cards[waste_pile] = waste
        length[waste_pile] = s.waste_len
        npiles += 1
    for p in range(npiles):
        top_stuck[p] = -1
        for k in range(length[p]):
            pile_of[cards[p][k]] = <signed char>p
            pos_of[cards[p][k]] = <signed char>k
            stuck[p][k] = p == waste_pile or (k <= s.down[p] and not (cfg.carried[p] >> k) & 1)
            if stuck[p][k]:
                top_stuck[p] = k
                n_stuck += 1
    while changed and n_stuck > 0:
        changed = False
        for p in range(npiles):
            for k in range(length[p]):
                if not stuck[p][k]:
                    continue
                d = cards[p][k]
                r = rank_of(d)
                su = suit_of(d)
                movable = cfg.empty_rule == EMPTY_KING and r == cfg.ranks - 1
                if not movable:
                    movable = True
                    for q in range(s.home[su], r):
                        x = q * 4 + su
                        if pile_of[x] >= 0 and (pos_of[x] < top_stuck[pile_of[x]]
                                                or stuck[pile_of[x]][pos_of[x]]):
                            movable = False
                            break
                if not movable and r + 1 < cfg.ranks:
                    for q in range(cfg.suits):
                        if (q & 1) == (su & 1):
                            continue
                        x = (r + 1) * 4 + q
                        if s.home[q] > r + 1:
                            if cfg.worry_back:
                                movable = True
                        elif pile_of[x] < 0 or pos_of[x] > top_stuck[pile_of[x]] or (
                                pos_of[x] == top_stuck[pile_of[x]] and pile_of[x] != waste_pile):
                            movable = True      # a stuck pile card takes a child where it lies
                if movable:
                    stuck[p][k] = False
                    n_stuck -= 1
                    changed = True
                    if top_stuck[p] == k:
                        top_stuck[p] = -1
                        for x in range(k):
                            if stuck[p][x]:
                                top_stuck[p] = x
    if n_stuck > 0:
        if why != NULL:
            why[0] = 0
            for p in range(npiles):
                for k in range(length[p]):
                    if stuck[p][k]:
                        why[0] |= card_bit(cards[p][k])
        return True
    return twins_blocked(cfg, s, pile_of, pos_of, why)

cdef inline bint lies_below(const signed char* pile_of, const signed char* pos_of, int z,
                            int t) noexcept nogil:
    """Whether card z lies under card t in t's pile (so cannot move before t has)."""
    return pile_of[z] >= 0 and pile_of[z] == pile_of[t] and pos_of[z] < pos_of[t]

cdef bint lower_lies_below(const State* s, const signed char* pile_of, const signed char* pos_of,
                           int c, int t) noexcept nogil:
    """Whether a lower card of c's suit, not yet home, lies under card t (so c cannot go home
    before t has moved)."""
    cdef int q
    for q in range(s.home[c & 3], rank_of(<uint8_t>c)):
        if lies_below(pile_of, pos_of, q * 4 + (c & 3), t):
            return True
    return False

cdef bint twins_blocked(const Config* cfg, const State* s, const signed char* pile_of,
                        const signed char* pos_of, uint64_t* why) noexcept nogil:
    """Whether two twins (same rank and colour, not kings) block each other for good; if so and
    ``why`` is not NULL, the two go there (bit c for card c): t2 never moves, t1 only onto P.

    Let t1 lie above its twin t2 in one pile (or in the waste with no redeal left, see dead_end),
    t2 face down or the lowest face-up card (so it moves only as the head of what it carries, and
    what lies under it only after it; in the waste every card moves alone), a lower
    card of each one's suit lie under t2, and one of their two common parents, Q, lie under t2 as
    well (or be home for good: no worrying back). Empty columns do not take them. Then t2 never
    moves. t1 must move first; wherever it goes it sits on a parent (as a head or inside a run):
    not home (its suit waits for a card under t2), not into a column, not on Q, so on the other
    parent P, and it stays there until t2 moves, for the same reasons. t2's first move cannot go
    home (its suit waits for a card under it), nor onto Q, nor onto P (t1 is on it), nor into a
    column. A card that never moves never goes home: the position is lost. (After the
    twin-blocking pattern of Bjarnason, Tadepalli & Fern, §4.1.)"""
    cdef int r, col, t1, t2, su, parent, k
    for r in range(cfg.ranks - 1):
        for col in range(2):
            t1 = r * 4 + col
            t2 = t1 + 2
            if t2 & 3 >= cfg.suits or pile_of[t1] < 0 or pile_of[t1] != pile_of[t2]:
                continue
            if pos_of[t1] < pos_of[t2]:
                t1, t2 = t2, t1
            if pile_of[t2] < cfg.piles and (pos_of[t2] > s.down[pile_of[t2]]
                                            or (cfg.carried[pile_of[t2]] >> pos_of[t2]) & 1):
                continue        # t2 must be the lowest face-up card or hidden and not carried
                                # in a locked run (see dead_end): moved only as a head
            if not (lower_lies_below(s, pile_of, pos_of, t1, t2)
                    and lower_lies_below(s, pile_of, pos_of, t2, t2)):
                continue
            for k in range(2):
                su = (col ^ 1) + 2 * k
                parent = (r + 1) * 4 + su
                if (su >= cfg.suits or lies_below(pile_of, pos_of, parent, t2)
                        or (not cfg.worry_back and s.home[su] > r + 1)):
                    if why != NULL:
                        why[0] = card_bit(t1) | card_bit(t2)
                    return True
    return False


# ---------------------------------------------------------------------------------------------
# Canonical key: two 64-bit lanes, each a sum of random table entries, one per fact of the
# position: each face-up card lying on another card, with which of its two possible parents that is
# (which settles every pile's run); the bottom card of each pile with nothing face down (such piles
# are interchangeable: their order does not matter); the column and the number of face-down cards
# of the others (their lowest face-up card is then the deal's); each foundation's height; and a
# mix of the set of talon cards.
# Equal positions up to the order of such piles, and twin classes (see state_key), share a key.
# The lowest bit of lane a is forced on (0 marks an empty slot).

cdef uint64_t PAIR_KEY[2][MAX_CARD][2]            # [lane][card][its parent's suit >> 1]
cdef uint64_t BASE_KEY[2][MAX_CARD]               # [lane][bottom card of a pile, nothing face down]
cdef uint64_t HIDDEN_KEY[2][MAX_PILES][PILE_CAP]  # [lane][pile][its face-down cards]
cdef uint64_t HOME_KEY[2][4][14]                  # [lane][suit][foundation height]

cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    x ^= x >> 30
    x *= <uint64_t>0xbf58476d1ce4e5b9
    x ^= x >> 27
    x *= <uint64_t>0x94d049bb133111eb
    x ^= x >> 31
    return x

cdef void fill_key_tables() noexcept nogil:
    cdef uint64_t seed = <uint64_t>0x243f6a8885a308d3
    cdef int lane, c, k, p
    for lane in range(2):
        for c in range(MAX_CARD):
            for k in range(2):
                seed += <uint64_t>0x9e3779b97f4a7c15
                PAIR_KEY[lane][c][k] = mix64(seed)
            seed += <uint64_t>0x9e3779b97f4a7c15
            BASE_KEY[lane][c] = mix64(seed)
        for p in range(MAX_PILES):
            for k in range(PILE_CAP):
                seed += <uint64_t>0x9e3779b97f4a7c15
                HIDDEN_KEY[lane][p][k] = mix64(seed)
        for p in range(4):
            for k in range(14):
                seed += <uint64_t>0x9e3779b97f4a7c15
                HOME_KEY[lane][p][k] = mix64(seed)

fill_key_tables()

cdef uint64_t SUIT_CARDS = <uint64_t>0x1111111111111   # the cards of suit 0 (C); << s: suit s
cdef uint64_t HIGH_SUITS = <uint64_t>0xCCCCCCCCCCCCC   # the cards of suits 2 and 3 (S, D)

cdef inline uint64_t card_bit(int c) noexcept nogil:
    return (<uint64_t>1) << c

cdef inline uint64_t twins_of(uint64_t cards) noexcept nogil:
    """The set of the twins (same rank and colour, suit ^ 2) of a set of cards."""
    return (((cards >> 2) & <uint64_t>0x3333333333333333)
            | ((cards & <uint64_t>0x3333333333333333) << 2))

cdef void pile_key(const State* s, int p, PileKey* out) noexcept nogil:
    """Pile p's share of the key, and its sets of cards that state_key needs."""
    cdef int k, d = s.down[p], hi
    cdef uint8_t x
    out.a = out.b = out.upper = out.on_high_twin = out.face_up = 0
    if s.length[p] == 0:
        return
    x = s.card[p][d]
    if d > 0:
        out.a = HIDDEN_KEY[0][p][d]
        out.b = HIDDEN_KEY[1][p][d]
    else:
        out.a = BASE_KEY[0][x]
        out.b = BASE_KEY[1][x]
    out.face_up = card_bit(x)
    for k in range(d + 1, s.length[p]):
        x = s.card[p][k]
        hi = (s.card[p][k - 1] >> 1) & 1
        out.a += PAIR_KEY[0][x][hi]
        out.b += PAIR_KEY[1][x][hi]
        out.upper |= card_bit(x)
        if hi:
            out.on_high_twin |= card_bit(x)
    out.face_up |= out.upper

cdef inline void refresh_pile_keys(State* s) noexcept nogil:
    """Recompute the key shares of the piles changed since, and their sums (s.piles_key)."""
    cdef uint64_t stale = s.stale
    cdef PileKey* total = &s.piles_key
    cdef PileKey fresh
    cdef int p
    # Each card lies in one pile: the piles' card sets are disjoint, their union is their XOR.
    while stale:
        p = ctz64(stale)
        stale &= stale - 1
        pile_key(s, p, &fresh)
        total.a += fresh.a - s.pile_key[p].a
        total.b += fresh.b - s.pile_key[p].b
        total.upper ^= fresh.upper ^ s.pile_key[p].upper
        total.on_high_twin ^= fresh.on_high_twin ^ s.pile_key[p].on_high_twin
        total.face_up ^= fresh.face_up ^ s.pile_key[p].face_up
        s.pile_key[p] = fresh
    s.stale = 0

cdef enum:
    CURSOR_MASK = 0xFFFF     # low bits of key lane b: waste size and redeals left (see dominates)

cdef inline void state_key(const Config* cfg, State* s, uint64_t* ka, uint64_t* kb) noexcept nogil:
    """The key of s; the shares of piles changed since the last key are recomputed."""
    refresh_pile_keys(s)
    key_of(cfg, &s.piles_key, s.home, s.talon_mask, cursor_state(s), ka, kb)

cdef inline void key_of(const Config* cfg, const PileKey* total, const uint8_t* home,
                        uint64_t talon_mask, uint64_t cursor, uint64_t* ka, uint64_t* kb) noexcept nogil:
    """The key of a position from its piles' summed shares, foundations, talon and cursor: 111
    bits of hash of everything but the stock cursor, which is stored as it is in the low bits of
    lane b.

    Twin classes (cfg.twin_classes, not under EMPTY_ANY): which of its two possible parents (twins:
    same rank and colour) a face-up card lies on is left out of the key when it cannot matter.
    Both positions are then won or lost together:
    * a lone child x (its twin lies on no card) on parent P, with P's twin P' face up on the
      tableau (so free: only x and its twin could lie on it): x and the cards on it can move onto
      P' and back, one legal move each way. Keyed as if on the lower-numbered twin.
    * twins x and x' lying on the twin parents P and P', either way round: each side can mirror
      every move of the other (the same move with the two piles' upper parts exchanged) until x
      or x' first leaves its parent. Not for an empty column (not under this rule), nor onto the
      other parent (taken), nor as the head of a run (then its parent moves with it): only home,
      which the mirror does too, from the other parent; then one move of the other twin onto the
      parent freed makes the two sides equal. Keyed as if the lower twin lay on the lower parent.
    For the search to stay complete, the position it searches must make, up to its class, every
    move its pruned classmates could. The generator's moves mirror across both kinds (a card's
    filters look at the rank and colour of the cards that could build on it, which classmates
    share); the safe moves to the foundation do too because they also send home a safe parent
    that only a lone child covers (safe_home)."""
    cdef uint64_t a, b, upper, high, face_up, twins_up, fix, lone, parent_up
    cdef int x
    a = total.a
    b = total.b
    upper = total.upper
    high = total.on_high_twin
    face_up = total.face_up
    if cfg.twin_classes:
        # The cards keyed on the other parent than the one they lie on: of twins both lying on
        # cards, those not on the parent of their own suit bit (lower on lower); lone children
        # on the higher parent when the lower is face up. The lower parent of a card of rank r
        # and suit s is (r + 1, s & 1 ^ 1): parent_up moves its face-up bit to the child's.
        twins_up = twins_of(upper)
        fix = upper & twins_up & (high ^ HIGH_SUITS)
        lone = high & ~twins_up
        parent_up = face_up >> 4
        parent_up = (((parent_up >> 1) & SUIT_CARDS) | ((parent_up << 1) & (SUIT_CARDS * 6))
                     | ((parent_up << 3) & (SUIT_CARDS << 3)))
        fix |= lone & parent_up
        while fix:
            x = ctz64(fix)
            fix &= fix - 1
            if (high >> x) & 1:
                a += PAIR_KEY[0][x][0] - PAIR_KEY[0][x][1]
                b += PAIR_KEY[1][x][0] - PAIR_KEY[1][x][1]
            else:
                a += PAIR_KEY[0][x][1] - PAIR_KEY[0][x][0]
                b += PAIR_KEY[1][x][1] - PAIR_KEY[1][x][0]
    for x in range(4):
        a += HOME_KEY[0][x][home[x]]
        b += HOME_KEY[1][x][home[x]]
    a += mix64(talon_mask ^ <uint64_t>0x082efa98ec4e6c89)
    b += mix64(talon_mask + <uint64_t>0xbe5466cf34e90c6c)
    ka[0] = a | 1
    kb[0] = (b & ~(<uint64_t>CURSOR_MASK)) | cursor

cdef inline uint64_t cursor_state(const State* s) noexcept nogil:
    return <uint64_t>s.waste_len | (<uint64_t>s.redeals_left << 8)

cdef inline void add_share(PileKey* total, const PileKey* share, int sign) noexcept nogil:
    """Add a pile's share of the key to the piles' totals (sign 1), or take it out (sign -1):
    the lanes are sums, the card sets disjoint unions (XOR)."""
    total.a += <uint64_t>sign * share.a
    total.b += <uint64_t>sign * share.b
    total.upper ^= share.upper
    total.on_high_twin ^= share.on_high_twin
    total.face_up ^= share.face_up

cdef inline void put_head(PileKey* share, const State* s, int p, uint8_t x) noexcept nogil:
    """Add to ``share`` card x's part as it comes to lie on pile p: on its top card, or at the
    bottom of p when p is empty (see pile_key)."""
    cdef uint8_t y
    cdef int hi
    cdef uint64_t bit = card_bit(x)
    share.face_up |= bit
    if s.length[p] == 0:
        share.a += BASE_KEY[0][x]
        share.b += BASE_KEY[1][x]
        return
    y = s.card[p][s.length[p] - 1]
    hi = (y >> 1) & 1
    share.a += PAIR_KEY[0][x][hi]
    share.b += PAIR_KEY[1][x][hi]
    share.upper |= bit
    if hi:
        share.on_high_twin |= bit

cdef inline void flipped_share(PileKey* share, int p, int d, uint8_t t) noexcept nogil:
    """Pile p's share once its face-up cards are gone and t, the top of its d face-down cards,
    has turned face up."""
    memset(share, 0, sizeof(PileKey))
    share.face_up = card_bit(t)
    if d > 1:
        share.a = HIDDEN_KEY[0][p][d - 1]
        share.b = HIDDEN_KEY[1][p][d - 1]
    else:
        share.a = BASE_KEY[0][t]
        share.b = BASE_KEY[1][t]

cdef inline void take_key(const Config* cfg, const State* s, Move m, uint64_t* mask,
                          uint64_t* cursor, int* left) noexcept nogil:
    """The talon mask, cursor and talon size once talon move m has taken its card (take_talon)."""
    cdef int pos = m.idx
    mask[0] &= ~((<uint64_t>1) << s.talon[pos])
    left[0] -= 1
    if cfg.unlimited and (multiple_of_draw(cfg, pos) or pos == left[0]):
        pos = 0
    cursor[0] = <uint64_t>pos | (<uint64_t>s.redeals_left << 8)
    if (m.flags & FLAG_REDEAL) and not cfg.unlimited:
        cursor[0] -= <uint64_t>1 << 8

cdef bint none_go_safely(const Config* cfg, const State* s, const uint8_t* home, uint64_t mask,
                         uint64_t face_up, int a, int top) noexcept nogil:
    """After a move to a foundation that leaves the foundations at ``home``, the talon ``mask``,
    the piles as in s but pile a topped by ``top`` (-1: empty; a -1: no pile changed) and the
    face-up cards ``face_up``: whether apply_safe_moves would do nothing there. No top card goes
    home safely, nor (the draw-1 reserve) a talon card, and under twin classes no face-up card
    that would go home next is safe (as apply_safe_moves's last step)."""
    cdef int p, z, su, idx
    if cfg.draw1_reserve:
        for su in range(cfg.suits):
            z = home[su] * 4 + su
            if home[su] < cfg.ranks:
                idx = cfg.stock_index[z]
                if idx != NOT_IN_STOCK and (mask >> idx) & 1 and safe_at(cfg, home, <uint8_t>z):
                    return False
    for p in range(cfg.piles):
        z = top if p == a else (s.card[p][s.length[p] - 1] if s.length[p] > 0 else -1)
        if z >= 0 and home[z & 3] == (z >> 2) and safe_at(cfg, home, <uint8_t>z):
            return False
    if cfg.twin_classes:
        for su in range(cfg.suits):
            z = home[su] * 4 + su
            if home[su] < cfg.ranks and (face_up >> z) & 1 and safe_at(cfg, home, <uint8_t>z):
                return False
    return True

cdef inline bint quick_key(const Config* cfg, const State* s, Move m, uint64_t* ka, uint64_t* kb,
                           uint8_t* talon_len) noexcept nogil:
    """The key (and talon size) of the position a move leads to, worked out from s's fresh pile
    keys without making the position, exactly as state_key would key it, for a card sent home
    from a pile top or the talon, a card onto a pile from the talon or a foundation, and a whole
    face-up run onto a pile. False for other moves, for a win, and when safe moves would follow
    (see safe_moves_after and none_go_safely). Most children of a node are positions already
    searched; for these this spares copying and changing a State.

    Safety onto a pile is judged at s: no foundation rises, so a card safe in the child is safe at
    s; only a card taken back lowers its foundation, and its own safety does not depend on it
    (is_safe)."""
    cdef uint8_t x = m.card, t
    cdef int a = m.src, p = m.dst, d, left = s.talon_len, top
    cdef uint8_t home[4]
    cdef uint64_t mask = s.talon_mask, cursor = cursor_state(s)
    cdef PileKey total = s.piles_key
    cdef PileKey src, dst
    memcpy(home, s.home, 4)
    if (m.kind == MV_TABLEAU_FOUNDATION or m.kind == MV_TALON_FOUNDATION) and (
            s.total_home + 1 == cfg.total):
        return False
    if m.kind == MV_TABLEAU_FOUNDATION:
        home[x & 3] += 1
        d = s.down[a]
        src = s.pile_key[a]
        add_share(&total, &src, -1)
        top = -1
        if s.length[a] - 1 > d:             # x lay on another face-up card
            top = s.card[a][s.length[a] - 2]
            src.a -= PAIR_KEY[0][x][(top >> 1) & 1]
            src.b -= PAIR_KEY[1][x][(top >> 1) & 1]
            src.upper &= ~card_bit(x)
            src.on_high_twin &= ~card_bit(x)
            src.face_up &= ~card_bit(x)
            add_share(&total, &src, 1)
        elif d > 0:                         # the card under x turns face up
            if cfg.reveal[a][d] != 1:       # a locked run becomes the top run: the long way
                return False
            top = s.card[a][d - 1]
            flipped_share(&src, a, d, <uint8_t>top)
            add_share(&total, &src, 1)
        if not none_go_safely(cfg, s, home, mask, total.face_up, a, top):
            return False
    elif m.kind == MV_TALON_FOUNDATION:
        home[x & 3] += 1
        take_key(cfg, s, m, &mask, &cursor, &left)
        if not none_go_safely(cfg, s, home, mask, total.face_up, -1, -1):
            return False
    elif m.kind == MV_TABLEAU_TABLEAU:
        d = s.down[a]
        if m.flags & FLAG_THEN_HOME or m.idx != d or top_goes_safely(cfg, s, a):
            return False
        # The run's share of pile a: the pile's less its bottom card's.
        src = s.pile_key[a]
        if d > 0:
            if cfg.reveal[a][d] != 1:       # a locked run becomes the top run: the long way
                return False
            t = s.card[a][d - 1]
            if goes_safely(cfg, s, t) or twin_goes_safely(cfg, s, t):
                return False
            src.a -= HIDDEN_KEY[0][a][d]
            src.b -= HIDDEN_KEY[1][a][d]
        else:
            src.a -= BASE_KEY[0][x]
            src.b -= BASE_KEY[1][x]
        src.face_up &= ~card_bit(x)
        dst = s.pile_key[p]
        add_share(&total, &dst, -1)
        put_head(&dst, s, p, x)
        add_share(&dst, &src, 1)
        add_share(&total, &dst, 1)
        add_share(&total, &s.pile_key[a], -1)
        if d > 0:                           # t turns face up
            flipped_share(&src, a, d, t)
            add_share(&total, &src, 1)
    elif m.kind == MV_TALON_TABLEAU or m.kind == MV_FOUNDATION_TABLEAU:
        if goes_safely(cfg, s, x) or twin_goes_safely(cfg, s, x):
            return False
        memset(&dst, 0, sizeof(PileKey))
        put_head(&dst, s, p, x)
        add_share(&total, &dst, 1)
        if m.kind == MV_FOUNDATION_TABLEAU:
            home[a] -= 1
        else:
            take_key(cfg, s, m, &mask, &cursor, &left)
    else:
        return False
    key_of(cfg, &total, home, mask, cursor, ka, kb)
    talon_len[0] = <uint8_t>left
    return True


# ---------------------------------------------------------------------------------------------
# Transposition table: open addressing, linear probing, grows up to a memory bound (the table
# itself: see table_grow). When it can grow no further it stops taking new positions. That is sound: the table only prunes positions
# already reached (a DFS with a visited set is complete for reaching a win), and loops through
# positions not stored are caught by checking the current path.

cdef struct Slot:
    uint64_t a
    uint64_t b

cdef struct Table:
    Slot* slot          # both key lanes side by side: a probe touches one cache line
    size_t cap          # any size (below 2^32): a key's home slot is scaled, not masked
    size_t count
    size_t max_slots    # the memory bound, in slots: the largest table
    bint full

cdef enum:
    MIN_SLOTS = 4096    # the smallest table, whatever the bound

cdef enum:
    HUGE_PAGE = 2 << 20  # bytes of an x86-64 / arm64 huge page

cdef inline size_t mapped_bytes(size_t slots) noexcept nogil:
    """The bytes mapped for a table of ``slots`` slots: whole huge pages."""
    return (slots * sizeof(Slot) + HUGE_PAGE - 1) // HUGE_PAGE * HUGE_PAGE

cdef Slot* slots_alloc(size_t slots) noexcept nogil:
    """``slots`` zeroed slots, mapped on their own on a huge-page boundary and advised onto huge
    pages: with 4 kB pages nearly every probe of a big table also misses the TLB (a page walk of
    its own), which made up about a fifth of the search's time. NULL when out of memory."""
    cdef size_t size = mapped_bytes(slots), head
    cdef char* raw = <char*>mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    if <void*>raw == MAP_FAILED:
        return NULL
    head = (HUGE_PAGE - <size_t>raw % HUGE_PAGE) % HUGE_PAGE
    if head:
        munmap(raw, head)
    munmap(raw + head + size, HUGE_PAGE - head)
    madvise(raw + head, size, MADV_HUGEPAGE)   # advice only: without huge pages it still works
    return <Slot*>(raw + head)

cdef void slots_free(Slot* slot, size_t slots) noexcept nogil:
    if slot != NULL:
        munmap(slot, mapped_bytes(slots))

cdef bint table_init(Table* t, size_t max_bytes) noexcept nogil:
    t.max_slots = max_bytes // sizeof(Slot)
    if t.max_slots < MIN_SLOTS:
        t.max_slots = MIN_SLOTS
    t.cap = 1 << 16 if t.max_slots > (1 << 16) else t.max_slots
    t.count = 0
    t.full = False
    t.slot = slots_alloc(t.cap)
    return t.slot != NULL

cdef void table_clear(Table* t) noexcept nogil:
    memset(t.slot, 0, t.cap * sizeof(Slot))
    t.count = 0
    t.full = False

cdef void table_free(Table* t) noexcept nogil:
    slots_free(t.slot, t.cap)

cdef inline size_t table_home(const Table* t, uint64_t ka) noexcept nogil:
    """The key's home slot: its top 32 bits scaled to the capacity."""
    return <size_t>(((ka >> 32) * t.cap) >> 32)

cdef inline bint dominates(const Config* cfg, int talon_len, uint64_t have, uint64_t want) noexcept nogil:
    """Whether a position with stock cursor ``have`` reaches the same one with cursor ``want`` by
    turning and redealing alone (both as in cursor_state). Such a position can make every move
    the other can, so once it has been searched the other need not be: a position is pruned
    when the table holds the same position with a dominating cursor (more redeals never hurt).
    Turning moves the waste size c from c1 to c1 + k*draw, or to the end L; a spare redeal
    reaches any multiple of the draw, and L; with unlimited redeals every cursor reaches L, which
    is stored as 0 (normalise_cursor)."""
    cdef int c1 = have & 0xFF, r1 = (have >> 8) & 0xFF
    cdef int c2 = want & 0xFF, r2 = (want >> 8) & 0xFF
    if r1 < r2:
        return False
    if c2 >= c1 and (multiple_of_draw(cfg, c2 - c1) or c2 == talon_len):
        return True
    if cfg.unlimited:
        return c2 == 0
    return r1 > r2 and (multiple_of_draw(cfg, c2) or c2 == talon_len)

cdef inline bint table_probe(const Table* t, const Config* cfg, int talon_len, uint64_t ka,
                             uint64_t kb, size_t* end) noexcept nogil:
    """Whether the table holds this position with a cursor that dominates its own; if not,
    ``end`` is the empty slot where the probe stopped (where the position would go)."""
    cdef size_t i = table_home(t, ka)
    cdef uint64_t rest = kb & ~(<uint64_t>CURSOR_MASK)
    while t.slot[i].a != 0:
        if (t.slot[i].a == ka and (t.slot[i].b & ~(<uint64_t>CURSOR_MASK)) == rest
                and dominates(cfg, talon_len, t.slot[i].b & CURSOR_MASK, kb & CURSOR_MASK)):
            return True
        i += 1
        if i == t.cap:
            i = 0
    end[0] = i
    return False

cdef inline bint table_has(const Table* t, const Config* cfg, int talon_len, uint64_t ka,
                           uint64_t kb) noexcept nogil:
    cdef size_t end
    return table_probe(t, cfg, talon_len, ka, kb, &end)

cdef inline void table_put(Table* t, uint64_t ka, uint64_t kb) noexcept nogil:
    cdef size_t i = table_home(t, ka)
    while t.slot[i].a != 0:
        i += 1
        if i == t.cap:
            i = 0
    t.slot[i].a = ka
    t.slot[i].b = kb
    t.count += 1

cdef size_t grown_cap(const Table* t) noexcept nogil:
    """The capacity to grow to, 0 for none: double while a table twice that size would still fit
    the bound, then take the whole bound at once (unless that is less than 5/4 of the table)."""
    if 4 * t.cap <= t.max_slots:
        return 2 * t.cap
    if t.max_slots * 4 >= t.cap * 5:
        return t.max_slots
    return 0

cdef bint table_grow(Table* t) noexcept nogil:
    """Rehash into a table of grown_cap slots, unmapping the old table a huge page at a time as the
    rehash passes it. A key's home scales with the capacity, so the keys of old slot i land near
    slot i * new_cap / old_cap of the new table: the new table's pages are touched in about the
    order the old one's are freed, and the memory held stays near the new table's size (a huge
    page or two more for clusters that wrap around the end). So the bound is the table's own
    size, not the old and the grown table together."""
    cdef Slot* old = t.slot
    cdef size_t old_cap = t.cap, new_cap = grown_cap(t), i, freed = 0
    cdef size_t per_page = HUGE_PAGE // sizeof(Slot), rest
    cdef Slot* grown
    if new_cap == 0:
        return False
    grown = slots_alloc(new_cap)
    if grown == NULL:
        return False
    t.slot = grown
    t.cap = new_cap
    t.count = 0
    for i in range(old_cap):
        if old[i].a != 0:
            table_put(t, old[i].a, old[i].b)
        if i + 1 - freed == per_page:
            munmap(old + freed, HUGE_PAGE)
            freed = i + 1
    rest = mapped_bytes(old_cap) - freed * sizeof(Slot)
    if rest > 0:
        munmap(old + freed, rest)
    return True

cdef inline void make_room(Table* t) noexcept nogil:
    """Grow the table at load 0.6, or mark it full at its bound at load 0.85."""
    if not t.full and t.count * 10 >= t.cap * 6:
        if not table_grow(t) and t.count * 100 >= t.cap * 85:
            t.full = True

cdef inline void table_add(Table* t, uint64_t ka, uint64_t kb) noexcept nogil:
    """Store a position unless the table is full."""
    make_room(t)
    if not t.full:
        table_put(t, ka, kb)

cdef inline int table_find_or_add(Table* t, const Config* cfg, int talon_len, uint64_t ka,
                                  uint64_t kb) noexcept nogil:
    """table_has, and when the position is not held, table_add in the same probe: 1 held,
    0 added, -1 neither (the table is full)."""
    cdef size_t i
    make_room(t)
    if table_probe(t, cfg, talon_len, ka, kb, &i):
        return 1
    if t.full:
        return -1
    t.slot[i].a = ka
    t.slot[i].b = kb
    t.count += 1
    return 0


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

cdef void key_made_child(Search* S, const Frame* f, int i, uint64_t* ka, uint64_t* kb,
                         uint8_t* talon_len) noexcept nogil:
    """Key the position f's i-th move leads to (``ka`` 0: a win), and its talon size, by making
    it in S.scratch."""
    cdef uint8_t sent[2 * MAX_CARD]
    memcpy(&S.scratch, &f.s, sizeof(State))
    apply_move(&S.cfg, &S.scratch, f.moves[i])
    safe_moves_after(&S.cfg, &S.scratch, f.moves[i], sent)
    talon_len[0] = S.scratch.talon_len
    if S.scratch.total_home == S.cfg.total:
        ka[0] = kb[0] = 0
    else:
        state_key(&S.cfg, &S.scratch, ka, kb)

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


cdef bint init_search(Search* S, size_t table_bytes) noexcept nogil:
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
                       int waste, int passes_used) except -1:
    """Set up the configuration and the starting state of a position (see solve_position);
    ValueError for one beyond the core's fixed sizes."""
    cdef int p, k, byte, hidden
    cdef uint8_t pile[PILE_CAP]
    if len(piles) > MAX_PILES or len(talon) > MAX_TALON or len(down) != len(piles):
        raise ValueError("deal too large for the native core")
    if not 0 <= waste <= len(talon) or (passes > 0 and not 1 <= passes_used <= passes):
        raise ValueError("bad talon cursor or pass count")
    memset(cfg, 0, sizeof(Config))
    cfg.unlimited = passes == 0
    cfg.empty_rule = empty_rule
    cfg.worry_back = worry_back
    cfg.suits = suits
    cfg.ranks = ranks
    cfg.piles = len(piles)
    cfg.total = suits * ranks
    cfg.draw1_reserve = draw == 1 and passes == 0
    # Not under EMPTY_ANY: there a part of a run may go into an empty column when the card it
    # leaves behind goes home (gen_runs), and of two classmates only one may have a parent under
    # its child that goes home: the position searched would not make every move its classmates
    # could (key_of). tests/test_solver.py checks classmates' moves through position_keys.
    cfg.twin_classes = empty_rule != EMPTY_ANY
    set_draw(cfg, draw)
    memset(cfg.stock_index, NOT_IN_STOCK, MAX_CARD)
    for k in range(len(talon)):
        cfg.stock_card[k] = talon[k]
        cfg.stock_index[<uint8_t>talon[k]] = k
        for byte in range(256):
            if (byte >> (k & 7)) & 1:
                cfg.talon_pairs[(k >> 3) * 256 + byte] |= child_bit(talon[k])
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
    for k in range(suits if home is not None else 0):
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
                  int empty_rule, bint worry_back, list home=None, int waste=0, int passes_used=1):
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
                  worry_back, home, waste, passes_used)
    apply_safe_moves(&cfg, &s, record)
    state_key(&cfg, &s, &ka, &kb)
    key = (ka, kb)
    n = gen_moves(&cfg, &s, moves)
    children = []
    for i in range(n):
        memcpy(&child, &s, sizeof(State))
        apply_move(&cfg, &child, moves[i])
        safe_moves_after(&cfg, &child, moves[i], record)
        if child.total_home == cfg.total:
            children.append((0, 0))
        else:
            state_key(&cfg, &child, &ka, &kb)
            children.append((ka, kb))
    return key, sorted(children)


def solve_position(list piles, list down, list talon, int suits, int ranks, int draw,
                   int passes, int empty_rule, bint worry_back, long long max_nodes=0,
                   double timeout=0.0, double memory_mb=1024.0, long long restarts=100000,
                   bint relax=True, bint relax_only=False, list home=None, int waste=0,
                   int passes_used=1):
    """Decide a position. ``piles`` bottom -> top with ``down`` face-down cards each (any face-up
    cards above them: see hidden_region); ``talon`` the waste (bottom -> top, its first ``waste``
    cards) then the stock (first turned first); ``home`` the foundation heights by suit (default
    empty); ``passes_used`` the passes through the stock begun (1 in the first). ``passes`` 0
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
      same result), the i-th of RESTART_NODES * luby(i) positions: ``restarts`` positions of
      them at once (at most a tenth of ``max_nodes``), then one more whenever the other searches
      have used RESTART_SHARE times its size. The time a depth-first search needs to find a win
      is heavy-tailed, and a fresh order often finds at once a win the first order buried.
      ``restarts`` 0: none.

    ``relax_only`` runs the relaxation alone (for the tests): verdict 0 when it is lost, else -1.
    Returns ``(verdict, line, nodes, seconds, table_peak, limit, dead)`` with verdict 1 winnable,
    0 unwinnable, -1 unknown; ``line`` the winning macro moves (see :func:`solution`); ``dead``
    the cards that can never move when the loss is proved before any search (see dead_end:
    after the safe moves to the foundation), else empty."""
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
                  worry_back, home, waste, passes_used)
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
                R.stop_at = max_nodes
                result = run_phase(&R, &relaxed_start, False, max_nodes, deadline)
                S.limit = R.limit if R.limit != LIMIT_NONE else LIMIT_NODES
                result = 0 if result == 0 else -1
            else:
                result = schedule(&S, &R, &T, &start_state, &relaxed_start, relax, restarts,
                                  max_nodes, deadline, game_bytes)
        if result == 2:
            line = []
            safe_steps(&S.stack[0], line)
            result = 1
        elif result == 1:
            line = solution(&S, S.depth) if S.depth >= 0 else solution(&T, T.depth)
        if result == 0 and S.nodes + R.nodes + T.nodes == 0 and not relax_only:
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


# Move kinds as Python sees them in a winning line.
TABLEAU_FOUNDATION = MV_TABLEAU_FOUNDATION
TABLEAU_TABLEAU = MV_TABLEAU_TABLEAU
TALON_FOUNDATION = MV_TALON_FOUNDATION
TALON_TABLEAU = MV_TALON_TABLEAU
FOUNDATION_TABLEAU = MV_FOUNDATION_TABLEAU
THEN_HOME = FLAG_THEN_HOME
