"""Every known difference the suite asserts: case id -> (row of docs/spark-compatibility.md, the
difference text harness.difference() gives, or run -> text). A case listed here fails when its
difference disappears or changes, so the document stays true; regenerate a text only together with
the document."""

KNOWN = {
    'str-like-escape': ('D1', 'batch 1: sluice-only [(6, False)] spark-only [(6, True)]'),
    'csv-header-by-name': ('D3', "batch 0: sluice-only [(1, 10, 'x'), (2, 20, 'y')] spark-only [(None, 1, '10'), (None, 2, '20')]"),
    'csv-quotes': ('D4', 'batch 0: sluice-only [(2, 20, \'say "hi"\'), (3, 30, \'\')] spark-only [(2, 20, \'"say ""hi"""\'), (3, 30, None)]'),
    'csv-whitespace': ('D5', "batch 0: sluice-only [(1, 10, ' a ')] spark-only [(1, None, ' a ')]"),
    'agg-count-distinct': ('D6', 'refused by spark'),
    'agg-sum-avg-distinct': ('D6', 'refused by spark'),
    'fn-agg-approx-count-distinct-above-threshold': ('D13', 'batch 0: sluice-only [(1478,)] spark-only [(1461,)]'),
    'fn-agg-percentile-approx-compressed': ('D14', 'batch 0: sluice-only [(59, 139)] spark-only [(51, 125)]; batch 1: sluice-only [(60, 140)] spark-only [(52, 126)]'),
    'fn-agg-collect-set-order': ('D15', "batch 0: sluice-only [('a', (7, 65, 300, 1000))] spark-only [('a', (65, 7, 1000, 300))]; batch 1: sluice-only [('a', (2, 7, 65, 99, 300, 1000))] spark-only [('a', (65, 2, 99, 7, 1000, 300))]"),
    'window-field-column-names': ('D7', "columns: sluice (('window_start', 'timestamp'), ('window_end', 'timestamp'), ('n', 'bigint')) spark (('start', 'timestamp'), ('end', 'timestamp'), ('n', 'bigint'))"),
    'window-struct-column': ('D7', "columns: sluice (('window_start', 'timestamp'), ('window_end', 'timestamp'), ('n', 'bigint')) spark (('window', 'struct<start:timestamp,end:timestamp>'), ('n', 'bigint')); batch 2: sluice-only [('t1970-01-01 00:00:00', 't1970-01-01 00:00:10', 1)] spark-only [(('t1970-01-01 00:00:00', 't1970-01-01 00:00:10'), 1)]"),
    'agg-complete-distinct-order-by': ('D10', 'refused by spark'),
    'append-limit': ('D11', 'refused by sluice'),
    'nested-lateral-view': ('D19', 'refused by sluice'),
    'json-get-json-object-wildcard': ('D18', "batch 0: sluice-only [(1, None)] spark-only [(1, '[10,20]')]"),
    'join-static-select-star-names': ('D12', "columns: sluice (('src.k', 'string'), ('v', 'bigint'), ('dim.k', 'string'), ('name', 'string')) spark (('k', 'string'), ('v', 'bigint'), ('k', 'string'), ('name', 'string'))"),
    'row-number-dedupe-refused-by-spark': ('D16', 'refused by spark'),
    'join-stream-left-outer-unwatermarked-left': ('D17', 'refused by sluice'),
    'join-static-null-safe-equality': ('D34', 'refused by sluice'),
    'join-stream-null-safe-equality': ('D34', 'refused by sluice'),
    'join-stream-null-key-full-outer': ('D35', {
        'one': 'batch 0: sluice-only [] spark-only [(None, 2, None, 20), (None, 3, None, 20)]; batch 2: sluice-only [(None, 2, None, None), (None, 3, None, None), (None, None, None, 20)] spark-only []',
        'restart': 'batch 0: sluice-only [] spark-only [(None, 2, None, 20), (None, 3, None, 20)]; batch 3: sluice-only [(None, 2, None, None), (None, 3, None, None), (None, None, None, 20)] spark-only []'}),
    'json-duplicate-key': ('D37', 'batch 0: sluice-only [(1, None, None, None)] spark-only [(1, 2, None, None)]'),
    'json-double-out-of-range': ('D38', "batch 0: sluice-only [(None, None)] spark-only [(1, 'finf')]"),
    'json-map-struct-value-bad-field': ('D39', "batch 0: sluice-only [(1, None)] spark-only [(1, (('a', (None, 's')),))]"),
    'json-stream-schema-inference': ('D44', {"restart": "refused by sluice"}),
    'csv-stream-schema-inference': ('D44', {"restart": "refused by sluice"}),
}
