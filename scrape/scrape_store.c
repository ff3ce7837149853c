/*
 * scrape_store.c - the samples a run keeps: series looked up by (endpoint, name, label text as
 * exposed) in a hash index, so a sample costs one hash and one compare, and a log of
 * (series, value) pairs in fetch order from which both the JSONL export and the windows'
 * statistics are read at the end.
 */
#include "scrape/scrape_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A fetch stages at most this many samples: more is a runaway exposition. */
#define STAGE_MAX (1u << 20)
/* Label values longer than this are cut in the export. */
#define LABEL_VALUE_BYTES_MAX 1024

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 1099511628211ULL;
    }
    return h;
}

#define FNV_SEED 14695981039346656037ULL

/* grow doubles *cap (from `first`) until it holds need items of `size` bytes in each array. */
static int grow(void **arr, size_t size, size_t *cap, size_t need, size_t first)
{
    if (need <= *cap) {
        return 0;
    }
    size_t n = *cap == 0 ? first : *cap;
    while (n < need) {
        n *= 2;
    }
    void *p = realloc(*arr, n * size);
    if (p == NULL) {
        return -ENOMEM;
    }
    *arr = p;
    *cap = n;
    return 0;
}

/* index_find returns the slot holding an item equal per `eq`, or the empty slot to fill. */
typedef bool (*index_eq)(const void *ctx, uint32_t item);

static size_t index_find(const struct scrape__index *ix, uint64_t hash, index_eq eq,
                         const void *ctx)
{
    size_t mask = ix->cap - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        if (ix->slots[i] == 0 || eq(ctx, ix->slots[i] - 1)) {
            return i;
        }
    }
}

