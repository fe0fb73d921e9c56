/* All-reduce. Teams on one node: the fast area or a reduce-scatter in
 * place (core/coll_node.c, rsag). Teams across nodes: recursive doubling
 * in the eager ring up to TERN_COLL_TREE_MAX where its regions fit
 * (core/coll_eager.c); else, up to the fast area's region per child, a
 * binomial tree with the partials pushed up and the result down, each
 * transfer with its flag; above, up to TERN_COLL_RHD_MAX for teams of 2^k
 * members, recursive halving and doubling (core/coll_rhd.c), and else the
 * pipelined ring reduce-scatter and allgather (core/coll_ring.c). In every algorithm one member
 * combines each element, so every member gets the same bits. */
#include <stdlib.h>
#include <string.h>

#include "base/cfg.h"
#include "core/coll.h"

/* Integer sum and product in uint64_t: wrap-around with no undefined
 * signed overflow and no promotion of narrow types to int. */
#define TN_RED_INT(name, T)                                   \
    static void name##_sum(void *a, const void *b, size_t n)  \
    {                                                         \
        T *x = a;                                             \
        const T *y = b;                                       \
        for (size_t i = 0; i < n; i++)                        \
            x[i] = (T)((uint64_t)x[i] + (uint64_t)y[i]);      \
    }                                                         \
    static void name##_prod(void *a, const void *b, size_t n) \
    {                                                         \
        T *x = a;                                             \
        const T *y = b;                                       \
        for (size_t i = 0; i < n; i++)                        \
            x[i] = (T)((uint64_t)x[i] * (uint64_t)y[i]);      \
    }                                                         \
    static void name##_and(void *a, const void *b, size_t n)  \
    {                                                         \
        T *x = a;                                             \
        const T *y = b;                                       \
        for (size_t i = 0; i < n; i++)                        \
            x[i] &= y[i];                                     \
    }                                                         \
    static void name##_or(void *a, const void *b, size_t n)   \
    {                                                         \
        T *x = a;                                             \
        const T *y = b;                                       \
        for (size_t i = 0; i < n; i++)                        \
            x[i] |= y[i];                                     \
    }                                                         \
    static void name##_xor(void *a, const void *b, size_t n)  \
    {                                                         \
        T *x = a;                                             \
        const T *y = b;                                       \
        for (size_t i = 0; i < n; i++)                        \
            x[i] ^= y[i];                                     \
    }                                                         \
    TN_RED_CMP(name, T)

#define TN_RED_CMP(name, T)                                  \
    static void name##_min(void *a, const void *b, size_t n) \
    {                                                        \
        T *x = a;                                            \
        const T *y = b;                                      \
        for (size_t i = 0; i < n; i++)                       \
            if (y[i] < x[i])                                 \
                x[i] = y[i];                                 \
    }                                                        \
    static void name##_max(void *a, const void *b, size_t n) \
    {                                                        \
        T *x = a;                                            \
        const T *y = b;                                      \
        for (size_t i = 0; i < n; i++)                       \
            if (y[i] > x[i])                                 \
                x[i] = y[i];                                 \
    }

#define TN_RED_FLT(name, T)                                   \
    static void name##_sum(void *a, const void *b, size_t n)  \
    {                                                         \
        T *x = a;                                             \
        const T *y = b;                                       \
        for (size_t i = 0; i < n; i++)                        \
            x[i] += y[i];                                     \
    }                                                         \
    static void name##_prod(void *a, const void *b, size_t n) \
    {                                                         \
        T *x = a;                                             \
        const T *y = b;                                       \
        for (size_t i = 0; i < n; i++)                        \
            x[i] *= y[i];                                     \
    }                                                         \
    TN_RED_CMP(name, T)

/* The floating kernels with their operands swapped, acc = in op acc, for
 * an algorithm where one member holds the later operand in acc (the
 * 2-member exchange of core/coll_rhd.c): the same bits as the other
 * member's acc op in, also for NaN payloads and signed zeros. Integer
 * operations commute exactly and need none. */
