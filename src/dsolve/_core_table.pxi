# The native core: the transposition table.
# Included by _core.pyx (one compilation unit, so the hot loop inlines across files).

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
    size_t planned      # the size it grows to at once, doubling from START_SLOTS (see table_init)
    bint full

cdef enum:
    MIN_SLOTS = 4096    # the smallest table, whatever the bound
    PLANNED_SLOTS = 1 << 16  # a table's first size, unless its bound is smaller
    START_SLOTS = 4096  # the size it starts at on its way there

cdef enum:
    HUGE_PAGE = 2 << 20  # bytes of an x86-64 / arm64 huge page

cdef inline size_t mapped_bytes(size_t slots) noexcept nogil:
    """The bytes mapped for a table of ``slots`` slots: whole huge pages."""
    return (slots * sizeof(Slot) + HUGE_PAGE - 1) // HUGE_PAGE * HUGE_PAGE

# Small tables (of PLANNED_SLOTS at most, one huge page mapped) kept between searches, all zero, a
# few per thread: a short search (a player's, of hundreds to thousands of positions) otherwise
# spends a good share of its time mapping its table, faulting in each page it first touches and
# unmapping it again. At most SPARE_TABLES such tables a thread stay mapped (what of them was ever
# touched stays resident, at most 1 MB each, and a thread's are not given back when it ends); they
# belong to no search, and no search's memory bound counts them.
cdef extern from *:
    """
    #define DSOLVE_SPARE_TABLES 4
    static __thread void* dsolve_spare[DSOLVE_SPARE_TABLES];
    static __thread int dsolve_spares;
    """
    enum: SPARE_TABLES "DSOLVE_SPARE_TABLES"
    void* spare_table "dsolve_spare" [SPARE_TABLES]
    int spare_tables "dsolve_spares"

# Larger tables (up to POOL_TABLE_BYTES each, POOL_BYTES in all) kept between searches by the
# process, mapped as they were, for the next table of the same size: a survey solves deal after deal
# in one process, and every search grows its tables through the same sizes. A page first touched
# costs the kernel its zeroing (about a second a gigabyte on these machines: a twelfth of the time
# of a search of a few million positions), clearing it again with memset a fiftieth of that. They
# belong to no search, and no search's memory bound counts them; a table larger than
# POOL_TABLE_BYTES empties the pool, so a search that outgrows the pooled sizes holds nothing more
# than its tables. Shared by the threads, under a lock.
cdef extern from *:
    """
    #include <pthread.h>
    #define DSOLVE_POOL_TABLES 16
    static pthread_mutex_t dsolve_pool_lock = PTHREAD_MUTEX_INITIALIZER;
    static void* dsolve_pool[DSOLVE_POOL_TABLES];
    static size_t dsolve_pool_size[DSOLVE_POOL_TABLES];
    static int dsolve_pooled;
    static size_t dsolve_pool_bytes;
    """
    enum: POOL_TABLES "DSOLVE_POOL_TABLES"
    ctypedef struct pthread_mutex_t:
        pass
    pthread_mutex_t pool_lock "dsolve_pool_lock"
    int pthread_mutex_lock(pthread_mutex_t*) nogil
    int pthread_mutex_unlock(pthread_mutex_t*) nogil
    void* pool_table "dsolve_pool" [POOL_TABLES]
    size_t pool_size "dsolve_pool_size" [POOL_TABLES]
    int pooled "dsolve_pooled"
    size_t pool_bytes "dsolve_pool_bytes"

cdef enum:
    POOL_TABLE_BYTES = 64 << 20
    POOL_BYTES = 256 << 20

cdef inline bint poolable(size_t size) noexcept nogil:
    return HUGE_PAGE < size <= POOL_TABLE_BYTES