/* index_add puts item in slot, growing the index (rehashing with hash_of) past 50% full. */
static int index_add(struct scrape__index *ix, size_t slot, uint32_t item,
                     uint64_t (*hash_of)(const struct scrape__store *, uint32_t),
                     const struct scrape__store *st)
{
    ix->slots[slot] = item + 1;
    ix->used++;
    if (ix->used * 2 < ix->cap) {
        return 0;
    }
    size_t cap = ix->cap * 2;
    uint32_t *slots = calloc(cap, sizeof(*slots));
    if (slots == NULL) {
        return -ENOMEM;
    }
    for (size_t i = 0; i < ix->cap; i++) {
        if (ix->slots[i] != 0) {
            size_t j = (size_t)hash_of(st, ix->slots[i] - 1) & (cap - 1);
            while (slots[j] != 0) {
                j = (j + 1) & (cap - 1);
            }
            slots[j] = ix->slots[i];
        }
    }
    free(ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    return 0;
}

static int index_init(struct scrape__index *ix)
{
    ix->cap = 256;
    ix->used = 0;
    ix->slots = calloc(ix->cap, sizeof(*ix->slots));
    return ix->slots == NULL ? -ENOMEM : 0;
}

int scrape__store_init(struct scrape__store *st, size_t log_max)
{
    memset(st, 0, sizeof(*st));
    st->log_max = log_max;
    if (index_init(&st->family_index) != 0 || index_init(&st->series_index) != 0 ||
        index_init(&st->group_index) != 0) {
        return -ENOMEM;
    }
    return 0;
}

void scrape__store_free(struct scrape__store *st)
{
    for (size_t i = 0; i < st->family_count; i++) {
        free(st->families[i].name);
        free(st->families[i].help);
    }
    for (size_t i = 0; i < st->series_count; i++) {
        struct scrape__series *se = &st->series[i];
        free(se->key);
        for (size_t j = 0; j < se->label_count; j++) {
            free((char *)se->labels[j].name);
            free((char *)se->labels[j].value);
        }
        free(se->labels);
        free(se->le);
    }
    for (size_t i = 0; i < st->group_count; i++) {
        free(st->group_keys[i]);
    }
    free(st->families);
    free(st->series);
    free(st->group_keys);
    free(st->group_hashes);
    free(st->family_index.slots);
    free(st->series_index.slots);
    free(st->group_index.slots);
    free(st->log_series);
    free(st->log_value);
    free(st->records);
    free(st->record_begin);
    free(st->stage_series);
    free(st->stage_value);
    memset(st, 0, sizeof(*st));
}

/* Families, by name. */

struct name_key {
    const struct scrape__store *st;
    const char *name;
    size_t len;
};

static bool family_eq(const void *ctx, uint32_t item)
{
    const struct name_key *k = ctx;
    const char *name = k->st->families[item].name;
    return strlen(name) == k->len && memcmp(name, k->name, k->len) == 0;
}

static uint64_t family_hash(const struct scrape__store *st, uint32_t item)
{
    return fnv(FNV_SEED, st->families[item].name, strlen(st->families[item].name));
}

/* family_of returns the family named name[0..len), made with `type` when new; -1 on ENOMEM. */
static long family_of(struct scrape__store *st, const char *name, size_t len, enum prom_type type)
{
    struct name_key k = {st, name, len};
    size_t slot = index_find(&st->family_index, fnv(FNV_SEED, name, len), family_eq, &k);
    if (st->family_index.slots[slot] != 0) {
        return (long)st->family_index.slots[slot] - 1;
    }
    if (grow((void **)&st->families, sizeof(*st->families), &st->family_cap, st->family_count + 1,
             64) != 0) {
        return -1;
    }
    struct scrape__family *f = &st->families[st->family_count];
    *f = (struct scrape__family){.name = strndup(name, len), .type = type};
    if (f->name == NULL) {
        return -1;
    }
    uint32_t item = (uint32_t)st->family_count++;
    if (index_add(&st->family_index, slot, item, family_hash, st) != 0) {
        return -1;
    }
    return (long)item;
}

/* find_family returns the family named name[0..len), or -1. */
static long find_family(const struct scrape__store *st, const char *name, size_t len)
{
    struct name_key k = {st, name, len};
    size_t slot = index_find(&st->family_index, fnv(FNV_SEED, name, len), family_eq, &k);
    return (long)st->family_index.slots[slot] - 1;
}

/* typed_family returns the family a sample or TYPE line of `type` named name[0..len) belongs
 * to. A counter is named without its _total, unless a family of another type already has that
 * name (Go's go_memstats_alloc_bytes gauge beside its _total counter): then it keeps it. */
static long typed_family(struct scrape__store *st, const char *name, size_t len,
                         enum prom_type type)
{
    long f = find_family(st, name, len);
    if (type != PROM_COUNTER || f < 0 || st->families[f].type == PROM_COUNTER ||
        st->families[f].type == PROM_UNTYPED) {
        return family_of(st, name, len, type);
    }
    char total[PROM_NAME_BYTES_MAX + 16];
    memcpy(total, name, len);
    memcpy(total + len, "_total", 6);
    return family_of(st, total, len + 6, type);
}

int scrape__store_meta(struct scrape__store *st, enum prom_status kind, const struct prom_meta *m)
{
    long f = kind == PROM_TYPE ? typed_family(st, m->family, m->family_len, m->type)
                               : family_of(st, m->family, m->family_len, PROM_UNTYPED);
    if (f < 0) {
        return -ENOMEM;
    }
    struct scrape__family *fam = &st->families[f];
    if (kind == PROM_TYPE) {
        fam->type = m->type;
        /* The HELP line came first, under the counter's name with _total. */
        char total[PROM_NAME_BYTES_MAX + 16];
        size_t len = strlen(fam->name);
        memcpy(total, fam->name, len);
        memcpy(total + len, "_total", 6);
        long h = m->type == PROM_COUNTER ? find_family(st, total, len + 6) : -1;
        if (fam->help == NULL && h >= 0 && st->families[h].help != NULL) {
            fam->help = strdup(st->families[h].help);
        }
        return 0;
    }
    if (fam->help != NULL) {
        return 0;
    }
    fam->help = malloc(m->help_len + 1);
    if (fam->help == NULL) {
        return -ENOMEM;
    }
    fam->help[prom_unescape(m->help, m->help_len, fam->help, m->help_len)] = '\0';
    return 0;
}

/* Series, by endpoint, name and label text. */

struct series_key {
    const struct scrape__store *st;
    uint32_t ep;
    const char *key;
    size_t len;
};

static uint64_t key_hash(uint32_t ep, const char *key, size_t len)
{
    return fnv(fnv(FNV_SEED, &ep, sizeof(ep)), key, len);
}

static bool series_eq(const void *ctx, uint32_t item)
{
    const struct series_key *k = ctx;
    const struct scrape__series *se = &k->st->series[item];
    return se->endpoint == k->ep && se->key_len == k->len && memcmp(se->key, k->key, k->len) == 0;
}

static uint64_t series_hash(const struct scrape__store *st, uint32_t item)
{
    return st->series[item].hash;
}

/* A group's key is stored after its length. */
static bool group_eq(const void *ctx, uint32_t item)
{
    const struct series_key *k = ctx;
    size_t len;
    memcpy(&len, k->st->group_keys[item], sizeof(len));
    return len == k->len && memcmp(k->st->group_keys[item] + sizeof(len), k->key, k->len) == 0;
}

static uint64_t group_hash(const struct scrape__store *st, uint32_t item)
{
    return st->group_hashes[item];
}

/* group_of returns the group of a histogram's series: key holds endpoint, family and the labels
 * without le, each NUL-terminated, and key_len counts them all. */
static long group_of(struct scrape__store *st, const char *key, size_t key_len)
{
    uint64_t h = fnv(FNV_SEED, key, key_len);
    struct series_key k = {st, 0, key, key_len};
    size_t slot = index_find(&st->group_index, h, group_eq, &k);
    if (st->group_index.slots[slot] != 0) {
        return (long)st->group_index.slots[slot] - 1;
    }
    size_t cap = st->group_cap;
    if (grow((void **)&st->group_keys, sizeof(char *), &cap, st->group_count + 1, 64) != 0 ||
        grow((void **)&st->group_hashes, sizeof(uint64_t), &st->group_cap, st->group_count + 1,
             64) != 0) {
        return -1;
    }
    char *copy = malloc(sizeof(key_len) + key_len);
    if (copy == NULL) {
        return -1;
    }
    memcpy(copy, &key_len, sizeof(key_len));
    memcpy(copy + sizeof(key_len), key, key_len);
    st->group_keys[st->group_count] = copy;
    st->group_hashes[st->group_count] = h;
    uint32_t item = (uint32_t)st->group_count++;
    return index_add(&st->group_index, slot, item, group_hash, st) == 0 ? (long)item : -1;
}

/* append_text appends s[0..n) and a NUL to buf (cap bytes), cutting what does not fit. */
static size_t append_text(char *buf, size_t at, size_t cap, const char *s, size_t n)
{
    if (at >= cap) {
        return at;
    }
    n = n < cap - at - 1 ? n : cap - at - 1;
    memcpy(buf + at, s, n);
    buf[at + n] = '\0';
    return at + n + 1;
}

/* fill_labels unescapes the sample's labels into se, keeping a bucket's le apart, and gives a
 * histogram series its group. */
static int fill_labels(struct scrape__store *st, struct scrape__series *se,
                       const struct prom_sample *sample)
{
    se->labels = calloc(sample->label_count ? sample->label_count : 1, sizeof(*se->labels));
    if (se->labels == NULL) {
        return -ENOMEM;
    }
    char group_key[4096];
    size_t gk = append_text(group_key, 0, sizeof(group_key), (const char *)&se->endpoint, 4);
    gk = append_text(group_key, gk, sizeof(group_key), sample->family, sample->family_len);
    size_t cursor = 0;
    struct prom_label l;
    while (prom_labels_next(sample->labels, sample->labels_len, &cursor, &l)) {
        char value[LABEL_VALUE_BYTES_MAX];
        size_t n = prom_unescape(l.value, l.value_len, value, sizeof(value));
        char *v = strndup(value, n);
        char *name = strndup(l.name, l.name_len);
        if (v == NULL || name == NULL) {
            free(v);
            free(name);
            return -ENOMEM;
        }
        if (se->suffix == PROM_SUFFIX_BUCKET && strcmp(name, "le") == 0 && se->le == NULL) {
            free(name);
            se->le = v;
            se->le_value = strtod(v, NULL);
            continue;
        }
        se->labels[se->label_count++] = (struct scrape_label){name, v};
        gk = append_text(group_key, gk, sizeof(group_key), name, strlen(name));
        gk = append_text(group_key, gk, sizeof(group_key), v, n);
    }
    bool histogram = se->suffix == PROM_SUFFIX_BUCKET || se->suffix == PROM_SUFFIX_SUM ||
                     se->suffix == PROM_SUFFIX_COUNT;
    if (!histogram || st->families[se->family].type != PROM_HISTOGRAM) {
        se->group = SIZE_MAX; /* set by the caller: a group of its own */
        return 0;
    }
    long g = group_of(st, group_key, gk > sizeof(group_key) ? sizeof(group_key) : gk);
    if (g < 0) {
        return -ENOMEM;
    }
    se->group = (size_t)g;
    return 0;
}

/* series_of returns the series of a sample, made when new; -1 on ENOMEM. */
static long series_of(struct scrape__store *st, uint32_t ep, const struct prom_sample *sample)
{
    char key[PROM_NAME_BYTES_MAX + 1 + SCRAPE_LINE_BYTES_MAX];
    memcpy(key, sample->name, sample->name_len);
    key[sample->name_len] = '\0';
    if (sample->labels_len > 0) {
        memcpy(key + sample->name_len + 1, sample->labels, sample->labels_len);
    }
    size_t len = sample->name_len + 1 + sample->labels_len;
    uint64_t h = key_hash(ep, key, len);
    struct series_key k = {st, ep, key, len};
    size_t slot = index_find(&st->series_index, h, series_eq, &k);
    if (st->series_index.slots[slot] != 0) {
        return (long)st->series_index.slots[slot] - 1;
    }
    long fam = typed_family(st, sample->family, sample->family_len, sample->type);
    if (fam < 0 || grow((void **)&st->series, sizeof(*st->series), &st->series_cap,
                        st->series_count + 1, 256) != 0) {
        return -1;
    }
    struct scrape__series *se = &st->series[st->series_count];
    *se = (struct scrape__series){.endpoint = ep,
                                  .family = (uint32_t)fam,
                                  .suffix = sample->suffix,
                                  .hash = h,
                                  .key_len = len};
    se->key = malloc(len);
    if (se->key == NULL || fill_labels(st, se, sample) != 0) {
        return -1;
    }
    memcpy(se->key, key, len);
    if (se->group == SIZE_MAX) {
        /* Non-histogram series get group numbers above every histogram's: never shared. */
        se->group = (size_t)1 << 40 | st->series_count;
    }
    uint32_t item = (uint32_t)st->series_count++;
    return index_add(&st->series_index, slot, item, series_hash, st) == 0 ? (long)item : -1;
}

int scrape__store_stage(struct scrape__store *st, uint32_t ep, const struct prom_sample *sample)
{
    if (sample->suffix == PROM_SUFFIX_CREATED || sample->type == PROM_SUMMARY) {
        return 0; /* creation times are not measurements; summaries are not exported by AIPerf */
    }
    if (sample->labels_len > SCRAPE_LINE_BYTES_MAX) {
        return -E2BIG;
    }
    if (st->stage_len >= STAGE_MAX) {
        return -E2BIG;
    }
    long se = series_of(st, ep, sample);
    size_t cap = st->stage_cap;
    if (se < 0 ||
        grow((void **)&st->stage_series, sizeof(uint32_t), &cap, st->stage_len + 1, 1024) != 0 ||
        grow((void **)&st->stage_value, sizeof(double), &st->stage_cap, st->stage_len + 1, 1024) !=
            0) {
        return -ENOMEM;
    }
    st->stage_series[st->stage_len] = (uint32_t)se;
    st->stage_value[st->stage_len] = sample->value;
    st->stage_len++;
    return 0;
}

uint64_t scrape__stage_hash(const struct scrape__store *st)
{
    uint64_t h = FNV_SEED;
    h = fnv(h, st->stage_series, st->stage_len * sizeof(uint32_t));
    return fnv(h, st->stage_value, st->stage_len * sizeof(double));
}

void scrape__store_drop(struct scrape__store *st)
{
    st->stage_len = 0;
}

int scrape__store_commit(struct scrape__store *st, const struct scrape_record *rec,
                         uint64_t *out_hash)
{
    *out_hash = scrape__stage_hash(st);
    size_t need = st->log_len + st->stage_len;
    if (need > st->log_max) {
        st->stage_len = 0;
        return -ENOSPC;
    }
    size_t cap = st->log_cap;
    size_t rcap = st->record_cap;
    if (grow((void **)&st->log_series, sizeof(uint32_t), &cap, need, 4096) != 0 ||
        grow((void **)&st->log_value, sizeof(double), &st->log_cap, need, 4096) != 0 ||
        grow((void **)&st->records, sizeof(*st->records), &rcap, st->record_count + 1, 64) != 0 ||
        grow((void **)&st->record_begin, sizeof(size_t), &st->record_cap, st->record_count + 1,
             64) != 0) {
        st->stage_len = 0;
        return -ENOMEM;
    }
    if (st->stage_len > 0) {
        memcpy(st->log_series + st->log_len, st->stage_series, st->stage_len * sizeof(uint32_t));
        memcpy(st->log_value + st->log_len, st->stage_value, st->stage_len * sizeof(double));
    }
    st->records[st->record_count] = *rec;
    st->record_begin[st->record_count] = st->log_len;
    st->record_count++;
    st->log_len = need;
    st->stage_len = 0;
    return 0;
}
