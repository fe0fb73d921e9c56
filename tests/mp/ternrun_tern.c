/* A real Tern program for ternrun's failure tests (ternrun_cases.sh
 * tern_*): ranks initialize, meet in tern_barrier, then one misbehaves
 * while the others wait in a barrier of the shared-memory transport,
 * where only ternrun can end them.
 *   --pid-dir D     write D/<rank>.pid
 *   --crash R       rank R dies of SIGSEGV after start-up
 *   --abort R C     rank R calls tern_abort(C, ...)
 *   --no-final R    rank R exits 0 without tern_finalize
 *   --exit-mid R C  rank R calls exit(C) while the others get from it in
 *                   a loop, each exiting 1 when a get fails
 *   --no-init R     rank R never calls tern_init (sleeps 30 s)
 * Exit codes: 0 pass, 1 fail. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tern.h>

int main(int argc, char **argv)
{
    int crash = -1, abort_rank = -1, abort_code = 0, no_final = -1, no_init = -1,
        exit_mid = -1, exit_mid_code = 0;
    const char *pid_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pid-dir") && i + 1 < argc)
            pid_dir = argv[++i];
        else if (!strcmp(argv[i], "--crash") && i + 1 < argc)
            crash = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--abort") && i + 2 < argc) {
            abort_rank = atoi(argv[++i]);
            abort_code = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--no-final") && i + 1 < argc)
            no_final = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-init") && i + 1 < argc)
            no_init = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--exit-mid") && i + 2 < argc) {
            exit_mid = atoi(argv[++i]);
            exit_mid_code = atoi(argv[++i]);
        } else {
            fprintf(stderr, "ternrun_tern: unknown argument '%s'\n", argv[i]);
            return 1;
        }
    }
    const char *env_rank = getenv("TERN_BOOT_RANK");
    int me = env_rank ? atoi(env_rank) : 0;
    if (pid_dir) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%d.pid", pid_dir, me);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%d\n", (int)getpid());
            fclose(f);
        }
    }
    if (me == no_init) {
        sleep(30);
        return 0;
    }
    int rc = tern_init(&argc, &argv, TERN_THREAD_SINGLE);
    if (rc != TERN_OK) {
        fprintf(stderr, "ternrun_tern: tern_init: %s\n", tern_strerror(rc));
        return 1;
    }
    if (tern_barrier() != TERN_OK)
        return 1;
    if (me == crash) {
        /* Die of the signal as a program without handlers would, also in
         * TERN_SANITIZE builds, whose runtime handles SIGSEGV itself. */
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    if (me == abort_rank)
        tern_abort(abort_code, "ternrun_tern asked for this abort");
    if (me == no_final)
        return 0;
    if (exit_mid >= 0) {
        static char word[64]; /* a global: the static region */
        char back[64];
        if (me == exit_mid) {
            usleep(200000); /* the others well inside their gets */
            exit(exit_mid_code);
        }
        void *src = tern_sym_addr(exit_mid, word);
        for (;;)
            if (tern_get(back, exit_mid, src, sizeof(back), 0) != TERN_OK) {
                fprintf(stderr, "ternrun_tern: rank %d: a get from rank %d failed\n", me,
                        exit_mid);
                exit(1);
            }
    }
    if (tern_barrier() != TERN_OK) /* where the others wait */
        return 1;
    rc = tern_finalize();
    if (rc != TERN_OK) {
        fprintf(stderr, "ternrun_tern: tern_finalize: %s\n", tern_strerror(rc));
        return 1;
    }
    if (me == 0)
        printf("ternrun_tern: PASS\n");
    return 0;
}
