/* tn_poll_ms (base/time.h): the poll() timeout of the bootstrap's and
 * ternrun's waits, from seconds. Rounded up, never negative, and INT_MAX
 * for what an int cannot hold (TERN_BOOT_TIMEOUT=1e23 once gave a
 * negative timeout through an undefined cast: an unbounded wait). */
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "base/time.h"
#include "unit_check.h"

int main(void)
{
    CHECK(tn_poll_ms(0) == 0);
    CHECK(tn_poll_ms(-5) == 0);
    CHECK(tn_poll_ms(NAN) == 0);
    CHECK(tn_poll_ms(1e-9) == 1);
    CHECK(tn_poll_ms(0.0005) == 1);
    CHECK(tn_poll_ms(1.0) == 1001);
    CHECK(tn_poll_ms(60) == 60001);
    CHECK(tn_poll_ms(2e6) == 2000000001);
    CHECK(tn_poll_ms(2.2e6) == INT_MAX);
    CHECK(tn_poll_ms(1e23) == INT_MAX);
    CHECK(tn_poll_ms(INFINITY) == INT_MAX);
    /* Every value just under the limit stays positive. */
    for (double s = (INT_MAX - 1) / 1000.0 - 0.01; s < (INT_MAX - 1) / 1000.0 + 0.01;
         s += 0.0007)
        CHECK(tn_poll_ms(s) > 0);
    printf("test_time: PASS\n");
    return 0;
}
