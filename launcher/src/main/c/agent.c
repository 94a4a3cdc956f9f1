/*
 * The host agent's lifecycle as the launcher sees it (agent.h): a socket named after the plugin and
 * this installation, an agent started detached when none answers (one per installation, however many
 * first calls race), a failed start remembered for a while, and a second attempt when an agent that
 * was idle exits between our connect and its accept. The agent checks the CALL's protocol version and
 * answers another one with REJECTED: the call then runs in-process.
 */
#define _GNU_SOURCE
#include "agent.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "message.h"

/* How long a launcher waits for a new agent to answer, and how long a failed start is remembered. */
#define START_TIMEOUT_MS 10000
#define FAILURE_MEMORY_S 60

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---------------------------------------------------------------------------------------------
 * Where the agent lives: a directory only this user can enter, a socket named after the plugin and
 * this installation (home path and .launch file identity, so a rebuilt or second installation gets its
 * own agent).
 */
struct agent_paths {
    char dir[PATH_MAX], socket[sizeof(((struct sockaddr_un *) 0)->sun_path)];
    char lock[PATH_MAX], log[PATH_MAX], failed[PATH_MAX];
};

static uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static int private_directory(const char *dir) {
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        because("cannot create socket directory %s: %s", dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(dir, &st) < 0) {
        because("cannot stat socket directory %s: %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        because("socket directory %s is not a directory", dir);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        because("socket directory %s is owned by uid %u, not %u; refusing it", dir, (unsigned) st.st_uid, (unsigned) geteuid());
        return -1;
    }
    if ((st.st_mode & 077) != 0) {
        because("socket directory %s has mode %04o: other users can access it; refusing it (expected 0700)", dir,
                (unsigned) (st.st_mode & 07777));
        return -1;
    }
    return 0;
}

/* out = dir/base+suffix; false when it does not fit. */
static int sibling(char *out, size_t cap, const char *dir, const char *base, const char *suffix) {
    size_t d = strlen(dir), b = strlen(base), x = strlen(suffix);
    if (d + 1 + b + x + 1 > cap) return 0;
    memcpy(out, dir, d);
    out[d] = '/';
    memcpy(out + d + 1, base, b);
    memcpy(out + d + 1 + b, suffix, x + 1);
    return 1;
}

static int agent_paths(struct agent_paths *p) {
    struct stat st;
    if (stat(launch_path, &st) < 0) {
        because("cannot stat %s: %s", launch_path, strerror(errno));
        return -1;
    }
    const char *override = getenv("GPDEDUP_AGENT_DIR");
    if (override != NULL && override[0] != '\0') {
        if (override[0] != '/' || strlen(override) >= sizeof p->dir) {
            because("GPDEDUP_AGENT_DIR must be an absolute path");
            return -1;
        }
        strcpy(p->dir, override);
    } else {
        snprintf(p->dir, sizeof p->dir, "/tmp/gpdedup-%u", (unsigned) geteuid());
    }
    if (private_directory(p->dir) < 0) return -1;
    uint64_t h = 14695981039346656037ULL;
    uint64_t id[5] = {(uint64_t) st.st_dev, (uint64_t) st.st_ino, (uint64_t) st.st_size, (uint64_t) st.st_mtim.tv_sec,
                      (uint64_t) st.st_mtim.tv_nsec};
    h = fnv1a(h, home, strlen(home) + 1);
    h = fnv1a(h, id, sizeof id);
    char base[NAME_MAX + 32];
    snprintf(base, sizeof base, "%s-%016llx", prog, (unsigned long long) h);
    if (!sibling(p->socket, sizeof p->socket, p->dir, base, ".sock")) {
        because("socket path %s/%s.sock is longer than %zu bytes", p->dir, base, sizeof p->socket - 1);
        return -1;
    }
    /* Shorter than PATH_MAX, since the socket path fit in sun_path. */
    sibling(p->lock, sizeof p->lock, p->dir, base, ".lock");
    sibling(p->log, sizeof p->log, p->dir, base, ".log");
    sibling(p->failed, sizeof p->failed, p->dir, base, ".failed");
    return 0;
}

static int connect_agent(const char *socket_path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    strcpy(a.sun_path, socket_path);
    while (connect(fd, (struct sockaddr *) &a, sizeof a) < 0) {
        if (errno == EINTR) continue;
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Closes every descriptor from `first` up, so the agent holds none of the caller's pipes or locks. */
static void close_from(int first) {
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL) {
        long max = sysconf(_SC_OPEN_MAX);
        if (max < 0 || max > 65536) max = 65536;
        for (int fd = first; fd < max; fd++) close(fd);
        return;
    }
    int self = dirfd(d);
    int fds[1024], n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 1024) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd >= first && fd != self) fds[n++] = fd;
    }
    closedir(d);
    for (int i = 0; i < n; i++) close(fds[i]);
}

