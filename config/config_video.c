/*
 * config_video.c - the settings of video_generation's asynchronous jobs: --download-video-content
 * and AIPerf's AIPERF_HTTP_VIDEO_POLL_INTERVAL, the seconds between two polls of a job (0.1 by
 * default, as AIPerf's Environment.HTTP.VIDEO_POLL_INTERVAL).
 */
#include <math.h>
#include <stdlib.h>

#include "config/config_internal.h"

#define VIDEO_POLL_ENV "AIPERF_HTTP_VIDEO_POLL_INTERVAL"
#define VIDEO_POLL_DEFAULT_S 0.1
/* Polls closer than a millisecond would only load the server; an hour apart, never end. */
#define VIDEO_POLL_MIN_S 0.001
#define VIDEO_POLL_MAX_S 3600.0

int config__video_poll_interval(const char *value, double *out_s, char *errbuf, size_t errcap)
{
    if (value == NULL) {
        *out_s = VIDEO_POLL_DEFAULT_S;
        return 0;
    }
    char shown[80];
    char *end = NULL;
    double v = strtod(value, &end);
    if (end == value || *end != '\0' || !isfinite(v) || v < VIDEO_POLL_MIN_S ||
        v > VIDEO_POLL_MAX_S) {
        return config__fail(errbuf, errcap,
                            VIDEO_POLL_ENV "='%s': give the seconds between two polls of a video "
                                           "job, from 0.001 to 3600, e.g. " VIDEO_POLL_ENV "=0.1",
                            config__show(value, shown, sizeof(shown)));
    }
    *out_s = v;
    return 0;
}

int config__check_video(struct profile_config *cfg, char *errbuf, size_t errcap)
{
    int rc = config__video_poll_interval(getenv(VIDEO_POLL_ENV), &cfg->video_poll_interval_s,
                                         errbuf, errcap);
    if (rc != 0) {
        return rc;
    }
    if (cfg->download_video_content && cfg->endpoint_type != CONFIG_ENDPOINT_VIDEO_GENERATION) {
        return config__fail(errbuf, errcap,
                            "--download-video-content fetches what a video_generation job made, "
                            "and --endpoint-type is %s: drop the flag or use --endpoint-type "
                            "video_generation",
                            config_endpoint_type_name(cfg->endpoint_type));
    }
    return 0;
}
