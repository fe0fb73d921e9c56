/* The nbi operations of handlers that the progress thread runs
 * (TERN_PROGRESS_THREAD=1) are completed by the application's quiet:
 * rank 1's main thread computes without calling Tern while its progress
 * thread runs the handler of rank 0's Request, which puts BIG bytes back
 * to rank 0 (nbi, many fragments with TERN_OFI_MAX_MSG=1K); then rank 1
 * quiets and both enter a barrier, after which rank 0 checks the bytes.
 * With TEST_HP_FAULT=1 (and TERN_TEST_FAULT=issue:N, N below the put's
 * fragments) the put fails after it started: rank 1's quiet must return
 * that error. Before, the handler's put was counted in the progress
 * thread's own default context, which nothing syncs: the quiet returned
 * TERN_OK and the error was lost. Network peers only (a mapped peer's put
 * is complete when issued): skip on one node. */
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "mp_util.h"

#define BIG (256 * 1024)
enum { H_PUT = 33 };

static unsigned char *dst, *src;
static _Atomic int handled;
static int put_rc = -1;

static void on_put(tern_am_token_t t, void *b, size_t l, const tern_am_arg_t *a, int na)
{
    (void)b;
    (void)l;
    (void)a;
    (void)na;
    int s = -1;
    MP_OK(tern_am_source(t, &s));
    put_rc = tern_put_nbi(s, tern_sym_addr(s, dst), src, BIG, 0);
    atomic_store_explicit(&handled, 1, memory_order_release);
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_MULTIPLE);
    int n = tern_size(), fault = getenv("TEST_HP_FAULT") != NULL;
    if (n != 2 || mp_mapped(1 - me)) {
        MP_OK(tern_finalize());
        if (me == 0)
            printf("handler_progress: SKIP (two ranks on two nodes only)\n");
        return 77;
    }
    MP_OK(tern_alloc_sym(BIG, (void **)&dst));
    memset(dst, 0, BIG);
    src = malloc(BIG);
    MP_CHECK(src != NULL, "malloc");
    for (size_t i = 0; i < BIG; i++)
        src[i] = mp_pattern(me, i, 3);
    MP_OK(tern_am_register(H_PUT, on_put, "handler_progress put"));
    MP_OK(tern_barrier());
    if (me == 0) {
        tern_am_arg_t a = 0;
        MP_OK(tern_am_request_short(1, H_PUT, &a, 1, 0));
    } else if (me == 1) {
        while (!atomic_load_explicit(&handled, memory_order_acquire))
            usleep(100); /* computing: the progress thread runs the handler */
        MP_OK(put_rc);
        int rc = tern_quiet();
        if (fault)
            MP_CHECK(rc == TERN_ERR_SYS,
                     "quiet after a handler's put that failed on the progress thread "
                     "gave %s, expected the injected failure",
                     tern_strerror(rc));
        else
            MP_OK(rc);
        MP_OK(tern_quiet()); /* taken once */
    }
    MP_OK(tern_barrier());
    if (me == 0 && !fault) {
        size_t bad = 0;
        for (size_t i = 0; i < BIG; i++)
            bad += dst[i] != mp_pattern(1, i, 3);
        MP_CHECK(bad == 0,
                 "%zu of %d bytes of rank 1's handler's put missing after its quiet "
                 "and a barrier",
                 bad, BIG);
    }
    MP_OK(tern_barrier());
    free(src);
    return mp_finish("handler_progress");
}