/*
 * Starts a detached agent (new session, stdio to /dev/null and the log, cwd /). Returns the read end of
 * a pipe whose write end only the agent holds: EOF on it means the agent has exited.
 */
static int spawn_agent(const struct agent_paths *p) {
    struct launch l;
    char java[PATH_MAX];
    int recorded;
    if (read_launch(&l) < 0) return -1;
    if (l.agent_main == NULL || l.definition == NULL) {
        because("%s defines no agent (agent_main=, definition=)", launch_path);
        free(l.text);
        return -1;
    }
    if (find_java(java, sizeof java, &recorded) < 0) {
        free(l.text);
        return -1;
    }
    struct argv_builder b = {0};
    char *cp = expand_home(l.classpath);
    /* The agent maps the same archive as a call run in-process: its classes start parsed and linked too. */
    int ok = cp != NULL && add_arg(&b, java) == 0 && add_words(&b, l.agent_flags) == 0 && add_archive_flag(&b, &l, recorded) == 0 &&
             add_arg(&b, "-cp") == 0 &&
             add_arg(&b, cp) == 0 && add_arg(&b, l.agent_main) == 0 && add_arg(&b, l.definition) == 0 &&
             add_arg(&b, p->socket) == 0 && add_words(&b, l.agent_args) == 0;
    free(cp);
    free(l.text);
    if (!ok) {
        because("out of memory");
        free_args(&b);
        return -1;
    }
    int alive[2];
    if (pipe2(alive, O_CLOEXEC) < 0) {
        because("pipe: %s", strerror(errno));
        free_args(&b);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        because("fork: %s", strerror(errno));
        close(alive[0]);
        close(alive[1]);
        free_args(&b);
        return -1;
    }
    if (pid == 0) {
        if (setsid() < 0) _exit(127);
        pid_t agent = fork();
        if (agent != 0) _exit(agent < 0 ? 127 : 0);
        /* The umask stays the caller's: files the backend creates get the modes an in-process call gives them. */
        int in = open("/dev/null", O_RDONLY);
        int log = open(p->log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600);
        if (log < 0) log = open("/dev/null", O_WRONLY);
        if (in < 0 || log < 0) _exit(127);
        /* Move everything above 3 first, so no dup2 below overwrites a descriptor still needed. */
        int w = fcntl(alive[1], F_DUPFD, 10), i2 = fcntl(in, F_DUPFD, 10), l2 = fcntl(log, F_DUPFD, 10);
        if (w < 0 || i2 < 0 || l2 < 0) _exit(127);
        if (dup2(i2, 0) < 0 || dup2(l2, 1) < 0 || dup2(l2, 2) < 0 || dup2(w, 3) < 0) _exit(127);
        fcntl(3, F_SETFD, 0);
        close_from(4);
        if (chdir("/") < 0) _exit(127);
        execv(b.v[0], b.v);
        _exit(127);
    }
    close(alive[1]);
    free_args(&b);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return alive[0];
}

static int recently_failed(const char *marker) {
    struct stat st;
    if (stat(marker, &st) < 0) return 0;
    time_t age = time(NULL) - st.st_mtime;
    return age >= 0 && age < FAILURE_MEMORY_S;
}

