/* Active messages from several threads at once (TERN_THREAD_MULTIPLE):
 * every thread sends Short and Medium Requests to every rank, half of them
 * with TERN_FLAG_IMMEDIATE in a retry loop of the documented form (retry
 * after TERN_ERR_AGAIN; the refusal polled once); every thread polls while
 * it waits for its Replies. Each message is handled exactly once. */
#include <stdatomic.h>

#include "mp_util.h"

#define THREADS 4
#define PER     2000
enum { H_REQ = 3, H_REP = 4 };

static _Atomic uint64_t handled, replies[THREADS];
static int me, n;

static void on_req(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    MP_CHECK(na == 2 && (len == 0 || (buf && len == 24)), "request: %d args, %zu bytes",
             na, len);
    atomic_fetch_add(&handled, 1);
    MP_OK(tern_am_reply_short(t, H_REP, a, 1, 0));
}

static void on_rep(tern_am_token_t t, void *buf, size_t len, const tern_am_arg_t *a,
                   int na)
{
    (void)t, (void)buf, (void)len;
    MP_CHECK(na == 1 && a[0] < THREADS, "reply for thread %llu",
             (unsigned long long)a[0]);
    atomic_fetch_add(&replies[a[0]], 1);
}

static void *sender(void *arg)
{
    int id = (int)(intptr_t)arg;
    char payload[24] = "twenty-four bytes here.";
    uint64_t sent = 0;
    for (int i = 0; i < PER; i++)
        for (int k = 0; k < n; k++) {
            int r = (me + k + id) % n;
            tern_am_arg_t a[2] = {(tern_am_arg_t)id, (tern_am_arg_t)i};
            int rc;
            if (i % 2) {
                while ((rc = tern_am_request_short(
                            r, H_REQ, a, 2, TERN_FLAG_IMMEDIATE)) == TERN_ERR_AGAIN)
                    ;
            } else {
                rc = tern_am_request_medium(r, H_REQ, payload, sizeof payload, a, 2, 0);
            }
            MP_OK(rc);
            sent++;
        }
    while (atomic_load(&replies[id]) < sent)
        MP_OK(tern_poll());
    return NULL;
}

int main(int argc, char **argv)
{
    me = mp_init(&argc, &argv, TERN_THREAD_MULTIPLE);
    n = tern_size();
    MP_CHECK(tern_thread_level() == TERN_THREAD_MULTIPLE, "thread level");
    MP_OK(tern_am_register(H_REQ, on_req, "request"));
    MP_OK(tern_am_register(H_REP, on_rep, "reply"));
    MP_OK(tern_barrier());
    mp_run_threads(THREADS, sender);
    /* Every rank sent THREADS x PER to each rank: this one handles as many. */
    uint64_t want = (uint64_t)THREADS * PER * (uint64_t)n;
    while (atomic_load(&handled) < want)
        MP_OK(tern_poll());
    MP_OK(tern_barrier());
    MP_CHECK(atomic_load(&handled) == want, "handled %llu of %llu",
             (unsigned long long)atomic_load(&handled), (unsigned long long)want);
    return mp_finish("am_threads");
}
