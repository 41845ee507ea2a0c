"""Stream-stream joins: impressions `src` (id, iv, its) joined with clicks `src2` (cid, cv, cts),
both watermarked 10 seconds behind, on the key and an event-time range (cts BETWEEN its AND its +
20 s) or an event-time equality. Every join type Spark allows between two streams, rows out of
order within a batch, late rows (dropped once the previous batch's watermark passed them), outer
rows emitted by the no-data batch that only moves the watermark, and restarts between batches
(the `restart` run). In the spirit of Spark's StreamingJoinSuite and StreamingOuterJoinSuite."""
from harness import Case
from cases.util import t

IMP = "id STRING, iv BIGINT, its TIMESTAMP"
CLICK = "cid STRING, cv BIGINT, cts TIMESTAMP"
RANGE = "id = cid AND cts BETWEEN its AND its + INTERVAL '20' SECOND"


def imps(*rows):
    return [{"id": k, "iv": v, "its": t(s)} for k, v, s in rows]


def clicks(*rows):
    return [{"cid": k, "cv": v, "cts": t(s)} for k, v, s in rows]


# File 0: a matches, b's click is 50 s later (out of range), x and y never match.
# File 1: c matches; e arrives after c although it is older (out of order).
# File 2: nothing new on the impressions side: only the clicks move the watermark.
# File 3: a click for x that is late by then (the watermark passed 130 s) and new rows.
IMPS = [imps(("a", 1, 100), ("b", 2, 100), ("x", 3, 100)),
        imps(("c", 4, 200), ("e", 5, 150)),
        [],
        imps(("g", 7, 400))]
CLICKS = [clicks(("a", 10, 105), ("b", 20, 150), ("y", 30, 103)),
          clicks(("c", 40, 201), ("e", 50, 160)),
          clicks(("z", 60, 300)),
          clicks(("x", 70, 110), ("g", 80, 405))]


def ss(case_id, sql, **kw):
    kw.setdefault("watermark", ("its", "10 seconds"))
    return Case(case_id, sql, kw.pop("batches", IMPS), schema=IMP, src2_schema=CLICK,
                src2_batches=kw.pop("src2_batches", CLICKS), src2_watermark=("cts", "10 seconds"), **kw)


# NULL join keys (Spark: a NULL key equals nothing, not even another NULL): a and c match, the
# NULL-keyed impression and click never do; the outer joins emit them with NULLs on the other
# side once the watermark (190 s after file 1) passes them.
NULL_IMPS = [imps(("a", 1, 100), (None, 2, 100), (None, 3, 101)), imps(("c", 4, 200))]
NULL_CLICKS = [clicks(("a", 10, 105), (None, 20, 105)), clicks(("c", 30, 201), (None, 40, 202))]


def ss_null(case_id, sql, **kw):
    return ss(case_id, sql, batches=NULL_IMPS, src2_batches=NULL_CLICKS, **kw)


CASES = [
    # Both sides of a stream-stream join as WITH names (the watermarks pass through the projections).
    ss("join-stream-ctes", "WITH i AS (SELECT id, iv, its FROM src WHERE iv < 7), c AS (SELECT cid, cv * 2 AS cv2, "
       f"cts FROM src2) SELECT id, iv, cid, cv2 FROM i JOIN c ON {RANGE}"),
    ss("join-stream-inner-range", f"SELECT id, iv, cid, cv FROM src JOIN src2 ON {RANGE}", smoke=True),
    ss("join-stream-left-outer-range", f"SELECT id, iv, cid, cv FROM src LEFT JOIN src2 ON {RANGE}", smoke=True),
    ss("join-stream-right-outer-range", f"SELECT id, iv, cid, cv FROM src RIGHT JOIN src2 ON {RANGE}"),
    ss("join-stream-full-outer-range", f"SELECT id, iv, cid, cv FROM src FULL JOIN src2 ON {RANGE}"),
    ss("join-stream-left-semi-range", f"SELECT id, iv FROM src LEFT SEMI JOIN src2 ON {RANGE}"),
    ss("join-stream-left-outer-strict-bounds",
       "SELECT id, iv, cid, cv FROM src LEFT JOIN src2 ON id = cid AND cts > its AND cts < its + INTERVAL '20' SECOND"),
    ss("join-stream-left-outer-time-equality", "SELECT id, iv, cid, cv FROM src LEFT JOIN src2 ON id = cid AND its = cts",
       src2_batches=[clicks(("a", 10, 100), ("y", 30, 103)), clicks(("c", 40, 200)), clicks(("z", 60, 300)),
                     clicks(("g", 80, 400))]),
    # A conjunct on one side only: a left row failing it is emitted with NULLs at once (x); a right
    # row failing it is never buffered (g's click). (A comparison of a column with a constant,
    # such as iv > 1, would be read by Spark as an event-time bound on the left state: avoided.)
    ss("join-stream-left-outer-one-side-condition",
       f"SELECT id, iv, cid, cv FROM src LEFT JOIN src2 ON {RANGE} AND id <> 'x' AND cv < 60"),
    ss("join-stream-left-outer-without-range-refused", "SELECT id, cid FROM src LEFT JOIN src2 ON id = cid",
       error="without a watermark in the join keys"),
    # The left input has no watermark: Spark starts (the right side's watermark and the range give a
    # bound) but can never evict a left row, so it never emits one unmatched; sluice refuses (D17).
    ss("join-stream-left-outer-unwatermarked-left", f"SELECT id, iv, cid, cv FROM src LEFT JOIN src2 ON {RANGE}",
       watermark=None),
    # Update mode: the same rows as append (Spark 4 runs it; Spark 3 refused it).
    ss("join-stream-inner-update-mode", f"SELECT id, cid FROM src JOIN src2 ON {RANGE}", mode="update"),
    ss_null("join-stream-null-key-inner", f"SELECT id, iv, cid, cv FROM src JOIN src2 ON {RANGE}"),
    ss_null("join-stream-null-key-left-outer", f"SELECT id, iv, cid, cv FROM src LEFT JOIN src2 ON {RANGE}",
            smoke=True),
    ss_null("join-stream-null-key-right-outer", f"SELECT id, iv, cid, cv FROM src RIGHT JOIN src2 ON {RANGE}"),
    # Spark's full outer join pairs the NULL keys (D35).
    ss_null("join-stream-null-key-full-outer", f"SELECT id, iv, cid, cv FROM src FULL JOIN src2 ON {RANGE}"),
    ss_null("join-stream-null-key-left-semi", f"SELECT id, iv FROM src LEFT SEMI JOIN src2 ON {RANGE}"),
    # Spark's null-safe equality would pair the NULL keys; sluice refuses it by name (D34).
    ss_null("join-stream-null-safe-equality",
            "SELECT id, iv, cid, cv FROM src JOIN src2 ON id <=> cid AND cts BETWEEN its AND its + INTERVAL '20' SECOND"),
]
