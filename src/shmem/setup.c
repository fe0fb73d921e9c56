/* Library setup, exit and query (OpenSHMEM 1.6 section "Library Setup,
 * Exit, and Query Routines" and "Thread Support"), the environment
 * variables of the specification, and the library's messages.
 *
 * Re-initialization: OpenSHMEM 1.6 lets a program initialize again after
 * its last shmem_finalize; Tern cannot be started twice in a process. So
 * Tern is started by the first initialization and stays up until the
 * process exits (an exit handler calls tern_finalize); the last
 * shmem_finalize releases what OpenSHMEM owns (contexts, the symmetric
 * heap's allocations) and the next initialization builds it again.
 *
 * A program that ends with status 0 while initialized (no shmem_finalize)
 * is finalized at exit, as Sandia OpenSHMEM does: see at_exit. */
#include <errno.h>
#include <math.h> /* isfinite */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "shmemx.h"
#include "tshmem.h"

tshmem_state_t tshmem_g = {.mype = -1};

/* ---- messages ---------------------------------------------------------------- */

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (tshmem_g.mype >= 0)
        fprintf(stderr, "shmem[%d@%s] %s: %s\n", tshmem_g.mype, tshmem_g.host, kind, msg);
    else
        fprintf(stderr, "shmem %s: %s\n", kind, msg);
    fflush(stderr);
}

void tshmem_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("error", fmt, ap);
    va_end(ap);
}

void tshmem_debug_note(const char *fmt, ...)
{
    if (!tshmem_g.debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    vmessage("debug", fmt, ap);
    va_end(ap);
}

void tshmem_fatal(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fflush(NULL);
    if (tshmem_g.tern_up)
        tern_abort(1, msg); /* Tern names this rank and host; ends every PE */
    fprintf(stderr, "shmem error: %s\n", msg);
    _exit(1);
}

/* ---- environment ----------------------------------------------------------------- */

/* SHMEM_X, or the deprecated SMA_X when SHMEM_X is not set. */
static const char *spec_env(const char *name)
{
    char buf[64];
    const char *v = getenv(name);
    if (v)
        return v;
    snprintf(buf, sizeof(buf), "SMA_%s", name + strlen("SHMEM_"));
    return getenv(buf);
}

/* The specification gives SHMEM_DEBUG, SHMEM_VERSION and SHMEM_INFO the
 * value "any": set means on. 0, no, off and false (and empty) are read as
 * off, as users who write SHMEM_DEBUG=0 mean. */
static int env_on(const char *name)
{
    const char *v = spec_env(name);
    if (!v || !*v)
        return 0;
    return !(strcmp(v, "0") == 0 || strcasecmp(v, "no") == 0 ||
             strcasecmp(v, "off") == 0 || strcasecmp(v, "false") == 0);
}

/* SHMEM_SYMMETRIC_SIZE per the specification: a non-negative integer or
 * floating point number with an optional k, m, g or t (either case,
 * powers of 1024); characters after the multiplier are ignored; the
 * result is rounded up. Returns 0 and *bytes, or -1. */
static int parse_symmetric_size(const char *s, size_t *bytes)
{
    const char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!((*p >= '0' && *p <= '9') || *p == '.'))
        return -1; /* no sign, no "inf", no "nan" */
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (errno || end == p || !isfinite(v) || v < 0)
        return -1;
    double mult = 1;
    switch (*end) {
    case '\0': break;
    case 'k':
    case 'K': mult = 1024.0; break;
    case 'm':
    case 'M': mult = 1024.0 * 1024; break;
    case 'g':
    case 'G': mult = 1024.0 * 1024 * 1024; break;
    case 't':
    case 'T': mult = 1024.0 * 1024 * 1024 * 1024; break;
    default: return -1;
    }
    double b = v * mult;
    if (b >= 9.0e18)
        return -1;
    size_t n = (size_t)b;
    *bytes = (double)n < b ? n + 1 : n; /* rounded up */
    return 0;
}

/* Maps the specification's variables onto Tern's before tern_init:
 * SHMEM_SYMMETRIC_SIZE becomes TERN_SEGMENT_SIZE (the symmetric heap is the
 * Tern segment) unless the user set TERN_SEGMENT_SIZE, which then wins.
 * Returns 0, or -1 after a message for a bad value. */
