/*
 * media_files.c - the images and audio that input-file records name, made
 * ready for a request body (see workload_media.h).
 */
#include "workload/workload_media.h"
#include "workload/workload_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ends_with reports whether name ends with suffix, ignoring case. */
static bool ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name);
    size_t s = strlen(suffix);
    return n >= s && strcasecmp(name + n - s, suffix) == 0;
}

/* read_file reads a whole file of at most WORKLOAD_MEDIA_FILE_BYTES_MAX bytes. */
static uint8_t *read_file(const char *path, size_t *out_len, const char *where)
{
    int err = 0;
    char *data = workload__read_file(path, WORKLOAD_MEDIA_FILE_BYTES_MAX, out_len, &err);
    if (data == NULL && err != -EIO && err != -EFBIG && err != -ENOMEM) {
        fprintf(stderr, "ringperf profile: %s: cannot open media file %s: %s\n", where, path,
                strerror(-err));
    } else if (data == NULL) {
        fprintf(stderr, "ringperf profile: %s: cannot read media file %s (at most %zu MiB)\n",
                where, path, WORKLOAD_MEDIA_FILE_BYTES_MAX >> 20);
    }
    return (uint8_t *)data;
}

/* encoded_file returns prefix followed by the file's bytes in base64. */
static char *encoded_file(const char *path, const char *prefix, const char *where)
{
    size_t len = 0;
    uint8_t *data = read_file(path, &len, where);
    if (data == NULL) {
        return NULL;
    }
    size_t out_len = 0;
    char *text = media_base64(prefix, data, len, &out_len);
    free(data);
    return text;
}

/* image_item returns an image as a request carries it: a URL or data URI as
 * written, else the named file as a data URI. */
static char *image_item(const char *item, const char *where)
{
    if (strncmp(item, "http://", 7) == 0 || strncmp(item, "https://", 8) == 0 ||
        strncmp(item, "data:", 5) == 0) {
        return strdup(item);
    }
    static const char *const types[][2] = {
        {".png", "image/png"}, {".jpg", "image/jpeg"},  {".jpeg", "image/jpeg"},
        {".gif", "image/gif"}, {".webp", "image/webp"}, {".bmp", "image/bmp"},
    };
    const char *mime = NULL;
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        mime = mime == NULL && ends_with(item, types[i][0]) ? types[i][1] : mime;
    }
    if (mime == NULL) {
        fprintf(stderr,
                "ringperf profile: %s: image \"%s\": expected an http(s) URL, a data: URI or a "
                ".png/.jpg/.jpeg/.gif/.webp/.bmp file\n",
                where, item);
        return NULL;
    }
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "data:%s;base64,", mime);
    return encoded_file(item, prefix, where);
}

/* audio_item returns audio as "format,base64": as written, or the named
 * .wav/.mp3 file encoded. */
static char *audio_item(const char *item, const char *where)
{
    if (strncmp(item, "wav,", 4) == 0 || strncmp(item, "mp3,", 4) == 0) {
        return strdup(item);
    }
    const char *format = ends_with(item, ".wav") ? "wav," : ends_with(item, ".mp3") ? "mp3," : NULL;
    if (format == NULL) {
        fprintf(stderr,
                "ringperf profile: %s: audio \"%s\": expected \"wav,<base64>\", \"mp3,<base64>\" "
                "or a .wav/.mp3 file\n",
                where, item);
        return NULL;
    }
    return encoded_file(item, format, where);
}

int workload_media_from_entry(const struct dataset_entry *e, const char *where,
                              struct workload_media_set *out)
{
    memset(out, 0, sizeof(*out));
    if (e->image_count > CONFIG_MEDIA_BATCH_MAX || e->audio_count > CONFIG_MEDIA_BATCH_MAX) {
        fprintf(stderr, "ringperf profile: %s: at most %u images and %u audio clips per record\n",
                where, CONFIG_MEDIA_BATCH_MAX, CONFIG_MEDIA_BATCH_MAX);
        return -EINVAL;
    }
    int ret = 0;
    for (size_t i = 0; ret == 0 && i < e->image_count; i++) {
        out->images[i] = image_item(e->images[i], where);
        ret = out->images[i] != NULL ? 0 : -EINVAL;
        out->image_count += ret == 0;
    }
    for (size_t i = 0; ret == 0 && i < e->audio_count; i++) {
        out->audios[i] = audio_item(e->audios[i], where);
        ret = out->audios[i] != NULL ? 0 : -EINVAL;
        out->audio_count += ret == 0;
    }
    if (ret != 0) {
        workload_media_set_free(out);
        return ret;
    }
    workload_media_set_view(out);
    return 0;
}
