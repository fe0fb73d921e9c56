/* Topology-aware copies in a real job: every put and get (blocking, nbi,
 * nb) around and above the copy thresholds arrives byte for byte at any
 * alignment, whatever copy it took; each rank's distance class to its
 * local peers and its thresholds match the tables given on the command
 * line (written in tests/mp/topo.cmake for this machine and for simulated
 * topologies).
 *   --mode auto|on|off          the TERN_SHM_TOPO the job runs with
 *   --classes a-b=class,...     expected classes between global ranks
 *   --thr class=put/get,...     expected thresholds (bytes, or never)
 *   --all-local class           on a machine with one L3 cache: every
 *                               pair of ranks of a node has this class
 *   --big                       also copy 24 MiB + 11 bytes (needs a
 *                               segment of 64M) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tern/topo.h>

#include "base/topo.h"
#include "xport/shm/shm_copy.h"
#include "core/core.h"
#include "mp_util.h"

/* The copy table's view of rank r (class, thresholds, islands). */
static tern_copy_info_t peer_copy(int r)
{
    tern_copy_info_t ci;
    tn_shm_copy_info(r, &ci);
    return ci;
}

static int dist_of(const char *name)
{
    for (int d = 0; d < TN_DIST_COUNT; d++)
        if (strcmp(tn_dist_name(d), name) == 0)
            return d;
    MP_CHECK(0, "unknown class '%s'", name);
    return -1;
}

static size_t thr_of(const char *s)
{
    return strcmp(s, "never") == 0 ? TN_COPY_NEVER : (size_t)strtoull(s, NULL, 10);
}

/* "0-1=same-l3,0-2=other-package" */
static void check_classes(const char *list)
{
    char *copy = strdup(list), *save = NULL;
    int me = tern_rank(), checked = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int a, b, pos = 0;
        MP_CHECK(sscanf(tok, "%d-%d=%n", &a, &b, &pos) == 2 && pos > 0, "bad pair '%s'",
                 tok);
        int want = dist_of(tok + pos);
        if (me != a && me != b)
            continue;
        int other = me == a ? b : a;
        MP_CHECK(other < tern_size(), "rank %d not in the job", other);
        int got = peer_copy(other).distance;
        MP_CHECK(got == want, "class to rank %d is %s, the table says %s", other,
                 tn_dist_name(got), tn_dist_name(want));
        checked++;
    }
    free(copy);
    if (me == 0)
        printf("rank 0: %d class(es) as in the table\n", checked);
}

/* One L3 cache on the node: whatever the binding, two ranks share it. */
static void check_all_local(const char *name)
{
    const tn_topo_t *t = tn_topo_get();
    if (!t || t->nl3 != 1) {
        if (tern_rank() == 0)
            printf("rank 0: this node has %d L3 caches: --all-local not checked\n",
                   t ? t->nl3 : -1);
        return;
    }
    int want = dist_of(name);
    for (int r = 0; r < tern_size(); r++)
        if (tn_core_peer(r)->kind == TN_PEER_SHM)
            MP_CHECK(peer_copy(r).distance == want,
                     "class to local rank %d is %s, not %s", r,
                     tn_dist_name(peer_copy(r).distance), name);
}

/* "other-package=65536/16777216,same-l3=16777216/16777216" */
static void check_thresholds(const char *list)
{
    char *copy = strdup(list), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '='), *slash = eq ? strchr(eq, '/') : NULL;
        MP_CHECK(eq && slash, "bad threshold '%s'", tok);
        *eq = '\0';
        *slash = '\0';
        int d = dist_of(tok);
        size_t put = thr_of(eq + 1), get = thr_of(slash + 1);
        for (int r = 0; r < tern_size(); r++) {
            tern_copy_info_t ci = peer_copy(r), *p = &ci;
            if (p->distance != d)
                continue;
            MP_CHECK(p->nt_put == put && p->nt_get == get,
                     "rank %d (%s): non-temporal from %zu (put) / %zu (get), the table "
                     "says %zu / %zu",
                     r, tok, p->nt_put, p->nt_get, put, get);
        }
    }
    free(copy);
}

/* Every mapped peer's fast-path entry sends exactly the copies at or
 * above its smallest threshold out of line. */
static void check_fast(const char *mode)
{
    for (int r = 0; r < tern_size(); r++) {
        tern_copy_info_t ci = peer_copy(r), *p = &ci;
        uintptr_t cm = tn_core_fast(r)->copy_min;
        if (tn_core_peer(r)->kind == TN_PEER_NET) {
            MP_CHECK(p->distance == -1, "network peer %d has class %d", r, p->distance);
            continue;
        }
        size_t lo = p->nt_put < p->nt_get ? p->nt_put : p->nt_get;
        if (p->nt_islands && ((size_t)1 << __builtin_ctzll(p->nt_islands)) < lo)
            lo = (size_t)1 << __builtin_ctzll(p->nt_islands);
        MP_CHECK(cm == lo, "rank %d: copy_min %zu, thresholds %zu/%zu, islands %llx", r,
                 (size_t)cm, p->nt_put, p->nt_get, (unsigned long long)p->nt_islands);
        if (strcmp(mode, "off") == 0)
            MP_CHECK(cm == UINTPTR_MAX, "off: rank %d copy_min %zu", r, (size_t)cm);
        if (strcmp(mode, "on") == 0 && tn_copy_isa_best() != TN_COPY_ISA_NONE)
            MP_CHECK(cm == 0, "on: rank %d copy_min %zu", r, (size_t)cm);
        if (r == tern_rank())
            MP_CHECK(p->distance == TN_DIST_SELF, "self has class %d", p->distance);
    }
    /* the public query says the same */
    for (int r = 0; r < tern_size(); r++) {
        tern_copy_info_t ci;
        MP_OK(tern_copy_info(r, &ci));
        tern_copy_info_t pc = peer_copy(r);
        MP_CHECK(ci.distance == pc.distance && ci.nt_put == pc.nt_put &&
                     ci.nt_get == pc.nt_get && ci.nt_islands == pc.nt_islands &&
                     strcmp(ci.mode, mode) == 0,
                 "tern_copy_info(%d): class %d, %zu/%zu, mode %s", r, ci.distance,
                 ci.nt_put, ci.nt_get, ci.mode);
    }
    tern_copy_info_t ci;
    mp_capture_begin();
    int bad = tern_copy_info(tern_size(), &ci);
    const char *msg = mp_capture_end();
    MP_CHECK(bad == TERN_ERR_RANK && strstr(msg, "tern_copy_info"), "bad rank: %d '%s'",
             bad, msg);
}

