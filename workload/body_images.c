/*
 * body_images.c - the input images of each request body, for AIPerf's image metrics
 * (num_images, image_throughput, image_latency), which newest AIPerf counts from the payload
 * as sent (its extract_payload_inputs hook), so input files and raw payloads count as
 * synthetic ones do: chat "image_url", responses "input_image" and messages "image" parts of
 * the messages' content, and image_retrieval's "image_url" inputs.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "workload/workload_internal.h"

static bool is_image_part(const json_t *part)
{
    const char *type = json_string_value(json_object_get(part, "type"));
    return type != NULL && (strcmp(type, "image_url") == 0 || strcmp(type, "input_image") == 0 ||
                            strcmp(type, "image") == 0);
}

/* list_images counts the image parts of a list, and of the "content" lists of its items. */
static int64_t list_images(const json_t *list)
{
    int64_t count = 0;
    size_t i;
    const json_t *item;
    json_array_foreach(list, i, item)
    {
        count += is_image_part(item);
        const json_t *content = json_object_get(item, "content");
        size_t j;
        const json_t *part;
        json_array_foreach(content, j, part)
        {
            count += is_image_part(part);
        }
    }
    return count;
}

int64_t workload__body_images(const char *body)
{
    json_t *root = json_loads(body, 0, NULL);
    int64_t count = 0;
    if (json_is_object(root)) {
        count = list_images(json_object_get(root, "messages")) +
                list_images(json_object_get(root, "input"));
    }
    json_decref(root);
    return count;
}

/* form_images counts the reference image of a multipart body, from its inputs.json view: an
 * "image" file part or an image "url" field. */
static int64_t form_images(const char *summary_json)
{
    json_t *root = json_loads(summary_json, 0, NULL);
    int64_t count = json_object_get(root, "image") != NULL || json_object_get(root, "url") != NULL;
    json_decref(root);
    return count;
}

int workload__count_payload_images(struct workload_requests *out)
{
    if (!endpoint_type_supports_images(out->type) || out->multi_turn || out->payload_count == 0) {
        return 0;
    }
    out->payload_images = calloc(out->payload_count, sizeof(*out->payload_images));
    if (out->payload_images == NULL) {
        return -ENOMEM;
    }
    for (size_t i = 0; i < out->payload_count; i++) {
        out->payload_images[i] = out->payload_json != NULL
                                     ? form_images(out->payload_json[i])
                                     : workload__body_images(out->payloads[i].body);
    }
    return 0;
}
