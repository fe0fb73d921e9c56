/* Private memory per rank after start-up and one round of puts to every
 * peer (so every network connection is open; with argument "idle", no
 * puts: peers never contacted): each rank reads RssAnon and RssShmem from
 * /proc/self/status, prints them and fails above MP_MAX_ANON_KB (issue 13:
 * the provider sized by Tern keeps a network rank at a few MB). */
#include <string.h>

#include "mp_util.h"

static long status_kb(const char *field)
{
    size_t len = strlen(field);
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, field, len) == 0 && line[len] == ':')
            kb = strtol(line + len + 1, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int n = tern_size();
    uint64_t *slots;
    MP_OK(tern_alloc_sym((size_t)n * sizeof(*slots), (void **)&slots));
    memset(slots, 0, (size_t)n * sizeof(*slots));
    MP_OK(tern_barrier());
    int idle = argc > 1 && strcmp(argv[1], "idle") == 0;
    for (int r = 0; r < n && !idle; r++) {
        uint64_t v = (uint64_t)me + 1;
        MP_OK(tern_put(r, tern_sym_addr(r, &slots[me]), &v, sizeof(v), 0));
    }
    MP_OK(tern_barrier());
    for (int r = 0; r < n && !idle; r++)
        MP_CHECK(slots[r] == (uint64_t)r + 1, "slot %d holds %llu", r,
                 (unsigned long long)slots[r]);
    long kb = status_kb("RssAnon"), shm = status_kb("RssShmem");
    const char *max = getenv("MP_MAX_ANON_KB");
    printf("rank %d: RssAnon %ld kB RssShmem %ld kB\n", me, kb, shm);
    MP_CHECK(kb > 0, "no RssAnon in /proc/self/status");
    MP_CHECK(!max || kb <= atol(max), "private memory %ld kB is above %s kB", kb, max);
    return mp_finish("mem_rss");
}