#define TN_RED_REV(name, T)                                    \
    static void name##_rsum(void *a, const void *b, size_t n)  \
    {                                                          \
        T *x = a;                                              \
        const T *y = b;                                        \
        for (size_t i = 0; i < n; i++)                         \
            x[i] = y[i] + x[i];                                \
    }                                                          \
    static void name##_rprod(void *a, const void *b, size_t n) \
    {                                                          \
        T *x = a;                                              \
        const T *y = b;                                        \
        for (size_t i = 0; i < n; i++)                         \
            x[i] = y[i] * x[i];                                \
    }                                                          \
    static void name##_rmin(void *a, const void *b, size_t n)  \
    {                                                          \
        T *x = a;                                              \
        const T *y = b;                                        \
        for (size_t i = 0; i < n; i++)                         \
            x[i] = x[i] < y[i] ? x[i] : y[i];                  \
    }                                                          \
    static void name##_rmax(void *a, const void *b, size_t n)  \
    {                                                          \
        T *x = a;                                              \
        const T *y = b;                                        \
        for (size_t i = 0; i < n; i++)                         \
            x[i] = x[i] > y[i] ? x[i] : y[i];                  \
    }

TN_RED_INT(i8, int8_t)
TN_RED_INT(u8, uint8_t)
TN_RED_INT(i16, int16_t)
TN_RED_INT(u16, uint16_t)
TN_RED_INT(i32, int32_t)
TN_RED_INT(u32, uint32_t)
TN_RED_INT(i64, int64_t)
TN_RED_INT(u64, uint64_t)
TN_RED_FLT(f32, float)
TN_RED_FLT(f64, double)
TN_RED_FLT(fld, long double)
TN_RED_REV(f32, float)
TN_RED_REV(f64, double)
TN_RED_REV(fld, long double)

#define TN_ROW_INT(p)                                                 \
    {                                                                 \
        p##_sum, p##_prod, p##_min, p##_max, p##_and, p##_or, p##_xor \
    }
#define TN_ROW_FLT(p)                                         \
    {                                                         \
        p##_sum, p##_prod, p##_min, p##_max, NULL, NULL, NULL \
    }

static const tn_red_fn kernels[TERN_TYPE_COUNT_][TERN_RED_COUNT_] = {
    TN_ROW_INT(i8),  TN_ROW_INT(u8),  TN_ROW_INT(i16), TN_ROW_INT(u16),
    TN_ROW_INT(i32), TN_ROW_INT(u32), TN_ROW_INT(i64), TN_ROW_INT(u64),
    TN_ROW_FLT(f32), TN_ROW_FLT(f64), TN_ROW_FLT(fld),
};

/* Operands swapped (TN_RED_REV); NULL: the kernel of kernels[][]. */
#define TN_ROW_REV(p)                                             \
    {                                                             \
        p##_rsum, p##_rprod, p##_rmin, p##_rmax, NULL, NULL, NULL \
    }
static const tn_red_fn rkernels[TERN_TYPE_COUNT_][TERN_RED_COUNT_] = {
    [TERN_TYPE_FLOAT] = TN_ROW_REV(f32),
    [TERN_TYPE_DOUBLE] = TN_ROW_REV(f64),
    [TERN_TYPE_LONGDOUBLE] = TN_ROW_REV(fld),
};

static const size_t type_size[TERN_TYPE_COUNT_] = {
    1, 1, 2, 2, 4, 4, 8, 8, sizeof(float), sizeof(double), sizeof(long double),
};
static const char *const type_name[TERN_TYPE_COUNT_] = {
    "TERN_TYPE_INT8",  "TERN_TYPE_UINT8",  "TERN_TYPE_INT16",      "TERN_TYPE_UINT16",
    "TERN_TYPE_INT32", "TERN_TYPE_UINT32", "TERN_TYPE_INT64",      "TERN_TYPE_UINT64",
    "TERN_TYPE_FLOAT", "TERN_TYPE_DOUBLE", "TERN_TYPE_LONGDOUBLE",
};
static const char *const op_name[TERN_RED_COUNT_] = {
    "TERN_RED_SUM", "TERN_RED_PROD", "TERN_RED_MIN", "TERN_RED_MAX",
    "TERN_RED_AND", "TERN_RED_OR",   "TERN_RED_XOR",
};

