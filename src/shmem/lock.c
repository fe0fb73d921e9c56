/* Distributed locks (OpenSHMEM 1.6 "Distributed Locking Routines"):
 * shmem_set_lock, shmem_test_lock, shmem_clear_lock; and the deprecated
 * cache management routines, which have nothing to do on coherent
 * memory.
 *
 * A ticket lock in one 64-bit word: the copy of the symmetric lock on its
 * home PE holds the next ticket in the high 32 bits and the ticket being
 * served in the low 32 bits; the lock is free when the two are equal (so
 * the all-zero initial value the specification requires is free).
 *   set:   t = fetch_add(word, 1 << 32); wait until low(word) == high(t)
 *   test:  if free, compare_swap(word, v, v + (1 << 32)) takes it
 *   clear: quiet, then add(word, 1) (the holder alone moves the low half;
 *          at 0xffffffff it adds 1 - 2^32 so that no carry reaches the
 *          ticket half)
 * FIFO fair, one remote atomic to take a free lock, one to release it.
 * The word is updated through the AMOs' u64 atomic domain (amo.c), so one
 * mechanism serves it from every PE. The home PE is spread over the PEs by
 * the lock's address, so that distinct locks do not all load one PE. */
#include "tshmem.h"

#define TICKET  (UINT64_C(1) << 32)
#define LOW(v)  ((uint32_t)(v))
#define HIGH(v) ((uint32_t)((v) >> 32))

/* Home PE and its address of the lock; checks the lock's address (the
 * specification requires a symmetric long, zero before first use). */
static inline uint64_t *lock_word(const long *lock, int *home, const char *call)
{
    if (TSHMEM_UNLIKELY(tshmem_g.npes == 0))
        tshmem_bad_pe(call, 0); /* says: before init or after finalize */
    uintptr_t a = (uintptr_t)lock, b = tshmem_g.heap_base;
    if (TSHMEM_UNLIKELY(!tshmem_is_sym(lock, sizeof(long))))
        tshmem_fatal("%s: the lock %p is not a symmetric address: it is outside %s of "
                     "this PE (locks are symmetric longs: global or static variables, "
                     "or made by shmem_malloc and the like)",
                     call, (const void *)lock, tshmem_sym_ranges());
    if (TSHMEM_UNLIKELY(a & 7))
        tshmem_fatal("%s: the lock %p is not 8-byte aligned", call, (const void *)lock);
    /* The offset in its region is the same on every PE: so is the home. */
    uintptr_t off = a - b < tshmem_g.heap_size ? a - b : a - tshmem_g.static_base;
    *home = (int)((off >> 3) % tshmem_g.npes);
    return tshmem_remote(*home, lock);
}

/* One blocking u64 op on the lock word of home. */
static inline uint64_t lock_op(int home, uint64_t *w, uint32_t op, uint64_t a1,
                               uint64_t a2, const char *call)
{
    tern_ad_t ad = tshmem_amo_domain(TERN_AT_U64);
    if (TSHMEM_UNLIKELY(!ad))
        tshmem_fatal("%s: no u64 atomic domain for the lock (its creation failed at "
                     "shmem_init; the cause is logged there)",
                     call);
    uint64_t v = 0;
    int rc = tern_ctx_ad_op_u64(tshmem_tctx(SHMEM_CTX_DEFAULT, call), ad, home, w, op, a1,
                                a2, &v, 0);
    if (TSHMEM_UNLIKELY(rc != TERN_OK))
        tshmem_fatal("%s: the atomic on the lock word at PE %d failed: %s", call, home,
                     tern_strerror(rc));
    return v;
}

void shmem_set_lock(long *lock)
{
    int home;
    uint64_t *w = lock_word(lock, &home, __func__);
    uint64_t t = lock_op(home, w, TERN_OP_FADD, TICKET, 0, __func__);
    uint32_t mine = HIGH(t);
    if (LOW(t) != mine) {
        /* Wait for our turn. Each check is an atomic fetch at the home PE
         * (a load on this node, a round trip over the network); the wait
         * step drives progress and yields after a while. */
        for (uint64_t it = 0; LOW(lock_op(home, w, TERN_OP_GET, 0, 0, __func__)) != mine;
             it++)
            tshmem_wait_step(it);
    }
    /* What the previous holder did before its clear is visible from here. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
}

int shmem_test_lock(long *lock)
{
    int home;
    uint64_t *w = lock_word(lock, &home, __func__);
    uint64_t v = lock_op(home, w, TERN_OP_GET, 0, 0, __func__);
    if (LOW(v) != HIGH(v) ||
        lock_op(home, w, TERN_OP_CSWAP, v, v + TICKET, __func__) != v) {
        /* Held, others queued, or another PE came first. A failed test
         * drives progress once, as shmem_test does: programs spin on
         * test_lock, and when the lock's home is this PE or a node peer the
         * test is a CPU atomic that polls nothing. Without this poll the
         * holder's release, an active message to this PE on the atomic
         * domain's am path (TERN_OFI_ATOMICS=am, a provider lacking an op
         * or emulating atomics in software), would never be served: the holder would wait for its
         * reply and this PE for the release (shmem.lock_am.*). */
        tern_poll();
        return 1;
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return 0;
}

void shmem_clear_lock(long *lock)
{
    int home;
    uint64_t *w = lock_word(lock, &home, __func__);
    /* The specification: the caller's puts, AMOs and stores are complete
     * (a quiet) before the lock is released. */
    tshmem_ctx_quiet_(SHMEM_CTX_DEFAULT, __func__);
    uint64_t v = lock_op(home, w, TERN_OP_GET, 0, 0, __func__);
    if (TSHMEM_UNLIKELY(LOW(v) == HIGH(v)))
        tshmem_fatal("shmem_clear_lock: the lock %p is not held (cleared twice, or "
                     "by a PE that did not set it)",
                     (const void *)lock);
    lock_op(home, w, TERN_OP_ADD, LOW(v) == UINT32_MAX ? 1 - TICKET : 1, 0, __func__);
}

/* ---- deprecated cache management: no-ops on coherent memory ---------------------- */

void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest)
{
    (void)dest;
}
void shmem_set_cache_line_inv(void *dest)
{
    (void)dest;
}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest)
{
    (void)dest;
}
