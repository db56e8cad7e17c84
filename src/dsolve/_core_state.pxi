# The native core: cards, applying moves, safe moves to the foundation.
# Included by _core.pyx (one compilation unit, so the hot loop inlines across files).
#
# One deck or two: the search is the same. What differs sits behind the inline functions of the
# foundations below (home_slot, goes_home, send_home, foundation_top, take_home, safe_at), the
# key of a pile (pile_key) and the foundations' share of the key (key_of), switched by the Config.
# Two copies of each card break the arguments of some reductions; with two decks these are off
# (one_deck(cfg) false): twin classes (their card sets assume one copy), the twin-blocking test,
# safe moves from the draw-1 reserve and the quick keys (quick_key works on the one-deck key).
# Re-argued for two copies: Blake & Gent's safe-move rule (safe_two_decks), the
# dead-end test (dead_end), the filters on worrying back (gen_moves: a copy going home is one
# more use) and on the draw-1 reserve's moves to the tableau (gen_talon), and Theorem 4's
# partial-run pruning (gen_runs). Deck-independent, so kept: K+ talon moves and the cursor
# normalisation (they are about the talon's order, not what the cards are), one empty column as
# a target and no whole-pile move into one (relabelling the columns), the relaxation (every real
# move is one of it whatever the cards), and the table with its cursor dominance.

# ---------------------------------------------------------------------------------------------
# Cards

cdef inline int rank_of(uint8_t c) noexcept nogil:
    return c >> 2

cdef inline int suit_of(uint8_t c) noexcept nogil:
    return c & 3

cdef inline bint can_stack(uint8_t c, uint8_t onto) noexcept nogil:
    """Whether card c may be built on card onto: one rank lower, opposite colour."""
    return (onto >> 2) == (c >> 2) + 1 and ((onto ^ c) & 1)

cdef enum:
    NO_CARD = 255

cdef inline int home_slot(const Config* cfg, const uint8_t* home, uint8_t c) noexcept nogil:
    """The foundation slot card c goes onto now, -1 if none. One deck: its suit's, when its rank
    is next. Two decks, 4 foundations: its suit's, whose height counts both rounds (A..K, then
    A..K again: past the first king the rank next is the height less the ranks; a complete
    foundation, 2 * ranks, takes nothing). 8 foundations: the suit's higher pile (slot s) if it
    takes c, else its lower one (slot s + 4); the two piles of a suit are interchangeable, and
    filling the higher first keeps slot s at least slot s + 4: one state for both orders."""
    cdef int su = c & 3, r = c >> 2, h = home[c & 3]
    if one_deck(cfg):
        return su if h == r else -1
    if cfg.two_rounds:
        if h >= cfg.ranks:
            h -= cfg.ranks
        return su if h == r else -1
    if h == r:
        return su
    return su + 4 if home[su + 4] == r else -1

cdef inline bint goes_home(const Config* cfg, const State* s, uint8_t c) noexcept nogil:
    if one_deck(cfg):
        return s.home[c & 3] == (c >> 2)
    return home_slot(cfg, s.home, c) >= 0

cdef inline uint8_t foundation_top(const Config* cfg, const uint8_t* home, int slot) noexcept nogil:
    """The top card of a foundation slot (see home_slot), NO_CARD when it is empty."""
    cdef int h = home[slot]
    if h == 0:
        return NO_CARD
    if cfg.two_rounds and h > cfg.ranks:
        h -= cfg.ranks
    return <uint8_t>((h - 1) * 4 + (slot & 3))

cdef inline void keep_higher_first(const Config* cfg, uint8_t* home, int slot) noexcept nogil:
    """After slot's pile lost cards: with 8 foundations, keep a suit's higher pile of two in
    slot s (see home_slot)."""
    cdef uint8_t h
    if cfg.home_slots == 8 and slot < 4 and home[slot] < home[slot + 4]:
        h = home[slot]
        home[slot] = home[slot + 4]
        home[slot + 4] = h

