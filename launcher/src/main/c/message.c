/* say() and because(): see message.h. */
#define _GNU_SOURCE
#include "message.h"

#include <stdarg.h>
#include <stdio.h>

#include "launch.h"

char reason[1024];

void say(const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dprintf(2, "%s: %s\n", prog, msg);
}

void because(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
}
