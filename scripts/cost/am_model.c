/* The lower bound of an active-message round trip on shared memory: the
 * least any AM layer with a handler table must do over Tern's memory
 * layout, against the raw flag ping-pong of tern-bench am_lat, in the same
 * run (docs/design/active-messages.md, seventeenth pass). Standalone (no
 * libtern): two processes forked over one shared mapping.
 *
 * The model: per ordered pair a ring of 128 slots of one line each and a
 * data ring; a slot's first word holds sequence number, handler index,
 * argument count and length, published last with a release store; the
 * arguments (and a payload of up to 48 - 8 * args bytes) share its line.
 * The receiver's wait loop polls the one slot where the next message must
 * appear, checks the header (argument count, handler registered), calls
 * the handler through the table (an indirect call) with a token on the
 * stack; the handler sends its Reply into the reverse ring. The receiver
 * gives slots and data back once per 16 messages; the sender reads that
 * count only when its cached copy says full. A Medium's data part goes to
 * the data ring's start whenever the other side's last message said the
 * ring is drained (an ACK word in the slot; the Reply is therefore
 * published when its handler returns, after the Request was consumed), so
 * a ping-pong rewrites the same hot lines as the raw one does. Handlers do
 * not read the payload, nor does the raw receiver (am_lat's rows).
 *
 *   cc -O2 scripts/cost/am_model.c -o am_model
 *   flock /tmp/tern-heavy.lock ./am_model [-t trials] [-n round-trips]
 *       [-c cpu0,cpu1] [-w 0|1] [sizes...]
 * sizes: 0 is Short (one argument, raw 0 B); n > 0 a Medium of n bytes
 * (raw n B). -w 1: the receiver prefetches the answer slot for writing
 * when a message arrives (Tern does, seventh pass). Each trial runs three
 * loops, in an order that rotates: raw (bench/pingpong.c's), ring (the
 * raw ping-pong with the model's rotating slot lines as its flags: what
 * the ring alone costs) and the model. Prints, per row, the medians of
 * the trials' half round trips (ns) and of their ratios to raw. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NSLOTS        128u
#define DRING         (64u << 10) /* data ring bytes per direction */
#define MAXARGS       6
#define INLINE        48u
#define RELEASE_EVERY 16u
#define LINE(n)       (((size_t)(n) + 63u) & ~(size_t)63u)

typedef struct slot {
    _Alignas(
        64) _Atomic uint64_t hdr; /* seq << 32 | len << 12 | h << 4 | wrap << 3 | nargs */
    uint64_t a[7];                /* arguments; a[6]: ACK when len > inline */
} slot_t;
_Static_assert(sizeof(slot_t) == 64, "one line per slot");

typedef struct shq {                             /* one direction, shared */
    _Alignas(64) _Atomic uint64_t cslots, cdata; /* receiver's counts */
    slot_t slots[NSLOTS];
    _Alignas(64) char data[DRING];
} shq_t;

typedef struct q { /* this process's side of one direction, private */
    shq_t *s;
    uint32_t seq;   /* next slot to write / read */
    uint64_t dpos;  /* next data byte to write / read */
    uint64_t seen;  /* sender: receiver's slot count when last read */
    uint64_t dseen; /* sender: data consumed, as counts or ACK said */
    int wrap;       /* sender: the last reserve skipped to the ring's start */
    struct q *back; /* the queue in the other direction (ACK source) */
} q_t;

typedef struct token {
    q_t *out; /* the queue to the sender (the Reply's) */
    slot_t *held;
    uint64_t held_hdr;
} token_t;

typedef void (*handler_fn)(token_t *t, const uint64_t *a, int na, void *buf, size_t len);

struct shared {
    _Alignas(64) _Atomic uint64_t bar[2];
    _Alignas(64) volatile uint64_t flag[2][8]; /* raw flags, one line each */
    shq_t q[2];                                /* q[r]: into rank r */
    _Alignas(64) char rawbuf[2][DRING];        /* raw payload landing, per rank */
};

static struct shared *sh;
static int me;
static q_t in, out;
static handler_fn table[256];
static unsigned nhandlers = 256;
static int prefetch_answer;
static volatile uint64_t replies, handled;
static char *src;
static size_t msg_len;

