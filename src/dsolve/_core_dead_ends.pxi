# The native core: dead ends, positions proved lost without search.
# Included by _core.pyx (one compilation unit, so the hot loop inlines across files).

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
    dead ends come from parents sent home for good); the waste grows, so G with it.

    Two decks: a route needs one of a card's two copies (a parent; each lower card of its suit, as
    a foundation it goes onto holds one copy of each), so it may open while a copy is home (for a
    parent: and worrying back allowed), in the talon, or where the rule above lets it act; a card
    stays in G only when neither copy can. The first card of G to move still finds every card of
    G and all under them in place, so none of those copies has moved."""
    cdef signed char pile_of[2][MAX_CARD]     # [copy][card]: where the located copies lie
    cdef signed char pos_of[2][MAX_CARD]
    cdef uint8_t located[MAX_CARD]
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
    memset(located, 0, MAX_CARD)
    memset(pile_of, -1, 2 * MAX_CARD)        # twins_blocked reads -1 for a card not located
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
            d = cards[p][k]
            pile_of[located[d]][d] = <signed char>p
            pos_of[located[d]][d] = <signed char>k
            located[d] += 1
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
                    for q in range(0 if not one_deck(cfg) else s.home[su], r):
                        if not may_get_home(cfg, s, q * 4 + su, pile_of, pos_of, located,
                                            top_stuck, stuck):
                            movable = False
                            break
                if not movable and r + 1 < cfg.ranks:
                    for q in range(cfg.suits):
                        if (q & 1) != (su & 1) and may_take_child(cfg, s, (r + 1) * 4 + q,
                                                                  pile_of, pos_of, located,
                                                                  top_stuck, waste_pile):
                            movable = True
                            break
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
    return one_deck(cfg) and twins_blocked(cfg, s, pile_of[0], pos_of[0], why)

cdef inline int copies_home(const Config* cfg, const uint8_t* home, int x) noexcept nogil:
    """How many copies of card x are on the foundations."""
    cdef int r = rank_of(<uint8_t>x), su = suit_of(<uint8_t>x)
    if one_deck(cfg):
        return home[su] > r
    if cfg.two_rounds:
        return (home[su] > r) + (home[su] > cfg.ranks + r)
    return (home[su] > r) + (home[su + 4] > r)

cdef inline bint may_get_home(const Config* cfg, const State* s, int x, signed char[2][MAX_CARD] pile_of,
                              signed char[2][MAX_CARD] pos_of, const uint8_t* located,
                              const int* top_stuck, bint[MAX_PILES + 1][MAX_TALON] stuck) noexcept nogil:
    """dead_end: whether some copy of card x is home or might get there: in the talon, or on a
    pile neither in G nor under a card of G."""
    cdef int k, held = copies_home(cfg, s.home, x), p
    if held > 0 or held + located[x] < (1 if one_deck(cfg) else 2):
        return True
    for k in range(located[x]):
        p = pile_of[k][x]
        if not (pos_of[k][x] < top_stuck[p] or stuck[p][pos_of[k][x]]):
            return True
    return False

cdef inline bint may_take_child(const Config* cfg, const State* s, int x, signed char[2][MAX_CARD] pile_of,
                                signed char[2][MAX_CARD] pos_of, const uint8_t* located,
                                const int* top_stuck, int waste_pile) noexcept nogil:
    """dead_end: whether some copy of card x might take a child: home when worrying back is
    allowed, in the talon (or waste with redeals left), above every card of G in its pile or the
    waste, or the top card of G in a pile (it takes a child where it lies)."""
    cdef int k, held = copies_home(cfg, s.home, x), p, pos
    if held > 0 and cfg.worry_back:
        return True
    if held + located[x] < (1 if one_deck(cfg) else 2):
        return True
    for k in range(located[x]):
        p = pile_of[k][x]
        pos = pos_of[k][x]
        if pos > top_stuck[p] or (pos == top_stuck[p] and p != waste_pile):
            return True
    return False

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
