/*
 * payload_internal.h - helpers shared by the payload/ source files only.
 */
#ifndef RINGPERF_PAYLOAD_INTERNAL_H
#define RINGPERF_PAYLOAD_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "payload/payload.h"

/* payload__err formats a message into errbuf (errcap bytes); a NULL errbuf
 * or zero errcap discards it. */
void payload__err(char *errbuf, size_t errcap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* payload__dump returns `v` as compact JSON (malloc'd; caller frees), with
 * reals printed in their shortest exact form. NULL when out of memory or
 * over 256 MiB. */
char *payload__dump(const json_t *v);

/* payload__payload_base returns the base fields of spec's type in AIPerf's
 * key order (payload_types.c), before extra inputs and stream_options; NULL
 * with a message in errbuf on a missing or non-UTF-8 input, a max_tokens over
 * LLONG_MAX, or out of memory. */
json_t *payload__payload_base(const struct payload_spec *spec, char *errbuf, size_t errcap);

/* payload__texts returns the list of spec's non-empty texts, or [prompt]
 * when it has none (the embeddings "input", TGI's and SOLIDO's texts); NULL
 * with a message on text that is not UTF-8, or out of memory. */
json_t *payload__texts(const struct payload_spec *spec, char *errbuf, size_t errcap);

/* payload__services_base returns the base fields of image_generation,
 * image_retrieval and solido_rag bodies (payload_services.c), as
 * payload__payload_base does for the others. */
json_t *payload__services_base(const struct payload_spec *spec, char *errbuf, size_t errcap);

/* payload__template_base renders spec's template into the body's JSON value
 * (payload_template.c); NULL with a message in errbuf when it cannot render or
 * does not render JSON. */
json_t *payload__template_base(const struct payload_spec *spec, char *errbuf, size_t errcap);

/* payload__user_content returns the "content" of a user message of type t
 * (payload_media.c): the text as a bare string when media is NULL or empty,
 * else a list of content parts (text when not empty, then images, then audio)
 * in t's shape, as payload_build documents. Borrows everything; the
 * caller owns the result. NULL with a message in errbuf on text that is not
 * UTF-8, a malformed audio string, audio for messages, or out of memory. */
json_t *payload__user_content(enum endpoint_type t, const char *text,
                              const struct payload_media *media, char *errbuf, size_t errcap);

/* payload__user_message appends the user message of spec's new turn to list:
 * {"role":"user","content":payload__user_content(prompt, media)} plus
 * "type":"message" for responses. False (message in errbuf) on error. */
bool payload__user_message(json_t *list, const struct payload_spec *spec, char *errbuf,
                           size_t errcap);

/* payload__media_allowed reports whether spec's type can carry spec's media
 * (chat, chat_embeddings, responses, messages); false with a message if not. */
bool payload__media_allowed(const struct payload_spec *spec, char *errbuf, size_t errcap);

#endif
