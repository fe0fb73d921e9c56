/* The profiling interface: this program is its own profiling tool. It
 * defines shmem_long_put, shmem_int_atomic_fetch_add, shmem_barrier_all,
 * shmem_malloc and shmem_pcontrol, counts the calls made to them from
 * outside the tool, and forwards each to its pshmem_ twin (pshmem.h). The
 * data moved and the counts are checked exactly: the tool's definitions
 * replaced the library's (weak) ones and the pshmem_ names reached the
 * implementation. Linked against the shared and the static library.
 * Compiled without shmem.h's inline paths, as docs/shmem.md asks of a
 * profiled program: its calls then reach the shmem_ symbols, and its own
 * definitions of inlined names (shmem_long_put) are functions. */
#define TSHMEM_NO_INLINE
#include <pshmem.h>
#include <stdarg.h>

#include "shmem_test.h"

/* Calls made while no interposed call is running (the library may call
 * its own routines inside one; the specification leaves counting those to
 * the tool). */
static int depth;
static long n_put, n_fadd, n_barrier, n_malloc, n_pcontrol;
static int last_level = -100;

#define ENTER(counter)         \
    int outer_ = depth++ == 0; \
    if (outer_)                \
    counter++
#define LEAVE() depth--

void shmem_long_put(long *dest, const long *source, size_t nelems, int pe)
{
    ENTER(n_put);
    pshmem_long_put(dest, source, nelems, pe);
    LEAVE();
}

int shmem_int_atomic_fetch_add(int *dest, int value, int pe)
{
    ENTER(n_fadd);
    int r = pshmem_int_atomic_fetch_add(dest, value, pe);
    LEAVE();
    return r;
}

void shmem_barrier_all(void)
{
    ENTER(n_barrier);
    pshmem_barrier_all();
    LEAVE();
}

void *shmem_malloc(size_t size)
{
    ENTER(n_malloc);
    void *p = pshmem_malloc(size);
    LEAVE();
    return p;
}

void shmem_pcontrol(int level, ...)
{
    ENTER(n_pcontrol);
    last_level = level;
    pshmem_pcontrol(level);
    LEAVE();
}

enum { N = 64, ROUNDS = 5 };

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_pcontrol(1);
    long *buf = shmem_malloc(N * sizeof(long));
    int *ctr = shmem_malloc(sizeof(int));
    CHECK(buf && ctr, "shmem_malloc");
    *ctr = 0;
    shmem_barrier_all();

    long src[N];
    int right = (me + 1) % n;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < N; i++)
            src[i] = (long)me * 100000 + r * 1000 + i;
        shmem_long_put(buf, src, N, right);
        (void)shmem_int_atomic_fetch_add(ctr, 1, 0);
        shmem_barrier_all();
        int left = (me + n - 1) % n;
        for (int i = 0; i < N; i++)
            CHECK(buf[i] == (long)left * 100000 + r * 1000 + i, "round %d buf[%d] = %ld",
                  r, i, buf[i]);
        shmem_barrier_all();
    }
    /* The uninterposed pshmem_ names work directly too. */
    pshmem_long_p(&buf[0], -7, right);
    pshmem_barrier_all();
    CHECK(buf[0] == -7, "pshmem_long_p: %ld", buf[0]);
    if (me == 0)
        CHECK(*ctr == ROUNDS * n, "counter %d, expected %d", *ctr, ROUNDS * n);
    shmem_pcontrol(0, "tool-defined", 42);

    CHECK(n_put == ROUNDS, "shmem_long_put seen %ld times", n_put);
    CHECK(n_fadd == ROUNDS, "shmem_int_atomic_fetch_add seen %ld times", n_fadd);
    CHECK(n_barrier == 1 + 2 * ROUNDS, "shmem_barrier_all seen %ld times", n_barrier);
    CHECK(n_malloc == 2, "shmem_malloc seen %ld times", n_malloc);
    CHECK(n_pcontrol == 2 && last_level == 0, "shmem_pcontrol seen %ld times, level %d",
          n_pcontrol, last_level);
    shmem_free(ctr);
    shmem_free(buf);
    return finish("profile");
}
