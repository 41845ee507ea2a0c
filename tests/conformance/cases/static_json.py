"""Batch reads of JSON-lines files without a declared schema (static_reads.StaticCase): the schema
Spark's JsonInferSchema gives and the rows read with it."""
from static_reads import StaticCase


def json(case_id, *files, **kw):
    return StaticCase(case_id, "json", list(files), **kw)


CASES = [
    json("json-infer-flat", '{"b":"x","a":1}\n{"a":2,"c":true,"d":1.5,"e":1e3}\n'),
    # Strings are strings, however they look (Spark's inferTimestamp is off by default).
    json("json-infer-strings-stay-strings", '{"t":"2024-01-01T00:00:00","d":"2024-01-01","n":"12","b":"true"}\n'),
    json("json-infer-long-and-double", '{"a":1}\n{"a":2.5}\n'),
    json("json-infer-conflicts-are-strings", '{"a":1,"b":"x","c":true,"d":{"x":1}}\n'
         '{"a":"s","b":3,"c":1,"d":[1]}\n{"a":2.5,"b":null,"c":false,"d":"t"}\n'),
    json("json-infer-across-files", '{"a":1}\n', '{"a":"x","b":1.0}\n', '{"c":[1,2]}\n'),
    json("json-infer-big-integers", '{"a":12345678901234567890,"b":1,"c":-9223372036854775809,"d":1.5}\n'
         '{"a":1,"b":123456789012345678901234567890123456789012,"d":99999999999999999999}\n'),
    json("json-infer-nested", '{"s":{"z":1,"a":"x"},"l":[1,2],"o":[{"q":1},{"p":"r"}]}\n'
         '{"s":{"m":true,"z":2.5},"l":[2.5],"o":[]}\n'),
    json("json-infer-nulls-and-empties", '{"a":null,"b":[],"c":{},"d":[{}],"e":1}\n{"a":null,"b":[null]}\n'),
    json("json-infer-drop-field-if-all-null", '{"a":null,"b":[],"c":{"x":null},"e":1}\n',
         options={"dropFieldIfAllNull": "true"}),
    json("json-infer-primitives-as-string", '{"x":1.50,"y":0.001,"z":1,"b":true,"s":"t","n":null}\n{"x":[1e3]}\n',
         options={"primitivesAsString": "true"}),
    json("json-infer-prefers-decimal", '{"x":1.50,"y":0.001,"z":1,"d":1.5}\n{"x":12.5,"y":0.0,"d":1e-2}\n'
         '{"e":1.5,"f":2}\n{"e":123456789012345678901234567890.123456789,"f":2.5}\n', options={"prefersDecimal": "true"}),
    json("json-infer-prefers-decimal-negative-scale", '{"x":1}\n{"x":1.5E2}\n', options={"prefersDecimal": "true"},
         error="a decimal of negative scale"),
    json("json-infer-blank-and-null-lines", '\n  \n{"a":1}\r\nnull\n\n{"b":"x"}'),
    json("json-infer-malformed-permissive", '{"a":1,"b":"x"}\n{"a":2,bad\n{"a":3,"c":1.5}\n5\n"s"\n'),
    json("json-infer-malformed-column-name", '{"a":1}\nnot json\n', options={"columnNameOfCorruptRecord": "oops"}),
    json("json-infer-malformed-dropmalformed", '{"a":1}\n{"a":2,bad\n[1,2]\n', options={"mode": "DROPMALFORMED"}),
    json("json-infer-malformed-failfast", '{"a":1}\n{"a":2,bad\n', options={"mode": "FAILFAST"},
         error="Malformed records are detected in schema inference"),
    json("json-infer-only-malformed", 'oops\n', diff="D45", expect="refused by spark"),
    json("json-infer-top-level-arrays", '[{"b":1},{"a":"x"}]\n[]\n{"a":"y"}\n'),
    json("json-infer-top-level-array-bad-element", '{"a":1}\n[{"a":2},5]\n'),
    json("json-infer-trailing-content", '{"a":1} {"b":2}\n{"a":3} xyz\n'),
    json("json-infer-duplicate-key", '{"a":1,"a":2}\n', error="names the field \"a\" twice"),
    json("json-infer-names-differing-in-case", '{"A":1,"b":"x"}\n{"a":2,"B":"y"}\n', error="differ only in case"),
    json("json-infer-one-name-differing-in-case", '{"A":1}\n{"a":2}\n', diff="D47", expect="refused by sluice"),
    json("json-infer-unicode-keys-and-escapes", '{"\\u00e9":1,"b\\"q":"\\u2603"}\n'),
    json("json-infer-empty-files", "", "\n", diff="D46", expect="refused by sluice"),
]
