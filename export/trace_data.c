/*
 * trace_data.c - a record's trace_data object (--export-http-trace): the HTTP exchange of one
 * request, from the engine's timestamps and counts, in AIPerf's key names.
 */
#include "export/export_internal.h"

#include "metrics/metrics_record.h"

/* put_wall_if writes "key": the wall-clock time of monotonic `ns`, when it happened. */
static void put_wall_if(struct export_jsonw *w, bool *first, const struct record *rec,
                        const char *key, int64_t ns)
{
    export__put_int_if_known(w, first, key, metrics_record_wall_ns(rec, ns));
}

/* put_span_if writes "key": to - from, when both happened and it is not negative. */
static void put_span_if(struct export_jsonw *w, bool *first, const char *key, int64_t from,
                        int64_t to)
{
    if (from != 0 && to != 0 && to >= from) {
        export_jsonw_key(w, first, key);
        export_jsonw_int(w, to - from);
    }
}

/* export__trace_data writes AIPerf's trace_data (--export-http-trace, spec §3.3) from the engine's
 * timestamps and counts, wall-clock ns, Nones left out. Headers, chunk lists, addresses and
 * DNS events are not kept by the engine, so they are not written. */
void export__trace_data(struct export_jsonw *w, const struct record *rec,
                        const struct metrics_http *h)
{
    const struct record_http *r = &rec->http;
    bool first = false; /* trace_type leads */
    export_jsonw_lit(w, "{\"trace_type\":\"ringperf\"");
    put_wall_if(w, &first, rec, "request_send_start_ns", rec->send_start_ns);
    put_wall_if(w, &first, rec, "request_send_end_ns", h->send_end_ns);
    export_jsonw_lit(w, ",\"request_chunks\":[]");
    export_jsonw_key(w, &first, "request_chunks_count");
    export_jsonw_int(w, r->sends);
    export_jsonw_key(w, &first, "request_bytes_total");
    export_jsonw_int(w, (int64_t)r->bytes_sent);
    export__put_int_if_known(w, &first, "response_status_code", rec->http_status);
    put_wall_if(w, &first, rec, "response_receive_start_ns", r->first_byte_ns);
    put_wall_if(w, &first, rec, "response_headers_received_ns", rec->headers_ns);
    put_wall_if(w, &first, rec, "response_receive_end_ns", rec->end_ns);
    export_jsonw_lit(w, ",\"response_chunks\":[]");
    export_jsonw_key(w, &first, "response_chunks_count");
    export_jsonw_int(w, r->reads);
    export_jsonw_key(w, &first, "response_bytes_total");
    export_jsonw_int(w, (int64_t)r->bytes_received);
    if (rec->outcome != RECORD_SUCCESS) {
        put_wall_if(w, &first, rec, "error_timestamp_ns", rec->end_ns);
    }
    if (h->blocked_ns > 0) {
        put_wall_if(w, &first, rec, "connection_pool_wait_start_ns", rec->scheduled_ns);
        put_wall_if(w, &first, rec, "connection_pool_wait_end_ns", r->dispatch_ns);
    }
    put_wall_if(w, &first, rec, "tcp_connect_start_ns", r->connect_start_ns);
    put_wall_if(w, &first, rec, "tcp_connect_end_ns", r->connect_end_ns);
    if (rec->reused_connection) {
        put_wall_if(w, &first, rec, "connection_reused_ns", r->dispatch_ns);
    }
    put_span_if(w, &first, "sending_ns", rec->send_start_ns, h->send_end_ns);
    put_span_if(w, &first, "waiting_ns", h->send_end_ns, r->first_byte_ns);
    if (r->reads == 1) {
        export_jsonw_lit(w, ",\"receiving_ns\":0");
    } else if (r->reads > 1) {
        put_span_if(w, &first, "receiving_ns", r->first_byte_ns, rec->end_ns);
    }
    put_span_if(w, &first, "duration_ns", rec->send_start_ns, rec->end_ns);
    if (h->blocked_ns > 0) {
        put_span_if(w, &first, "blocked_ns", rec->scheduled_ns, r->dispatch_ns);
    }
    put_span_if(w, &first, "connecting_ns", r->connect_start_ns, r->connect_end_ns);
    export_jsonw_raw(w, "}", 1);
}
