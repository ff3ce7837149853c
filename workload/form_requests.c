/*
 * form_requests.c - the synthetic requests of the multipart/form-data endpoint types
 * (image_edit, audio_transcription): one boundary per run, each body cut around its media
 * (payload_form_build) so that the engine sends the media from where it lies, and what
 * inputs.json and the audio metrics need of each body.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload/workload_internal.h"

int workload__form_check(const struct profile_config *cfg, const struct workload_requests *out)
{
    if (endpoint_type_form_data(out->type) &&
        (out->multi_turn || cfg->input_file != NULL || cfg->public_dataset != NULL)) {
        fprintf(stderr,
                "ringperf profile: --endpoint-type %s sends one synthetic turn per request for "
                "now: drop --input-file, --public-dataset and --conversation-turn-* (see "
                "README)\n",
                endpoint_type_name(out->type));
        return -ENOTSUP;
    }
    return 0;
}

int workload__form_init(struct workload_requests *out, size_t count)
{
    if (!endpoint_type_form_data(out->type)) {
        return 0;
    }
    /* Per run, so that no two runs share it; a body that holds it is refused, not sent. */
    uint64_t tag = workload__cache_bust_key(out->cache_bust_nonce, (uint64_t)time(NULL));
    snprintf(out->content_type, sizeof(out->content_type),
             "multipart/form-data; boundary=ringperf-%016llx", (unsigned long long)tag);
    out->payload_json = calloc(count, sizeof(*out->payload_json));
    out->payload_audio_seconds = calloc(count, sizeof(*out->payload_audio_seconds));
    return out->payload_json != NULL && out->payload_audio_seconds != NULL ? 0 : -ENOMEM;
}

const char *workload__form_boundary(const struct workload_requests *out)
{
    const char *b = strstr(out->content_type, "boundary=");
    return b != NULL ? b + strlen("boundary=") : "";
}

int workload__form_payload(struct workload_requests *out, size_t i, const struct payload_spec *spec)
{
    struct payload_form form;
    char errbuf[512];
    int ret = payload_form_build(spec, workload__form_boundary(out), &form, errbuf, sizeof(errbuf));
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: cannot build the %s request body: %s\n",
                endpoint_type_name(spec->type), errbuf);
        return ret;
    }
    out->payloads[i] = (struct engine_payload){.body = form.head,
                                               .body_len = form.head_len,
                                               .file = form.file,
                                               .file_len = form.file_len,
                                               .tail = form.tail,
                                               .tail_len = form.tail_len};
    out->payload_json[i] = form.summary_json;
    out->payload_audio_seconds[i] = form.audio_seconds;
    return 0;
}

void workload__form_free(struct workload_requests *out)
{
    for (size_t i = 0; out->payload_json != NULL && i < out->payload_count; i++) {
        free((void *)out->payloads[i].file);
        free((char *)out->payloads[i].tail);
        free(out->payload_json[i]);
    }
    free(out->payload_json);
    free(out->payload_audio_seconds);
    out->payload_json = NULL;
    out->payload_audio_seconds = NULL;
    out->content_type[0] = '\0';
}