static int read_env(void)
{
    tshmem_g.debug = env_on("SHMEM_DEBUG");
    const char *sym = spec_env("SHMEM_SYMMETRIC_SIZE");
    if (!sym)
        return 0;
    size_t bytes;
    if (parse_symmetric_size(sym, &bytes) != 0) {
        tshmem_error("SHMEM_SYMMETRIC_SIZE='%s' is not a size: give a non-negative "
                     "number of bytes with an optional k, m, g or t (powers of 1024), "
                     "such as 512m or 1.5G",
                     sym);
        return -1;
    }
    const char *seg = getenv("TERN_SEGMENT_SIZE");
    if (seg) {
        tshmem_debug_note("SHMEM_SYMMETRIC_SIZE=%s is ignored: TERN_SEGMENT_SIZE=%s is "
                          "set and sizes the symmetric heap",
                          sym, seg);
        return 0;
    }
    char buf[32];
    snprintf(buf, sizeof(buf), "%zu", bytes ? bytes : (size_t)1);
    if (setenv("TERN_SEGMENT_SIZE", buf, 1) != 0) {
        tshmem_error("cannot set TERN_SEGMENT_SIZE for SHMEM_SYMMETRIC_SIZE=%s: %s", sym,
                     strerror(errno));
        return -1;
    }
    return 0;
}

static void print_version(void)
{
    printf("%s: OpenSHMEM %d.%d (Tern %d.%d.%d)\n", SHMEM_VENDOR_STRING,
           SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, TERN_VERSION_MAJOR,
           TERN_VERSION_MINOR, TERN_VERSION_PATCH);
}

static void print_info(void)
{
    static const struct {
        const char *name, *help;
    } vars[] = {
        {"SHMEM_VERSION", "any value: print the library version at start-up"},
        {"SHMEM_INFO", "any value: print this text at start-up"},
        {"SHMEM_SYMMETRIC_SIZE",
         "bytes of symmetric heap per PE (k, m, g, t suffixes; 1.5G); sets "
         "TERN_SEGMENT_SIZE unless that is set"},
        {"SHMEM_DEBUG", "any value but 0/no/off/false: check arguments and explain "
                        "failures"},
    };
    print_version();
    printf("Environment variables (the SMA_ names are read when the SHMEM_ ones are "
           "not set):\n");
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = spec_env(vars[i].name);
        printf("  %-22s %s\n  %-22s (now: %s)\n", vars[i].name, vars[i].help, "",
               v ? v : "not set");
    }
    printf("  symmetric heap: %zu bytes per PE; every TERN_* variable: tern-info\n",
           tshmem_g.heap_size);
}

/* ---- start-up ------------------------------------------------------------------- */

#ifdef __GLIBC__
static void at_exit(int status, void *arg);
#else
static void at_exit_nostatus(void);
#endif

/* Symmetric heap and peer tables from Tern; returns 0 or -1 (message
 * given). */
static int build_tables(void)
{
    int n = tern_size();
    uintptr_t *base = malloc((size_t)n * sizeof(*base));
    unsigned char *mapped = malloc((size_t)n);
    if (!base || !mapped) {
        free(base);
        free(mapped);
        tshmem_error("no memory for the tables of %d PEs", n);
        return -1;
    }
    for (int pe = 0; pe < n; pe++) {
        void *b;
        size_t sz;
        int rc = tern_segment_query(pe, &b, &sz);
        if (rc != TERN_OK) {
            free(base);
            free(mapped);
            tshmem_error("tern_segment_query(%d): %s", pe, tern_strerror(rc));
            return -1;
        }
        base[pe] = (uintptr_t)b;
        mapped[pe] = tern_ptr(pe, b) != NULL;
        if (pe == tern_rank()) {
            tshmem_g.heap_base = (uintptr_t)b;
            tshmem_g.heap_size = sz;
        }
    }
    tshmem_g.peer_base = base;
    tshmem_g.peer_mapped = mapped;
    /* Global and static variables: Tern's static region (absent: size 0). */
    uintptr_t *sbase = calloc((size_t)n, sizeof(*sbase));
    if (!sbase) {
        tshmem_error("no memory for the tables of %d PEs", n);
        return -1;
    }
    size_t ssz = 0;
    for (int pe = 0; pe < n; pe++) {
        void *b = NULL;
        int rc = tern_static_query(pe, &b, pe == tern_rank() ? &ssz : NULL);
        if (rc != TERN_OK) {
            free(sbase);
            tshmem_error("tern_static_query(%d): %s", pe, tern_strerror(rc));
            return -1;
        }
        sbase[pe] = (uintptr_t)b;
    }
    tshmem_g.peer_static = sbase;
    tshmem_g.static_base = sbase[tern_rank()];
    tshmem_g.static_size = ssz;
    return 0;
}

