/* tern.h is strict C99: compiled with -std=c99 -pedantic-errors. */
#include <tern.h>

int main(void)
{
    char buf[8] = {0};
    tern_event_t ev = TERN_EVENT_DONE;
    int rc = tern_put(0, buf, buf, sizeof buf, 0);
    rc |= tern_ctx_get_nb(TERN_CTX_DEFAULT, buf, 0, buf, sizeof buf, &ev, 0);
    rc |= tern_event_wait(ev);
    return rc == TERN_OK ? 1 : 0; /* refused before tern_init */
}
