/*
 * The installation this launcher belongs to and how it runs a JVM: its own location, the .launch
 * file (docs/agent.md, "Installation layout and the .launch file"), the JVM of lib/java or
 * lib/find-java, and the in-process path.
 */
#ifndef GPDEDUP_LAUNCH_H
#define GPDEDUP_LAUNCH_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* The plugin's name (this executable's file name), <home>, and <home>/lib/<prog>.launch. */
extern char prog[NAME_MAX + 1];
extern char home[PATH_MAX];
extern char launch_path[PATH_MAX];

/* Sets prog, home and launch_path from /proc/self/exe (or an absolute argv[0]); says why and returns -1
 * when it cannot. */
int find_installation(const char *argv0);

/* The .launch file: key=value lines, '#' comments. Values point into text. */
struct launch {
    char *text;
    const char *main_class, *classpath, *flags, *archive;
    const char *agent_main, *definition, *agent_flags, *agent_args;
};

/* Reads launch_path; returns 0, or -1 with reason set. */
int read_launch(struct launch *l);

/* Replaces every "$home" in s by the installation directory; NULL when out of memory. */
char *expand_home(const char *s);

/* A NULL-terminated argument vector of copies. */
struct argv_builder {
    char **v;
    int n, cap;
};

int add_arg(struct argv_builder *b, const char *s);
void free_args(struct argv_builder *b);
/* Appends the whitespace-separated words of s ($home expanded); flags cannot contain spaces. */
int add_words(struct argv_builder *b, const char *s);

/* The JVM: <home>/lib/java (*recorded = 1), or what <home>/lib/find-java prints when that one is gone.
 * Returns 0, or -1 with reason set. */
int find_java(char *java, size_t cap, int *recorded);

/* Adds the flag that maps the .launch file's class-data archive, if any. Returns 0, or -1 out of memory. */
int add_archive_flag(struct argv_builder *b, const struct launch *l, int recorded);

/* The in-process path: exactly what the generated sh launcher runs. closed_stdio: STDIO_STDIN_CLOSED /
 * STDIO_STDOUT_CLOSED of the descriptors the caller had closed. Never returns. */
void exec_in_process(int argc, char **argv, uint32_t closed_stdio) __attribute__((noreturn));

#endif