/* First initialization of the process: Tern and the tables. */
static int start_tern(int requested)
{
    if (read_env() != 0)
        return -1;
    int rc = tern_init(NULL, NULL, requested);
    if (rc != TERN_OK) {
        tshmem_error("starting Tern failed: %s (the cause is logged above)",
                     tern_strerror(rc));
        return -1;
    }
    tshmem_g.tern_up = 1;
    tshmem_g.mype = tern_rank();
    if (gethostname(tshmem_g.host, sizeof(tshmem_g.host)) != 0)
        snprintf(tshmem_g.host, sizeof(tshmem_g.host), "?");
    tshmem_g.host[sizeof(tshmem_g.host) - 1] = '\0';
    tshmem_g.thread_level = tern_thread_level();
    if (build_tables() != 0)
        return -1;
    /* Blocking puts to network PEs return at local completion, as the
     * specification allows; TSHMEM_PUT_LOCAL=0 waits for remote completion
     * (measurement switch, see rma.c and docs/design/net-put.md). */
    const char *pm = getenv("TSHMEM_PUT_LOCAL");
    tshmem_g.put_local = !(pm && *pm == '0');
    /* on_exit gives the exit status (atexit does not); registered after
     * tern_init, so it runs before Tern's own exit handler. */
#ifdef __GLIBC__
    on_exit(at_exit, NULL);
#else
    atexit(at_exit_nostatus);
#endif
    if (tshmem_g.mype == 0) {
        if (env_on("SHMEM_INFO"))
            print_info();
        else if (env_on("SHMEM_VERSION"))
            print_version();
        fflush(stdout);
    }
    return 0;
}

/* Any initialization: Tern once, then what OpenSHMEM owns. */
static int init(int requested, const char *call)
{
    if (tshmem_g.init_count > 0) { /* nested: only counted */
        tshmem_g.init_count++;
        return 0;
    }
    if (!tshmem_g.tern_up && start_tern(requested) != 0)
        return -1;
    if (tshmem_ctx_init() != 0 || tshmem_teams_init() != 0 || tshmem_amo_init() != 0)
        return -1;
    tshmem_g.npes = (uint32_t)tern_size();
    tshmem_g.init_count = 1;
    tshmem_fast_on();
    if (tshmem_g.ever_finalized && requested > tshmem_g.thread_level)
        tshmem_debug_note("%s: thread level %d asked on re-initialization; this "
                          "process keeps the level of its first one, %d",
                          call, requested, tshmem_g.thread_level);
    return 0;
}

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        tshmem_error("shmem_init_thread: requested thread level %d is not one of "
                     "SHMEM_THREAD_SINGLE (0) .. SHMEM_THREAD_MULTIPLE (3)",
                     requested);
        return 1;
    }
    if (init(requested, "shmem_init_thread") != 0)
        return 1;
    if (provided)
        *provided = tshmem_g.thread_level;
    return 0;
}

void shmem_init(void)
{
    /* The specification leaves the level of shmem_init to the library:
     * single, the cheapest. */
    if (init(SHMEM_THREAD_SINGLE, "shmem_init") == 0)
        return;
    /* It returns nothing: end the program (the cause is printed). */
    if (tshmem_g.tern_up)
        tshmem_fatal("shmem_init failed (see above)");
    exit(1);
}

void start_pes(int npes)
{
    (void)npes;
    if (tshmem_g.init_count > 0)
        return; /* "more than once has no subsequent effect" */
    shmem_init();
    tshmem_g.start_pes = 1;
}