cdef inline void take_home(const Config* cfg, State* s, int slot) noexcept nogil:
    """Take a foundation slot's top card off (worrying back), keeping a suit's higher pile of
    two in slot s (keep_higher_first)."""
    s.home[slot] -= 1
    s.total_home -= 1
    keep_higher_first(cfg, s.home, slot)

cdef inline int height(const Config* cfg, const uint8_t* home, int suit) noexcept nogil:
    """Foundation height; a suit absent from a small deck counts as complete."""
    return home[suit] if suit < cfg.suits else cfg.ranks

cdef inline bint is_safe(const Config* cfg, const State* s, uint8_t c) noexcept nogil:
    return safe_at(cfg, s.home, c)

cdef inline bint safe_at(const Config* cfg, const uint8_t* home, uint8_t c) noexcept nogil:
    """Whether sending c home (it must fit its foundation) can never turn a win into a loss.
    (One deck; two decks: safe_two_decks.)

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
    cdef int h1
    if not one_deck(cfg):
        return safe_two_decks(cfg, home, c)
    h1 = height(cfg, home, opp)
    cdef int h2 = height(cfg, home, opp + 2)
    cdef int low = h1 if h1 < h2 else h2
    if not cfg.worry_back:
        return r1 <= low + 1
    return r1 <= low + 2 and r1 <= height(cfg, home, suit_of(c) ^ 2) + 3


cdef inline int both_home(const Config* cfg, const uint8_t* home, int su) noexcept nogil:
    """Two decks: how many ranks of suit su have both copies home (8 foundations: the suit's
    lower pile; 4: the second round's height, -1 while the first round runs, as then no second
    copy, not even the ace, may go home before the king). A suit absent from a small deck counts
    as complete."""
    if su >= cfg.suits:
        return cfg.ranks
    if cfg.two_rounds:
        return home[su] - cfg.ranks if home[su] >= cfg.ranks else -1
    return home[su + 4]


cdef inline bint safe_rule_unproved(const Config* cfg) noexcept nogil:
    """Whether the two-deck safe-move rule is unproved (unsound with king spaces) under cfg's
    rules: 4 foundations, worrying back and spaces (see safe_two_decks, (S))."""
    return cfg.worry_back and cfg.two_rounds and cfg.empty_rule != EMPTY_NONE


cdef bint safe_two_decks(const Config* cfg, const uint8_t* home, uint8_t c) noexcept nogil:
    """Two decks: whether sending c (rank r, 0-based; a pile's top card that fits its
    foundation) home can never turn a win into a loss. With b each suit's ranks of which both
    copies are home (both_home): (own) b >= r for c's suit; with worrying back b >= r - 1 for
    both opposite-colour suits and b >= r - 2 for the other suit of c's colour, and with 4
    foundations only when no column takes a king; without, b >= r for the opposite colour.

    Blake & Gent's Theorem 1, proved again for two copies. Weigh a line by its moves that are not
    to a foundation; from any winning line L of position P we build one of P with c home, no
    heavier (so a lightest line never takes back a card that would be safe: see safe_once_back).
    (S) With worrying back (without, nothing comes back: skip this) let S be both copies of: c's
    suit below r, the opposite colour below r - 1, the other suit of c's colour below r - 2 (home
    by the rule). A card that fits on an S card is in S, so S cards taken back form the tops of
    piles: L without its moves of S cards is a line (the non-S part of a run moves alone), and a
    foundation holding L's cards and S's takes and gives back the other cards L's does, as S's
    lie at its bottom. They do with 8 foundations (both copies of a pile pair's lowest ranks),
    and with 4 while the first round stays home. But with 4, L may dig a suit into its first
    round (its second round back on the tableau, then its first king into a space) for a
    first-round card: positions won only so are lost with c home (test_double), so with 4
    foundations and worrying back no column may take a king. (A search whose losses prove nothing
    may still take the rule there, cfg.trust_unproved: see schedule.)
    (D) Play c home, then L without S moves, keeping: our position is L's with D home, D the run
    from c up in a pile of L's (c, then the opposite colour's r - 1, then c's colour's r - 2 of
    the other suit: the r - 2 of c's suit and every r - 3 are in S). By L's move: a card z onto
    D's top (from a pile, the talon or a foundation) goes home instead (it fits: the ranks below
    z of its suit are in S, and z's copy, if home, took the pile pair's other place or the first
    round; a run of z and one card on it: both), D gains z; D's top home: it is; a part of D
    above c moves: take it back from the foundations onto the same target (worrying back only:
    without, no opposite-colour r - 1 is ever out, so D is c alone), a move a card, the second
    paid for by the dropped move that put the first on D; all of D moves: it stays home; a card
    home onto a suit holding a D card d: it fits ours too, as both copies of the ranks below d
    are home (own, S): d's copy takes the pair's other pile, a higher card the one it takes in L
    (4 foundations: it is d, whose copy is in the first round); a foundation card taken back: the
    same card, as no S card is, and under a D card lies an S card, nothing, or (4 foundations, c
    an ace) the first round's king, which stays home with no column for it; any other move: the
    same. Once L has won, so have we. From the tableau only: from the talon a safe move would
    change which cards the stock turns up. (test_double: positions the rule read with the
    higher pile or the round's height, or with a margin one wider, loses.)"""
    cdef int r = rank_of(c), su = suit_of(c), opp = (c & 1) ^ 1
    if cfg.greedy_home:
        return True                        # a greedy search, which only looks for wins (schedule)
    if both_home(cfg, home, su) < r:
        return False
    if safe_rule_unproved(cfg) and not cfg.trust_unproved:
        return False                       # (S): a suit may be dug into its first round
    if r == 0:
        return True                        # nothing is built on an ace
    if not cfg.worry_back:
        return both_home(cfg, home, opp) >= r and both_home(cfg, home, opp + 2) >= r
    return (both_home(cfg, home, opp) >= r - 1 and both_home(cfg, home, opp + 2) >= r - 1
            and both_home(cfg, home, su ^ 2) >= r - 2)


# ---------------------------------------------------------------------------------------------
# Applying moves

cdef inline void flip(const Config* cfg, State* s, int p) noexcept nogil:
    """Uncover pile p's top hidden cards when nothing is left on them: a face-down card turns
    face up; a locked run (face up but below the top run, see hidden_region) becomes the top run."""
    if s.length[p] == s.down[p] and s.down[p] > 0:
        s.down[p] -= cfg.reveal[p][s.down[p]]

cdef inline void send_home(const Config* cfg, State* s, uint8_t c) noexcept nogil:
    if one_deck(cfg):
        s.home[c & 3] += 1
    else:
        s.home[home_slot(cfg, s.home, c)] += 1
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
        send_home(cfg, s, s.card[m.src][s.length[m.src]])
        flip(cfg, s, m.src)
    elif m.kind == MV_TABLEAU_TABLEAU:
        lift(s, m.src, m.idx, m.dst)
        if m.flags & FLAG_THEN_HOME:
            s.length[m.src] -= 1
            send_home(cfg, s, s.card[m.src][s.length[m.src]])
        flip(cfg, s, m.src)
    elif m.kind == MV_TALON_FOUNDATION or m.kind == MV_TALON_TABLEAU:
        if (m.flags & FLAG_REDEAL) and not cfg.unlimited:
            s.redeals_left -= 1
        c = take_talon(cfg, s, m.idx)
        if m.kind == MV_TALON_FOUNDATION:
            send_home(cfg, s, c)
        else:
            push(s, m.dst, c)
    else:  # MV_FOUNDATION_TABLEAU
        take_home(cfg, s, m.src)
        push(s, m.dst, m.card)

cdef inline bint goes_safely(const Config* cfg, const State* s, uint8_t c) noexcept nogil:
    return goes_home(cfg, s, c) and is_safe(cfg, s, c)

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

cdef inline bint last_card_rule(const Config* cfg) noexcept nogil:
    """Whether a safe move may take the talon's last card (see apply_safe_moves): one deck,
    unlimited passes, a draw above 1 (at draw 1 any talon card may)."""
    return one_deck(cfg) and cfg.unlimited and not cfg.draw1_reserve

cdef inline int last_talon_card(const Config* cfg, const State* s) noexcept nogil:
    """The talon's last card when a safe move may take it (last_card_rule, the cursor normalised:
    see normalise_cursor), else -1."""
    if not last_card_rule(cfg) or s.waste_len != 0 or s.talon_len == 0:
        return -1
    return cfg.stock_card[s.talon[s.talon_len - 1]]

cdef int safe_moves_after(const Config* cfg, State* s, Move m, uint8_t* record) noexcept nogil:
    """apply_safe_moves after move m from a position that had none left. A move that raises no
    foundation makes no card newly safe, and the only new top cards are those of its piles: when
    none of them (nor its twin, see safe_home) goes home safely there is nothing to do. (Nor does
    such a move make a child lone: its twin leaves a card only for the foundation.) Not with two
    decks: there taking a card back can make a copy elsewhere safe (safe_two_decks, (own))."""
    if not one_deck(cfg):
        return apply_safe_moves(cfg, s, record)
    if m.kind == MV_TABLEAU_TABLEAU and not (m.flags & FLAG_THEN_HOME):
        if not top_goes_safely(cfg, s, m.src) and not top_goes_safely(cfg, s, m.dst):
            return 0
    elif m.kind == MV_TALON_TABLEAU:
        if not top_goes_safely(cfg, s, m.dst) and not last_goes_safely(cfg, s):
            return 0
    elif m.kind == MV_FOUNDATION_TABLEAU:
        if not top_goes_safely(cfg, s, m.dst):
            return 0
    return apply_safe_moves(cfg, s, record)

cdef inline bint last_goes_safely(const Config* cfg, const State* s) noexcept nogil:
    """Whether a safe move takes the talon's last card home (see apply_safe_moves)."""
    cdef int c = last_talon_card(cfg, s)
    return c >= 0 and goes_safely(cfg, s, <uint8_t>c)

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
    send_home(cfg, s, c)
    flip(cfg, s, p)
    record[n] = c
    return n + 1

cdef int apply_safe_moves(const Config* cfg, State* s, uint8_t* record) noexcept nogil:
    """Send every safe card home (see is_safe and safe_home) until none is left; record the
    cards moved (a lone child's move onto its other parent as the card | TRANSFER).

    From the talon under draw 1 with unlimited redeals, where the talon is a reserve whose every
    card is reachable at any time, so a talon card is as free as a pile's top card. At a larger
    draw with unlimited redeals, the talon's last card when the cursor is normalised: it too is
    reachable at any time (the stock always turns to its end), and nothing is built on it in the
    talon, so it is as free as a reserve's card; taking it changes no other talon card's position,
    and leaves the cursor normalised (at the end), so every talon card reachable before is still
    reachable, and the talon's new last card with them. Every later talon move of a winning line
    then takes the same card at the same position from the same talon, less that card at its end,
    so reaches at least as much (a cursor that is not normalised reaches all a normalised one
    does, see dominates): the line is rewritten as for a top card (safe_at), the card coming back
    from the foundation where the line would have taken it from the talon. Not with a cursor that
    is not normalised: turning to the end would lose what it reaches in this pass."""
    cdef int n = 0, m, p, j, k, su
    cdef bint changed = True
    cdef uint8_t c, idx
    while changed:
        changed = False
        for p in range(cfg.piles):
            if s.length[p] > 0 and goes_safely(cfg, s, s.card[p][s.length[p] - 1]):
                n = safe_home(cfg, s, p, s.length[p] - 1, record, n)
                changed = True
        if cfg.draw1_reserve and one_deck(cfg):    # not with two copies: see safe_two_decks
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
                send_home(cfg, s, c)
                record[n] = c
                n += 1
                changed = True
        if last_goes_safely(cfg, s):
            c = take_talon(cfg, s, s.talon_len - 1)
            send_home(cfg, s, c)
            record[n] = c
            n += 1
            changed = True
        if not changed and cfg.twin_classes:
            refresh_pile_keys(cfg, s)           # for the set of face-up cards
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
