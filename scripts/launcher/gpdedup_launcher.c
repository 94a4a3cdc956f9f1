/*
 * gpdedup_launcher: the executable gpbackup runs for a gpdedup plugin (installed as
 * <home>/bin/<plugin name>). It hands the call to the plugin's host agent, a long-running JVM of
 * the same user, over a Unix domain socket, starting the agent when none answers; when no agent can
 * be used it runs the plugin in a fresh JVM, as the plain sh launcher does. gpbackup makes one call
 * per table per segment, so this program's own cost is what users see: it does no more than stat a
 * file, connect, and relay bytes until it has read the agent's exit status.
 *
 * Everything is found from the executable's own location (never PATH or JAVA_HOME, which
 * COPY ... TO PROGRAM does not provide):
 *   <home>/lib/java           first line: the JVM written by build-dist
 *   <home>/lib/find-java      fallback JVM finder when that one is gone
 *   <home>/lib/<name>.launch  main class, classpath, JVM flags, agent command (docs/agent.md)
 *
 * Environment: GPDEDUP_AGENT=off runs in-process, =require fails instead of falling back;
 * GPDEDUP_AGENT_DIR overrides the socket directory (default /tmp/gpdedup-<uid>).
 *
 * Wire format, lifecycle and security: docs/agent.md. Frame codes and limits mirror
 * plugin-api/src/main/java/io/gpdedup/plugin/agent/FrameType.java.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
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

#define PROTOCOL_VERSION 2

/* CALL stdio flags: what the agent may open itself through /proc/<pid>/fd (docs/agent.md) */
#define STDIO_STDIN_PIPE 1u
#define STDIO_STDIN_FILE 2u
#define STDIO_STDOUT_PIPE 4u
/* ... and what the caller had closed: we put /dev/null there, the command must fail rather than use it */
#define STDIO_STDIN_CLOSED 8u
#define STDIO_STDOUT_CLOSED 16u

/* launcher -> agent */
#define F_CALL 0x01
#define F_STDIN 0x02
#define F_STDIN_EOF 0x03
#define F_STDIN_ABORT 0x04
/* agent -> launcher */
#define F_ACCEPTED 0x11
#define F_REJECTED 0x12
#define F_STDIN_REQUEST 0x13
#define F_STDOUT 0x14
#define F_STDERR 0x15
#define F_EXIT 0x16

#define HEADER 5
#define MAX_DATA (1u << 20)
#define MAX_MESSAGE 4096u
#define STDIN_CHUNK (64 * 1024)
#define RX_CAP (128 * 1024)

/* How long a launcher waits for a new agent to answer, and how long a failed start is remembered. */
#define START_TIMEOUT_MS 10000
#define FAILURE_MEMORY_S 60

/* run_call results besides an exit status */
#define NOT_ACCEPTED (-1)

/* STDIO_STDIN_CLOSED / STDIO_STDOUT_CLOSED: descriptors the caller had closed when we started */
static uint32_t closed_stdio;
static char prog[NAME_MAX + 1] = "gpdedup";
static char home[PATH_MAX];
static char launch_path[PATH_MAX];
static char reason[1024]; /* why the agent was not used: shown only with GPDEDUP_AGENT=require */

static void say(const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dprintf(2, "%s: %s\n", prog, msg);
}

static void because(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
}

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int path_join(char *out, size_t cap, const char *a, const char *b) {
    int n = snprintf(out, cap, "%s/%s", a, b);
    return n > 0 && (size_t) n < cap;
}

/* ---------------------------------------------------------------------------------------------
 * The .launch file: key=value lines, '#' comments. See docs/agent.md.
 */
struct launch {
    char *text;
    const char *main_class, *classpath, *flags, *archive;
    const char *agent_main, *definition, *agent_flags, *agent_args;
};