void shmem_query_thread(int *provided)
{
    if (provided)
        *provided = tshmem_g.thread_level;
}

/* ---- finalization ------------------------------------------------------------------ */

/* Seconds a finalize at exit waits for the other PEs before it says, once,
 * why the job has not ended: TSHMEM_EXIT_NOTE_S (a test switch; 10). */
static double exit_note_s(void)
{
    const char *v = getenv("TSHMEM_EXIT_NOTE_S");
    char *end;
    double s = v ? strtod(v, &end) : 10.0;
    return v && (end == v || !(s >= 0) || s > 1e6) ? 10.0 : s;
}

/* The note of a PE finalizing at exit whose peers do not finalize (they
 * wait for it, or compute without end): a thread that prints it once
 * after exit_note_s() seconds unless the finalize is over by then. A
 * thread, so that the finalize itself is shmem_finalize's, barriers
 * included (they are waited for in Tern, which has no timed wait). It
 * calls nothing of Tern's. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    double secs;
} exit_note = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};

static void *exit_note_main(void *arg)
{
    (void)arg;
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    double s = exit_note.secs;
    dl.tv_sec += (time_t)s;
    dl.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    int timed_out = 0;
    pthread_mutex_lock(&exit_note.lock);
    while (!exit_note.done && !timed_out)
        timed_out = pthread_cond_timedwait(&exit_note.cond, &exit_note.lock, &dl) != 0;
    int say = !exit_note.done;
    pthread_mutex_unlock(&exit_note.lock);
    if (say)
        tshmem_error("PE %d ended without shmem_finalize and is finalizing at exit: for "
                     "%.0f s it has waited for the other PEs to finalize; the job ends "
                     "when every PE has called shmem_finalize or ended. If the others "
                     "wait for PE %d instead, the program is missing a shmem_finalize",
                     tshmem_g.mype, s, tshmem_g.mype);
    return NULL;
}

/* Start (on) or stop (!on) the note; *t is the thread (started: 1). */
static int exit_note_ctl(int on, pthread_t *t, int started)
{
    if (on) {
        exit_note.secs = exit_note_s();
        return pthread_create(t, NULL, exit_note_main, NULL) == 0;
    }
    if (!started)
        return 0;
    pthread_mutex_lock(&exit_note.lock);
    exit_note.done = 1;
    pthread_cond_signal(&exit_note.cond);
    pthread_mutex_unlock(&exit_note.lock);
    pthread_join(*t, NULL);
    return 0;
}

/* The last finalize: everyone has arrived and all communication is
 * complete before anything is released. */
static void release(void)
{
    tshmem_fast_off(); /* from here every call checks, as after finalize */
    tshmem_ctx_quiet_(SHMEM_CTX_DEFAULT, "shmem_finalize");
    int rc = tern_barrier();
    if (rc != TERN_OK)
        tshmem_fatal("shmem_finalize: barrier failed: %s", tern_strerror(rc));
    tshmem_teams_fini();
    tshmem_ctx_fini();
    tshmem_alloc_fini();
    tshmem_g.npes = 0;
    tshmem_g.ever_finalized = 1;
}

void shmem_finalize(void)
{
    if (tshmem_g.init_count == 0) {
        tshmem_debug_note("shmem_finalize called while the library is not initialized: "
                          "ignored");
        return;
    }
    if (tshmem_g.init_count > 1) { /* not the last: a barrier_all and no more */
        tshmem_g.init_count--;
        shmem_barrier_all();
        return;
    }
    release();
    tshmem_g.init_count = 0;
    tshmem_g.start_pes = 0;
}

/* Process exit. Tern is finalized (collectively) when every OpenSHMEM
 * initialization was matched by a finalize. A PE still initialized is
 * finalized here, collectively, when the process ends normally with
 * status 0 (main returned 0, or exit(0)) or it was initialized by
 * start_pes: programs written for other OpenSHMEM libraries rely on it
 * (Sandia OpenSHMEM finalizes at exit; 1.6 asks for a matching
 * shmem_finalize). With another status the PE is leaving in the middle
 * of the program (an error exit): it leaves without tern_finalize, so
 * the launcher ends the job with that status instead of this PE waiting
 * for the others forever. known: 0 when the C library cannot tell the
 * status (no on_exit): then only start_pes programs are finalized. */
