"""Ports of the AddData / CheckNewAnswer sequences of Spark's own streaming suites
(EventTimeWatermarkSuite, StreamingAggregationSuite, StreamingDeduplicationSuite (+WithinWatermark),
StreamingSessionWindowSuite, FileStreamSourceSuite), restated as files: each AddData is one input
file; the event time of value v is v seconds after the epoch (Spark's CAST(value AS TIMESTAMP))."""
from harness import Case
from cases.util import t

SCHEMA = "value BIGINT, ts TIMESTAMP"


def vals(*values):
    return [{"value": v, "ts": t(v)} for v in values]


def files(*groups):
    return [vals(*g) for g in groups]


TUMBLE5 = ("tumble(ts, INTERVAL '5 seconds')", "window(ts, '5 seconds')", "window")
SESSION5 = ("session(ts, INTERVAL '5 seconds')", "session_window(ts, '5 seconds')", "session_window")


def ported(case_id, template, data, kind=TUMBLE5, watermark=("ts", "10 seconds"), **kw):
    sluice_w, spark_w, struct = kind
    sql = template.format(W=sluice_w, S="window_start", E="window_end")
    spark_sql = template.format(W=spark_w, S=f"{struct}.start", E=f"{struct}.end")
    return Case(case_id, sql, data, schema=SCHEMA, spark_sql=spark_sql, watermark=watermark, **kw)


WCOUNT = "SELECT CAST({S} AS BIGINT) AS start, count(*) AS n FROM src GROUP BY {W}"
SESSION_BY_GROUP = ("SELECT CAST(value / 10 AS INT) AS grp, CAST({S} AS BIGINT) AS s, CAST({E} AS BIGINT) AS e, "
                    "count(*) AS n, sum(value) AS total FROM src GROUP BY {W}, CAST(value / 10 AS INT)")
SESSION_NO_KEY = ("SELECT CAST({S} AS BIGINT) AS s, CAST({E} AS BIGINT) AS e, count(*) AS n, sum(value) AS total "
                  "FROM src GROUP BY {W}")
SESSION_ONE_KEY = ("SELECT CAST({S} AS BIGINT) AS s, CAST({E} AS BIGINT) AS e, count(*) AS n FROM src "
                   "GROUP BY {W}, CAST(value / 1000 AS INT)")
VALUE_COUNT = "SELECT value, count(*) AS n FROM src GROUP BY value"

