/* tern-info: how non-contiguous transfers are carried, by peer kind, and
 * the packing threshold the current TERN_VIS_PACK_MAX gives. */
#include <stdio.h>

#include <tern.h>

#include "base/cfg.h"
#include "tern_info.h"

void ti_print_vis(FILE *out)
{
    char s1[32], s2[32];
    fprintf(out, "\nNon-contiguous transfers (TERN_VIS_*)\n");
    fprintf(out,
            "  forms          vector, indexed, strided (up to %d dimensions, stride "
            "optimizer)\n",
            TERN_VIS_MAX_DIMS);
    fprintf(out, "  mapped peers   direct copy loops over the optimized description\n");
    tn_cfg_format_size(tn_cfg.vis_pack_max, s1, sizeof(s1));
    tn_cfg_format_size(tn_cfg.am_medium_max, s2, sizeof(s2));
    if (tn_cfg.vis_pack_max)
        fprintf(out,
                "  network puts   pieces up to %s packed into active messages of up to "
                "%s (TERN_VIS_PACK_MAX, TERN_AM_MEDIUM_MAX); larger: one RMA per piece\n",
                s1, s2);
    else
        fprintf(out, "  network puts   one RMA per piece (TERN_VIS_PACK_MAX=0)\n");
    fprintf(out, "  network gets   one RMA per piece\n");
}
