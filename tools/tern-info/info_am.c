/* tern-info: the active-message limits the current TERN_AM_* values give,
 * per transport (computed by the transports' own sizing functions). */
#include <stdio.h>

#include <tern.h>

#include "base/cfg.h"
#include "tern_info.h"
#include "xport/shm/shm.h"
#ifdef TERN_HAVE_OFI
#include "xport/ofi/ofi.h"
#endif

void ti_print_am(FILE *out)
{
    char s1[32], s2[32], s3[32];
    size_t ring = tn_shm_queue_bytes();
    size_t shm_max = tn_shm_queue_msg_max(ring) - TN_XPORT_MSG_OVERHEAD;
    size_t medium = tn_cfg.am_medium_max < shm_max ? tn_cfg.am_medium_max : shm_max;
    fprintf(out, "\nActive messages (TERN_AM_*)\n");
    fprintf(out, "  arguments      up to %d x 64 bit; handler indexes 0..%d\n",
            TERN_AM_MAX_ARGS, TERN_AM_MAX_HANDLERS - 1);
    tn_cfg_format_size(medium, s1, sizeof(s1));
    fprintf(out,
            "  Medium         up to %s (TERN_AM_MEDIUM_MAX); Long: any length that "
            "fits the target's segment\n",
            s1);
    tn_cfg_format_size(ring, s1, sizeof(s1));
    tn_cfg_format_size(64 * tn_shm_ctrl_bytes(1), s2, sizeof(s2));
    fprintf(out,
            "  shm            one queue per ordered pair of a node's ranks: %zu "
            "slots of 64 B and %s of data (TERN_AM_SHM_QUEUE); %s per rank at 64 ranks "
            "per node\n",
            tn_shm_queue_slots(ring), s1, s2);
#ifdef TERN_HAVE_OFI
    size_t buf;
    long nrx, ntx;
    tn_ofi_msg_plan(0, &buf, &nrx, &ntx);
    tn_cfg_format_size(buf, s1, sizeof(s1));
    tn_cfg_format_size((size_t)nrx * buf, s2, sizeof(s2));
    tn_cfg_format_size((size_t)ntx * buf, s3, sizeof(s3));
    fprintf(out,
            "  ofi            %ld messages outstanding per peer (TERN_AM_NET_CREDITS); "
            "%ld receive buffers of %s = %s (TERN_AM_NET_RECV), %ld posted while "
            "messages come a few at a time, more under a flood; %ld send buffers = %s; "
            "messages up to the provider's inject size go by fi_inject\n",
            tn_cfg.am_net_credits < 2 ? 2L : (long)tn_cfg.am_net_credits, nrx, s1, s2,
            nrx < TN_OFI_RX_WARM ? nrx : (long)TN_OFI_RX_WARM, ntx, s3);
#endif
}