static void remember_failure(const char *marker) {
    int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        dprintf(fd, "%s\n", reason);
        close(fd);
    }
}

static void on_alarm(int sig) {
    (void) sig;
}

/*
 * Connects to the agent, starting one if none answers. Starts are serialised with flock on the lock
 * file, so N concurrent first calls start one agent. Returns a connected socket or -1 (reason set).
 */
static int start_and_connect(const struct agent_paths *p) {
    int lock = open(p->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lock < 0) {
        because("cannot open %s: %s", p->lock, strerror(errno));
        return -1;
    }
    /* Sleep in flock (no polling: hundreds of first calls may queue here while a JVM starts), woken
     * by SIGALRM if the holder takes longer than its own bound. */
    struct sigaction wake = {0}, old;
    wake.sa_handler = on_alarm;
    sigemptyset(&wake.sa_mask);
    sigaction(SIGALRM, &wake, &old); /* no SA_RESTART: flock returns EINTR */
    alarm(START_TIMEOUT_MS / 1000 + 2);
    int locked = flock(lock, LOCK_EX);
    int lock_errno = errno;
    alarm(0);
    sigaction(SIGALRM, &old, NULL);
    if (locked < 0) {
        if (lock_errno == EINTR) because("timed out waiting for another launcher to start the agent");
        else because("cannot lock %s: %s", p->lock, strerror(lock_errno));
        close(lock);
        return -1;
    }
    int fd = connect_agent(p->socket);
    if (fd >= 0) {
        close(lock);
        return fd;
    }
    if (recently_failed(p->failed)) {
        because("the agent failed to start less than %d s ago (see %s and %s)", FAILURE_MEMORY_S, p->failed, p->log);
        close(lock);
        return -1;
    }
    int alive = spawn_agent(p);
    if (alive < 0) {
        remember_failure(p->failed);
        close(lock);
        return -1;
    }
    long long deadline = now_ms() + START_TIMEOUT_MS;
    int wait = 1, exited = 0;
    for (;;) {
        fd = connect_agent(p->socket);
        if (fd >= 0 || exited) break;
        long long left = deadline - now_ms();
        if (left <= 0) break;
        struct pollfd pf = {alive, POLLIN, 0};
        /* EOF on the pipe: the agent exited (it may have found another agent; connect once more). */
        if (poll(&pf, 1, (int) (left < wait ? left : wait)) > 0) exited = 1;
        if (wait < 20) wait *= 2;
    }
    close(alive);
    if (fd < 0) {
        if (exited) because("the agent exited during start-up; see %s", p->log);
        else because("the agent did not answer within %d ms; see %s", START_TIMEOUT_MS, p->log);
        remember_failure(p->failed);
    } else {
        unlink(p->failed);
    }
    close(lock);
    return fd;
}

/* Runs the call through an agent; returns its exit status, or NOT_ACCEPTED when no agent took it. */
int via_agent(int argc, char **argv, uint32_t closed_stdio) {
    struct agent_paths p;
    if (agent_paths(&p) < 0) return NOT_ACCEPTED;
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL) {
        because("cannot determine the working directory: %s", strerror(errno));
        return NOT_ACCEPTED;
    }
    size_t call_len;
    uint64_t stdin_offset;
    uint32_t stdio = stdio_flags(closed_stdio, &stdin_offset);
    unsigned char *call = encode_call(cwd, argc, argv, stdio, stdin_offset, &call_len);
    if (call == NULL) return NOT_ACCEPTED;
    /* A second attempt covers an agent that closed between our connect and its accept (idle exit). */
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = connect_agent(p.socket);
        if (fd < 0) fd = start_and_connect(&p);
        if (fd < 0) return NOT_ACCEPTED;
        int status = run_call(fd, call, call_len, stdio);
        close(fd);
        if (status != NOT_ACCEPTED) return status;
    }
    return NOT_ACCEPTED;
}
