/* put_pingpong: payload put + flag put, tern_wait_until_u64, reply; half
 * a round trip against the same exchange by plain stores through tern_ptr
 * and a spin on a volatile flag between the same two processes. The
 * put_signal rows do the same exchange with one tern_put_signal (payload,
 * then the flag set as the signal word) per message, against the same raw
 * baseline (issue 9's goal: <= 1.1x). */
#include "bench.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tern.h>

#define PP_BUDGET (32u << 20) /* payload bytes per trial, both directions */

/* The raw spin pauses between polls as any well-written spin loop (and
 * Tern's own wait) does: without it, leaving the loop costs a pipeline
 * flush, and the baseline would be slower than necessary. */
static inline void pp_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

struct tb_pingpong {
    int me, other;                  /* other: the rank this one exchanges with */
    int active;                     /* rank 0 and its peer take part, others idle */
    char *buf;                      /* symmetric payload buffer (own segment) */
    uint64_t *flags;                /* symmetric: [0] the flag, [8] raw_ok from
                                 rank 0 (another cache line) */
    int raw_ok;                     /* rank 0's peer is mapped: raw trials run */
    char *remote_buf;               /* other's buffer, as it sees it */
    uint64_t *remote_flag;          /* other's flag, as it sees it */
    char *mapped_buf;               /* other's buffer through tern_ptr, or NULL */
    volatile uint64_t *mapped_flag; /* other's flag through tern_ptr */
    char *src;                      /* private payload source */
    size_t max;
    size_t n;
    uint64_t seq; /* rounds so far: both ranks count alike */
    int signal;   /* 1: each message is one tern_put_signal */
    int rc;
};

tb_pingpong_t *tb_pingpong_setup(const tb_job_t *job, size_t max_payload)
{
    tb_pingpong_t *pp = calloc(1, sizeof *pp);
    if (!pp)
        tb_die("out of memory");
    if (job->size < 2)
        tb_die("put_pingpong needs at least 2 ranks (ternrun -n 2)");
    pp->me = job->rank;
    pp->other = job->rank == 0 ? job->peer : 0;
    pp->active = job->rank == 0 || job->rank == job->peer;
    pp->max = max_payload;
    TB_CHECK(tern_alloc_sym(max_payload, (void **)&pp->buf));
    /* Tern and raw trials use the same payload buffers and the same flag
     * word (they never run at once): on a mesh the latency of a cache-line
     * hand-off depends on the line's address, and two different lines made
     * the ratio swing by +-15% from one run to the next. The flag has its
     * own cache line (alloc is 64-aligned). */
    TB_CHECK(tern_alloc_sym(128, (void **)&pp->flags));
    memset(pp->buf, 0, max_payload);
    memset(pp->flags, 0, 128);
    pp->src = tb_alloc_local(max_payload);
    pp->remote_buf = tern_sym_addr(pp->other, pp->buf);
    pp->remote_flag = tern_sym_addr(pp->other, pp->flags);
    if (!pp->remote_buf || !pp->remote_flag)
        tb_die("tern_sym_addr(%d) returned NULL", pp->other);
    pp->mapped_buf = tern_ptr(pp->other, pp->remote_buf);
    uint64_t *rf = tern_ptr(pp->other, pp->remote_flag);
    pp->mapped_flag = rf;
    TB_CHECK(tern_barrier());
    /* Every rank must run the raw trials or none (they are collective), so
     * rank 0, which knows whether its peer is mapped, tells everyone. */
    if (pp->me == 0) {
        uint64_t ok = pp->mapped_buf != NULL && rf != NULL;
        for (int r = 0; r < job->size; r++)
            TB_CHECK(tern_put(r, tern_sym_addr(r, pp->flags + 8), &ok, sizeof ok, 0));
    }
    TB_CHECK(tern_barrier());
    pp->raw_ok = pp->flags[8] != 0;
    return pp;
}

void tb_pingpong_teardown(tb_pingpong_t *pp)
{
    TB_CHECK(tern_barrier());
    TB_CHECK(tern_free_sym(pp->flags));
    TB_CHECK(tern_free_sym(pp->buf));
    free(pp->src);
    free(pp);
}

