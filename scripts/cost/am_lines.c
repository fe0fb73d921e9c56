/* The shared cache lines a two-rank ping-pong touches, for
 * scripts/am-lines.sh: run under valgrind --tool=lackey --trace-mem=yes on
 * each rank, it marks every round by a store to `marker` (its address
 * printed), and prints the job's memfd mappings, so that each access can be
 * named by (memfd inode, line offset) on both ranks. Modes, as
 * tern-bench am_lat and its baseline (bench/pingpong.c) do them:
 *   raw N     flag ping-pong carrying N bytes copied into the other's
 *             segment, which nobody reads
 *   rawread N the same, the receiver reading its N bytes after the flag
 *   short     Short Request answered by a Short Reply, one argument
 *   medium N  Medium Request of N bytes answered by a Medium Reply of N
 *             bytes; the handlers do not read the payload
 *   mread N   the same, each handler reading its payload first
 *   am_lines MODE [N] [ROUNDS]   (ternrun -n 2) */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tern.h>

enum { H_REQ = 200, H_REP = 201 };
enum { RAW, RAWREAD, SHORT, MEDIUM, MREAD };

volatile long marker;
static volatile uint64_t replies, handled, sink;
static char *src;
static int mode;

static void read_payload(const void *buf, size_t n)
{
    const uint64_t *w = buf;
    uint64_t s = 0;
    for (size_t i = 0; i < n / 8; i++)
        s += w[i];
    sink = s;
}

static void on_req(tern_am_token_t t, void *b, size_t l, const tern_am_arg_t *a, int na)
{
    (void)na;
    handled++;
    if (mode == SHORT) {
        tern_am_reply_short(t, H_REP, a, 1, 0);
        return;
    }
    if (mode == MREAD)
        read_payload(b, l);
    tern_am_reply_medium(t, H_REP, src, l, a, 1, 0);
}

static void on_rep(tern_am_token_t t, void *b, size_t l, const tern_am_arg_t *a, int na)
{
    (void)t, (void)a, (void)na;
    if (mode == MREAD)
        read_payload(b, l);
    replies++;
}

static void print_maps(int me)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "/memfd:tern-"))
            fprintf(stderr, "MAP %d %s", me, line);
    if (f)
        fclose(f);
    fprintf(stderr, "MARKER %d %p\n", me, (void *)&marker);
}

static int mode_of(const char *s)
{
    static const char *const names[] = {"raw", "rawread", "short", "medium", "mread"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i]))
            return i;
    fprintf(stderr, "am_lines: unknown mode '%s' (raw, rawread, short, medium, mread)\n",
            s);
    exit(2);
}

int main(int argc, char **argv)
{
    if (tern_init(&argc, &argv, TERN_THREAD_SINGLE) != TERN_OK)
        return 1;
    int me = tern_rank(), other = 1 - me;
    mode = mode_of(argc > 1 ? argv[1] : "short");
    size_t n = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
    long rounds = argc > 3 ? strtol(argv[3], NULL, 0) : 400;
    if (tern_size() != 2 || rounds < 2) {
        fprintf(stderr, "am_lines: needs ternrun -n 2 and at least 2 rounds\n");
        return 2;
    }
    src = malloc(n + 64);
    char *buf;
    uint64_t *flags;
    if (!src || tern_am_register(H_REQ, on_req, "request") != TERN_OK ||
        tern_am_register(H_REP, on_rep, "reply") != TERN_OK ||
        tern_alloc_sym(n + 64, (void **)&buf) != TERN_OK ||
        tern_alloc_sym(128, (void **)&flags) != TERN_OK)
        return 1;
    memset(src, 1, n + 64);
    memset(buf, 0, n + 64);
    memset(flags, 0, 128);
    char *dst = tern_ptr(other, tern_sym_addr(other, buf));
    volatile uint64_t *theirs = tern_ptr(other, tern_sym_addr(other, flags));
    volatile uint64_t *mine = flags;
    tern_barrier();
    print_maps(me);
    tern_barrier();
    /* rounds of warm-up, then `rounds` counted ones (between the two
     * stores of -1), then rounds more */
    tern_am_arg_t a = 1;
    uint64_t s = 0;
    for (long i = 0; i < 3 * rounds; i++) {
        if (i == rounds || i == 2 * rounds)
            marker = -1;
        marker = i;
        if (mode <= RAWREAD) {
            s++;
            if (me == 0) {
                memcpy(dst, src, n);
                atomic_thread_fence(memory_order_release);
                *theirs = s;
            }
            while (*mine < s)
                __builtin_ia32_pause();
            atomic_thread_fence(memory_order_acquire);
            if (mode == RAWREAD)
                read_payload(buf, n);
            if (me == 1) {
                memcpy(dst, src, n);
                atomic_thread_fence(memory_order_release);
                *theirs = s;
            }
        } else if (me == 0) {
            uint64_t want = replies + 1;
            if (mode == SHORT)
                tern_am_request_short(other, H_REQ, &a, 1, 0);
            else
                tern_am_request_medium(other, H_REQ, src, n, &a, 1, 0);
            tern_wait_until_u64(&replies, TERN_CMP_GE, want);
        } else {
            tern_wait_until_u64(&handled, TERN_CMP_GE, (uint64_t)i + 1);
        }
    }
    tern_barrier();
    return tern_finalize() == TERN_OK ? 0 : 1;
}