static int read_launch(struct launch *l) {
    memset(l, 0, sizeof *l);
    int fd = open(launch_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        because("cannot open %s: %s", launch_path, strerror(errno));
        return -1;
    }
    size_t cap = 65536, len = 0;
    l->text = malloc(cap + 1);
    if (l->text == NULL) {
        close(fd);
        because("out of memory");
        return -1;
    }
    for (;;) {
        ssize_t n = read(fd, l->text + len, cap - len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            because("cannot read %s: %s", launch_path, strerror(errno));
            close(fd);
            return -1;
        }
        if (n == 0) break;
        len += (size_t) n;
        if (len == cap) {
            because("%s is larger than %zu bytes", launch_path, cap);
            close(fd);
            return -1;
        }
    }
    close(fd);
    l->text[len] = '\0';
    for (char *line = l->text; line != NULL && *line != '\0';) {
        char *next = strchr(line, '\n');
        if (next != NULL) *next++ = '\0';
        size_t n = strlen(line);
        while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t')) line[--n] = '\0';
        char *eq = strchr(line, '=');
        if (line[0] != '#' && line[0] != '\0' && eq != NULL) {
            *eq = '\0';
            const char *k = line, *v = eq + 1;
            if (strcmp(k, "format") == 0 && strcmp(v, "1") != 0) {
                because("%s has format %s; this launcher reads format 1", launch_path, v);
                return -1;
            }
            if (strcmp(k, "main") == 0) l->main_class = v;
            else if (strcmp(k, "classpath") == 0) l->classpath = v;
            else if (strcmp(k, "flags") == 0) l->flags = v;
            else if (strcmp(k, "archive") == 0) l->archive = v;
            else if (strcmp(k, "agent_main") == 0) l->agent_main = v;
            else if (strcmp(k, "definition") == 0) l->definition = v;
            else if (strcmp(k, "agent_flags") == 0) l->agent_flags = v;
            else if (strcmp(k, "agent_args") == 0) l->agent_args = v;
        }
        line = next;
    }
    if (l->main_class == NULL || l->classpath == NULL) {
        because("%s lacks main= or classpath=", launch_path);
        return -1;
    }
    return 0;
}

/* Replaces every "$home" in s by the installation directory. */
static char *expand_home(const char *s) {
    size_t count = 0, hl = strlen(home);
    for (const char *p = strstr(s, "$home"); p != NULL; p = strstr(p + 5, "$home")) count++;
    char *out = malloc(strlen(s) + count * hl + 1);
    if (out == NULL) return NULL;
    char *o = out;
    while (*s != '\0') {
        if (strncmp(s, "$home", 5) == 0) {
            memcpy(o, home, hl);
            o += hl;
            s += 5;
        } else {
            *o++ = *s++;
        }
    }
    *o = '\0';
    return out;
}

struct argv_builder {
    char **v;
    int n, cap;
};

static int add_arg(struct argv_builder *b, const char *s) {
    if (b->n + 2 > b->cap) {
        int cap = b->cap == 0 ? 64 : b->cap * 2;
        char **v = realloc(b->v, sizeof(char *) * (size_t) cap);
        if (v == NULL) return -1;
        b->v = v;
        b->cap = cap;
    }
    char *copy = s == NULL ? NULL : strdup(s);
    if (copy == NULL) return -1;
    b->v[b->n++] = copy;
    b->v[b->n] = NULL;
    return 0;
}

static void free_args(struct argv_builder *b) {
    for (int i = 0; i < b->n; i++) free(b->v[i]);
    free(b->v);
    b->v = NULL;
    b->n = b->cap = 0;
}

