# The native core: move generation.
# Included by _core.pyx (one compilation unit, so the hot loop inlines across files).

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
    single cards; Theorem 5: compatible with safe moves). It holds for two decks as well, by this
    argument, which nowhere asks the cards to differ: let a winning line L move run R from face-up
    card e onto t (a card: same rank and colour as e, as both take R's head; or, under 'any', an
    empty column), e not going home next. Drop that move and play L on, with what L builds on e
    built on t instead and the other way round: e and t take the same cards, a run moved from
    above one leaves it as it would the other, and e or t moving carries what lies on it, so each
    move stays legal and the positions agree but for those two stacks, until e (or t) goes home
    in L, bare there. Just before, move the other stack off it onto t (or e), bare then: a partial
    run followed at once by its exposed card home. (Once the stack on t empties in L while e's
    does not, under 'any', a whole-column move puts it back.) The new line is no longer, and its
    first partial run not followed by its card home comes later; among the shortest winning
    lines the one where that is latest has none. A whole pile with nothing face down never
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
            if not may_head(cfg, s, a, i):
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
                classify_run(cfg, s, out, a, b, at[b], down)
                continue
            # Only the bottom card of a run can be a king; any card may head a run under 'any'.
            for i in range(rs, top):
                if may_fill_empty(cfg, s.card[a][i]) and may_head(cfg, s, a, i):
                    classify_run(cfg, s, out, a, b, i, down)

cdef inline bint may_head(const Config* cfg, const State* s, int a, int i) noexcept nogil:
    """Whether face-up card i of pile a may head a tableau move: the pile's lowest face-up card,
    or a partial run's whose exposed card goes home next (see gen_runs)."""
    return i == s.down[a] or goes_home(cfg, s, s.card[a][i - 1])

cdef inline void classify_run(const Config* cfg, const State* s, RunMoves* out, int a, int b,
                              int i, int down) noexcept nogil:
    """File the move of pile a's run from card i (which may head one) onto pile b by its class.
    A partial run's exposed card goes home with it."""
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

cdef int talon_reach(const Config* cfg, const State* s, int* pos, int* pflags,
                     bint shared) noexcept nogil:
    """The talon positions reachable now (K+, Bjarnason, Tadepalli & Fern 2007), each with
    FLAG_REDEAL when it takes a redeal. With c cards in the waste, L in the talon and draw N: this
    pass reaches c-1, c+N-1, c+2N-1, ... and L-1; after one redeal N-1, 2N-1, ...; further redeals
    reach nothing new. A position reachable in this pass is never taken through a redeal (same
    result, one redeal fewer spent). Without ``shared`` (unlimited passes only), not those that
    every cursor reaches: the last, and N-1, 2N-1, ... (see covered_by_twin)."""
    cdef int L = s.talon_len, c = s.waste_len, N = cfg.draw, j, npos = 0
    cdef uint64_t seen = 0
    if L == 0:
        return 0
    if c > 0 and (shared or not every_cursor_reaches(cfg, c - 1, L)):
        pos[npos] = c - 1; pflags[npos] = 0; npos += 1
        seen |= (<uint64_t>1) << (c - 1)
    j = c + N - 1
    while j < L:
        if shared or not every_cursor_reaches(cfg, j, L):
            pos[npos] = j; pflags[npos] = 0; npos += 1
            seen |= (<uint64_t>1) << j
        j += N
    if not shared:
        return npos
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

cdef inline bint every_cursor_reaches(const Config* cfg, int j, int L) noexcept nogil:
    """Whether, with unlimited passes, every cursor of a talon of L cards reaches position j:
    the last, or N-1, 2N-1, ... (after a redeal if not in this pass)."""
    return j == L - 1 or multiple_of_draw(cfg, j + 1)

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
        for q in range(cfg.home_slots):
            z = foundation_top(cfg, s.home, q)
            if z != NO_CARD and not safe_once_back(cfg, s.home, q, z, 1):
                bits |= child_bit(z)
    return bits

cdef inline bint could_build_on(uint32_t builders, uint8_t y) noexcept nogil:
    """Whether the next move could build on y once y is on the tableau (``builders`` as above)."""
    return rank_of(y) > 0 and (builders >> child_pair_of(y)) & 1

cdef inline uint8_t card_under(const Config* cfg, const uint8_t* home, int slot) noexcept nogil:
    """The card under a foundation slot's top card (NO_CARD for none): with 4 foundations of two
    decks, a second round's ace lies on the first round's king."""
    cdef uint8_t lower[8]
    if home[slot] < 2:
        return NO_CARD
    memcpy(lower, home, 8)
    lower[slot] -= 1
    return foundation_top(cfg, lower, slot)

