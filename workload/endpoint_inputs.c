/*
 * endpoint_inputs.c - the --extra-inputs that configure the endpoint rather
 * than the request: raw's and template's response_field (compiled into the
 * run's response reader) and template's payload_template (a named template,
 * a file or the template itself, compiled once before the run). Neither is
 * sent in a body, as AIPerf leaves them out of its extra fields.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "payload/payload.h"
#include "template/template.h"
#include "workload/workload_internal.h"

/* AIPerf's NAMED_TEMPLATES. */
static const struct {
    const char *name;
    const char *source;
} NAMED[] = {
    {"nv-embedqa", "{\"text\": {{ texts|tojson }}}"},
};

/* request_info members AIPerf fills per request (ids, credits, timing); bodies
 * here are rendered before the run, so a template that reads one is refused. */
static const char *const PER_REQUEST[] = {
    "x_correlation_id", "x_request_id",   "conversation_id", "turn_index",      "credit_num",
    "credit_phase",     "credit_drop_ns", "drop_perf_ns",    "cancel_after_ns",
};

/* read_template_file reads a template file whole; NULL (said why) on failure. */
static char *read_template_file(const char *path, size_t *out_len)
{
    int err = 0;
    char *text = workload__read_file(path, TEMPLATE_SOURCE_BYTES_MAX, out_len, &err);
    if (text == NULL) {
        fprintf(stderr,
                "ringperf profile: --extra-inputs payload_template: cannot read '%s': %s%s\n", path,
                strerror(-err),
                err == -EFBIG ? " (a template may be at most 1 MiB: shorten it)" : "");
    }
    return text;
}

/* payload_template's value: a named template, else a file that exists, else
 * the template itself (AIPerf's order). */
static int compile_template(const char *value, struct template **out)
{
    const char *source = value;
    const char *what = "the inline template";
    char *file = NULL;
    size_t len = strlen(value);
    struct stat st;
    for (size_t k = 0; k < sizeof(NAMED) / sizeof(NAMED[0]); k++) {
        if (strcmp(value, NAMED[k].name) == 0) {
            source = NAMED[k].source;
            len = strlen(source);
            what = "the named template";
        }
    }
    if (source == value && stat(value, &st) == 0 && S_ISREG(st.st_mode)) {
        file = read_template_file(value, &len);
        if (file == NULL) {
            return -EINVAL;
        }
        source = file;
        what = value;
    }
    char err[512];
    int rc = template_compile(source, len, out, err, sizeof(err));
    free(file);
    if (rc != 0) {
        fprintf(stderr,
                "ringperf profile: --extra-inputs payload_template (%s): %s (README, \"The "
                "template endpoint\", lists the Jinja2 that ringperf renders)\n",
                what, rc == -ENOMEM ? "out of memory" : err);
        return rc;
    }
    for (size_t k = 0; k < sizeof(PER_REQUEST) / sizeof(PER_REQUEST[0]); k++) {
        unsigned line;
        unsigned col;
        if (template_uses_attribute(*out, "request_info", PER_REQUEST[k], &line, &col)) {
            fprintf(stderr,
                    "ringperf profile: --extra-inputs payload_template (%s): line %u, column %u: "
                    "request_info.%s is made per request by AIPerf, and ringperf renders every "
                    "body before the run; leave it out\n",
                    what, line, col, PER_REQUEST[k]);
            template_free(*out);
            *out = NULL;
            return -EINVAL;
        }
    }
    return 0;
}

static int take(char **extra, const char *key, char **out_value)
{
    *out_value = NULL;
    if (*extra == NULL) {
        return 0;
    }
    char *rest = NULL;
    int rc = payload_extra_inputs_take_string(*extra, key, out_value, &rest);
    if (rc == 0) {
        free(*extra);
        *extra = rest;
    }
    return rc;
}

int workload__endpoint_inputs(struct workload_requests *out, char **extra)
{
    if (out->type != ENDPOINT_RAW && out->type != ENDPOINT_TEMPLATE) {
        return 0;
    }
    char *field = NULL;
    char *source = NULL;
    int rc = take(extra, "response_field", &field);
    if (rc == 0 && out->type == ENDPOINT_TEMPLATE) {
        rc = take(extra, "payload_template", &source);
    }
    char err[512];
    if (rc == 0 && field != NULL &&
        (rc = response_reader_init(&out->reader, out->type, field, err, sizeof(err))) != 0) {
        fprintf(stderr, "ringperf profile: --extra-inputs response_field: %s\n",
                rc == -ENOMEM ? "out of memory" : err);
    }
    if (rc == 0 && out->type == ENDPOINT_TEMPLATE && source == NULL) {
        fprintf(stderr, "ringperf profile: --endpoint-type template needs --extra-inputs "
                        "payload_template:<template> (the Jinja2 body itself, a file, or "
                        "nv-embedqa)\n");
        rc = -EINVAL;
    }
    if (rc == 0 && source != NULL) {
        rc = compile_template(source, &out->template);
    }
    free(field);
    free(source);
    return rc == -ENOMEM ? -ENOMEM : rc != 0 ? -EINVAL : 0;
}
