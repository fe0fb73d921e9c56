/* Which pages back a segment: hugetlbfs pages when enough are reserved,
 * transparent huge pages when the kernel allows them for shared memory,
 * else 4 KiB pages - with the reason recorded for the start-up report. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <tern/status.h>

#include "mem/segment.h"

/* Reads one "Key: value kB" line of /proc/meminfo (value in kB or count). */
long tn_meminfo_value(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
            sscanf(line + kl + 1, "%ld", &v);
            break;
        }
    }
    fclose(f);
    return v;
}

void tn_thp_setting(const char *path, char *out, size_t len)
{
    snprintf(out, len, "unavailable");
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char buf[256];
    if (fgets(buf, sizeof(buf), f)) {
        char *l = strchr(buf, '['), *r = l ? strchr(l, ']') : NULL;
        if (l && r) {
            *r = '\0';
            snprintf(out, len, "%s", l + 1);
        }
    }
    fclose(f);
}

size_t tn_mem_available(void)
{
    long kb = tn_meminfo_value("MemAvailable");
    size_t avail = kb > 0 ? (size_t)kb * 1024 : 0;
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    if (f) {
        char buf[64];
        unsigned long long lim;
        if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%llu", &lim) == 1) {
            FILE *c = fopen("/sys/fs/cgroup/memory.current", "r");
            unsigned long long cur = 0;
            if (c) {
                if (fscanf(c, "%llu", &cur) != 1)
                    cur = 0;
                fclose(c);
            }
            size_t room = lim > cur ? (size_t)(lim - cur) : 0;
            if (room < avail)
                avail = room;
        }
        fclose(f);
    }
    return avail;
}

int tn_huge_plan(size_t map_size, int local_ranks, int mode, int *use_hugetlb, int *thp,
                 size_t *page_size, char *note, size_t notelen)
{
    size_t small = (size_t)sysconf(_SC_PAGESIZE);
    *use_hugetlb = 0;
    *thp = 0;
    *page_size = small;
    if (mode == TN_HUGE_OFF) {
        snprintf(note, notelen, "4 KiB pages: TERN_HUGEPAGES=off");
        return TERN_OK;
    }
    long hp_kb = tn_meminfo_value("Hugepagesize");
    long hp_free = tn_meminfo_value("HugePages_Free");
    size_t hp = hp_kb > 0 ? (size_t)hp_kb * 1024 : 0;
    size_t lr = (size_t)(local_ranks > 0 ? local_ranks : 1);
    size_t need = hp ? (map_size + hp - 1) / hp * lr : 0; /* hugetlb pages */
    if (hp && hp_free > 0 && (size_t)hp_free >= need) {
        *use_hugetlb = 1;
        *page_size = hp;
        snprintf(note, notelen, "%zu KiB hugetlb pages (%ld free reserved)", hp / 1024,
                 hp_free);
        return TERN_OK;
    }
    char thp_mode[32];
    tn_thp_setting(TN_THP_SHMEM, thp_mode, sizeof(thp_mode));
    if (strcmp(thp_mode, "always") == 0 || strcmp(thp_mode, "within_size") == 0 ||
        strcmp(thp_mode, "advise") == 0 || strcmp(thp_mode, "force") == 0) {
        *thp = 1;
        snprintf(note, notelen, "transparent huge pages requested (shmem_enabled=%s)",
                 thp_mode);
        return TERN_OK;
    }
    if (mode == TN_HUGE_ON) {
        /* Not a bad value: what this node lacks, and the two ways to get it. */
        if (hp)
            snprintf(note, notelen,
                     "TERN_HUGEPAGES=on but no huge pages can be had: the segment "
                     "of %d rank(s) needs %zu hugetlb page(s) of %zu KiB and %ld are "
                     "free (as root: echo %zu > /proc/sys/vm/nr_hugepages), and "
                     "transparent huge pages for shared memory are '%s' (as root: "
                     "echo advise > %s); or set TERN_HUGEPAGES=try",
                     (int)lr, need, hp / 1024, hp_free < 0 ? 0 : hp_free, need, thp_mode,
                     TN_THP_SHMEM);
        else
            snprintf(note, notelen,
                     "TERN_HUGEPAGES=on but no huge pages can be had: this kernel "
                     "offers no hugetlb pages (no Hugepagesize in /proc/meminfo) "
                     "and transparent huge pages for shared memory are '%s' (%s); "
                     "set TERN_HUGEPAGES=try",
                     thp_mode, TN_THP_SHMEM);
        return TERN_ERR_NOMEM;
    }
    snprintf(note, notelen,
             "4 KiB pages: no free hugetlb pages for %d rank(s) (HugePages_Free=%ld; "
             "reserve with /proc/sys/vm/nr_hugepages) and shared-memory THP is "
             "'%s' (/sys/kernel/mm/transparent_hugepage/shmem_enabled)",
             local_ranks, hp_free < 0 ? 0 : hp_free, thp_mode);
    return TERN_OK;
}

size_t tn_thp_mapped_bytes(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    int in_map = 0;
    size_t kb = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
            strchr(line, '-') < strchr(line, ' ')) {
            in_map = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
            continue;
        }
        unsigned long v;
        if (in_map && sscanf(line, "ShmemPmdMapped: %lu kB", &v) == 1) {
            kb = v;
            break;
        }
    }
    fclose(f);
    return kb * 1024;
}
