/* tern-info: which broadcast, allreduce and all-to-all algorithm a team takes
 * by size, with the thresholds the current TERN_COLL_* variables give
 * (docs/design/collectives.md). */
#include <stdio.h>

#include <tern.h>

#include "base/cfg.h"
#include "core/coll.h"
#include "tern_info.h"

void ti_print_coll(FILE *out)
{
    char eager[32], ring[32], wring[32], chunk[32], chain[32], medium[32], msgs[32];
    size_t e = tn_cfg.coll_eager, be = tn_cfg.coll_bcast_eager;
    size_t m = tn_cfg.am_medium_max;
    size_t lim = be < e ? be : e;
    tn_cfg_format_size(lim, eager, sizeof(eager));
    size_t r = e * (size_t)(tn_cfg.coll_eager_depth < 1 ? 1 : tn_cfg.coll_eager_depth);
    tn_cfg_format_size(r, ring, sizeof(ring));
    tn_cfg_format_size(tn_cfg.coll_world_ring > r ? tn_cfg.coll_world_ring : r, wring,
                       sizeof(wring));
    tn_cfg_format_size(tn_cfg.coll_pipe_chunk, chunk, sizeof(chunk));
    tn_cfg_format_size(tn_cfg.coll_bcast_chain, chain, sizeof(chain));
    tn_cfg_format_size(m, medium, sizeof(medium));
    tn_cfg_format_size(
        m * (size_t)(tn_cfg.coll_put_flag_msgs > 0 ? tn_cfg.coll_put_flag_msgs : 0), msgs,
        sizeof(msgs));
    fprintf(out, "\nCollectives (TERN_COLL_*): algorithm by size\n");
    fprintf(out,
            "  broadcast      on one node up to %d B one way through the root's half; "
            "above, every "
            "member reads the root's src in place between two barriers\n",
            TN_COLL_FAST);
    if (lim)
        fprintf(out,
                "                 across nodes up to %s eager: down a binomial tree into "
                "the members' "
                "rings (%s per team, %s for the world team; TERN_COLL_BCAST_EAGER, "
                "TERN_COLL_EAGER[_DEPTH], TERN_COLL_WORLD_RING)\n",
                eager, ring, wring);
    char bput[32];
    tn_cfg_format_size(tn_cfg.coll_bcast_put, bput, sizeof(bput));
    if (lim)
        fprintf(out,
                "                 eager above %s: to a child reached by ordered "
                "network writes, one write into its ring that carries its flag "
                "(TERN_COLL_BCAST_PUT, TERN_OFI_SIGNAL); else the ring writes below\n",
                bput);
    fprintf(out,
            "                 above: pipelined, chunks of %s put into each dest and "
            "forwarded as they arrive (TERN_COLL_PIPE_CHUNK), down a binomial tree, "
            "from %s down a chain for teams of 3 or more (TERN_COLL_BCAST_CHAIN)\n",
            tn_cfg.coll_pipe_chunk ? chunk : "the whole size", chain);
    fprintf(out,
            "  ring writes    up to %s one active message with its flag; up to %s "
            "several, the flag on the last (TERN_COLL_PUT_FLAG_MSGS); above, a put "
            "and the flag\n",
            medium, msgs);
    char leader[32], tree[32];
    tn_cfg_format_size(tn_cfg.coll_leader_max, leader, sizeof(leader));
    tn_cfg_format_size(tn_cfg.coll_tree_max, tree, sizeof(tree));
    fprintf(
        out,
        "  allreduce      across nodes, where the ring holds it: up to %s through one "
        "leader per node for teams with 3 or more members on a node "
        "(TERN_COLL_LEADER_MAX), else up to %s recursive doubling "
        "(TERN_COLL_TREE_MAX); where they do not fit, a pushed binomial tree up to "
        "%d B / ceil(log2 n) per child's region\n",
        leader, tree, 4 * TN_COLL_FAST);
    char piece[32], rhd[32], pair[32], ppiece[32];
    tn_cfg_format_size(tn_cfg.coll_ring_piece, piece, sizeof(piece));
    tn_cfg_format_size(tn_cfg.coll_pair_piece, ppiece, sizeof(ppiece));
    tn_cfg_format_size(tn_cfg.coll_rhd_max, rhd, sizeof(rhd));
    tn_cfg_format_size(tn_cfg.coll_rhd_pair_max < tn_cfg.coll_rhd_max
                           ? tn_cfg.coll_rhd_pair_max
                           : tn_cfg.coll_rhd_max,
                       pair, sizeof(pair));
    fprintf(out,
            "                 across nodes above those, teams of 2^k members up to %s "
            "(TERN_COLL_RHD_MAX): reduce-scatter by recursive halving and allgather by "
            "recursive doubling into the partners' dests; 2 members up to %s "
            "(TERN_COLL_RHD_PAIR_MAX): both put their whole data into the other's "
            "dest in pieces of %s (TERN_COLL_PAIR_PIECE), each combined there as it "
            "arrives\n",
            rhd, pair, tn_cfg.coll_pair_piece ? ppiece : "the whole data");
    fprintf(
        out,
        "                 across nodes above those: ring reduce-scatter and allgather "
        "over the members by node, pieces of %s (TERN_COLL_RING_PIECE) put into the "
        "next member's dest and forwarded as they arrive; on one node above %d B a "
        "reduce-scatter in place\n",
        tn_cfg.coll_ring_piece ? piece : "1/n of the data", TN_COLL_FAST);
    char ea[32], xp[32];
    tn_cfg_format_size(e, ea, sizeof(ea));
    tn_cfg_format_size(tn_cfg.coll_xchg_piece, xp, sizeof(xp));
    fprintf(out,
            "  alltoall       across nodes, result per member up to %s through one "
            "leader per node for teams with 2 or more members on a node, where it takes "
            "half the ring (TERN_COLL_LEADER_MAX); else up to %s eager, every block "
            "with its flag into its member's ring; above, one barrier and every block "
            "up to %s pushed into its dest as one message, larger blocks (fcollect's "
            "too) put into it in pieces of %s (TERN_COLL_XCHG_PIECE), the flag behind "
            "the last\n",
            leader, ea, medium, tn_cfg.coll_xchg_piece ? xp : "the whole block");
}
