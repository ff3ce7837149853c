/*
 * fuzz_tokenizer_encode.c - libFuzzer target for tokenizer_encode/_count/_decode
 * on arbitrary bytes, with a small byte-level BPE (Qwen's split regex, NFC,
 * merges, a special and a stripping added token).
 *
 * Checked: encode succeeds; count agrees; every id decodes; decode(encode(x))
 * equals x with ill-formed UTF-8 replaced, whenever x has no added-token text
 * and is already NFC (ASCII here); and the heap merge path gives the same ids
 * as the linear one on the whole input taken as one word.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizer_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char TINY_JSON[] =
    "{\"version\": \"1.0\", \"added_tokens\": [{\"id\": 400, \"content\": \"<|end|>\", \"sp"
    "ecial\": true, \"lstrip\": false, \"rstrip\": false, \"normalized\": false, \"single_w"
    "ord\": false}, {\"id\": 401, \"content\": \"<t>\", \"special\": false, \"lstrip\": tru"
    "e, \"rstrip\": true}], \"normalizer\": {\"type\": \"NFC\"}, \"pre_tokenizer\": {\"type"
    "\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", \"pattern\": {\"Regex\": "
    "\"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}| ?[^\\"
    "\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"}, \"be"
    "havior\": \"Isolated\", \"invert\": false}, {\"type\": \"ByteLevel\", \"add_prefix_spa"
    "ce\": false, \"trim_offsets\": false, \"use_regex\": false}]}, \"post_processor\": nul"
    "l, \"decoder\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets"
    "\": false, \"use_regex\": false}, \"model\": {\"type\": \"BPE\", \"dropout\": null, \""
    "unk_token\": null, \"continuing_subword_prefix\": \"\", \"end_of_word_suffix\": \"\", "
    "\"fuse_unk\": false, \"byte_fallback\": false, \"ignore_merges\": false, \"vocab\": {"
    "\"\\u0100\": 0, \"\\u0101\": 1, \"\\u0102\": 2, \"\\u0103\": 3, \"\\u0104\": 4, \"\\u0"
    "105\": 5, \"\\u0106\": 6, \"\\u0107\": 7, \"\\u0108\": 8, \"\\u0109\": 9, \"\\u010a\":"
    " 10, \"\\u010b\": 11, \"\\u010c\": 12, \"\\u010d\": 13, \"\\u010e\": 14, \"\\u010f\": "
    "15, \"\\u0110\": 16, \"\\u0111\": 17, \"\\u0112\": 18, \"\\u0113\": 19, \"\\u0114\": 2"
    "0, \"\\u0115\": 21, \"\\u0116\": 22, \"\\u0117\": 23, \"\\u0118\": 24, \"\\u0119\": 25"
    ", \"\\u011a\": 26, \"\\u011b\": 27, \"\\u011c\": 28, \"\\u011d\": 29, \"\\u011e\": 30,"
    " \"\\u011f\": 31, \"\\u0120\": 32, \"!\": 33, \"\\\"\": 34, \"#\": 35, \"$\": 36, \"%"
    "\": 37, \"&\": 38, \"'\": 39, \"(\": 40, \")\": 41, \"*\": 42, \"+\": 43, \",\": 44, "
    "\"-\": 45, \".\": 46, \"/\": 47, \"0\": 48, \"1\": 49, \"2\": 50, \"3\": 51, \"4\": 52"
    ", \"5\": 53, \"6\": 54, \"7\": 55, \"8\": 56, \"9\": 57, \":\": 58, \";\": 59, \"<\": "
    "60, \"=\": 61, \">\": 62, \"?\": 63, \"@\": 64, \"A\": 65, \"B\": 66, \"C\": 67, \"D\""
    ": 68, \"E\": 69, \"F\": 70, \"G\": 71, \"H\": 72, \"I\": 73, \"J\": 74, \"K\": 75, \"L"
    "\": 76, \"M\": 77, \"N\": 78, \"O\": 79, \"P\": 80, \"Q\": 81, \"R\": 82, \"S\": 83, "
    "\"T\": 84, \"U\": 85, \"V\": 86, \"W\": 87, \"X\": 88, \"Y\": 89, \"Z\": 90, \"[\": 91"
    ", \"\\\\\": 92, \"]\": 93, \"^\": 94, \"_\": 95, \"`\": 96, \"a\": 97, \"b\": 98, \"c"
    "\": 99, \"d\": 100, \"e\": 101, \"f\": 102, \"g\": 103, \"h\": 104, \"i\": 105, \"j\":"
    " 106, \"k\": 107, \"l\": 108, \"m\": 109, \"n\": 110, \"o\": 111, \"p\": 112, \"q\": 1"
    "13, \"r\": 114, \"s\": 115, \"t\": 116, \"u\": 117, \"v\": 118, \"w\": 119, \"x\": 120"
    ", \"y\": 121, \"z\": 122, \"{\": 123, \"|\": 124, \"}\": 125, \"~\": 126, \"\\u0121\":"
    " 127, \"\\u0122\": 128, \"\\u0123\": 129, \"\\u0124\": 130, \"\\u0125\": 131, \"\\u012"
    "6\": 132, \"\\u0127\": 133, \"\\u0128\": 134, \"\\u0129\": 135, \"\\u012a\": 136, \"\\"
    "u012b\": 137, \"\\u012c\": 138, \"\\u012d\": 139, \"\\u012e\": 140, \"\\u012f\": 141, "
    "\"\\u0130\": 142, \"\\u0131\": 143, \"\\u0132\": 144, \"\\u0133\": 145, \"\\u0134\": 1"
    "46, \"\\u0135\": 147, \"\\u0136\": 148, \"\\u0137\": 149, \"\\u0138\": 150, \"\\u0139"
    "\": 151, \"\\u013a\": 152, \"\\u013b\": 153, \"\\u013c\": 154, \"\\u013d\": 155, \"\\u"
    "013e\": 156, \"\\u013f\": 157, \"\\u0140\": 158, \"\\u0141\": 159, \"\\u0142\": 160, "
    "\"\\u00a1\": 161, \"\\u00a2\": 162, \"\\u00a3\": 163, \"\\u00a4\": 164, \"\\u00a5\": 1"
    "65, \"\\u00a6\": 166, \"\\u00a7\": 167, \"\\u00a8\": 168, \"\\u00a9\": 169, \"\\u00aa"
    "\": 170, \"\\u00ab\": 171, \"\\u00ac\": 172, \"\\u0143\": 173, \"\\u00ae\": 174, \"\\u"
    "00af\": 175, \"\\u00b0\": 176, \"\\u00b1\": 177, \"\\u00b2\": 178, \"\\u00b3\": 179, "
    "\"\\u00b4\": 180, \"\\u00b5\": 181, \"\\u00b6\": 182, \"\\u00b7\": 183, \"\\u00b8\": 1"
    "84, \"\\u00b9\": 185, \"\\u00ba\": 186, \"\\u00bb\": 187, \"\\u00bc\": 188, \"\\u00bd"
    "\": 189, \"\\u00be\": 190, \"\\u00bf\": 191, \"\\u00c0\": 192, \"\\u00c1\": 193, \"\\u"
    "00c2\": 194, \"\\u00c3\": 195, \"\\u00c4\": 196, \"\\u00c5\": 197, \"\\u00c6\": 198, "
    "\"\\u00c7\": 199, \"\\u00c8\": 200, \"\\u00c9\": 201, \"\\u00ca\": 202, \"\\u00cb\": 2"
    "03, \"\\u00cc\": 204, \"\\u00cd\": 205, \"\\u00ce\": 206, \"\\u00cf\": 207, \"\\u00d0"
    "\": 208, \"\\u00d1\": 209, \"\\u00d2\": 210, \"\\u00d3\": 211, \"\\u00d4\": 212, \"\\u"
    "00d5\": 213, \"\\u00d6\": 214, \"\\u00d7\": 215, \"\\u00d8\": 216, \"\\u00d9\": 217, "
    "\"\\u00da\": 218, \"\\u00db\": 219, \"\\u00dc\": 220, \"\\u00dd\": 221, \"\\u00de\": 2"
    "22, \"\\u00df\": 223, \"\\u00e0\": 224, \"\\u00e1\": 225, \"\\u00e2\": 226, \"\\u00e3"
    "\": 227, \"\\u00e4\": 228, \"\\u00e5\": 229, \"\\u00e6\": 230, \"\\u00e7\": 231, \"\\u"
    "00e8\": 232, \"\\u00e9\": 233, \"\\u00ea\": 234, \"\\u00eb\": 235, \"\\u00ec\": 236, "
    "\"\\u00ed\": 237, \"\\u00ee\": 238, \"\\u00ef\": 239, \"\\u00f0\": 240, \"\\u00f1\": 2"
    "41, \"\\u00f2\": 242, \"\\u00f3\": 243, \"\\u00f4\": 244, \"\\u00f5\": 245, \"\\u00f6"
    "\": 246, \"\\u00f7\": 247, \"\\u00f8\": 248, \"\\u00f9\": 249, \"\\u00fa\": 250, \"\\u"
    "00fb\": 251, \"\\u00fc\": 252, \"\\u00fd\": 253, \"\\u00fe\": 254, \"\\u00ff\": 255, "
    "\"he\": 256, \"ll\": 257, \"hell\": 258, \"hello\": 259, \"\\u0120w\": 260, \"or\": 26"
    "1, \"\\u0120wor\": 262, \"\\u0120\\u0120\": 263, \"\\u0120\\u0120\\u0120\\u0120\": 264"
    ", \"12\": 265, \"\\u00e4\\u00bd\": 266, \"\\u010a\\u010a\": 267}, \"merges\": [\"h e\""
    ", \"l l\", \"he ll\", \"hell o\", \"\\u0120 w\", \"o r\", \"\\u0120w or\", \"\\u0120 "
    "\\u0120\", \"\\u0120\\u0120 \\u0120\\u0120\", \"1 2\", \"\\u00e4 \\u00bd\", \"\\u010a "
    "\\u010a\"]}}";

static struct tokenizer *tiny(void)
{
    static struct tokenizer *tok;
    if (tok == NULL) {
        char err[TOKENIZER_ERR_CAP];
        if (tokenizer_load_buffer(TINY_JSON, sizeof(TINY_JSON) - 1, "tiny", &tok, err,
                                  sizeof(err)) != 0) {
            abort();
        }
    }
    return tok;
}

static bool ascii_without_added(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        if (data[i] >= 0x80) {
            return false;
        }
    }
    return memmem(data, size, "<|end|>", 7) == NULL && memmem(data, size, "<t>", 3) == NULL;
}

static void check_merge_paths(const struct tokenizer *tok, const uint8_t *data, size_t size)
{
    struct tokenizer_scratch a = {0};
    struct tokenizer_scratch b = {0};
    struct tok__scratch *sa = tok__scratch_get(&a);
    struct tok__scratch *sb = tok__scratch_get(&b);
    if (sa != NULL && sb != NULL && size > 0) {
        if (!tok__bpe_word(tok, sa, (const char *)data, size, false) ||
            !tok__bpe_word(tok, sb, (const char *)data, size, true) || sa->ids_len != sb->ids_len ||
            memcmp(sa->ids, sb->ids, sa->ids_len * sizeof(uint32_t)) != 0) {
            abort();
        }
    }
    tokenizer_scratch_free(&a);
    tokenizer_scratch_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct tokenizer *tok = tiny();
    struct tokenizer_scratch s = {0};
    const uint32_t *ids;
    size_t count;
    size_t counted;
    if (tokenizer_encode(tok, &s, (const char *)data, size, &ids, &count) != TOKENIZER_OK) {
        abort();
    }
    uint32_t *kept = malloc((count + 1) * sizeof(*kept));
    if (kept == NULL) {
        abort();
    }
    memcpy(kept, ids, count * sizeof(*kept));
    if (tokenizer_count(tok, &s, (const char *)data, size, &counted) != TOKENIZER_OK ||
        counted != count) {
        abort();
    }
    /* Counting's word cache, warm from every input before this one (its hits, and the words
     * that replace others in a slot), counts as encoding does. */
    static struct tokenizer_scratch warm;
    if (tokenizer_count(tok, &warm, (const char *)data, size, &counted) != TOKENIZER_OK ||
        counted != count) {
        abort();
    }
    const char *text;
    size_t len;
    if (tokenizer_decode(tok, &s, kept, count, &text, &len) != TOKENIZER_OK) {
        abort();
    }
    if (ascii_without_added(data, size) && (len != size || memcmp(text, data, size) != 0)) {
        abort();
    }
    free(kept);
    tokenizer_scratch_free(&s);
    check_merge_paths(tok, data, size);
    return 0;
}