static void exit_with_status(int status, int known)
{
    if (!tshmem_g.tern_up)
        return;
    if (tshmem_g.init_count > 0 && (tshmem_g.start_pes || (known && status == 0))) {
        if (!tshmem_g.start_pes)
            tshmem_debug_note(
                "the program ended (status 0) without shmem_finalize: PE %d "
                "finalizes at exit, which waits for every PE to finalize",
                tshmem_g.mype);
        fflush(NULL); /* the program's output before the others' */
        pthread_t t;
        int started = !tshmem_g.start_pes && exit_note_ctl(1, &t, 0);
        release();
        tshmem_g.init_count = 0;
        tshmem_g.tern_up = 0;
        int rc = tern_finalize(); /* the launcher's barrier: may wait too */
        exit_note_ctl(0, &t, started);
        if (rc != TERN_OK)
            tshmem_error("tern_finalize at exit: %s", tern_strerror(rc));
        return;
    }
    if (tshmem_g.init_count > 0) {
        /* Also seen when a signal handler calls exit() as the job is ended
         * (a program's own; libinfinipath's, loaded with libfabric, did
         * for SIGTERM until ofi_dl.c put the default back). */
        if (known)
            tshmem_error("exiting with status %d while OpenSHMEM is initialized: the "
                         "job ends (a program that ends with status 0 is finalized at "
                         "exit)",
                         status);
        else
            tshmem_error("exiting while OpenSHMEM is initialized: every shmem_init needs "
                         "a matching shmem_finalize before the program ends (or the job "
                         "is being ended)");
        return;
    }
    tshmem_g.tern_up = 0;
    int rc = tern_finalize();
    if (rc != TERN_OK)
        tshmem_error("tern_finalize at exit: %s", tern_strerror(rc));
}

#ifdef __GLIBC__
static void at_exit(int status, void *arg)
{
    (void)arg;
    exit_with_status(status, 1);
}
#else
static void at_exit_nostatus(void)
{
    exit_with_status(0, 0);
}
#endif

void shmem_global_exit(int status)
{
    char msg[128];
    snprintf(msg, sizeof(msg), "shmem_global_exit(%d) called on PE %d", status,
             tshmem_g.mype);
    fflush(NULL); /* as normal termination would */
    if (tshmem_g.tern_up)
        tern_abort(status, msg);
    _exit(status);
}

/* ---- queries ------------------------------------------------------------------------ */

void shmem_query_initialized(int *initialized)
{
    if (initialized)
        *initialized = tshmem_g.init_count > 0;
}

void shmemx_query_finalized(int *finalized)
{
    if (finalized)
        *finalized = tshmem_g.init_count == 0 && tshmem_g.ever_finalized;
}

int shmem_my_pe(void)
{
    return tshmem_g.init_count > 0 ? tshmem_g.mype : -1;
}

int shmem_n_pes(void)
{
    return (int)tshmem_g.npes;
}

int _my_pe(void)
{
    return shmem_my_pe();
}

int _num_pes(void)
{
    return shmem_n_pes();
}

/* Every PE runs the same executable under one launcher, so every valid PE
 * is accessible. */
int shmem_pe_accessible(int pe)
{
    return (unsigned)pe < tshmem_g.npes;
}

/* Symmetric objects: those of the symmetric heap, and the program's global
 * and static variables (Tern's static region, docs/shmem.md). */
int shmem_addr_accessible(const void *addr, int pe)
{
    if ((unsigned)pe >= tshmem_g.npes)
        return 0;
    return tshmem_is_sym(addr, 1);
}

void *shmem_ptr(const void *dest, int pe)
{
    if ((unsigned)pe >= tshmem_g.npes || !tshmem_is_sym(dest, 1))
        return NULL;
    return tern_ptr(pe, tshmem_remote(pe, dest));
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (!name)
        return;
    _Static_assert(sizeof(SHMEM_VENDOR_STRING) <= SHMEM_MAX_NAME_LEN,
                   "SHMEM_VENDOR_STRING fits SHMEM_MAX_NAME_LEN");
    memcpy(name, SHMEM_VENDOR_STRING, sizeof(SHMEM_VENDOR_STRING));
}