/* Send one message: payload, then flag. A blocking put returns at remote
 * completion, so the flag cannot overtake the payload; the compiler
 * barrier keeps the compiler from reordering the two inlined copies. */
#define TERN_SEND(rc, s)                                 \
    do {                                                 \
        uint64_t v_ = (s);                               \
        rc |= tern_put(other, rbuf, src, n, 0);          \
        TB_COMPILER_BARRIER();                           \
        rc |= tern_put(other, rflag, &v_, sizeof v_, 0); \
        TB_COMPILER_BARRIER();                           \
    } while (0)

/* The same message as one put with signal: the flag is the signal word. */
#define TERN_SEND_SIGNAL(rc, s)                                                     \
    do {                                                                            \
        rc |= tern_put_signal(other, rbuf, src, n, rflag, (s), TERN_SIGNAL_SET, 0); \
        TB_COMPILER_BARRIER();                                                      \
    } while (0)

static uint64_t pp_tern(void *ctx, long ops)
{
    tb_pingpong_t *pp = ctx;
    if (!pp->active)
        return 1;
    /* Locals, as in the raw loop: only the library's own state is
     * re-read per message. */
    size_t n = pp->n;
    int other = pp->other, rc = 0;
    char *rbuf = pp->remote_buf;
    uint64_t *rflag = pp->remote_flag;
    const char *src = pp->src;
    const volatile uint64_t *mine = pp->flags;
    uint64_t s = pp->seq;
    uint64_t t0 = tb_now_ns();
    if (pp->signal && pp->me == 0) {
        for (long i = 0; i < ops; i++) {
            s++;
            TERN_SEND_SIGNAL(rc, s);
            rc |= tern_wait_until_u64(mine, TERN_CMP_GE, s);
        }
    } else if (pp->signal) {
        for (long i = 0; i < ops; i++) {
            s++;
            rc |= tern_wait_until_u64(mine, TERN_CMP_GE, s);
            TERN_SEND_SIGNAL(rc, s);
        }
    } else if (pp->me == 0) {
        for (long i = 0; i < ops; i++) {
            s++;
            TERN_SEND(rc, s);
            rc |= tern_wait_until_u64(mine, TERN_CMP_GE, s);
        }
    } else {
        for (long i = 0; i < ops; i++) {
            s++;
            rc |= tern_wait_until_u64(mine, TERN_CMP_GE, s);
            TERN_SEND(rc, s);
        }
    }
    uint64_t ns = tb_now_ns() - t0;
    pp->seq = s;
    pp->rc |= rc;
    return ns;
}

/* A correct raw exchange: the release fence orders payload before flag and
 * the acquire fence flag before the payload's use. On x86 both are free
 * (compiler barriers); on weaker memory models they are what a hand-written
 * version must pay too. read (a constant at each call): the receiver reads
 * the payload it was sent (its own buffer, where the other wrote) after
 * the acquire fence; otherwise it never reads it, and the payload's lines
 * stay in the writer's cache. */
static inline __attribute__((always_inline)) uint64_t pp_raw_body(tb_pingpong_t *pp,
                                                                  long ops, int read)
{
    if (!pp->active)
        return 1;
    size_t n = pp->n;
    char *dst = pp->mapped_buf;
    const char *src = pp->src;
    volatile uint64_t *theirs = pp->mapped_flag;
    const volatile uint64_t *mine = pp->flags;
    uint64_t s = pp->seq;
    uint64_t t0 = tb_now_ns();
    if (pp->me == 0) {
        for (long i = 0; i < ops; i++) {
            s++;
            memcpy(dst, src, n);
            atomic_thread_fence(memory_order_release);
            *theirs = s;
            while (*mine < s)
                pp_relax();
            atomic_thread_fence(memory_order_acquire);
            if (read)
                tb_read_payload(pp->buf, n);
        }
    } else {
        for (long i = 0; i < ops; i++) {
            s++;
            while (*mine < s)
                pp_relax();
            atomic_thread_fence(memory_order_acquire);
            if (read)
                tb_read_payload(pp->buf, n);
            memcpy(dst, src, n);
            atomic_thread_fence(memory_order_release);
            *theirs = s;
        }
    }
    uint64_t ns = tb_now_ns() - t0;
    pp->seq = s;
    return ns;
}

