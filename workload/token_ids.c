/*
 * token_ids.c - the prompts of the token-id endpoints (sglang_generate,
 * vllm_generate): the prompt text the run made is sent as the run
 * tokenizer's ids, so the server sees exactly the tokens counted, and the
 * features those endpoints have no field for are refused before the run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "workload/workload_internal.h"

int workload__token_ids_check(const struct profile_config *cfg, enum endpoint_type type)
{
    if (!endpoint_type_token_ids(type)) {
        return 0;
    }
    const char *without = cfg->system_prompt != NULL || cfg->system_prompt_file != NULL ||
                                  cfg->shared_system_prompt_length > 0
                              ? "a system prompt (--system-prompt, --system-prompt-file, "
                                "--shared-system-prompt-length)"
                          : cfg->user_context_prompt_length > 0 ? "--user-context-prompt-length"
                                                                : NULL;
    if (type == ENDPOINT_SGLANG_GENERATE && !cfg->streaming) {
        fprintf(stderr, "ringperf profile: --endpoint-type sglang_generate requires streaming. "
                        "Add --streaming.\n");
        return -EINVAL;
    }
    if (without != NULL) {
        fprintf(stderr,
                "ringperf profile: --endpoint-type %s sends the prompt as token ids and has no "
                "place for %s; drop it\n",
                endpoint_type_name(type), without);
        return -EINVAL;
    }
    return 0;
}

int workload__token_ids(struct payload_spec *spec, const struct tokenizer *tok,
                        struct tokenizer_scratch *scratch, int64_t *isl)
{
    if (!endpoint_type_token_ids(spec->type)) {
        return 0;
    }
    if (tok == NULL) {
        fprintf(stderr,
                "ringperf profile: --endpoint-type %s sends prompts as token ids and needs the "
                "model's tokenizer: give --tokenizer (a tokenizer.json or a model name)\n",
                endpoint_type_name(spec->type));
        return -EINVAL;
    }
    const char *text = spec->prompt != NULL ? spec->prompt : "";
    enum tokenizer_status st =
        tokenizer_encode(tok, scratch, text, strlen(text), &spec->token_ids, &spec->token_id_count);
    if (st != TOKENIZER_OK || spec->token_id_count == 0) {
        fprintf(stderr,
                "ringperf profile: a prompt of --endpoint-type %s has no tokens to send%s%s\n",
                endpoint_type_name(spec->type), st != TOKENIZER_OK ? ": " : "",
                st != TOKENIZER_OK ? tokenizer_status_str(st) : "");
        return -EINVAL;
    }
    *isl = (int64_t)spec->token_id_count;
    return 0;
}
