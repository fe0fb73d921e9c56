/* Segments: creation in every fault-in mode, contents visible through a
 * second mapping made via /proc (as a node peer maps it), huge page plan
 * notes, and clear errors for impossible sizes. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <tern/status.h>

#include "base/cfg.h"
#include "mem/segment.h"

#include "unit_check.h"

static int one(int faultin, size_t size)
{
    tn_seg_opts_t o = {.size = size,
                       .ctrl_size = 4096,
                       .hugepages = TN_HUGE_OFF,
                       .faultin = faultin,
                       .threads = 0,
                       .local_ranks = 1};
    tn_seg_t s;
    CHECK(tn_seg_create(&o, &s) == TERN_OK);
    CHECK(s.size >= size && s.size % s.page_size == 0);
    CHECK((char *)s.data == (char *)s.map + s.ctrl_size);
    CHECK(s.faultin_threads >= (faultin == TN_FAULTIN_NONE ? 0 : 1));
    CHECK(strstr(s.page_note, "TERN_HUGEPAGES=off") != NULL);
    void *peer;
    CHECK(tn_seg_map_peer(getpid(), s.fd, s.map_size, &peer) == TERN_OK);
    memset(s.data, 0x5a, s.size);
    char *pd = (char *)peer + s.ctrl_size;
    CHECK(pd[0] == 0x5a && pd[s.size - 1] == 0x5a);
    pd[s.size / 2] = 1;
    CHECK(((char *)s.data)[s.size / 2] == 1);
    tn_seg_unmap_peer(peer, s.map_size);
    tn_seg_destroy(&s);
    return 0;
}

int main(void)
{
    if (one(TN_FAULTIN_PARALLEL, 64 << 20) || one(TN_FAULTIN_SERIAL, 8 << 20) ||
        one(TN_FAULTIN_NONE, 1 << 20) || one(TN_FAULTIN_PARALLEL, 5000))
        return 1;

    /* Impossible sizes: clear errors, no crash. */
    tn_seg_opts_t o = {
        .size = 0, .ctrl_size = 4096, .hugepages = TN_HUGE_OFF, .local_ranks = 1};
    tn_seg_t s;
    CHECK(tn_seg_create(&o, &s) == TERN_ERR_CONFIG);
    o.size = tn_mem_available() + (1ull << 30);
    CHECK(tn_seg_create(&o, &s) == TERN_ERR_NOMEM);
    o.size = (size_t)-100;
    CHECK(tn_seg_create(&o, &s) != TERN_OK);
    o.size = 1ull << 30;
    o.local_ranks = 1 << 20; /* a million ranks on this node */
    CHECK(tn_seg_create(&o, &s) == TERN_ERR_NOMEM);

    /* Huge page plan: 'off' never uses them; 'on' without any is an error
     * unless the machine has some free. */
    int hugetlb, thp;
    size_t page;
    char note[256];
    CHECK(tn_huge_plan(1 << 21, 1, TN_HUGE_OFF, &hugetlb, &thp, &page, note,
                       sizeof(note)) == TERN_OK);
    CHECK(!hugetlb && !thp && page == (size_t)sysconf(_SC_PAGESIZE));
    int rc =
        tn_huge_plan(1 << 21, 1, TN_HUGE_TRY, &hugetlb, &thp, &page, note, sizeof(note));
    CHECK(rc == TERN_OK && note[0]);
    rc = tn_huge_plan(1 << 21, 1, TN_HUGE_ON, &hugetlb, &thp, &page, note, sizeof(note));
    CHECK(rc == (hugetlb || thp ? TERN_OK : TERN_ERR_NOMEM));
    printf("test_segment: PASS (%s)\n", note);
    return 0;
}
