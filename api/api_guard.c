/*
 * api_guard.c - protection of the API's connection slots against slow
 * clients (slowloris). libmicrohttpd only times out a connection that is
 * idle, so a client sending one header byte every few seconds holds a slot
 * forever, and a few dozen of them lock /healthz out. The guard adds the
 * two bounds a server needs:
 *
 *   - a client has API_REQUEST_READ_S seconds, from connecting or from its
 *     previous response, to deliver a whole request head;
 *   - API_CONNECTIONS_RESERVED slots stay free: when a new connection
 *     would take one of them, the connection that has been reading its
 *     request head the longest is dropped, so a health check always gets in.
 *
 * Dropping means shutdown(2) on the socket: libmicrohttpd's own thread then
 * sees the end of the stream and closes and frees the connection itself.
 * The guard never closes a descriptor it does not own. All slot state is
 * under one mutex, taken by libmicrohttpd's thread in the notification
 * callbacks and by the guard's watchdog thread, which wakes at the earliest
 * deadline (or when stopped) instead of polling.
 */
#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "api/api_internal.h"

#define NS_PER_S 1000000000LL

/* guard_slot is one connection libmicrohttpd has open. */
struct guard_slot {
    bool in_use;
    bool reading;          /* waiting for a whole request head */
    bool dropped;          /* shut down already; waiting for the close */
    int fd;                /* owned by libmicrohttpd */
    ino_t inode;           /* the socket's inode: the fd is only shut down while it matches */
    int64_t reading_since; /* CLOCK_MONOTONIC ns */
};

struct api_guard {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* CLOCK_MONOTONIC; signalled on stop and on new deadlines */
    pthread_t watchdog;
    bool watchdog_started;
    bool stop;
    int64_t read_limit_ns;
    unsigned open;
    struct guard_slot slots[API_CONNECTIONS_MAX];
};

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static ino_t inode_of(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

/* drop shuts slot's socket down (lock held). The inode check makes sure the
 * descriptor still is the connection's socket. */
static void drop(struct guard_slot *slot)
{
    if (slot->dropped || slot->fd < 0) {
        return;
    }
    slot->dropped = true;
    slot->reading = false;
    if (inode_of(slot->fd) == slot->inode) {
        shutdown(slot->fd, SHUT_RDWR);
    }
}

/* oldest_reader returns the slot reading its request head the longest,
 * other than except, or NULL (lock held). */
static struct guard_slot *oldest_reader(struct api_guard *g, const struct guard_slot *except)
{
    struct guard_slot *oldest = NULL;
    for (size_t i = 0; i < API_CONNECTIONS_MAX; i++) {
        struct guard_slot *s = &g->slots[i];
        if (s->in_use && s->reading && !s->dropped && s != except &&
            (oldest == NULL || s->reading_since < oldest->reading_since)) {
            oldest = s;
        }
    }
    return oldest;
}

static struct guard_slot *take_slot(struct api_guard *g, int fd)
{
    for (size_t i = 0; i < API_CONNECTIONS_MAX; i++) {
        struct guard_slot *s = &g->slots[i];
        if (!s->in_use) {
            *s = (struct guard_slot){.in_use = true,
                                     .reading = true,
                                     .fd = fd,
                                     .inode = inode_of(fd),
                                     .reading_since = now_ns()};
            g->open++;
            return s;
        }
    }
    return NULL;
}

void api__guard_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                           enum MHD_ConnectionNotificationCode code)
{
    struct api_guard *g = cls;
    pthread_mutex_lock(&g->lock);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct guard_slot *slot = take_slot(g, info != NULL ? info->connect_fd : -1);
        *socket_context = slot;
        if (slot != NULL && g->open > API_CONNECTIONS_MAX - API_CONNECTIONS_RESERVED) {
            struct guard_slot *victim = oldest_reader(g, slot);
            if (victim != NULL) {
                drop(victim);
            }
        }
        pthread_cond_signal(&g->wake);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context != NULL) {
        struct guard_slot *slot = *socket_context;
        slot->in_use = false;
        g->open--;
        *socket_context = NULL;
    }
    pthread_mutex_unlock(&g->lock);
}

/* slot_of returns the guard's slot for c, or NULL. */
static struct guard_slot *slot_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info != NULL ? info->socket_context : NULL;
}

void api__guard_head_read(struct api_guard *g, struct MHD_Connection *c)
{
    pthread_mutex_lock(&g->lock);
    struct guard_slot *slot = slot_of(c);
    if (slot != NULL) {
        slot->reading = false;
    }
    pthread_mutex_unlock(&g->lock);
}

void api__guard_request_done(void *cls, struct MHD_Connection *c, void **req_cls,
                             enum MHD_RequestTerminationCode code)
{
    (void)req_cls;
    (void)code;
    struct api_guard *g = cls;
    pthread_mutex_lock(&g->lock);
    struct guard_slot *slot = slot_of(c);
    if (slot != NULL && !slot->dropped) {
        /* Kept alive: the clock for the next request head starts now. */
        slot->reading = true;
        slot->reading_since = now_ns();
        pthread_cond_signal(&g->wake);
    }
    pthread_mutex_unlock(&g->lock);
}

/* enforce drops the readers over the limit and returns the earliest
 * deadline still pending, or INT64_MAX (lock held). */
static int64_t enforce(struct api_guard *g, int64_t now)
{
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < API_CONNECTIONS_MAX; i++) {
        struct guard_slot *s = &g->slots[i];
        if (!s->in_use || !s->reading || s->dropped) {
            continue;
        }
        int64_t deadline = s->reading_since + g->read_limit_ns;
        if (deadline <= now) {
            drop(s);
        } else if (deadline < next) {
            next = deadline;
        }
    }
    return next;
}

static void *watchdog_main(void *arg)
{
    struct api_guard *g = arg;
    pthread_mutex_lock(&g->lock);
    while (!g->stop) {
        int64_t next = enforce(g, now_ns());
        if (next == INT64_MAX) {
            pthread_cond_wait(&g->wake, &g->lock);
        } else {
            struct timespec at = {.tv_sec = next / NS_PER_S, .tv_nsec = next % NS_PER_S};
            pthread_cond_timedwait(&g->wake, &g->lock, &at);
        }
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

int api__guard_new(int64_t read_limit_ns, struct api_guard **out)
{
    struct api_guard *g = calloc(1, sizeof(*g));
    if (g == NULL) {
        return -ENOMEM;
    }
    g->read_limit_ns = read_limit_ns;
    pthread_mutex_init(&g->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&g->wake, &attr);
    pthread_condattr_destroy(&attr);
    int ret = pthread_create(&g->watchdog, NULL, watchdog_main, g);
    if (ret != 0) {
        api__guard_free(g);
        return -ret;
    }
    g->watchdog_started = true;
    *out = g;
    return 0;
}

void api__guard_free(struct api_guard *g)
{
    if (g == NULL) {
        return;
    }
    if (g->watchdog_started) {
        pthread_mutex_lock(&g->lock);
        g->stop = true;
        pthread_cond_signal(&g->wake);
        pthread_mutex_unlock(&g->lock);
        pthread_join(g->watchdog, NULL);
    }
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->lock);
    free(g);
}