static void must(int rc, const char *what)
{
    if (rc != TERN_OK) {
        char msg[160];
        snprintf(msg, sizeof(msg), "allreduce: %s failed: %s", what, tern_strerror(rc));
        tern_abort(1, msg);
    }
}

/* Whether team rank c (> 0) of n has children in the tree rooted at 0:
 * its lowest set bit is above 1 and c + 1 is a member. Such a member
 * combines into its scratch; a leaf's partial is its own src. */
static int has_children(int c, int n)
{
    return c == 0 ? n > 1 : (c & 1) == 0 && c + 1 < n;
}

/* Slice [lo, hi) of member j's elements, for count elements split in n
 * slices of per. */
static void slice(size_t count, size_t per, int j, size_t *lo, size_t *hi)
{
    *lo = (size_t)j * per < count ? (size_t)j * per : count;
    *hi = *lo + per < count ? *lo + per : count;
}

/* buf (this rank's segment) of member j, through the mapping. */
static const char *mapped(tn_cteam_t *t, int j, const void *buf)
{
    int g = t->ranks[j];
    return tern_ptr(g, tern_sym_addr(g, buf));
}

/* Reduce-scatter and allgather of a team whose members all share memory:
 * member i combines slice i of every src in team order (through the
 * mapping) and writes it into its
 * dest; then every member reads the other slices from their owners' dests.
 * Three barriers: every src ready and dest free; every slice done and no
 * src read any more; no dest read any more. With dest == src a member's
 * own slice is combined in private staging, as others never read it. */
static void rsag(tn_cteam_t *t, void *dest, const void *src, size_t count, size_t es,
                 tn_red_fn fn)
{
    int n = t->size, me = t->rank;
    size_t per = (count + (size_t)n - 1) / (size_t)n, lo, hi;
    slice(count, per, me, &lo, &hi);
    char *acc = t->staging;
    size_t block = tn_teams.scratch / es;
    tn_coll_barrier(t);
    for (size_t b = lo; b < hi; b += block) {
        size_t m = hi - b < block ? hi - b : block, off = b * es;
        const char *s = (const char *)src + off;
        memcpy(acc, mapped(t, 0, s), m * es);
        for (int j = 1; j < n; j++)
            fn(acc, mapped(t, j, s), m);
        memcpy((char *)dest + off, acc, m * es);
    }
    tn_coll_barrier(t);
    for (int j = 0; j < n; j++) {
        size_t jlo, jhi;
        slice(count, per, j, &jlo, &jhi);
        if (j == me || jhi == jlo)
            continue;
        char *d = (char *)dest + jlo * es;
        int g = t->ranks[j];
        must(tern_get_nbi(d, g, tern_sym_addr(g, d), (jhi - jlo) * es, 0),
             "a slice's get");
    }
    must(tern_nbi_sync(TERN_SYNC_REMOTE), "a slice's get");
    tn_coll_barrier(t);
}

/* Bytes of each child's region in a parent's fast area for the pushed
 * tree (teams not all mapped, whose fast area is otherwise unused): the
 * area split among the most children a member has, ceil(log2 n). */
static size_t push_region(int n)
{
    size_t levels = 0;
    while (((size_t)1 << levels) < (size_t)n)
        levels++;
    return (4 * (size_t)TN_COLL_FAST / levels) & ~(size_t)63;
}

/* The binomial tree with the data pushed, each transfer carrying its flag
 * (tn_coll_put_flag: one network message each way per level, instead of
 * a signal, a get and a put awaited for its remote completion). A child
 * puts its partial into region log2(k) of its parent's fast area; the
 * parent combines its children's regions in order of k, as the pulled
 * tree does, and the result comes down into each child's dest. A region
 * is written again only in a later allreduce, which its writer enters
 * after the result of this one came down, after the parent read it. */
