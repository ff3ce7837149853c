/*
 * workload_media.h - the synthetic images and audio of a run's requests (internal
 * to workload/; media_inputs.c): --image-* and --audio-* turned into
 * media/ options, and each dataset entry's media made from the run's seed.
 */
#ifndef RINGPERF_WORKLOAD_MEDIA_H
#define RINGPERF_WORKLOAD_MEDIA_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "datasets/datasets.h"
#include "payload/payload.h"
#include "media/media.h"

/* workload_media_set is the media of one dataset entry. It owns the strings;
 * `view` borrows them for payload_spec.media until
 * workload_media_set_free(). Zero-initialise before use. */
struct workload_media_set {
    char *images[CONFIG_MEDIA_BATCH_MAX];
    size_t image_count;
    char *audios[CONFIG_MEDIA_BATCH_MAX];
    size_t audio_count;
    struct payload_media view;
};

/* workload_media_for_entry makes the media of dataset entry `entry`: --image-batch-size
 * images when both --image-*-mean are > 0 and --audio-batch-size clips when
 * --audio-length-mean > 0; nothing otherwise. Every item depends only on
 * (seed, entry, its index), so the same seed gives the same bytes. Prints what
 * went wrong to stderr. Returns 0, -EINVAL or -ENOMEM; on error *out holds
 * nothing. */
int workload_media_for_entry(const struct profile_config *cfg, uint64_t seed, size_t entry,
                             struct workload_media_set *out);

/* WORKLOAD_MEDIA_FILE_BYTES_MAX bounds one image or audio file an input file names. */
#define WORKLOAD_MEDIA_FILE_BYTES_MAX ((size_t)64 << 20)

/* workload_media_from_entry makes the media an input-file record names
 * (media_files.c): URLs and data URIs as written, "wav,..."/"mp3,..."
 * audio as written, and local files read and base64-encoded (images as data
 * URIs typed by their extension; audio as "wav,<b64>" or "mp3,<b64>"). `where`
 * ("file:line") starts messages, printed to stderr. Returns 0, -EINVAL or
 * -ENOMEM; on error *out holds nothing. */
int workload_media_from_entry(const struct dataset_entry *e, const char *where,
                              struct workload_media_set *out);

/* workload_media_set_view points set->view at what the set holds. */
void workload_media_set_view(struct workload_media_set *set);

/* workload_media_set_free releases what workload_media_for_entry made and zeroes *set. */
void workload_media_set_free(struct workload_media_set *set);

#endif
