/* Child processes for the benchmarks that time whole programs (faultin,
 * startup): running one with a chosen environment, capturing its output,
 * and finding tern-bench itself and ternrun. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int tb_run_child(char *const argv[], char *const env[], char *out, size_t outlen,
                 double *elapsed_s)
{
    int fd[2];
    if (pipe2(fd, O_CLOEXEC) != 0)
        return -1;
    fflush(NULL);
    uint64_t t0 = tb_now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        dup2(fd[1], STDERR_FILENO);
        execve(argv[0], argv, env ? env : environ);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    size_t len = 0;
    char sink[4096];
    for (;;) {
        /* Keep reading after out is full so the child never blocks on a
         * full pipe. */
        char *dst = len + 1 < outlen ? out + len : sink;
        size_t room = len + 1 < outlen ? outlen - 1 - len : sizeof sink;
        ssize_t n = read(fd[0], dst, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (dst != sink)
            len += (size_t)n;
    }
    close(fd[0]);
    if (outlen)
        out[len < outlen ? len : outlen - 1] = '\0';
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (elapsed_s)
        *elapsed_s = (double)(tb_now_ns() - t0) * 1e-9;
    return status;
}

char **tb_env_with(const char *const sets[], int nsets)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + (size_t)nsets + 1, sizeof *env);
    if (!env)
        tb_die("out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = environ[i];
        /* A child started from a rank must not try to join that rank's job. */
        if (!strncmp(e, "TERN_BOOT_", 10))
            continue;
        int replaced = 0;
        for (int s = 0; s < nsets; s++) {
            size_t kl = strcspn(sets[s], "=");
            if (!strncmp(e, sets[s], kl) && e[kl] == '=')
                replaced = 1;
        }
        if (!replaced)
            env[k++] = strdup(e);
    }
    for (int s = 0; s < nsets; s++)
        env[k++] = strdup(sets[s]);
    env[k] = NULL;
    return env;
}

void tb_env_free(char **env)
{
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
}

const char *tb_self_exe(void)
{
    static char path[PATH_MAX];
    if (!path[0]) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        if (n <= 0)
            tb_die("cannot read /proc/self/exe: %s", strerror(errno));
        path[n] = '\0';
    }
    return path;
}

static int try_path(char *out, size_t len, const char *dir, const char *rel)
{
    struct stat st;
    snprintf(out, len, "%s/%s", dir, rel);
    return stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0;
}

int tb_find_ternrun(char *out, size_t len)
{
    const char *env = getenv("TB_TERNRUN");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return access(out, X_OK) == 0 ? 0 : -1;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", tb_self_exe());
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    /* Installed: both in bindir. Build tree: build/bench/tern-bench and
     * build/tools/ternrun/ternrun. */
    if (try_path(out, len, dir, "ternrun") ||
        try_path(out, len, dir, "../tools/ternrun/ternrun") ||
        try_path(out, len, dir, "../tools/ternrun"))
        return 0;
    const char *path = getenv("PATH");
    if (path) {
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", path);
        for (char *d = strtok(copy, ":"); d; d = strtok(NULL, ":"))
            if (try_path(out, len, d, "ternrun"))
                return 0;
    }
    return -1;
}
