/*
 * resolve.c - where tokenizer.json lives: an explicit file or directory, or
 * the Hugging Face hub cache on disk. Never the network.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tokenizer/tokenizer.h"

enum { NAME_BYTES_MAX = 512 };

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* put_path writes a, b and c joined into out. */
static int put_path(char *out, size_t cap, const char *a, const char *b, const char *c)
{
    int n = snprintf(out, cap, "%s%s%s", a, b, c);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* hub_dir finds the hub cache the way huggingface_hub does. */
static int hub_dir(char *out, size_t cap)
{
    const char *v = getenv("HF_HUB_CACHE");
    if (v != NULL && v[0] != '\0') {
        return put_path(out, cap, v, "", "");
    }
    v = getenv("HF_HOME");
    if (v != NULL && v[0] != '\0') {
        return put_path(out, cap, v, "/hub", "");
    }
    v = getenv("XDG_CACHE_HOME");
    if (v != NULL && v[0] != '\0') {
        return put_path(out, cap, v, "/huggingface/hub", "");
    }
    v = getenv("HOME");
    return put_path(out, cap, v != NULL ? v : "", "/.cache/huggingface/hub", "");
}

/* read_ref reads refs/<name> (a commit hash) into out. */
static bool read_ref(const char *repo, const char *name, char *out, size_t cap)
{
    char path[4096];
    if (put_path(path, sizeof(path), repo, "/refs/", name) != 0) {
        return false;
    }
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return false;
    }
    size_t n = fread(out, 1, cap - 1, f);
    fclose(f);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == ' ')) {
        n--;
    }
    out[n] = '\0';
    return n > 0 && strchr(out, '/') == NULL;
}

/* revision_path finds the snapshot of one revision: a branch or tag that
 * refs/ names, or a commit hash; no other snapshot stands in for it. */
static int revision_path(const char *repo, const char *revision, char *out, size_t cap)
{
    if (revision[0] == '\0' || revision[0] == '/' || strstr(revision, "..") != NULL) {
        return -EINVAL;
    }
    char hash[128];
    const char *commit = read_ref(repo, revision, hash, sizeof(hash)) ? hash : revision;
    char candidate[4096];
    if (put_path(candidate, sizeof(candidate), repo, "/snapshots/", commit) != 0 ||
        put_path(candidate + strlen(candidate), sizeof(candidate) - strlen(candidate),
                 "/tokenizer.json", "", "") != 0) {
        return -ENAMETOOLONG;
    }
    return is_file(candidate) ? put_path(out, cap, candidate, "", "") : -ENOENT;
}

static int snapshot_path(const char *repo, char *out, size_t cap)
{
    char snapshots[4096];
    char candidate[4096];
    char ref[128];
    if (put_path(snapshots, sizeof(snapshots), repo, "/snapshots/", "") != 0) {
        return -ENAMETOOLONG;
    }
    if (read_ref(repo, "main", ref, sizeof(ref)) &&
        put_path(candidate, sizeof(candidate), snapshots, ref, "/tokenizer.json") == 0 &&
        is_file(candidate)) {
        return put_path(out, cap, candidate, "", "");
    }
    struct dirent **names = NULL;
    int count = scandir(snapshots, &names, NULL, alphasort);
    int rc = -ENOENT;
    for (int i = 0; i < count; i++) {
        if (rc == -ENOENT && names[i]->d_name[0] != '.' &&
            put_path(candidate, sizeof(candidate), snapshots, names[i]->d_name,
                     "/tokenizer.json") == 0 &&
            is_file(candidate)) {
            rc = put_path(out, cap, candidate, "", "");
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

static int from_hub(const char *model, const char *revision, char *out, size_t cap, char *err,
                    size_t err_cap)
{
    char hub[4096];
    char repo[4096];
    char folder[NAME_BYTES_MAX + 16] = "models--";
    size_t o = strlen(folder);
    for (const char *p = model; *p != '\0'; p++) {
        if (o + 3 >= sizeof(folder)) {
            return -ENAMETOOLONG;
        }
        if (*p == '/') {
            folder[o++] = '-';
            folder[o++] = '-';
        } else {
            folder[o++] = *p;
        }
    }
    folder[o] = '\0';
    int rc = hub_dir(hub, sizeof(hub));
    if (rc == 0) {
        rc = put_path(repo, sizeof(repo), hub, "/", folder);
    }
    if (rc == 0 && revision != NULL) {
        rc = revision_path(repo, revision, out, cap);
        if (rc == -ENOENT || rc == -EINVAL) {
            snprintf(err, err_cap,
                     "--tokenizer-revision %s: no tokenizer.json for that revision of \"%s\" in "
                     "%s (neither refs/%s nor snapshots/%s/tokenizer.json; nothing is "
                     "downloaded); give a revision the cache holds, or --tokenizer with a file",
                     revision, model, repo, revision, revision);
            return -ENOENT;
        }
        return rc;
    }
    if (rc == 0) {
        rc = snapshot_path(repo, out, cap);
    }
    if (rc == -ENOENT) {
        snprintf(err, err_cap,
                 "no tokenizer for \"%s\": %s/snapshots/*/tokenizer.json does not exist "
                 "(nothing is downloaded; pass --tokenizer with a tokenizer.json file or its "
                 "directory)",
                 model, repo);
    }
    return rc;
}

int tokenizer_resolve(const char *tokenizer_arg, const char *model, const char *revision,
                      char *path_out, size_t path_cap, char *err, size_t err_cap)
{
    if (path_cap > 0) {
        path_out[0] = '\0';
    }
    if (tokenizer_arg != NULL && tokenizer_arg[0] != '\0') {
        if (is_file(tokenizer_arg)) {
            return put_path(path_out, path_cap, tokenizer_arg, "", "");
        }
        if (is_dir(tokenizer_arg)) {
            int rc = put_path(path_out, path_cap, tokenizer_arg, "/tokenizer.json", "");
            if (rc == 0 && !is_file(path_out)) {
                snprintf(err, err_cap, "%s: directory has no tokenizer.json", tokenizer_arg);
                path_out[0] = '\0';
                return -ENOENT;
            }
            return rc;
        }
        return from_hub(tokenizer_arg, revision, path_out, path_cap, err, err_cap);
    }
    if (model != NULL && model[0] != '\0') {
        return from_hub(model, revision, path_out, path_cap, err, err_cap);
    }
    snprintf(err, err_cap,
             "no tokenizer: pass --tokenizer with a tokenizer.json file or its "
             "directory, or --model with a model in the Hugging Face cache");
    return -ENOENT;
}
