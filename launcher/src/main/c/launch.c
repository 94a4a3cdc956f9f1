/*
 * The installation and its JVM (launch.h): where this executable lives, the .launch file next to it,
 * the JVM to run, and the in-process path that runs the plugin in a fresh JVM as the sh launcher does.
 * Everything is found from the executable's own location (never PATH or JAVA_HOME, which
 * COPY ... TO PROGRAM does not provide):
 *   <home>/lib/java           first line: the JVM written by build-dist, absolute or relative to <home>
                                (a release's bundled runtime: runtime/bin/java, wherever it is unpacked)
 *   <home>/lib/find-java      fallback JVM finder when that one is gone
 *   <home>/lib/<name>.launch  main class, classpath, JVM flags, agent command (docs/agent.md)
 */
#define _GNU_SOURCE
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frames.h"
#include "message.h"

char prog[NAME_MAX + 1] = "gpdedup";
char home[PATH_MAX];
char launch_path[PATH_MAX];

static int path_join(char *out, size_t cap, const char *a, const char *b) {
    int n = snprintf(out, cap, "%s/%s", a, b);
    return n > 0 && (size_t) n < cap;
}

int find_installation(const char *argv0) {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
    } else if (argv0 == NULL || argv0[0] != '/' || realpath(argv0, self) == NULL) {
        /* Without /proc, an absolute argv[0] (gpbackup's executablepath always is) still locates us. */
        say("cannot find my own executable (/proc/self/exe, argv[0]): %s", strerror(errno));
        return -1;
    }
    char *slash = strrchr(self, '/');
    snprintf(prog, sizeof prog, "%s", slash + 1);
    *slash = '\0';
    slash = strrchr(self, '/');
    if (slash == NULL) {
        say("cannot derive the installation directory from %s", self);
        return -1;
    }
    *slash = '\0';
    snprintf(home, sizeof home, "%s", self[0] == '\0' ? "/" : self);
    if (snprintf(launch_path, sizeof launch_path, "%s/lib/%s.launch", home, prog) >= (int) sizeof launch_path) {
        say("installation path too long");
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * The .launch file: key=value lines, '#' comments. See docs/agent.md.
 */
int read_launch(struct launch *l) {
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
char *expand_home(const char *s) {
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

int add_arg(struct argv_builder *b, const char *s) {
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

void free_args(struct argv_builder *b) {
    for (int i = 0; i < b->n; i++) free(b->v[i]);
    free(b->v);
    b->v = NULL;
    b->n = b->cap = 0;
}

/* Appends the whitespace-separated words of s ($home expanded); flags cannot contain spaces. */
int add_words(struct argv_builder *b, const char *s) {
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
int find_java(char *java, size_t cap, int *recorded) {
    char file[PATH_MAX];
    *recorded = 0;
    if (path_join(file, sizeof file, home, "lib/java")) {
        FILE *f = fopen(file, "re");
        if (f != NULL) {
            char line[PATH_MAX];
            if (fgets(line, sizeof line, f) != NULL) {
                line[strcspn(line, "\r\n")] = '\0';
                int fits = line[0] == '/' ? (size_t) snprintf(java, cap, "%s", line) < cap
                                          : line[0] != '\0' && path_join(java, cap, home, line);
                if (fits && access(java, X_OK) == 0) {
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
int add_archive_flag(struct argv_builder *b, const struct launch *l, int recorded) {
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
void exec_in_process(int argc, char **argv, uint32_t closed_stdio) {
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
