/*
 * watch.c - credentials that change during a run: temporary credentials (an STS session
 * token) expire, and the tools that renew them (aws sso login, aws-vault, a cron job writing
 * `aws configure export-credentials`) rewrite the credentials or config file. A long run
 * stats those files now and then and loads the profile again when one changed, so that it
 * goes on signing with keys that are still valid. Credentials from the environment cannot
 * change under a running process: there is nothing to watch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sigv4/sigv4.h"

/* stamp_of stats path into *out (present false when it is not there). */
static void stamp_of(const char *path, struct sigv4_file_stamp *out)
{
    struct stat st;
    *out = (struct sigv4_file_stamp){0};
    if (path[0] == '\0' || stat(path, &st) != 0) {
        return;
    }
    *out = (struct sigv4_file_stamp){
        .present = true,
        .dev = st.st_dev,
        .ino = st.st_ino,
        .size = st.st_size,
        .mtime_s = st.st_mtim.tv_sec,
        .mtime_ns = st.st_mtim.tv_nsec,
    };
}

static bool same_stamp(const struct sigv4_file_stamp *a, const struct sigv4_file_stamp *b)
{
    return a->present == b->present && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns;
}

void sigv4_watch_init(struct sigv4_watch *w, const char *profile)
{
    *w = (struct sigv4_watch){0};
    const char *id = getenv("AWS_ACCESS_KEY_ID");
    w->active = profile != NULL || id == NULL || id[0] == '\0';
    if (profile != NULL) {
        snprintf(w->profile, sizeof(w->profile), "%s", profile);
        w->named = true;
    }
    for (int config = 0; config < 2 && w->active; config++) {
        if (!sigv4_aws_file_path(config, w->path[config], sizeof(w->path[config]))) {
            w->path[config][0] = '\0';
        }
        stamp_of(w->path[config], &w->stamp[config]);
    }
}

static bool same_credentials(const struct sigv4_credentials *a, const struct sigv4_credentials *b)
{
    return strcmp(a->access_key_id, b->access_key_id) == 0 &&
           strcmp(a->secret_access_key, b->secret_access_key) == 0 &&
           strcmp(a->session_token, b->session_token) == 0;
}

int sigv4_watch_poll(struct sigv4_watch *w, const struct sigv4_credentials *current,
                     struct sigv4_credentials *out, char *source, size_t source_cap, char *errbuf,
                     size_t errcap)
{
    if (!w->active) {
        return 0;
    }
    bool changed = false;
    for (int config = 0; config < 2; config++) {
        struct sigv4_file_stamp now;
        stamp_of(w->path[config], &now);
        changed |= !same_stamp(&now, &w->stamp[config]);
        w->stamp[config] = now;
    }
    if (!changed) {
        return 0;
    }
    int ret = sigv4_credentials_load(w->named ? w->profile : NULL, out, source, source_cap, errbuf,
                                     errcap);
    if (ret != 0) {
        explicit_bzero(out, sizeof(*out));
        return ret;
    }
    if (same_credentials(out, current)) {
        explicit_bzero(out, sizeof(*out));
        return 0;
    }
    return 1;
}
