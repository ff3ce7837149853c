/*
 * api_files.c - the artifact directory as the API shows it: safe relative
 * names, opening beneath the directory, the file list; and the environment
 * variables the API reads.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "api/api_internal.h"

bool api_filename_is_safe(const char *name, size_t len)
{
    if (len == 0 || len > API_FILENAME_BYTES_MAX || name[0] == '/') {
        return false;
    }
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len) {
            unsigned char c = (unsigned char)name[i];
            if (c < 0x20 || c == 0x7f || c == '\\') {
                return false;
            }
            if (c != '/') {
                continue;
            }
        }
        size_t n = i - start;
        if (n == 0 || (n == 1 && name[start] == '.') ||
            (n == 2 && name[start] == '.' && name[start + 1] == '.')) {
            return false;
        }
        start = i + 1;
    }
    return true;
}

/* open_beneath uses openat2's RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS (Linux
 * 5.6) so that no link anywhere on the path is followed; older kernels get
 * a component-by-component walk with O_NOFOLLOW. */
static int open_beneath(int dir_fd, const char *name)
{
    struct open_how how = {
        .flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    long fd = syscall(SYS_openat2, dir_fd, name, &how, sizeof(how));
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) {
        return fd >= 0 ? (int)fd : -errno;
    }
    char part[API_FILENAME_BYTES_MAX + 1];
    int cur = dup(dir_fd);
    const char *p = name;
    while (cur >= 0) {
        const char *slash = strchr(p, '/');
        size_t n = slash != NULL ? (size_t)(slash - p) : strlen(p);
        if (n >= sizeof(part)) {
            close(cur);
            return -ENAMETOOLONG;
        }
        memcpy(part, p, n);
        part[n] = '\0';
        int next = openat(cur, part, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        int err = errno;
        close(cur);
        if (next < 0) {
            return -err;
        }
        if (slash == NULL) {
            return next;
        }
        cur = next;
        p = slash + 1;
    }
    return -errno;
}

int api__open_artifact(int dir_fd, const char *name, uint64_t *out_size)
{
    if (!api_filename_is_safe(name, strlen(name))) {
        return -EINVAL;
    }
    int fd = open_beneath(dir_fd, name);
    if (fd < 0) {
        return fd;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        close(fd);
        return -err;
    }
    *out_size = (uint64_t)st.st_size;
    return fd;
}

struct list_walk {
    json_t *files;
    size_t count;
    bool truncated;
};

static void list_dir(struct list_walk *w, int dir_fd, const char *prefix, int depth)
{
    DIR *d = fdopendir(dir_fd);
    if (d == NULL) {
        close(dir_fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        char rel[API_FILENAME_BYTES_MAX + 1];
        int n = snprintf(rel, sizeof(rel), "%s%s%s", prefix, prefix[0] ? "/" : "", e->d_name);
        struct stat st;
        if (n < 0 || (size_t)n >= sizeof(rel) ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            continue;
        }
        if (S_ISDIR(st.st_mode) && depth + 1 < API_LIST_DEPTH_MAX) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) {
                list_dir(w, sub, rel, depth + 1);
            }
        } else if (S_ISREG(st.st_mode)) {
            if (w->count >= API_LIST_ENTRIES_MAX) {
                w->truncated = true;
                break;
            }
            json_array_append_new(
                w->files, json_pack("{s:s, s:I, s:f}", "path", rel, "size", (json_int_t)st.st_size,
                                    "modified",
                                    (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9));
            w->count++;
        }
    }
    closedir(d);
}

json_t *api__list_json(const char *dir)
{
    struct list_walk w = {.files = json_array()};
    if (w.files == NULL) {
        return NULL;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        list_dir(&w, fd, "", 0);
    }
    return json_pack("{s:s, s:o, s:I, s:b}", "artifact_dir", dir, "files", w.files, "count",
                     (json_int_t)w.count, "truncated", w.truncated);
}

static const char *env_get(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; envp != NULL && envp[i] != NULL; i++) {
        if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=') {
            return envp[i] + n + 1;
        }
    }
    return NULL;
}

int64_t api_grace_ms_from_env(char *const *envp)
{
    const char *v = env_get(envp, "AIPERF_API_SERVER_POST_COMPLETE_GRACE");
    if (v == NULL || *v == '\0') {
        return API_DEFAULT_GRACE_MS;
    }
    char *end = NULL;
    errno = 0;
    double s = strtod(v, &end);
    if (errno != 0 || *end != '\0' || !(s >= 0 && s <= 86400.0)) {
        return API_DEFAULT_GRACE_MS;
    }
    return (int64_t)(s * 1000.0);
}

bool api_port_from_env(char *const *envp, uint16_t *out_port)
{
    const char *v = env_get(envp, "AIPERF_API_SERVER_PORT");
    if (v == NULL || *v == '\0') {
        return false;
    }
    char *end = NULL;
    errno = 0;
    long port = strtol(v, &end, 10);
    if (errno != 0 || *end != '\0' || port < 0 || port > 65535) {
        return false;
    }
    *out_port = (uint16_t)port;
    return true;
}
