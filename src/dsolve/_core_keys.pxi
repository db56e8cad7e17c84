# The native core: the canonical key of a position (and twin classes).
# Included by _core.pyx (one compilation unit, so the hot loop inlines across files).

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
cdef uint64_t HOME_KEY_TWO_DECKS[2][8][27]        # [lane][slot][height] (see home_slot)

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
    for lane in range(2):                           # after the one-deck tables: those unchanged
        for p in range(8):
            for k in range(27):
                seed += <uint64_t>0x9e3779b97f4a7c15
                HOME_KEY_TWO_DECKS[lane][p][k] = mix64(seed)

fill_key_tables()

cdef uint64_t SUIT_CARDS = <uint64_t>0x1111111111111   # the cards of suit 0 (C); << s: suit s
cdef uint64_t HIGH_SUITS = <uint64_t>0xCCCCCCCCCCCCC   # the cards of suits 2 and 3 (S, D)

cdef inline uint64_t card_bit(int c) noexcept nogil:
    return (<uint64_t>1) << c

cdef inline uint64_t twins_of(uint64_t cards) noexcept nogil:
    """The set of the twins (same rank and colour, suit ^ 2) of a set of cards."""
    return (((cards >> 2) & <uint64_t>0x3333333333333333)
            | ((cards & <uint64_t>0x3333333333333333) << 2))

cdef void pile_key(const Config* cfg, const State* s, int p, PileKey* out) noexcept nogil:
    """Pile p's share of the key, and its sets of cards that state_key needs."""
    cdef int k, d = s.down[p], hi
    cdef uint8_t x
    out.a = out.b = out.upper = out.on_high_twin = out.face_up = 0
    if s.length[p] == 0:
        return
    if not one_deck(cfg):
        pile_key_two_decks(s, p, out)
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

cdef void pile_key_two_decks(const State* s, int p, PileKey* out) noexcept nogil:
    """Two decks: the pile's share as a hash of its whole sequence: its bottom card (or column
    and face-down count), then each face-up card with the suit bit of the card under it, mixed
    in order. With two copies of a card the sum of (card, parent) facts no longer tells which
    copy of a parent a card lies on (two piles ... 8H 7C and ... 8H 7S would key as their swap);
    a sequence does. The piles' card sets stay empty: twin classes are off with two decks."""
    cdef int k, d = s.down[p], lane
    cdef uint8_t x = s.card[p][d]
    cdef uint64_t h[2]
    for lane in range(2):
        h[lane] = HIDDEN_KEY[lane][p][d] if d > 0 else BASE_KEY[lane][x]
        for k in range(d + 1, s.length[p]):
            x = s.card[p][k]
            h[lane] = mix64(h[lane] + PAIR_KEY[lane][x][(s.card[p][k - 1] >> 1) & 1])
    out.a = h[0]
    out.b = h[1]

cdef inline void refresh_pile_keys(const Config* cfg, State* s) noexcept nogil:
    """Recompute the key shares of the piles changed since, and their sums (s.piles_key)."""
    cdef uint64_t stale = s.stale
    cdef PileKey* total = &s.piles_key
    cdef PileKey fresh
    cdef int p
    # Each card lies in one pile: the piles' card sets are disjoint, their union is their XOR.
    while stale:
        p = ctz64(stale)
        stale &= stale - 1
        pile_key(cfg, s, p, &fresh)
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
    refresh_pile_keys(cfg, s)
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
    if one_deck(cfg):
        for x in range(4):
            a += HOME_KEY[0][x][home[x]]
            b += HOME_KEY[1][x][home[x]]
    else:
        for x in range(cfg.home_slots):
            a += HOME_KEY_TWO_DECKS[0][x][home[x]]
            b += HOME_KEY_TWO_DECKS[1][x][home[x]]
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

cdef inline int last_after_take(const Config* cfg, const State* s, Move m,
                                uint64_t cursor) noexcept nogil:
    """last_talon_card once talon move m has taken its card, leaving the ``cursor``
    (take_key)."""
    cdef int last = s.talon_len - 1 if m.idx != s.talon_len - 1 else s.talon_len - 2
    if not last_card_rule(cfg) or (cursor & 0xFF) != 0 or last < 0:
        return -1
    return cfg.stock_card[s.talon[last]]

cdef bint none_go_safely(const Config* cfg, const State* s, const uint8_t* home, uint64_t mask,
                         uint64_t face_up, int a, int top, int last) noexcept nogil:
    """After a move to a foundation that leaves the foundations at ``home``, the talon ``mask``,
    its ``last`` card when a safe move may take it (see last_talon_card, -1: none), the piles as
    in s but pile a topped by ``top`` (-1: empty; a -1: no pile changed) and the face-up cards
    ``face_up``: whether apply_safe_moves would do nothing there. No top card goes home safely,
    nor a talon card (the draw-1 reserve's, the last), and under twin classes no face-up card
    that would go home next is safe (as apply_safe_moves's last step)."""
    cdef int p, z, su, idx
    if last >= 0 and home[last & 3] == (last >> 2) and safe_at(cfg, home, <uint8_t>last):
        return False
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
    (is_safe). One deck only (False with two decks: their pile keys are sequences, and their safe
    moves follow any move, see safe_moves_after)."""
    cdef uint8_t x = m.card, t
    cdef int a = m.src, p = m.dst, d, left = s.talon_len, top, last
    cdef uint8_t home[8]
    cdef uint64_t mask = s.talon_mask, cursor = cursor_state(s)
    cdef PileKey total = s.piles_key
    cdef PileKey src, dst
    if not one_deck(cfg):
        return False
    memcpy(home, s.home, 8)
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
        if not none_go_safely(cfg, s, home, mask, total.face_up, a, top,
                              last_talon_card(cfg, s)):
            return False
    elif m.kind == MV_TALON_FOUNDATION:
        home[x & 3] += 1
        take_key(cfg, s, m, &mask, &cursor, &left)
        if not none_go_safely(cfg, s, home, mask, total.face_up, -1, -1,
                              last_after_take(cfg, s, m, cursor)):
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
            last = last_after_take(cfg, s, m, cursor)
            if last >= 0 and goes_safely(cfg, s, <uint8_t>last):
                return False
    else:
        return False
    key_of(cfg, &total, home, mask, cursor, ka, kb)
    talon_len[0] = <uint8_t>left
    return True
