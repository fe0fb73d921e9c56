/* The process's private resident memory, for memory accounting. */
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t tn_mem_rss_anon(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    size_t kb = 0;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, "RssAnon:", 8) == 0) {
            kb = (size_t)strtoull(line + 8, NULL, 10);
            break;
        }
    fclose(f);
    return kb * 1024;
}