cdef inline bint safe_once_back(const Config* cfg, const uint8_t* home, int slot, uint8_t c,
                                int depth) noexcept nogil:
    """Whether foundation card c, slot's top (depth 1) or the card under it (depth 2), would be
    safe once taken back onto the tableau (with the card above it), where it would lie on top of
    a pile and fit its foundation: the safe moves would send it straight home. One deck: its
    safety does not depend on its own foundation (Blake & Gent, Corollary 2); two decks: it
    does (safe_two_decks' (own)), so it is judged on the foundations without it. Two decks, why
    not taking it back loses nothing: a winning line that starts by taking back c, safe then,
    rewrites (safe_two_decks, from the position after) into a line of this position, lighter by
    that move; so a lightest winning line (weight: moves not to a foundation) never starts so,
    and the safe moves keep it no heavier (induction on the weight, then on cards out)."""
    cdef uint8_t lower[8]
    if one_deck(cfg):
        return safe_at(cfg, home, c)
    memcpy(lower, home, 8)
    lower[slot] -= depth
    keep_higher_first(cfg, lower, slot)
    return safe_at(cfg, lower, c)

cdef bint could_come_back(const Config* cfg, const State* s, int slot) noexcept nogil:
    """Whether foundation slot's next-to-top card (see card_under) could come back onto the
    tableau by the next move once the card above it has: not safe then, and some pile's top
    card or an empty column takes it."""
    cdef int a
    cdef uint8_t c = card_under(cfg, s.home, slot)
    if c >= MAX_CARD or safe_once_back(cfg, s.home, slot, c, 2):
        return False
    for a in range(cfg.piles):
        if s.length[a] == 0:
            if may_fill_empty(cfg, c):
                return True
        elif can_stack(c, s.card[a][s.length[a] - 1]):
            return True
    return False

cdef bint copy_could_go_home(const Config* cfg, const State* s, uint8_t c) noexcept nogil:
    """Two decks: whether a copy of card c could go home by the next move: a pile's top card,
    or a talon card the next move reaches (talon_reach; taking a card back leaves the talon as
    it is)."""
    cdef int pos[MAX_TALON]
    cdef int pflags[MAX_TALON]
    cdef int p, j, npos
    for p in range(cfg.piles):
        if s.length[p] > 0 and s.card[p][s.length[p] - 1] == c:
            return True
    npos = talon_reach(cfg, s, pos, pflags, True)
    for j in range(npos):
        if cfg.stock_card[s.talon[pos[j]]] == c:
            return True
    return False

cdef int gen_talon(const Config* cfg, const State* s, const uint16_t* accept, Move* moves, int n,
                   int empty, uint32_t builds, bint shared) noexcept nogil:
    """Every reachable talon card to its foundation, then every one onto the tableau, as one
    move each.

    With draw 1 and unlimited passes the talon is a reserve: taking a card out changes nothing
    else about it, so a card played onto the tableau matters only once it is used. Its first use
    is a card built on it; a move of the card itself rewrites into playing it from the talon
    straight to where it goes. Every move in between touches neither it nor the card it covers,
    so can be made first: some winning line, if any, builds on it at once. There, a talon card
    goes to the tableau only when something could be built on it next (could_build_on), and
    the search then makes only such builds (see builds_next, with the safe moves). (Two decks
    alike for the first: whether its copy is in the talon or not changes nothing about the
    reserve.)"""
    cdef int pos[MAX_TALON]
    cdef int pflags[MAX_TALON]
    cdef int npos = talon_reach(cfg, s, pos, pflags, shared), j
    cdef uint32_t to
    cdef uint8_t x
    for j in range(npos):
        x = cfg.stock_card[s.talon[pos[j]]]
        if goes_home(cfg, s, x):
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

cdef void sort_reveals(const State* s, RunMoves* runs) noexcept nogil:
    """Order the run moves that flip a card by the hidden cards of their source pile, most
    first (a stable insertion sort: there are a few)."""
    cdef int i, j
    cdef Move m
    for i in range(1, runs.n_reveals):
        m = runs.reveals[i]
        j = i - 1
        while j >= 0 and s.down[runs.reveals[j].src] < s.down[m.src]:
            runs.reveals[j + 1] = runs.reveals[j]
            j -= 1
        runs.reveals[j + 1] = m