/* Appends the whitespace-separated words of s ($home expanded); flags cannot contain spaces. */
static int add_words(struct argv_builder *b, const char *s) {
    if (s == NULL) return 0;
    char *x = expand_home(s);
    if (x == NULL) return -1;
    for (char *save = NULL, *w = strtok_r(x, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save)) {
        if (add_arg(b, w) < 0) {
            free(x);
            return -1;
        }
    }
    free(x);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * The JVM: <home>/lib/java, or what <home>/lib/find-java prints when that one is gone.
 */
static int find_java(char *java, size_t cap, int *recorded) {
    char file[PATH_MAX];
    *recorded = 0;
    if (path_join(file, sizeof file, home, "lib/java")) {
        FILE *f = fopen(file, "re");
        if (f != NULL) {
            if (fgets(java, (int) cap, f) != NULL) {
                java[strcspn(java, "\r\n")] = '\0';
                if (java[0] == '/' && access(java, X_OK) == 0) {
                    *recorded = 1;
                }
            }
            fclose(f);
        }
    }
    if (*recorded) return 0;
    char finder[PATH_MAX];
    if (!path_join(finder, sizeof finder, home, "lib/find-java") || access(finder, R_OK) != 0) {
        because("no JVM: %s/lib/java is not usable and %s/lib/find-java is missing", home, home);
        return -1;
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        because("pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        because("fork: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(p[1], 1);
        execl("/bin/sh", "sh", finder, (char *) NULL);
        _exit(127);
    }
    close(p[1]);
    size_t len = 0;
    for (;;) {
        ssize_t n = read(p[0], java + len, cap - 1 - len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        len += (size_t) n;
        if (len == cap - 1) break;
    }
    java[len] = '\0';
    close(p[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    java[strcspn(java, "\r\n")] = '\0';
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || java[0] != '/') {
        because("no Java 17+ runtime found; set GPDEDUP_JAVA");
        return -1;
    }
    return 0;
}

/*
 * Adds the flag that maps the .launch file's class-data archive, when there is one and the JVM is the
 * one that made it (recorded in lib/java): a fallback JVM runs without one. Returns 0, or -1 out of memory.
 */
static int add_archive_flag(struct argv_builder *b, const struct launch *l, int recorded) {
    if (!recorded || l->archive == NULL || l->archive[0] == '\0') return 0;
    char archive[PATH_MAX], flag[PATH_MAX + 32];
    size_t n = strlen(l->archive);
    if (!path_join(archive, sizeof archive, home, "lib") || strlen(archive) + 1 + n >= sizeof archive) return 0;
    strcat(archive, "/");
    strcat(archive, l->archive);
    if (access(archive, R_OK) != 0) return 0;
    if (n > 4 && strcmp(l->archive + n - 4, ".aot") == 0) {
        snprintf(flag, sizeof flag, "-XX:AOTCache=%s", archive);
    } else if (n > 4 && strcmp(l->archive + n - 4, ".jsa") == 0) {
        snprintf(flag, sizeof flag, "-XX:SharedArchiveFile=%s", archive);
    } else {
        return 0;
    }
    return add_arg(b, flag);
}

/* The in-process path: exactly what the generated sh launcher runs. Never returns. */
static void exec_in_process(int argc, char **argv) {
    struct launch l;
    char java[PATH_MAX];
    int recorded;
    if (read_launch(&l) < 0 || find_java(java, sizeof java, &recorded) < 0) {
        say("%s", reason);
        exit(1);
    }
    struct argv_builder b = {0};
    int ok = add_arg(&b, java) == 0 && add_words(&b, l.flags) == 0 && add_archive_flag(&b, &l, recorded) == 0;
    if (ok && closed_stdio != 0) {
        /* The JVM sees /dev/null there; ClosedStdio makes the command fail instead of reading or writing it. */
        const char *which = closed_stdio == (STDIO_STDIN_CLOSED | STDIO_STDOUT_CLOSED) ? "stdin,stdout"
                            : closed_stdio == STDIO_STDIN_CLOSED ? "stdin" : "stdout";
        char prop[64];
        snprintf(prop, sizeof prop, "-Dgpdedup.stdio.closed=%s", which);
        ok = add_arg(&b, prop) == 0;
    }
    char *cp = expand_home(l.classpath);
    ok = ok && cp != NULL && add_arg(&b, "-cp") == 0 && add_arg(&b, cp) == 0 && add_arg(&b, l.main_class) == 0;
    for (int i = 1; ok && i < argc; i++) ok = add_arg(&b, argv[i]) == 0;
    if (!ok) {
        say("out of memory");
        exit(1);
    }
    execv(java, b.v);
    say("cannot run %s: %s", java, strerror(errno));
    exit(1);
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

/* ---------------------------------------------------------------------------------------------
 * One call: CALL out, then relay until EXIT. stdin is read only after the agent asks for it, so a
 * call the agent never accepted has consumed nothing and can still run in-process.
 */
static unsigned char *put_u32(unsigned char *o, uint32_t v) {
    o[0] = (unsigned char) (v >> 24);
    o[1] = (unsigned char) (v >> 16);
    o[2] = (unsigned char) (v >> 8);
    o[3] = (unsigned char) v;
    return o + 4;
}

static uint32_t get_u32(const unsigned char *b) {
    return (uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 | (uint32_t) b[2] << 8 | (uint32_t) b[3];
}

static uint64_t get_u64(const unsigned char *b) {
    return ((uint64_t) get_u32(b) << 32) | get_u32(b + 4);
}

/* An anonymous pipe: opening it again through /proc never waits for a partner, unlike a named FIFO. */
static int is_anonymous_pipe(int fd) {
    char path[32], target[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    return n > 5 && strncmp(target, "pipe:", 5) == 0;
}

/*
 * Which of our descriptors the agent may open itself, so that the data does not pass through us:
 * anonymous pipes, and a regular file as stdin (read from our offset). GPDEDUP_AGENT_DIRECT=off relays all.
 */
static uint32_t stdio_flags(uint64_t *stdin_offset) {
    const char *direct = getenv("GPDEDUP_AGENT_DIRECT");
    uint32_t f = closed_stdio;
    *stdin_offset = 0;
    if (direct != NULL && strcmp(direct, "off") == 0) return f;
    struct stat st;
    if (is_anonymous_pipe(0)) {
        f |= STDIO_STDIN_PIPE;
    } else if (fstat(0, &st) == 0 && S_ISREG(st.st_mode)) {
        off_t at = lseek(0, 0, SEEK_CUR);
        if (at >= 0) {
            f |= STDIO_STDIN_FILE;
            *stdin_offset = (uint64_t) at;
        }
    }
    if (is_anonymous_pipe(1)) f |= STDIO_STDOUT_PIPE;
    return f;
}

static void put_header(unsigned char *h, int type, uint32_t len) {
    h[0] = (unsigned char) type;
    put_u32(h + 1, len);
}

/* CALL payload: u16 version, u32 pid, u32 stdio, u64 stdin offset, str cwd, u32 argc, str * argc
 * (str = u32 length + bytes). */
static unsigned char *encode_call(const char *cwd, int argc, char **argv, uint32_t stdio, uint64_t stdin_offset,
                                  size_t *out_len) {
    size_t len = HEADER + 2 + 4 + 4 + 8 + 4 + strlen(cwd) + 4;
    for (int i = 1; i < argc; i++) len += 4 + strlen(argv[i]);
    if (len - HEADER > MAX_DATA) {
        because("arguments are longer than %u bytes", MAX_DATA);
        return NULL;
    }
    size_t cap = len > HEADER + STDIN_CHUNK ? len : HEADER + STDIN_CHUNK;
    unsigned char *b = malloc(cap), *o = b + HEADER;
    if (b == NULL) {
        because("out of memory");
        return NULL;
    }
    put_header(b, F_CALL, (uint32_t) (len - HEADER));
    *o++ = PROTOCOL_VERSION >> 8;
    *o++ = PROTOCOL_VERSION & 0xff;
    o = put_u32(o, (uint32_t) getpid());
    o = put_u32(o, stdio);
    o = put_u32(o, (uint32_t) (stdin_offset >> 32));
    o = put_u32(o, (uint32_t) stdin_offset);
    size_t n = strlen(cwd);
    o = put_u32(o, (uint32_t) n);
    memcpy(o, cwd, n);
    o += n;
    o = put_u32(o, (uint32_t) (argc - 1));
    for (int i = 1; i < argc; i++) {
        n = strlen(argv[i]);
        o = put_u32(o, (uint32_t) n);
        memcpy(o, argv[i], n);
        o += n;
    }
    *out_len = len;
    return b;
}

struct relay {
    int sock;
    unsigned char *tx; /* one frame at a time: CALL, then stdin frames */
    size_t tx_len, tx_off;
    unsigned char rx[RX_CAP];
    size_t rx_start, rx_end;
    int out_fd;        /* destination of the data frame being relayed */
    uint32_t out_left; /* its payload bytes not yet written */
    int accepted, stdin_active, stdin_done, agent_gone;
    int stdin_file;  /* stdin is a regular file the agent may have read from its own descriptor */
    int stdin_error; /* errno of moving our stdin past what the agent read; reported as STDIN_ABORT */
    int is_pipe[3]; /* per descriptor: writes to a full pipe block */
};

static int fd_is_pipe(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/* Sends what it can without blocking; a dead agent is noticed on the read side. */
static void send_pending(struct relay *r) {
    while (r->tx_off < r->tx_len) {
        ssize_t n = send(r->sock, r->tx + r->tx_off, r->tx_len - r->tx_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            r->tx_off += (size_t) n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        r->agent_gone = 1; /* EPIPE / ECONNRESET: drop stdin, wait for the read side to see EOF */
        r->tx_len = r->tx_off = 0;
        r->stdin_active = 0;
        return;
    }
    r->tx_len = r->tx_off = 0;
}

static void read_stdin(struct relay *r) {
    ssize_t n;
    if (r->stdin_error != 0) {
        errno = r->stdin_error;
        n = -1;
    } else {
        do {
            n = read(0, r->tx + HEADER, STDIN_CHUNK);
        } while (n < 0 && errno == EINTR);
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n > 0) {
        put_header(r->tx, F_STDIN, (uint32_t) n);
        r->tx_len = HEADER + (size_t) n;
    } else if (n == 0) {
        put_header(r->tx, F_STDIN_EOF, 0);
        r->tx_len = HEADER;
        r->stdin_active = 0;
        r->stdin_done = 1;
    } else {
        const char *m = strerror(errno);
        size_t len = strlen(m);
        put_header(r->tx, F_STDIN_ABORT, (uint32_t) len);
        memcpy(r->tx + HEADER, m, len);
        r->tx_len = HEADER + len;
        r->stdin_active = 0;
        r->stdin_done = 1;
    }
    r->tx_off = 0;
}

/* Writes relayed bytes. While stdin is also flowing, a pipe gets at most PIPE_BUF bytes per write after
 * POLLOUT, which never blocks, so a full stdout can never stop stdin (and the other way round). */
static void write_out(struct relay *r) {
    size_t avail = r->rx_end - r->rx_start;
    size_t n = r->out_left < avail ? r->out_left : avail;
    if (r->stdin_active && r->is_pipe[r->out_fd] && n > PIPE_BUF) n = PIPE_BUF;
    ssize_t w = write(r->out_fd, r->rx + r->rx_start, n);
    if (w < 0) {
        if (errno == EINTR || errno == EAGAIN) return;
        if (r->out_fd == 1) {
            say("writing stdout failed: %s", strerror(errno));
            exit(1);
        }
        w = (ssize_t) n; /* stderr is gone: nobody to tell, keep going */
    }
    r->rx_start += (size_t) w;
    r->out_left -= (uint32_t) w;
    if (r->rx_start == r->rx_end) r->rx_start = r->rx_end = 0;
}

/*
 * Consumes complete control frames and starts data frames from rx. Returns 1 when output is pending or
 * more input is needed, or sets *status and returns 0 when the call is over.
 */
static int parse(struct relay *r, int *status) {
    for (;;) {
        if (r->out_left > 0) return 1;
        size_t avail = r->rx_end - r->rx_start;
        if (avail < HEADER) break;
        unsigned char *h = r->rx + r->rx_start;
        int type = h[0];
        uint32_t len = get_u32(h + 1);
        uint32_t max;
        switch (type) {
            case F_STDOUT:
            case F_STDERR: max = MAX_DATA; break;
            case F_REJECTED: max = MAX_MESSAGE; break;
            case F_EXIT: max = 4; break;
            case F_ACCEPTED: max = 0; break;
            case F_STDIN_REQUEST: max = 8; break;
            default: max = 0; type = -1; break;
        }
        if (type < 0 || len > max || (!r->accepted && type != F_ACCEPTED && type != F_REJECTED) ||
            (r->accepted && (type == F_ACCEPTED || type == F_REJECTED)) || (type == F_EXIT && len != 4)) {
            if (!r->accepted) {
                because("the agent broke the protocol (frame 0x%02x, %u bytes)", h[0], len);
                *status = NOT_ACCEPTED;
                return 0;
            }
            say("the host agent broke the protocol (frame 0x%02x, %u bytes); the call failed", h[0], len);
            *status = 1;
            return 0;
        }
        if (type == F_STDOUT || type == F_STDERR) {
            r->rx_start += HEADER;
            r->out_fd = type == F_STDOUT ? 1 : 2;
            r->out_left = len;
            continue;
        }
        if (avail < HEADER + len) break;
        unsigned char *payload = h + HEADER;
        r->rx_start += HEADER + len;
        switch (type) {
            case F_ACCEPTED: r->accepted = 1; break;
            case F_REJECTED:
                because("the agent refused the call: %.*s", (int) len, (const char *) payload);
                *status = NOT_ACCEPTED;
                return 0;
            case F_STDIN_REQUEST:
                /* The agent read this much of our stdin file itself: go on from there, as if we had. */
                if (len == 8 && r->stdin_file && !r->stdin_active && !r->stdin_done) {
                    uint64_t taken = get_u64(payload);
                    if (taken > 0 && lseek(0, (off_t) taken, SEEK_CUR) < 0) r->stdin_error = errno;
                }
                if (!r->stdin_done && !r->agent_gone) r->stdin_active = 1;
                break;
            case F_EXIT: {
                int32_t s = (int32_t) get_u32(payload);
                *status = s < 0 || s > 255 ? 1 : s;
                return 0;
            }
        }
    }
    if (r->rx_start == r->rx_end) {
        r->rx_start = r->rx_end = 0;
    } else if (r->rx_start > 0 && RX_CAP - r->rx_end < HEADER + MAX_MESSAGE) {
        memmove(r->rx, r->rx + r->rx_start, r->rx_end - r->rx_start);
        r->rx_end -= r->rx_start;
        r->rx_start = 0;
    }
    return 1;
}

static int run_call(int sock, unsigned char *call, size_t call_len, uint32_t stdio) {
    static struct relay r;
    memset(&r, 0, sizeof r);
    r.sock = sock;
    r.stdin_file = (stdio & STDIO_STDIN_FILE) != 0;
    r.tx = call;
    r.tx_len = call_len;
    r.is_pipe[1] = fd_is_pipe(1);
    r.is_pipe[2] = fd_is_pipe(2);
    send_pending(&r);
    for (;;) {
        int status;
        if (parse(&r, &status) == 0) return status;
        struct pollfd pf[3];
        /* Read the socket only when relayed bytes are all written: the agent then waits, not our memory. */
        int want_in = r.out_left == 0 ? r.rx_end < RX_CAP : r.rx_end == r.rx_start;
        int want_out = r.tx_len > r.tx_off;
        short ev = (short) ((want_in ? POLLIN : 0) | (want_out ? POLLOUT : 0));
        pf[0] = (struct pollfd){want_in || want_out ? sock : -1, ev, 0};
        pf[1] = (struct pollfd){r.stdin_active && r.tx_len == 0 ? 0 : -1, POLLIN, 0};
        pf[2] = (struct pollfd){r.out_left > 0 && r.rx_end > r.rx_start ? r.out_fd : -1, POLLOUT, 0};
        if (poll(pf, 3, -1) < 0) {
            if (errno == EINTR) continue;
            say("poll: %s", strerror(errno));
            return 1;
        }
        if (pf[2].revents != 0) write_out(&r);
        if (pf[0].revents & POLLOUT) send_pending(&r);
        if (pf[1].revents != 0) {
            read_stdin(&r);
            send_pending(&r);
        }
        if (want_in && (pf[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = recv(sock, r.rx + r.rx_end, RX_CAP - r.rx_end, MSG_DONTWAIT);
            if (n > 0) {
                r.rx_end += (size_t) n;
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
                if (!r.accepted) {
                    because("the agent closed the connection before accepting the call");
                    return NOT_ACCEPTED;
                }
                say("lost the host agent during the call (%s); the call failed", n == 0 ? "connection closed" : strerror(errno));
                return 1;
            }
        }
    }
}

/* Runs the call through an agent; returns its exit status, or NOT_ACCEPTED when no agent took it. */
static int via_agent(int argc, char **argv) {
    struct agent_paths p;
    if (agent_paths(&p) < 0) return NOT_ACCEPTED;
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL) {
        because("cannot determine the working directory: %s", strerror(errno));
        return NOT_ACCEPTED;
    }
    size_t call_len;
    uint64_t stdin_offset;
    uint32_t stdio = stdio_flags(&stdin_offset);
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

int main(int argc, char **argv) {
    /* Descriptors 0-2 must exist, or a socket or pipe opened below could land on them. */
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) >= 0) continue;
        if (fd == 0) closed_stdio |= STDIO_STDIN_CLOSED;
        if (fd == 1) closed_stdio |= STDIO_STDOUT_CLOSED;
        if (open("/dev/null", O_RDWR) != fd) return 1;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
    } else if (argv[0] == NULL || argv[0][0] != '/' || realpath(argv[0], self) == NULL) {
        /* Without /proc, an absolute argv[0] (gpbackup's executablepath always is) still locates us. */
        say("cannot find my own executable (/proc/self/exe, argv[0]): %s", strerror(errno));
        return 1;
    }
    char *slash = strrchr(self, '/');
    snprintf(prog, sizeof prog, "%s", slash + 1);
    *slash = '\0';
    slash = strrchr(self, '/');
    if (slash == NULL) {
        say("cannot derive the installation directory from %s", self);
        return 1;
    }
    *slash = '\0';
    snprintf(home, sizeof home, "%s", self[0] == '\0' ? "/" : self);
    if (snprintf(launch_path, sizeof launch_path, "%s/lib/%s.launch", home, prog) >= (int) sizeof launch_path) {
        say("installation path too long");
        return 1;
    }

    const char *mode = getenv("GPDEDUP_AGENT");
    if (mode == NULL || mode[0] == '\0' || strcmp(mode, "on") == 0) mode = "on";
    else if (strcmp(mode, "off") != 0 && strcmp(mode, "require") != 0) {
        say("GPDEDUP_AGENT must be on, off or require, not '%s'", mode);
        return 2;
    }
    if (strcmp(mode, "off") != 0) {
        int status = via_agent(argc, argv);
        if (status != NOT_ACCEPTED) return status;
        if (strcmp(mode, "require") == 0) {
            say("no host agent (GPDEDUP_AGENT=require): %s", reason);
            return 1;
        }
    }
    exec_in_process(argc, argv);
    return 1;
}