#define GUARD 256

static void integrity(int big)
{
    const size_t sizes[] = {1,
                            63,
                            64,
                            65,
                            4095,
                            4099,
                            (64 << 10) + 1,
                            (1 << 20) + 5,
                            (3 << 20) + 7,
                            (24u << 20) + 11};
    const int nsizes = big ? 10 : 9;
    const size_t maxn = sizes[nsizes - 1];
    int me = tern_rank(), n = tern_size();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    unsigned char *sym;
    MP_OK(tern_alloc_sym(maxn + 2 * GUARD + 64, (void **)&sym));
    unsigned char *loc = malloc(maxn + 2 * GUARD + 64);
    MP_CHECK(loc, "malloc");
    unsigned salt = 0;
    for (int k = 0; k < nsizes; k++) {
        const size_t len = sizes[k];
        for (int off = 0; off < 64; off += 31) { /* 0, 31, 62 */
            for (int how = 0; how < 3; how++) {  /* blocking, nbi, nb */
                salt++;
                /* put to the right neighbour */
                memset(sym, 0xEE, len + 2 * GUARD + 64);
                for (size_t i = 0; i < len; i++)
                    loc[GUARD + i] = mp_pattern(me, i, salt);
                MP_OK(tern_barrier());
                void *dst = tern_sym_addr(right, sym + GUARD + off);
                if (how == 0) {
                    MP_OK(tern_put(right, dst, loc + GUARD, len, 0));
                } else if (how == 1) {
                    MP_OK(tern_put_nbi(right, dst, loc + GUARD, len, 0));
                    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
                } else {
                    tern_event_t rc_ev;
                    MP_OK(tern_put_nb(right, dst, loc + GUARD, len, NULL, &rc_ev, 0));
                    MP_OK(tern_event_wait(rc_ev));
                }
                MP_OK(tern_barrier());
                for (size_t i = 0; i < len; i++)
                    MP_CHECK(
                        sym[GUARD + off + i] == mp_pattern(left, i, salt),
                        "put of %zu bytes (offset %d, kind %d) from rank %d: byte %zu "
                        "differs",
                        len, off, how, left, i);
                for (size_t g = 0; g < GUARD; g++)
                    MP_CHECK(sym[GUARD + off - 1 - g] == 0xEE &&
                                 sym[GUARD + off + len + g] == 0xEE,
                             "put of %zu bytes wrote outside its range", len);
                /* get from the right neighbour: its buffer holds its pattern */
                for (size_t i = 0; i < len; i++)
                    sym[GUARD + i] = mp_pattern(me, i, salt + 7);
                memset(loc, 0xEE, len + 2 * GUARD + 64);
                MP_OK(tern_barrier());
                const void *src = tern_sym_addr(right, sym + GUARD);
                if (how == 0) {
                    MP_OK(tern_get(loc + GUARD + off, right, src, len, 0));
                } else if (how == 1) {
                    MP_OK(tern_get_nbi(loc + GUARD + off, right, src, len, 0));
                    MP_OK(tern_nbi_sync(TERN_SYNC_REMOTE));
                } else {
                    tern_event_t ev;
                    MP_OK(tern_get_nb(loc + GUARD + off, right, src, len, &ev, 0));
                    MP_OK(tern_event_wait(ev));
                }
                for (size_t i = 0; i < len; i++)
                    MP_CHECK(
                        loc[GUARD + off + i] == mp_pattern(right, i, salt + 7),
                        "get of %zu bytes (offset %d, kind %d) from rank %d: byte %zu "
                        "differs",
                        len, off, how, right, i);
                for (size_t g = 0; g < GUARD; g++)
                    MP_CHECK(loc[GUARD + off - 1 - g] == 0xEE &&
                                 loc[GUARD + off + len + g] == 0xEE,
                             "get of %zu bytes wrote outside its range", len);
                MP_OK(tern_barrier());
            }
        }
    }
    free(loc);
    MP_OK(tern_free_sym(sym));
}

int main(int argc, char **argv)
{
    const char *mode = "auto", *classes = NULL, *thr = NULL, *all_local = NULL;
    int big = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mode") && i + 1 < argc)
            mode = argv[++i];
        else if (!strcmp(argv[i], "--classes") && i + 1 < argc)
            classes = argv[++i];
        else if (!strcmp(argv[i], "--thr") && i + 1 < argc)
            thr = argv[++i];
        else if (!strcmp(argv[i], "--all-local") && i + 1 < argc)
            all_local = argv[++i];
        else if (!strcmp(argv[i], "--big"))
            big = 1;
        else {
            fprintf(stderr, "topo_copy: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    check_fast(mode);
    if (classes)
        check_classes(classes);
    if (thr)
        check_thresholds(thr);
    if (all_local)
        check_all_local(all_local);
    integrity(big);
    return mp_finish("topo_copy");
}
