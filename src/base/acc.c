/* Accumulate under stripe locks (see base/acc.h). Inside a block the loop
 * is plain loads, multiplies and stores, which the compiler vectorizes;
 * integer arithmetic is unsigned so that overflow wraps instead of being
 * undefined. */
#include "base/acc.h"

#include <sched.h>
#include <string.h>

#include "base/wait.h"

/* Spins on a read (no cache-line traffic while held), yielding now and
 * then: the holder may be a process that lost its core on a busy node. */
static void lock(tn_acc_lock_t *l)
{
    unsigned spins = 0;
    while (atomic_exchange_explicit(&l->held, 1, memory_order_acquire))
        while (atomic_load_explicit(&l->held, memory_order_relaxed))
            if ((++spins & 63) == 0)
                sched_yield();
            else
                tn_cpu_relax();
}

static void unlock(tn_acc_lock_t *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_release);
}

#define BLOCK(T, dst, src, k, scale)                     \
    do {                                                 \
        T *d_ = (T *)(dst);                              \
        const char *s_ = (const char *)(src);            \
        for (size_t i_ = 0; i_ < (k); i_++) {            \
            T v_;                                        \
            memcpy(&v_, s_ + i_ * sizeof(T), sizeof(T)); \
            d_[i_] += (T)(v_ * (scale));                 \
        }                                                \
    } while (0)

static void block(int type, void *dst, const void *src, size_t k, const tn_aval_t *scale)
{
    switch (type) {
    case TN_ATYPE_I32: BLOCK(uint32_t, dst, src, k, scale ? scale->u32 : 1u); break;
    case TN_ATYPE_I64: BLOCK(uint64_t, dst, src, k, scale ? scale->u64 : 1u); break;
    case TN_ATYPE_FLOAT: BLOCK(float, dst, src, k, scale ? scale->f : 1.0f); break;
    default: BLOCK(double, dst, src, k, scale ? scale->d : 1.0); break;
    }
}

void tn_acc_striped(int type, void *dst, size_t off, const void *src, size_t count,
                    const tn_aval_t *scale, tn_acc_lock_t *locks)
{
    size_t size = tn_atype_size(type);
    char *d = dst;
    const char *s = src;
    while (count) {
        size_t blk = off >> TN_ACC_STRIPE_SHIFT;
        size_t room = (((blk + 1) << TN_ACC_STRIPE_SHIFT) - off) / size;
        size_t k = count < room ? count : room;
        tn_acc_lock_t *l = &locks[blk % TN_ACC_STRIPES];
        lock(l);
        block(type, d, s, k, scale);
        unlock(l);
        d += k * size;
        s += k * size;
        off += k * size;
        count -= k;
    }
}

void tn_acc_run_piece(tn_acc_run_t *r, void *dst, size_t off, const void *src,
                      size_t count)
{
    if (!count)
        return;
    size_t size = tn_atype_size(r->type), blk = off >> TN_ACC_STRIPE_SHIFT;
    if (((off + count * size - 1) >> TN_ACC_STRIPE_SHIFT) != blk) {
        tn_acc_run_end(r);
        tn_acc_striped(r->type, dst, off, src, count, r->scale, r->locks);
        return;
    }
    tn_acc_lock_t *l = &r->locks[blk % TN_ACC_STRIPES];
    if (l != r->held) {
        tn_acc_run_end(r);
        lock(l);
        r->held = l;
    }
    block(r->type, dst, src, count, r->scale);
}

void tn_acc_run_end(tn_acc_run_t *r)
{
    if (r->held)
        unlock(r->held);
    r->held = NULL;
}

/* One row of pieces of type T: the stripe's lock is taken again only when
 * a piece lies in another stripe's block. */
#define ROW(T, scalev)                                           \
    do {                                                         \
        T sc_ = (scalev);                                        \
        for (size_t i_ = 0; i_ < npieces; i_++) {                \
            size_t o_ = off + (size_t)((ptrdiff_t)i_ * dstride); \
            char *d_ = dst + (ptrdiff_t)i_ * dstride;            \
            const char *s_ = src + (ptrdiff_t)i_ * sstride;      \
            size_t b_ = o_ >> TN_ACC_STRIPE_SHIFT;               \
            if (((o_ + n - 1) >> TN_ACC_STRIPE_SHIFT) != b_) {   \
                tn_acc_run_piece(r, d_, o_, s_, count);          \
                continue;                                        \
            }                                                    \
            tn_acc_lock_t *l_ = &r->locks[b_ % TN_ACC_STRIPES];  \
            if (l_ != r->held) {                                 \
                tn_acc_run_end(r);                               \
                lock(l_);                                        \
                r->held = l_;                                    \
            }                                                    \
            for (size_t j_ = 0; j_ < count; j_++) {              \
                T v_;                                            \
                memcpy(&v_, s_ + j_ * sizeof(T), sizeof(T));     \
                ((T *)d_)[j_] += (T)(v_ * sc_);                  \
            }                                                    \
        }                                                        \
    } while (0)

void tn_acc_run_row(tn_acc_run_t *r, char *dst, ptrdiff_t dstride, size_t off,
                    const char *src, ptrdiff_t sstride, size_t count, size_t npieces)
{
    size_t n = count * tn_atype_size(r->type);
    if (!n)
        return;
    const tn_aval_t *s = r->scale;
    switch (r->type) {
    case TN_ATYPE_I32: ROW(uint32_t, s ? s->u32 : 1u); break;
    case TN_ATYPE_I64: ROW(uint64_t, s ? s->u64 : 1u); break;
    case TN_ATYPE_FLOAT: ROW(float, s ? s->f : 1.0f); break;
    default: ROW(double, s ? s->d : 1.0); break;
    }
}

#define SCALE(T, out, src, count, scale)                                  \
    do {                                                                  \
        for (size_t i_ = 0; i_ < (count); i_++) {                         \
            T v_;                                                         \
            memcpy(&v_, (const char *)(src) + i_ * sizeof(T), sizeof(T)); \
            v_ = (T)(v_ * (scale));                                       \
            memcpy((char *)(out) + i_ * sizeof(T), &v_, sizeof(T));       \
        }                                                                 \
    } while (0)

void tn_acc_scale(int type, void *out, const void *src, size_t count,
                  const tn_aval_t *scale)
{
    if (!scale) {
        memmove(out, src, count * tn_atype_size(type));
        return;
    }
    switch (type) {
    case TN_ATYPE_I32: SCALE(uint32_t, out, src, count, scale->u32); break;
    case TN_ATYPE_I64: SCALE(uint64_t, out, src, count, scale->u64); break;
    case TN_ATYPE_FLOAT: SCALE(float, out, src, count, scale->f); break;
    default: SCALE(double, out, src, count, scale->d); break;
    }
}