cdef void* pool_take(size_t size) noexcept nogil:
    """A pooled mapping of ``size`` bytes, not zeroed, or NULL (a size beyond the pool's empties
    it)."""
    global pooled, pool_bytes
    cdef void* found = NULL
    cdef int k
    pthread_mutex_lock(&pool_lock)
    if size > POOL_TABLE_BYTES:
        for k in range(pooled):
            munmap(pool_table[k], pool_size[k])
        pooled = 0
        pool_bytes = 0
    for k in range(pooled):
        if pool_size[k] == size:
            found = pool_table[k]
            pooled -= 1
            pool_table[k] = pool_table[pooled]
            pool_size[k] = pool_size[pooled]
            pool_bytes -= size
            break
    pthread_mutex_unlock(&pool_lock)
    return found

cdef bint pool_put(void* mapping, size_t size) noexcept nogil:
    """Keep a mapping of ``size`` bytes in the pool if there is room."""
    global pooled, pool_bytes
    cdef bint kept = False
    pthread_mutex_lock(&pool_lock)
    if pooled < POOL_TABLES and pool_bytes + size <= POOL_BYTES:
        pool_table[pooled] = mapping
        pool_size[pooled] = size
        pooled += 1
        pool_bytes += size
        kept = True
    pthread_mutex_unlock(&pool_lock)
    return kept

cdef Slot* slots_alloc(size_t slots) noexcept nogil:
    """``slots`` zeroed slots, mapped on their own on a huge-page boundary and, when more than
    one huge page, advised onto huge pages: with 4 kB pages nearly every probe of a big table
    also misses the TLB (a page walk of its own), which made up about a fifth of the search's
    time. A table of one huge page or less stays on 4 kB pages: the first touch of a huge page
    zeroes all 2 MB of it, which cost a short search (a player's, of a few hundred positions)
    more than its positions. A table of PLANNED_SLOTS or fewer is a spare one when there is one
    (see spare_table), a larger one a pooled one of its size when there is one (see pool_table).
    NULL when out of memory."""
    global spare_tables
    cdef size_t size = mapped_bytes(slots), head
    cdef void* reused
    if slots <= PLANNED_SLOTS and spare_tables > 0:
        spare_tables -= 1
        return <Slot*>spare_table[spare_tables]
    if slots > PLANNED_SLOTS:
        reused = pool_take(size)
        if reused != NULL:
            memset(reused, 0, size)
            return <Slot*>reused
    cdef char* raw = <char*>mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    if <void*>raw == MAP_FAILED:
        return NULL
    head = (HUGE_PAGE - <size_t>raw % HUGE_PAGE) % HUGE_PAGE
    if head:
        munmap(raw, head)
    munmap(raw + head + size, HUGE_PAGE - head)
    if size > HUGE_PAGE:   # advice only: without huge pages it still works
        madvise(raw + head, size, MADV_HUGEPAGE)
    return <Slot*>(raw + head)

cdef void slots_free(Slot* slot, size_t slots, size_t used) noexcept nogil:
    """Free a table of ``slots`` slots whose first ``used`` may be non-zero: one of PLANNED_SLOTS
    or fewer becomes a spare (zeroed again) while there is room for one, a larger one of the
    pool's sizes goes to the pool while there is room (zeroed when taken again)."""
    global spare_tables
    cdef size_t size = mapped_bytes(slots)
    if slot == NULL:
        return
    if slots <= PLANNED_SLOTS and spare_tables < SPARE_TABLES:
        memset(slot, 0, used * sizeof(Slot))
        spare_table[spare_tables] = slot
        spare_tables += 1
        return
    if poolable(size) and pool_put(slot, size):
        return
    munmap(slot, size)

cdef bint table_init(Table* t, size_t max_bytes) noexcept nogil:
    t.max_slots = max_bytes // sizeof(Slot)
    if t.max_slots < MIN_SLOTS:
        t.max_slots = MIN_SLOTS
    t.planned = PLANNED_SLOTS if t.max_slots > PLANNED_SLOTS else t.max_slots
    t.cap = START_SLOTS if t.planned > START_SLOTS else t.planned
    t.count = 0
    t.full = False
    t.slot = slots_alloc(t.cap)
    return t.slot != NULL