static void push_tree(tn_cteam_t *t, void *dest, const void *src, size_t count, size_t es,
                      tn_red_fn fn)
{
    int n = t->size, me = t->rank;
    size_t bytes = count * es, region = push_region(n);
    uint32_t seq = ++t->seq;
    int below = me ? tn_lowbit(me) : 1;
    if (!me)
        while (below < n)
            below <<= 1;
    /* An inner member combines in its dest: free since it entered, and
     * nobody reads its src (with dest == src the src is consumed here). */
    const void *part = src;
    if (has_children(me, n)) {
        if (dest != src)
            memcpy(dest, src, bytes);
        size_t lvl = 0;
        for (int k = 1; k < below && me + k < n; k <<= 1, lvl++) {
            tn_coll_wait(t, me + k, seq); /* its partial is in region lvl */
            fn(dest, t->fast + lvl * region, count);
        }
        part = dest;
    }
    if (me) {
        int parent = me - below;
        size_t lvl = (size_t)__builtin_ctz((unsigned)below);
        tn_coll_put_flag(t, parent, t->fast + lvl * region, part, bytes, seq);
        tn_coll_wait(t, parent, seq); /* dest holds the result */
    }
    for (int k = below >> 1; k >= 1; k >>= 1)
        if (me + k < n)
            tn_coll_put_flag(t, me + k, dest, dest, bytes, seq);
}

int tn_coll_allreduce(tn_cteam_t *t, void *dest, const void *src, size_t count, int type,
                      int op)
{
    tn_red_fn fn = kernels[type][op];
    size_t es = type_size[type];
    int n = t->size;
    if (n == 1 || count == 0) {
        if (dest != src && count) /* count 0: either may be NULL */
            memcpy(dest, src, count * es);
        return TERN_OK;
    }
    size_t total = count * es;
    if (t->all_mapped && total <= TN_COLL_FAST) {
        tn_coll_node_allreduce(t, dest, src, count, es, fn);
        return TERN_OK;
    }
    tn_red_fn rfn = rkernels[type][op] ? rkernels[type][op] : fn;
    if (!t->all_mapped && (tn_coll_small_allreduce(t, dest, src, count, es, fn) ||
                           tn_coll_eager_allreduce(t, dest, src, count, es, fn, rfn)))
        return TERN_OK;
    if (!t->all_mapped && total <= push_region(n)) {
        push_tree(t, dest, src, count, es, fn);
        return TERN_OK;
    }
    if (t->all_mapped) {
        rsag(t, dest, src, count, es, fn);
        return TERN_OK;
    }
    if (tn_coll_rhd_allreduce(t, dest, src, count, es, fn, rfn))
        return TERN_OK;
    tn_coll_ring_allreduce(t, dest, src, count, es, fn);
    return TERN_OK;
}

tern_status_t tern_allreduce(tern_team_t team, void *dest, const void *src, size_t count,
                             int type, int op)
{
    static const char call[] = "tern_allreduce";
    TN_CHECK_INIT(call);
    TN_NOT_IN_HANDLER(call);
    tn_cteam_t *t = tn_team_get(team, call);
    if (!t)
        return TERN_ERR_INVALID;
    if (type < 0 || type >= TERN_TYPE_COUNT_)
        return tn_core_fail(TERN_ERR_INVALID, call, "type %d is not a TERN_TYPE_* value",
                            type);
    if (op < 0 || op >= TERN_RED_COUNT_)
        return tn_core_fail(TERN_ERR_INVALID, call, "op %d is not a TERN_RED_* value",
                            op);
    if (!kernels[type][op])
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "%s is bitwise and %s is a floating type: bitwise "
                            "operations take integer types only",
                            op_name[op], type_name[type]);
    size_t es = type_size[type], bytes = count * es;
    if (count && bytes / es != count)
        return tn_core_fail(TERN_ERR_INVALID, call, "%zu elements of %s overflow", count,
                            type_name[type]);
    int rc = tn_coll_check_buf(call, "dest", dest, bytes);
    if (rc == TERN_OK)
        rc = tn_coll_check_buf(call, "src", src, bytes);
    if (rc != TERN_OK)
        return rc;
    uintptr_t x = (uintptr_t)dest, y = (uintptr_t)src;
    if (x != y && x < y + bytes && y < x + bytes)
        return tn_core_fail(TERN_ERR_INVALID, call,
                            "dest and src overlap without being equal");
    return tn_coll_allreduce(t, dest, src, count, type, op);
}
