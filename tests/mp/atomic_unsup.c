/* An atomic domain that needs the network while the network transport
 * carries out none of its ops (TERN_OFI_ATOMICS=0): creation fails with
 * TERN_ERR_UNSUPPORTED and a message naming the ops and the provider,
 * on every rank alike; on one node the same domain is CPU atomics. */
#include <string.h>

#include "mp_util.h"

int main(int argc, char **argv)
{
    int me = mp_init(&argc, &argv, TERN_THREAD_SINGLE);
    int all_mapped = 1;
    for (int r = 0; r < tern_size(); r++)
        all_mapped &= mp_mapped(r);
    tern_ad_t ad;
    mp_capture_begin();
    int rc = tern_ad_create(TERN_AT_U64, TERN_OP_FADD | TERN_OP_CSWAP, 0, &ad);
    const char *msg = mp_capture_end();
    if (all_mapped) {
        MP_OK(rc);
        int impl;
        MP_OK(tern_ad_info(ad, &impl, NULL, 0));
        MP_CHECK(impl == TERN_AD_IMPL_CPU, "implementation %d on one node", impl);
        MP_OK(tern_ad_destroy(ad));
    } else {
        MP_CHECK(rc == TERN_ERR_UNSUPPORTED, "create returned %d", rc);
        MP_CHECK(strstr(msg, "does not carry out cswap, fadd on u64") &&
                     strstr(msg, "TERN_OFI_ATOMICS=0") && strstr(msg, "provider"),
                 "message: %s", msg);
        if (me == 0)
            printf("refused as it should be: %s", msg);
    }
    return mp_finish("atomic_unsup");
}