static inline void relax(void)
{
    __builtin_ia32_pause();
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void barrier(void)
{
    static uint64_t gen;
    gen++;
    atomic_fetch_add(&sh->bar[0], 1);
    while (atomic_load(&sh->bar[0]) < 2 * gen)
        relax();
}

/* Sender: a slot (and data for dlen bytes); NULL if full (not in a
 * ping-pong). */
static inline slot_t *reserve(q_t *q, size_t dlen, char **data)
{
    if (__builtin_expect(q->seq - q->seen >= NSLOTS, 0)) {
        q->seen = atomic_load_explicit(&q->s->cslots, memory_order_acquire);
        if (q->seq - q->seen >= NSLOTS)
            return NULL;
    }
    if (dlen) {
        size_t need = LINE(dlen);
        uint64_t d = q->dpos, off = d & (DRING - 1);
        if (q->dseen == d && off) { /* drained: back to the start */
            d += DRING - off;
            q->dseen = d; /* the skipped bytes count as consumed */
        } else if (need > DRING - off)
            d += DRING - off;
        if (d + need - q->dseen > DRING) {
            uint64_t c = atomic_load_explicit(&q->s->cdata, memory_order_acquire);
            if (c > q->dseen)
                q->dseen = c;
            if (d + need - q->dseen > DRING)
                return NULL;
        }
        q->wrap = d != q->dpos;
        q->dpos = d + need;
        *data = q->s->data + (d & (DRING - 1));
    }
    return &q->s->slots[q->seq & (NSLOTS - 1)];
}

static inline uint64_t make_hdr(uint32_t seq, size_t len, unsigned h, int na, int wrap)
{
    return (uint64_t)seq << 32 | (uint64_t)len << 12 | (uint64_t)h << 4 |
           (uint64_t)wrap << 3 | (uint64_t)na;
}

/* Fills slot s with na arguments and len bytes of payload (from p); the
 * header word to publish. Payload past the slot goes to data. */
static inline uint64_t fill(q_t *q, slot_t *s, char *data, unsigned h, const uint64_t *a,
                            int na, const void *p, size_t len)
{
    for (int i = 0; i < na; i++)
        s->a[i] = a[i];
    size_t room = INLINE - 8u * (unsigned)na;
    if (len <= room) {
        memcpy(&s->a[na], p, len);
        return make_hdr(q->seq++, len, h, na, 0);
    }
    memcpy(data, p, len);
    s->a[6] = q->back->dpos; /* ACK: what this side consumed */
    return make_hdr(q->seq++, len, h, na, q->wrap);
}

/* Reserves and fills the next slot of q (and its data part): the slot,
 * with the header word to publish in *hdr, or NULL when q is full. */
static inline slot_t *put_msg(q_t *q, unsigned h, const uint64_t *a, int na,
                              const void *p, size_t len, uint64_t *hdr)
{
    char *data = NULL;
    size_t room = INLINE - 8u * (unsigned)na;
    slot_t *s = reserve(q, len > room ? len : 0, &data);
    if (s)
        *hdr = fill(q, s, data, h, a, na, p, len);
    return s;
}

static inline int send_msg(q_t *q, unsigned h, const uint64_t *a, int na, const void *p,
                           size_t len)
{
    uint64_t hdr;
    slot_t *s = put_msg(q, h, a, na, p, len, &hdr);
    if (!s)
        return -1;
    atomic_store_explicit(&s->hdr, hdr, memory_order_release);
    return 0;
}

/* A Reply from a handler: published at once when it has no data part,
 * else held until the handler's message is consumed (its ACK then counts
 * it). */
static inline int reply_msg(token_t *t, unsigned h, const uint64_t *a, int na,
                            const void *p, size_t len)
{
    uint64_t hdr;
    slot_t *s = put_msg(t->out, h, a, na, p, len, &hdr);
    if (!s)
        return -1;
    if (len > INLINE - 8u * (unsigned)na) {
        t->held = s;
        t->held_hdr = hdr;
    } else
        atomic_store_explicit(&s->hdr, hdr, memory_order_release);
    return 0;
}

static void bad_message(uint64_t hdr)
{
    fprintf(stderr, "am_model: bad message header %#llx\n", (unsigned long long)hdr);
    exit(1);
}

/* The receiver's poll of its one incoming queue: 1 if a message ran. */
static inline int poll_in(void)
{
    slot_t *s = &in.s->slots[in.seq & (NSLOTS - 1)];
    uint64_t hdr = atomic_load_explicit(&s->hdr, memory_order_acquire);
    if ((uint32_t)(hdr >> 32) != in.seq)
        return 0;
    if (prefetch_answer)
        __asm__ volatile("prefetchw %0" ::"m"(out.s->slots[out.seq & (NSLOTS - 1)]));
    unsigned na = hdr & 7, h = (hdr >> 4) & 255;
    size_t len = (hdr >> 12) & 0xfffff;
    handler_fn fn = table[h];
    if (__builtin_expect(na > MAXARGS || h >= nhandlers || !fn, 0))
        bad_message(hdr);
    size_t room = INLINE - 8u * na;
    void *buf;
    uint64_t dnext = in.dpos;
    if (len <= room)
        buf = &s->a[na];
    else {
        uint64_t d = in.dpos;
        if (hdr & 8) /* WRAP: the data starts at the ring's start */
            d += DRING - (d & (DRING - 1));
        if (s->a[6] > out.dseen) /* ACK of our queue to the sender */
            out.dseen = s->a[6];
        buf = in.s->data + (d & (DRING - 1));
        dnext = d + LINE(len);
    }
    token_t t = {.out = &out, .held = NULL};
    fn(&t, s->a, (int)na, buf, len);
    in.dpos = dnext;
    in.seq++;
    if ((in.seq & (RELEASE_EVERY - 1)) == 0) {
        atomic_store_explicit(&in.s->cdata, in.dpos, memory_order_release);
        atomic_store_explicit(&in.s->cslots, in.seq, memory_order_release);
    }
    if (t.held) {
        t.held->a[6] = in.dpos;
        atomic_store_explicit(&t.held->hdr, t.held_hdr, memory_order_release);
    }
    return 1;
}

enum { H_REQ = 200, H_REP = 201 };

static void on_req(token_t *t, const uint64_t *a, int na, void *buf, size_t len)
{
    (void)buf, (void)na;
    handled++;
    reply_msg(t, H_REP, a, 1, src, len);
}

static void on_rep(token_t *t, const uint64_t *a, int na, void *buf, size_t len)
{
    (void)t, (void)a, (void)na, (void)buf, (void)len;
    replies++;
}

static void wait_ge(volatile uint64_t *w, uint64_t v)
{
    while (*w < v)
        if (!poll_in())
            relax();
}

static uint64_t model_loop(long ops)
{
    uint64_t t0 = now_ns();
    if (me == 0) {
        uint64_t a = 1;
        for (long i = 0; i < ops; i++) {
            uint64_t want = replies + 1;
            send_msg(&out, H_REQ, &a, 1, src, msg_len);
            wait_ge(&replies, want);
        }
    } else
        wait_ge(&handled, handled + (uint64_t)ops);
    return now_ns() - t0;
}

/* The raw ping-pong with the model's rotating slot lines as flags: no
 * header check, no dispatch, no handler (what the ring itself costs). */
static uint64_t ring_loop(long ops)
{
    char *dst = sh->rawbuf[1 - me];
    size_t n = msg_len;
    uint64_t t0 = now_ns();
    for (long i = 0; i < ops; i++) {
        if (me == 0) {
            memcpy(dst, src, n);
            slot_t *s = &out.s->slots[out.seq & (NSLOTS - 1)];
            atomic_store_explicit(&s->hdr, make_hdr(out.seq++, 0, 0, 0, 0),
                                  memory_order_release);
        }
        slot_t *r = &in.s->slots[in.seq & (NSLOTS - 1)];
        while ((uint32_t)(atomic_load_explicit(&r->hdr, memory_order_acquire) >> 32) !=
               in.seq)
            relax();
        if (++in.seq % RELEASE_EVERY == 0)
            atomic_store_explicit(&in.s->cslots, in.seq, memory_order_release);
        if (me == 1) {
            memcpy(dst, src, n);
            slot_t *s = &out.s->slots[out.seq & (NSLOTS - 1)];
            atomic_store_explicit(&s->hdr, make_hdr(out.seq++, 0, 0, 0, 0),
                                  memory_order_release);
        }
    }
    return now_ns() - t0;
}

/* bench/pingpong.c's pp_raw_body, read = 0. */
static uint64_t raw_loop(long ops)
{
    static uint64_t s;
    char *dst = sh->rawbuf[1 - me];
    volatile uint64_t *theirs = sh->flag[1 - me], *mine = sh->flag[me];
    size_t n = msg_len;
    uint64_t t0 = now_ns();
    if (me == 0) {
        for (long i = 0; i < ops; i++) {
            s++;
            memcpy(dst, src, n);
            atomic_thread_fence(memory_order_release);
            *theirs = s;
            while (*mine < s)
                relax();
            atomic_thread_fence(memory_order_acquire);
        }
    } else {
        for (long i = 0; i < ops; i++) {
            s++;
            while (*mine < s)
                relax();
            atomic_thread_fence(memory_order_acquire);
            memcpy(dst, src, n);
            atomic_thread_fence(memory_order_release);
            *theirs = s;
        }
    }
    return now_ns() - t0;
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int trials = 11, c0 = -1, c1 = -1, opt;
    long ops = 20000;
    while ((opt = getopt(argc, argv, "t:n:c:w:")) != -1) {
        switch (opt) {
        case 't': trials = atoi(optarg); break;
        case 'n': ops = atol(optarg); break;
        case 'c':
            if (sscanf(optarg, "%d,%d", &c0, &c1) != 2) {
                fprintf(stderr, "am_model: -c wants cpu0,cpu1\n");
                return 2;
            }
            break;
        case 'w': prefetch_answer = atoi(optarg); break;
        default:
            fprintf(
                stderr,
                "usage: am_model [-t trials] [-n round-trips] [-c cpu0,cpu1] [-w 0|1] "
                "[sizes]\n");
            return 2;
        }
    }
    size_t sizes[32];
    int nsizes = 0;
    for (int i = optind; i < argc && nsizes < 32; i++) {
        char *e;
        size_t v = strtoul(argv[i], &e, 10);
        if (*e == 'K' || *e == 'k')
            v <<= 10;
        if (v > DRING / 2) {
            fprintf(stderr, "am_model: size %zu over %u\n", v, DRING / 2);
            return 2;
        }
        sizes[nsizes++] = v;
    }
    if (!nsizes) {
        size_t def[] = {0, 8, 1024, 4096};
        memcpy(sizes, def, sizeof def);
        nsizes = 4;
    }
    sh =
        mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memset(sh, 0, sizeof *sh);
    for (int r = 0; r < 2; r++)
        for (unsigned i = 0; i < NSLOTS; i++)
            sh->q[r].slots[i].hdr = UINT64_MAX; /* no sequence number yet */
    pid_t pid = fork();
    me = pid == 0;
    int cpu = me ? c1 : c0;
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set)) {
            perror("sched_setaffinity");
            return 1;
        }
    }
    in = (q_t){.s = &sh->q[me], .back = &out};
    out = (q_t){.s = &sh->q[1 - me], .back = &in};
    table[H_REQ] = on_req;
    table[H_REP] = on_rep;
    src = aligned_alloc(64, DRING);
    memset(src, 0x5a, DRING);
    double *tm = calloc((size_t)trials, sizeof *tm),
           *tr = calloc((size_t)trials, sizeof *tr),
           *rt = calloc((size_t)trials, sizeof *rt),
           *tg = calloc((size_t)trials, sizeof *tg),
           *rg = calloc((size_t)trials, sizeof *rg);
    if (me == 0)
        printf("%-10s %8s %8s %8s %7s %7s   (half round trips, ns; medians of %d trials "
               "of %ld; prefetchw %d)\n",
               "row", "raw", "ring", "model", "ring/r", "model/r", trials, ops,
               prefetch_answer);
    for (int k = 0; k < nsizes; k++) {
        msg_len = sizes[k];
        for (int i = -1; i < trials; i++)
            for (int j = 0; j < 3; j++) {
                int which = (j + i + 3) % 3; /* the order rotates per trial */
                barrier();
                uint64_t t = which == 0   ? raw_loop(ops)
                             : which == 1 ? ring_loop(ops)
                                          : model_loop(ops);
                double ns = (double)t / (2.0 * ops);
                if (i >= 0)
                    (which == 0 ? tr : which == 1 ? tg : tm)[i] = ns;
            }
        for (int i = 0; i < trials; i++) {
            rt[i] = tm[i] / tr[i];
            rg[i] = tg[i] / tr[i];
        }
        if (me == 0) {
            char name[32];
            if (msg_len)
                snprintf(name, sizeof name, "medium %zu", msg_len);
            else
                snprintf(name, sizeof name, "short");
            double r = median(rt, trials), g = median(rg, trials);
            printf("%-10s %8.1f %8.1f %8.1f %7.3f %7.3f\n", name, median(tr, trials),
                   median(tg, trials), median(tm, trials), g, r);
            fflush(stdout);
        }
    }
    barrier();
    if (me == 0)
        waitpid(pid, NULL, 0);
    return 0;
}