cdef inline int add_runs(Move* moves, int n, const RunMoves* runs) noexcept nogil:
    """Append to the ``n`` moves the run moves that flip a card, then the partial runs."""
    memcpy(&moves[n], runs.reveals, runs.n_reveals * sizeof(Move))
    n += runs.n_reveals
    memcpy(&moves[n], runs.partial, runs.n_partial * sizeof(Move))
    return n + runs.n_partial

cdef int gen_moves(const Config* cfg, const State* s, Move* moves, bint shared) noexcept nogil:
    """All macro moves worth trying, most promising first: cards home (from the piles, then from
    the talon), talon cards onto the tableau, run moves that flip a card, partial runs, runs that
    empty a column, foundation cards back. Without ``shared``, not the talon's moves to positions
    that every cursor reaches (see covered_by_twin).

    The order decides only how soon a win is found (a loss is searched whole whatever it is).
    Against the earlier order (run moves that flip a card, cards home, the talon's moves; after
    Bjarnason et al. §4.4) it found the draw-3 wins of seeds 10,001..14,000 in 46 % fewer
    positions, and the wins among 54 survey seeds drawn with chances in proportion to their
    solve time in 5 times fewer (every talon card home before any onto the tableau: with each
    position's two moves side by side, 2.5 times fewer). In a game of draw 1 and unlimited passes
    (not the relaxation of another: there the wins, which decide nothing, came later) the run
    moves that flip a card and partial runs come before the talon's moves, as with two decks:
    seeds 1..1000 at draw 1 took 10.4 million positions against 11.7 million. The run moves
    that flip a card go from the pile with the most hidden cards first (sort_reveals): the wins
    of seeds 1..1000 took 11 % fewer positions at both draws, those of every 80th of the slowest
    tenth of seeds 1..100,000 of the draw-3 survey 35 % fewer."""
    cdef int n = 0, p, su
    cdef int empty = first_empty(cfg, s)
    cdef bint runs_first = not one_deck(cfg) or (cfg.draw1_reserve and not cfg.relaxation)
    cdef uint32_t to
    cdef uint8_t c
    cdef Accepting accept
    cdef bint have_builds = cfg.draw1_reserve   # builders(), worked out when first needed
    cdef uint32_t builds = 0
    cdef RunMoves runs
    accepting(cfg, s, accept)
    gen_runs(cfg, s, accept, &runs, empty)
    sort_reveals(s, &runs)
    if have_builds:
        builds = builders(cfg, s, runs.heads)
    for p in range(cfg.piles):
        if s.length[p] > 0:
            c = s.card[p][s.length[p] - 1]
            if goes_home(cfg, s, c):
                n = add(moves, n, MV_TABLEAU_FOUNDATION, p, 0, 0, 0, c)
    if runs_first:
        n = add_runs(moves, n, &runs)
    n = gen_talon(cfg, s, accept, moves, n, empty, builds, shared)
    if not runs_first:
        n = add_runs(moves, n, &runs)
    memcpy(&moves[n], runs.empties, runs.n_empties * sizeof(Move))
    n += runs.n_empties
    if cfg.worry_back:
        for su in range(cfg.home_slots):
            c = foundation_top(cfg, s.home, su)
            if c == NO_CARD:
                continue
            if su >= 4 and s.home[su] == s.home[su - 4]:
                continue        # 8 foundations: the same card as the suit's higher pile's
            # A card that would be safe at once would go straight back home: the two moves cancel
            # (Blake & Gent, Corollary 2; see safe_once_back).
            # A card taken back matters only once used: by a card built on it, by taking back
            # the card under it on the foundation too, or (two decks) by a copy of it going onto
            # that foundation (a move of the card itself rewrites into taking it straight where
            # it goes). Moves in between touch neither it, nor the pile it covers, nor its
            # foundation (only it or its copy fits there), so can be made first: some winning
            # line, if any, uses it at once, and it comes back only when a use could follow.
            if safe_once_back(cfg, s.home, su, c, 1):
                continue
            if not have_builds:
                builds = builders(cfg, s, runs.heads)
                have_builds = True
            if (not could_build_on(builds, c)
                    and not could_come_back(cfg, s, su)
                    and (one_deck(cfg) or not copy_could_go_home(cfg, s, c))):
                continue
            to = targets(cfg, accept, c, empty)
            while to:
                n = add(moves, n, MV_FOUNDATION_TABLEAU, su, ctz64(to), 0, 0, c)
                to &= to - 1
    return n