static uint64_t pp_raw(void *ctx, long ops)
{
    return pp_raw_body(ctx, ops, 0);
}

uint64_t tb_pingpong_raw(tb_pingpong_t *pp, size_t n, long ops)
{
    if (n > pp->max)
        tb_die("ping-pong payload %zu exceeds the buffer of %zu", n, pp->max);
    pp->n = n;
    return pp_raw(pp, ops);
}

uint64_t tb_pingpong_raw_read(tb_pingpong_t *pp, size_t n, long ops)
{
    if (n > pp->max)
        tb_die("ping-pong payload %zu exceeds the buffer of %zu", n, pp->max);
    pp->n = n;
    return pp_raw_body(pp, ops, 1);
}

int tb_pingpong_raw_ok(const tb_pingpong_t *pp)
{
    return pp->raw_ok;
}

void tb_pingpong_row(const tb_opts_t *o, const tb_job_t *job, tb_pingpong_t *pp, size_t n,
                     tb_row_t *row)
{
    if (n > pp->max)
        tb_die("ping-pong payload %zu exceeds the buffer of %zu", n, pp->max);
    pp->n = n;
    long ops = tb_ops_bounded(o, pp_tern, pp, tb_ops_for(o, n, PP_BUDGET),
                              pp->raw_ok ? 2 : 1, 1);
    tb_measure_pair(o, pp_tern, pp->raw_ok ? pp_raw : NULL, pp, ops, TB_UNIT_HALF_NS,
                    (double)n, 1, &row->tern, &row->raw);
    if (pp->rc != TERN_OK)
        tb_die("put ping-pong of %zu bytes with rank %d failed: %d (%s)", n, pp->other,
               pp->rc, tern_strerror(pp->rc));
    row->bench = "put_pingpong";
    row->op = pp->signal ? "put_signal" : "put+flag";
    row->size = n;
    row->unit = TB_UNIT_HALF_NS;
    row->ops = ops;
}

static void pp_defaults(tb_opts_t *o)
{
    o->iters = 20000;
    o->trials = 11;
    o->warmup = 1;
}

static size_t pp_need(const tb_opts_t *o)
{
    return tb_sizes_max(o) + 128;
}

static int pp_run(tb_opts_t *o, tb_job_t *job)
{
    tb_pingpong_t *pp = tb_pingpong_setup(job, tb_sizes_max(o));
    if (job->rank == 0) {
        tb_note(o, "half round trip (put+flag: one put of the payload + one put of the "
                   "flag, then the answer; put_signal: one tern_put_signal setting the "
                   "flag): time per message; goals tern/raw <= 1.15 and <= 1.1");
        tb_table_head(o, TB_UNIT_HALF_NS);
    }
    for (int i = 0; i < o->nsizes; i++) {
        for (int sig = 0; sig < 2; sig++) {
            tb_row_t row;
            pp->signal = sig;
            tb_pingpong_row(o, job, pp, o->sizes[i], &row);
            if (job->rank == 0)
                tb_row_print(o, job, &row);
        }
    }
    pp->signal = 0;
    tb_pingpong_teardown(pp);
    return 0;
}

const tb_bench_t tb_bench_put_pingpong = {
    .name = "put_pingpong",
    .help =
        "put payload + put flag (and put with signal), wait_until, reply; 8 B..64 KiB, "
        "vs raw flag ping-pong",
    .with_tern = 1,
    .min_ranks = 2,
    .min_size = 8,
    .max_size = 64u << 10,
    .baseline =
        "the same two processes exchanging payload and flag with plain "
        "stores through tern_ptr pointers, spinning (with pause) on a volatile flag",
    .defaults = pp_defaults,
    .segment_need = pp_need,
    .run = pp_run,
};
