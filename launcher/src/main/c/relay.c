/*
 * One call (relay.h): CALL out, then relay until EXIT. stdin is read only after the agent asks for it,
 * so a call the agent never accepted has consumed nothing and can still run in-process.
 */
#define _GNU_SOURCE
#include "relay.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "frames.h"
#include "message.h"

#define STDIN_CHUNK (64 * 1024)
#define RX_CAP (128 * 1024)

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
uint32_t stdio_flags(uint32_t closed_stdio, uint64_t *stdin_offset) {
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
unsigned char *encode_call(const char *cwd, int argc, char **argv, uint32_t stdio, uint64_t stdin_offset,
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

int run_call(int sock, unsigned char *call, size_t call_len, uint32_t stdio) {
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