CASES = [
    # EventTimeWatermarkSuite
    ported("etw-append-mode", WCOUNT, files((10, 11, 12, 13, 14, 15), (25,), (10,)), smoke=True),
    ported("etw-update-mode", WCOUNT, files((10, 11, 12, 13, 14, 15), (25,), (10,), (5,), (15,)), mode="update"),
    ported("etw-trigger-once-restarts", WCOUNT, files((15,), (10, 12, 14), (25,), (50,), (50,)),
           runs=("restart",), trigger="once", smoke=True),
    ported("etw-event-time-metrics-sequence", WCOUNT, files((15,), (10, 12, 14), (25,))),
    ported("etw-complete-mode-no-watermark-effect", WCOUNT, files((10, 11, 12), (25,), (10,)), mode="complete",
           watermark=None),
    ported("etw-complete-mode-with-watermark", WCOUNT, files((10, 11, 12), (25,), (10,)), mode="complete"),
    ported("etw-append-session", SESSION_BY_GROUP, files((10, 11), (17,), (25,), (35,), (10,), (40,)),
           kind=SESSION5, smoke=True),
    ported("etw-append-session-no-key-refused", SESSION_NO_KEY, files((10, 11), (17,), (25,), (35,), (10,), (40,)),
           kind=SESSION5, error="A session window needs at least one grouping column"),
    ported("etw-update-session-refused", SESSION_BY_GROUP, files((10, 11), (17,), (25,), (35,), (10,), (40,)),
           kind=SESSION5, mode="update", error="Update output mode not supported"),
    ported("etw-delay-in-months-style-large", WCOUNT, files((10,), (100000,), (20,)),
           watermark=("ts", "1 day")),
    ported("etw-watermark-from-max-of-batch", WCOUNT, files((10, 30, 12), (14,), (40,))),
    ported("etw-dropped-late-rows-never-counted", WCOUNT, files((10,), (30,), (11, 12), (60,))),
    # StreamingAggregationSuite
    ported("agg-suite-simple-count-update", VALUE_COUNT, files((3,), (3, 2), (3, 2, 1), (4, 4, 4, 4)),
           watermark=None, mode="update", smoke=True),
    ported("agg-suite-simple-count-complete", VALUE_COUNT, files((3,), (2,), (3, 2, 1)), watermark=None,
           mode="complete"),
    ported("agg-suite-simple-count-append-refused", VALUE_COUNT, files((3,)), watermark=None,
           error="Append output mode not supported"),
    ported("agg-suite-sort-after-aggregate-complete", VALUE_COUNT + " ORDER BY n DESC, value",
           files((1, 2, 3), (2, 3), (3,)), watermark=None, mode="complete", ordered=True),
    ported("agg-suite-limit-complete", VALUE_COUNT + " ORDER BY value LIMIT 2", files((1, 2, 3), (0,)),
           watermark=None, mode="complete", ordered=True),
    ported("agg-suite-multiple-keys", "SELECT value, value + 1 AS next, count(*) AS n FROM src GROUP BY value, value + 1",
           files((1, 2), (1,)), watermark=None, mode="update"),
    ported("agg-suite-global-update-first-batch-empty", "SELECT count(*) AS n FROM src", [[], vals(1, 2)],
           watermark=None, mode="update"),
    ported("agg-suite-global-complete", "SELECT count(*) AS n, sum(value) AS total FROM src",
           files((1, 2), (3,)), watermark=None, mode="complete"),
    ported("agg-suite-window-update-state-eviction", WCOUNT, files((1, 2, 3), (20,), (4,), (30,)), mode="update"),
    # StreamingDeduplicationSuite (+WithinWatermark)
    Case("dedup-suite-all-columns", "SELECT value FROM src", files((1,), (1,), (2, 1)), schema=SCHEMA, dedup=()),
    Case("dedup-suite-with-watermark", "SELECT value, ts FROM src", files((1, 2, 3, 4, 5), (25,), (1, 2, 3), (45,)),
         schema=SCHEMA, dedup=(), watermark=("ts", "10 seconds"), smoke=True),
    Case("dedup-suite-within-watermark", "SELECT CAST(value / 10 AS INT) AS grp, ts FROM src",
         files((1, 2, 3), (12,), (25,), (9,)), schema=SCHEMA, dedup=("grp",), dedup_within=True,
         watermark=("ts", "10 seconds")),
    # StreamingSessionWindowSuite
    ported("session-suite-append-merges-overlapping", SESSION_BY_GROUP,
           files((10, 12, 16), (11, 21), (30,), (45,)), kind=SESSION5),
    ported("session-suite-gap-exactly", SESSION_ONE_KEY, files((0, 5), (10,), (30,)), kind=SESSION5, smoke=True),
    ported("session-suite-late-event-between-sessions", SESSION_BY_GROUP, files((10, 18), (14,), (40,)),
           kind=SESSION5),
    # FileStreamSourceSuite
    Case("file-source-one-file-per-batch", "SELECT value FROM src", files((1, 2), (3,), (4, 5, 6)), schema=SCHEMA),
    Case("file-source-projection-and-filter", "SELECT value * 2 AS twice FROM src WHERE value % 2 = 1",
         files((1, 2), (3, 4)), schema=SCHEMA),
    Case("file-source-missing-column-null", "SELECT value, extra FROM src", files((1,), (2,)),
         schema="value BIGINT, extra STRING"),
    Case("file-source-csv-header", "SELECT * FROM src", ["a,b\n1,x\n", "a,b\n2,y\n"], schema="a BIGINT, b STRING",
         fmt="csv", options={"header": "true"}),
]
