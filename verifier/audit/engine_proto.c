/* The external-engine line protocol (see engine_proto.h, docs/grading.md §3). */
#include "verifier/audit/engine_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/progress.h"

extern char **environ;

struct ma_engine {
    pid_t pid;           /* also the process group id; 0 once reaped */
    int to_engine;       /* write end of its stdin, -1 closed */
    int from_engine;     /* read end of its stdout, -1 closed */
    double timeout;
    char command[512];
    char name[128];
    char buf[8192];      /* bytes read and not yet consumed */
    size_t len;
};

static void shown(const ma_engine *e, char *out, size_t len)
{
    /* the command as one printable line */
    size_t k = 0;
    for (const char *p = e->command; *p && k + 1 < len; p++)
        out[k++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
    out[k] = '\0';
}

/* Kills the process group and reaps the engine; describes how it ended into why (may be NULL). */
static void kill_and_reap(ma_engine *e, int kill_first, char *why, size_t len)
{
    if (why && len)
        why[0] = '\0';
    if (e->to_engine >= 0)
        close(e->to_engine);
    if (e->from_engine >= 0)
        close(e->from_engine);
    e->to_engine = e->from_engine = -1;
    if (!e->pid)
        return;
    if (kill_first)
        kill(-e->pid, SIGKILL);
    int status = 0;
    pid_t r;
    do
        r = waitpid(e->pid, &status, 0);
    while (r < 0 && errno == EINTR);
    if (r == e->pid && why && len && !kill_first) {
        if (WIFEXITED(status))
            snprintf(why, len, "exit status %d", WEXITSTATUS(status));
        else if (WIFSIGNALED(status))
            snprintf(why, len, "killed by signal %d", WTERMSIG(status));
    }
    e->pid = 0;
}

/* Fails the engine: kills it and sets err to "<what>". */
static int fail(ma_engine *e, ma_error *err, const char *what, const char *where)
{
    char cmd[512];
    shown(e, cmd, sizeof cmd);
    char why[64] = "";
    int exited = strstr(what, "closed its output") != NULL;
    if (exited) {
        /* it closed stdout: give it the timeout to exit on its own before killing it */
        double end = ma_now() + e->timeout;
        int status;
        while (e->pid && ma_now() < end) {
            pid_t r = waitpid(e->pid, &status, WNOHANG);
            if (r == e->pid) {
                if (WIFEXITED(status))
                    snprintf(why, sizeof why, " (exit status %d)", WEXITSTATUS(status));
                else if (WIFSIGNALED(status))
                    snprintf(why, sizeof why, " (killed by signal %d)", WTERMSIG(status));
                e->pid = 0;
                break;
            }
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    kill_and_reap(e, 1, NULL, 0);
    return ma_error_set(err, MA_EFORMAT, "engine '%s': %s%s%s%s", cmd, what, why, where ? ": " : "",
                        where ? where : "");
}

/* Writes all of s; SIGPIPE is blocked and consumed so a dead engine is an error, not a signal. */
static int send_line(ma_engine *e, const char *s, ma_error *err, const char *where)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    size_t len = strlen(s), done = 0;
    int broken = 0;
    while (done < len) {
        ssize_t w = write(e->to_engine, s + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            broken = 1;
            break;
        }
        done += (size_t)w;
    }
    if (broken) {
        /* consume the SIGPIPE this write raised, if any, before unblocking */
        sigset_t pending;
        sigpending(&pending);
        if (sigismember(&pending, SIGPIPE)) {
            struct timespec zero = {0, 0};
            sigtimedwait(&pipe_set, NULL, &zero);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (broken)
        return fail(e, err, "closed its output (it exited)", where);
    return MA_OK;
}

/* Reads one line (without the newline) into line; skips ignorable lines. */
static int read_line(ma_engine *e, char *line, size_t cap, ma_error *err, const char *where)
{
    double deadline = ma_now() + e->timeout;
    for (;;) {
        char *nl = memchr(e->buf, '\n', e->len);
        if (nl) {
            size_t n = (size_t)(nl - e->buf);
            size_t keep = n < cap - 1 ? n : cap - 1;
            memcpy(line, e->buf, keep);
            line[keep] = '\0';
            memmove(e->buf, nl + 1, e->len - n - 1);
            e->len -= n + 1;
            if (keep && line[keep - 1] == '\r')
                line[--keep] = '\0';
            if (!line[0] || line[0] == '#' || !strncmp(line, "info", 4))
                continue;
            return MA_OK;
        }
        if (e->len == sizeof e->buf)
            return fail(e, err, "sent a line longer than 8191 bytes", where);
        double left = deadline - ma_now();
        if (left <= 0) {
            char what[96];
            snprintf(what, sizeof what, "no answer within %.3g s (timeout)", e->timeout);
            return fail(e, err, what, where);
        }
        struct pollfd p = {e->from_engine, POLLIN, 0};
        int ms = (int)(left * 1000.0) + 1;
        int r = poll(&p, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue; /* the deadline check above decides */
        ssize_t got = read(e->from_engine, e->buf + e->len, sizeof e->buf - e->len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return fail(e, err, "closed its output", where);
        e->len += (size_t)got;
    }
}

int ma_engine_start(ma_engine **out, const char *command, double timeout_s, ma_error *err)
{
    *out = NULL;
    if (!command || !*command)
        return ma_error_set(err, MA_EINVAL, "engine: empty command");
    ma_engine *e = calloc(1, sizeof *e);
    if (!e)
        return ma_error_set(err, MA_ENOMEM, "engine: out of memory");
    snprintf(e->command, sizeof e->command, "%s", command);
    e->timeout = timeout_s > 0 ? timeout_s : 10.0;
    e->to_engine = e->from_engine = -1;
    int in[2], outp[2];
    if (pipe(in) != 0) {
        free(e);
        return ma_error_set(err, MA_EINVAL, "engine '%s': pipe: %s", command, strerror(errno));
    }
    if (pipe(outp) != 0) {
        close(in[0]);
        close(in[1]);
        free(e);
        return ma_error_set(err, MA_EINVAL, "engine '%s': pipe: %s", command, strerror(errno));
    }
    /* our ends must not leak into the engine (or into later engines) */
    fcntl(in[1], F_SETFD, FD_CLOEXEC);
    fcntl(outp[0], F_SETFD, FD_CLOEXEC);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[0]);
    posix_spawn_file_actions_addclose(&fa, outp[1]);
    posix_spawnattr_init(&at);
    posix_spawnattr_setpgroup(&at, 0);
    /* the engine starts with default signal handling whatever ours is */
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    posix_spawnattr_setsigdefault(&at, &def);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    char *argv[] = {"sh", "-c", e->command, NULL};
    int rc = posix_spawn(&e->pid, "/bin/sh", &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(in[0]);
    close(outp[1]);
    if (rc != 0) {
        close(in[1]);
        close(outp[0]);
        free(e);
        return ma_error_set(err, MA_EINVAL, "engine '%s': cannot start: %s", command, strerror(rc));
    }
    e->to_engine = in[1];
    e->from_engine = outp[0];
    char line[512];
    rc = send_line(e, "millaudit-engine 1\n", err, "handshake");
    if (!rc)
        rc = read_line(e, line, sizeof line, err, "handshake");
    if (!rc && strncmp(line, "ready", 5) != 0) {
        char what[600];
        snprintf(what, sizeof what, "answered '%.80s' to the handshake, expected 'ready [name]'", line);
        rc = fail(e, err, what, NULL);
    }
    if (rc) {
        kill_and_reap(e, 1, NULL, 0);
        free(e);
        return rc;
    }
    const char *name = line + 5;
    while (*name == ' ')
        name++;
    snprintf(e->name, sizeof e->name, "%.127s", *name ? name : e->command);
    *out = e;
    return MA_OK;
}

void ma_engine_stop(ma_engine *e)
{
    if (!e)
        return;
    if (e->pid && e->to_engine >= 0) {
        ma_error ignored;
        if (send_line(e, "quit\n", &ignored, NULL) == MA_OK) {
            close(e->to_engine);
            e->to_engine = -1;
            double end = ma_now() + (e->timeout < 2.0 ? e->timeout : 2.0);
            int status;
            while (e->pid && ma_now() < end) {
                if (waitpid(e->pid, &status, WNOHANG) == e->pid)
                    e->pid = 0;
                else {
                    struct timespec ts = {0, 5 * 1000 * 1000};
                    nanosleep(&ts, NULL);
                }
            }
        }
    }
    kill_and_reap(e, 1, NULL, 0);
    free(e);
}

const char *ma_engine_name(const ma_engine *e)
{
    return e->name;
}

int ma_engine_choose(ma_engine *e, ma_variant v, ma_sector s, ma_board b, const ma_probe_turn *turns,
                     int n, int *chosen, ma_error *err)
{
    if (!e->pid) {
        char cmd[512];
        shown(e, cmd, sizeof cmd);
        return ma_error_set(err, MA_EFORMAT, "engine '%s': no longer running", cmd);
    }
    char board[80], where[160];
    ma_board_format(b, board, sizeof board);
    snprintf(where, sizeof where, "position %s %s wf=%d bf=%d", ma_variant_name(v), board, s.wf, s.bf);
    size_t cap = 64 + (size_t)n * 16, len = 0;
    char *msg = malloc(cap + 128);
    if (!msg)
        return ma_error_set(err, MA_ENOMEM, "engine: out of memory");
    len += (size_t)snprintf(msg, cap, "%s\nmoves", where);
    for (int i = 0; i < n; i++) {
        char t[24];
        ma_probe_turn_format(&turns[i], t, sizeof t);
        len += (size_t)snprintf(msg + len, cap + 128 - len, " %s", t);
    }
    snprintf(msg + len, cap + 128 - len, "\ngo\n");
    int rc = send_line(e, msg, err, where);
    free(msg);
    char line[512];
    if (!rc)
        rc = read_line(e, line, sizeof line, err, where);
    if (rc)
        return rc;
    if (strncmp(line, "move ", 5) != 0) {
        char what[640];
        snprintf(what, sizeof what, "sent '%.80s', expected 'move <turn>'", line);
        return fail(e, err, what, where);
    }
    const char *mv = line + 5;
    while (*mv == ' ')
        mv++;
    for (int i = 0; i < n; i++) {
        char t[24];
        ma_probe_turn_format(&turns[i], t, sizeof t);
        if (!strcmp(t, mv)) {
            *chosen = i;
            return MA_OK;
        }
    }
    char what[640];
    snprintf(what, sizeof what, "illegal move '%.40s'", mv);
    return fail(e, err, what, where);
}
