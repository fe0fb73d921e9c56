// tern.h is C++ includable: every inline call compiles as C++ (and links).
#include <tern.h>

int main()
{
    char buf[8] = {0};
    tern_event_t ev = TERN_EVENT_DONE;
    int rc = tern_put(0, buf, buf, sizeof buf, 0);
    rc |= tern_get(buf, 0, buf, sizeof buf, TERN_FLAG_IMMEDIATE);
    rc |= tern_put_nb(0, buf, buf, sizeof buf, &ev, &ev, 0);
    rc |= tern_get_nb(buf, 0, buf, sizeof buf, &ev, 0);
    rc |= tern_ctx_put_nbi(TERN_CTX_DEFAULT, 0, buf, buf, sizeof buf, 0);
    rc |= tern_get_nbi(buf, 0, buf, sizeof buf, 0);
    rc |= tern_event_wait(ev) | tern_event_test(ev);
    (void)tern_ptr(0, buf);
    // Before tern_init every call is refused: the test only builds and runs.
    return rc == TERN_OK ? 1 : 0;
}
