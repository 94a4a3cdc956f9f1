/* What the launcher tells its caller: one line on stderr, and why the agent was not used. */
#ifndef GPDEDUP_MESSAGE_H
#define GPDEDUP_MESSAGE_H

/* Why the agent was not used: shown only with GPDEDUP_AGENT=require. */
extern char reason[1024];

/* Writes "<prog>: <message>" to stderr. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Sets reason. */
void because(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