cdef void table_clear(Table* t) noexcept nogil:
    """Empty the table. One that holds nothing is all zero already (a slot is written only by a
    put, which counts it; nothing is ever taken out): it is left untouched, so a search that
    stores little touches few of its pages (a new table's pages are mapped at first touch)."""
    if t.count != 0:
        memset(t.slot, 0, t.cap * sizeof(Slot))
    t.count = 0
    t.full = False

cdef void table_free(Table* t) noexcept nogil:
    slots_free(t.slot, t.cap, t.cap if t.count != 0 else 0)

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
                             uint64_t kb, size_t* end, bint* twin) noexcept nogil:
    """Whether the table holds this position with a cursor that dominates its own; if not,
    ``end`` is the empty slot where the probe stopped (where the position would go), and
    ``twin`` whether the table holds the position with another cursor (see covered_by_twin: the
    probe passes every such entry, as they share lane a)."""
    cdef size_t i = table_home(t, ka)
    cdef uint64_t rest = kb & ~(<uint64_t>CURSOR_MASK)
    twin[0] = False
    while t.slot[i].a != 0:
        if t.slot[i].a == ka and (t.slot[i].b & ~(<uint64_t>CURSOR_MASK)) == rest:
            if dominates(cfg, talon_len, t.slot[i].b & CURSOR_MASK, kb & CURSOR_MASK):
                return True
            twin[0] = True
        i += 1
        if i == t.cap:
            i = 0
    end[0] = i
    return False

cdef inline bint table_has(const Table* t, const Config* cfg, int talon_len, uint64_t ka,
                           uint64_t kb) noexcept nogil:
    cdef size_t end
    cdef bint twin
    return table_probe(t, cfg, talon_len, ka, kb, &end, &twin)

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
    """The capacity to grow to, 0 for none: double up to the planned first size (a search that
    stores a few thousand positions, such as a player's, touches a small table only: its pages
    are mapped and zeroed as they are first touched, which a short search pays more for than
    for the search itself); from there double while a table twice that size would still fit the
    bound, then take the whole bound at once (unless that is less than 5/4 of the table). The
    sizes from the planned one on, and so when the table is full, are those of a table that
    started at the planned size."""
    if t.cap < t.planned:
        return 2 * t.cap if 2 * t.cap < t.planned else t.planned
    if 4 * t.cap <= t.max_slots:
        return 2 * t.cap
    if t.max_slots * 4 >= t.cap * 5:
        return t.max_slots
    return 0

cdef bint table_grow(Table* t) noexcept nogil:
    """Rehash into a table of grown_cap slots, unmapping the old table a huge page at a time as the
    rehash passes it (one of a single huge page, or of the pool's sizes, is freed whole after it,
    see slots_free: the bound then holds but for a pooled table beside it). A key's
    home scales with the capacity, so the keys of old slot i land near slot i * new_cap / old_cap
    of the new table: the new table's pages are touched in about the order the old one's are
    freed, and the memory held stays near the new table's size (a huge page or two more for
    clusters that wrap around the end). So the bound is the table's own size, not the old and the
    grown table together."""
    cdef Slot* old = t.slot
    cdef size_t old_cap = t.cap, new_cap = grown_cap(t), i, freed = 0
    cdef size_t per_page = HUGE_PAGE // sizeof(Slot), rest
    cdef bint small = mapped_bytes(old_cap) == HUGE_PAGE or poolable(mapped_bytes(old_cap))
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
        if not small and i + 1 - freed == per_page:
            munmap(old + freed, HUGE_PAGE)
            freed = i + 1
    if small:                           # may become a spare or pooled (see slots_free)
        slots_free(old, old_cap, old_cap)
        return True
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
                                  uint64_t kb, bint* twin) noexcept nogil:
    """table_has, and when the position is not held, table_add in the same probe: 1 held,
    0 added, -1 neither (the table is full); ``twin`` as for table_probe."""
    cdef size_t i
    make_room(t)
    if table_probe(t, cfg, talon_len, ka, kb, &i, twin):
        return 1
    if t.full:
        return -1
    t.slot[i].a = ka
    t.slot[i].b = kb
    t.count += 1
    return 0
