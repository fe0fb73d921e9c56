/* Library setup, exit and query: init and init_thread called more than
 * once, finalize, re-initialization after the last finalize, the queries,
 * shmem_ptr against what Tern maps, and the version and name. */
#include <shmemx.h>
#include <tern.h>

#include "shmem_test.h"

/* Every PE writes its number into slot me of a symmetric array on every
 * PE; each then finds 0..n-1. Returns after a barrier. */
static void ring_check(const char *when)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *slots = shmem_calloc((size_t)n, sizeof(int));
    CHECK(slots != NULL, "%s: shmem_calloc of %d ints", when, n);
    for (int pe = 0; pe < n; pe++)
        shmem_int_p(&slots[me], me + 1, pe);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        CHECK(slots[pe] == pe + 1, "%s: slot %d holds %d", when, pe, slots[pe]);
    shmem_free(slots);
}

int main(void)
{
    int flag = -1, level = -1, major = 0, minor = 0;
    char name[SHMEM_MAX_NAME_LEN];

    /* queries allowed before initialization */
    shmem_query_initialized(&flag);
    CHECK(flag == 0, "initialized before shmem_init: %d", flag);
    shmemx_query_finalized(&flag);
    CHECK(flag == 0, "finalized before shmem_init: %d", flag);
    shmem_info_get_version(&major, &minor);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION && major == 1 &&
              minor == 6,
          "version %d.%d", major, minor);
    shmem_info_get_name(name);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0 && strlen(name) < SHMEM_MAX_NAME_LEN,
          "name '%s'", name);

    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &level) == 0, "shmem_init_thread");
    CHECK(level == SHMEM_THREAD_MULTIPLE, "provided %d", level);
    shmem_query_thread(&flag);
    CHECK(flag == level, "query_thread %d, provided %d", flag, level);
    shmem_query_initialized(&flag);
    CHECK(flag != 0, "not initialized after shmem_init_thread");

    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(n == tern_size() && me == tern_rank(), "PE %d of %d, Tern rank %d of %d", me, n,
          tern_rank(), tern_size());
    CHECK(_my_pe() == me && _num_pes() == n, "deprecated _my_pe/_num_pes");

    /* a second initialization is counted; its finalize is a barrier */
    shmem_init();
    shmem_query_initialized(&flag);
    CHECK(flag != 0, "not initialized after the second init");
    ring_check("nested");
    shmem_finalize();
    shmem_query_initialized(&flag);
    CHECK(flag != 0, "the first of two finalizes ended the library");
    shmemx_query_finalized(&flag);
    CHECK(flag == 0, "finalized while still initialized");

    /* accessibility */
    for (int pe = 0; pe < n; pe++)
        CHECK(shmem_pe_accessible(pe) == 1, "PE %d not accessible", pe);
    CHECK(shmem_pe_accessible(-1) == 0 && shmem_pe_accessible(n) == 0,
          "PEs -1 and %d accessible", n);
    long *x = shmem_malloc(8 * sizeof(long));
    CHECK(x != NULL, "shmem_malloc");
    long priv = 0;
    for (int pe = 0; pe < n; pe++) {
        CHECK(shmem_addr_accessible(x, pe) == 1, "heap object not accessible on %d", pe);
        CHECK(shmem_addr_accessible(x + 7, pe) == 1, "x+7 not accessible on %d", pe);
        CHECK(shmem_addr_accessible(&priv, pe) == 0, "stack variable accessible on %d",
              pe);
    }
    CHECK(shmem_addr_accessible(x, n) == 0, "accessible on PE %d", n);

    /* shmem_ptr: non-NULL exactly for the PEs Tern maps here; stores
     * through it land in the owner's object */
    for (int i = 0; i < 8; i++)
        x[i] = -1;
    shmem_barrier_all();
    CHECK(shmem_ptr(x, me) == (void *)x, "shmem_ptr to myself %p, object %p",
          shmem_ptr(x, me), (void *)x);
    for (int pe = 0; pe < n; pe++) {
        long *p = shmem_ptr(x, pe);
        void *expect = tern_ptr(pe, tern_sym_addr(pe, x));
        CHECK((p != NULL) == (expect != NULL), "shmem_ptr(x, %d) = %p, Tern maps %p", pe,
              (void *)p, expect);
        if (p)
            p[me % 8] = 1000 + me; /* several PEs may write one slot: same kind */
    }
    CHECK(shmem_ptr(&priv, me) == NULL, "shmem_ptr of a stack variable");
    CHECK(shmem_ptr(x, n) == NULL && shmem_ptr(x, -1) == NULL, "shmem_ptr to a bad PE");
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++) {
        if (tern_ptr(pe, tern_sym_addr(pe, x)) && pe < 8)
            CHECK(x[pe % 8] >= 1000, "slot %d not written through shmem_ptr", pe % 8);
    }
    shmem_free(x);

    /* the last finalize, then initialize again */
    shmem_finalize();
    shmem_query_initialized(&flag);
    CHECK(flag == 0, "initialized after the last finalize");
    shmemx_query_finalized(&flag);
    CHECK(flag != 0, "not finalized after the last finalize");

    shmem_init();
    shmem_query_initialized(&flag);
    CHECK(flag != 0, "not initialized after re-initialization");
    shmemx_query_finalized(&flag);
    CHECK(flag == 0, "finalized after re-initialization");
    shmem_query_thread(&flag);
    CHECK(flag == SHMEM_THREAD_MULTIPLE, "level %d after re-initialization", flag);
    CHECK(shmem_my_pe() == me && shmem_n_pes() == n, "PE %d of %d after re-init",
          shmem_my_pe(), shmem_n_pes());
    ring_check("re-initialized");
    return finish("shmem setup");
}
