"""Streaming deduplication (the DataFrame API's dropDuplicates / dropDuplicatesWithinWatermark on
the SQL result: SQL has no spelling for either)."""
from harness import Case
from cases.util import t

SCHEMA = "id BIGINT, k STRING, ts TIMESTAMP"


def rows(*triples):
    return [{"id": i, "k": k, "ts": t(s)} for i, k, s in triples]


def dd(case_id, files, cols, within=False, watermark=("ts", "10 seconds"), sql="SELECT * FROM src", **kw):
    return Case(case_id, sql, files, schema=SCHEMA, dedup=tuple(cols), dedup_within=within, watermark=watermark, **kw)


REPEATS = [rows((1, "a", 1), (2, "b", 2), (1, "a", 1)), rows((1, "a", 1), (3, "c", 3)), rows((2, "b", 2))]
LATE = [rows((1, "a", 1), (2, "a", 5)), rows((3, "a", 30)), rows((1, "a", 1), (4, "a", 6), (3, "a", 30)),
        rows((5, "a", 50))]

CASES = [
    dd("dedup-all-columns-no-watermark", REPEATS, (), watermark=None),
    dd("dedup-some-columns-no-watermark", [rows((1, "a", 1), (1, "b", 2)), rows((1, "c", 3), (2, "a", 4))], ("id",),
       watermark=None),
    dd("dedup-with-watermark-key-and-time", LATE, ("id", "ts"), smoke=True),
    dd("dedup-with-watermark-late-rows-dropped", LATE, ("k", "ts")),
    dd("dedup-update-mode", REPEATS, ("id",), watermark=None, mode="update"),
    dd("dedup-after-filter-and-projection", REPEATS, ("k",), watermark=None,
       sql="SELECT k, id * 10 AS x FROM src WHERE id < 3"),
    dd("dedup-null-keys", [[{"id": None, "k": "a", "ts": t(1)}, {"id": None, "k": "b", "ts": t(2)}],
                           [{"id": None, "k": "c", "ts": t(3)}]], ("id",), watermark=None),
    dd("dedup-within-watermark", [rows((1, "a", 1), (1, "b", 3)), rows((1, "c", 8), (2, "a", 9)),
                                  rows((1, "d", 30)), rows((1, "e", 45))], ("id",), within=True, smoke=True),
    dd("dedup-within-watermark-late", [rows((1, "a", 20)), rows((2, "a", 1)), rows((1, "b", 25), (3, "a", 40))],
       ("id",), within=True),
    dd("dedup-within-watermark-refused-without-watermark", REPEATS, ("id",), within=True, watermark=None,
       error="watermark"),
]
