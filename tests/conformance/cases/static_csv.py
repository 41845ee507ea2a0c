"""Batch reads of CSV files without a declared schema (static_reads.StaticCase): the names and
types Spark's CSV schema inference gives, and the rows read with them."""
from static_reads import StaticCase

H = {"header": "true"}
HI = {"header": "true", "inferSchema": "true"}
I = {"inferSchema": "true"}


def col(*values):
    """One column `x`, a value a line."""
    return "x\n" + "".join(v + "\n" for v in values)


CASES = [
    StaticCase("csv-infer-header-strings", "csv", ["a,b\n1,x\n2,y\n"], options=H),
    # numbers: INT, BIGINT beyond int, DECIMAL(p,0) beyond long, DOUBLE for fractions/exponents
    StaticCase("csv-infer-int", "csv", [col("1", "+2", "-3", "00012", "2147483647")], options=HI),
    StaticCase("csv-infer-bigint", "csv", [col("1", "2147483648", "-9223372036854775808")], options=HI),
    StaticCase("csv-infer-bigdecimal", "csv", [col("123456789012345678901234", "-5", "+7")], options=HI),
    StaticCase("csv-infer-decimal-after-long", "csv", [col("9223372036854775807", "9223372036854775808")], options=HI),
    StaticCase("csv-infer-decimal-forms", "csv", [col("1.", "1.5e1", "0e0")], options=HI),
    StaticCase("csv-infer-decimal-38-digits", "csv", [col("12345678901234567890123456789012345678")], options=HI),
    StaticCase("csv-infer-double-beyond-38-digits", "csv", [col("123456789012345678901234567890123456789")],
               options=HI),
    StaticCase("csv-infer-double", "csv", [col("1.5", "1e5", "1E+2", ".5", "-0.0", "2", "+2.5", "1d", "2F")],
               options=HI),
    StaticCase("csv-infer-double-nan-inf", "csv",
               [col("NaN", "Infinity", "-Infinity", "+Infinity", "Inf", "-Inf", "1")], options=HI),
    StaticCase("csv-infer-double-spaces", "csv", [col(" 1", "2 ")], options=HI),
    StaticCase("csv-infer-int-then-string", "csv", [col("1", "a")], options=HI),
    StaticCase("csv-infer-decimal-then-double", "csv", [col("123456789012345678901234", "1.5")], options=HI),
    StaticCase("csv-infer-inf-not-double", "csv", [col("inf", "+Inf", "nan")], options=HI),
    # booleans, any case
    StaticCase("csv-infer-boolean", "csv", [col("true", "FALSE", "tRuE", "False")], options=HI),
    StaticCase("csv-infer-boolean-then-int", "csv", [col("true", "1")], options=HI),
    # dates (yyyy-MM-dd, strict) and timestamps (Spark's lenient forms)
    StaticCase("csv-infer-date", "csv", [col("2024-01-01", "2024-02-29")], options=HI),
    StaticCase("csv-infer-bad-date-is-string", "csv", [col("2024-02-30", "2024-13-01")], options=HI),
    StaticCase("csv-infer-timestamp", "csv",
               [col("2024-01-01 10:00:00", "2024-01-01T10:00:00", "2024-01-01 10:00:00.123456789",
                    "2024-01-01T10:00:00.5+01:00", "2024-01-01 10:00:00Z", "2024-01-01T10:00:00+0200")],
               options=HI),
    StaticCase("csv-infer-timestamp-lenient", "csv",
               [col("2024-1-1", "2024-01", "2024-01-01 10:00", "2024-01-01T10", "2024-1-1 1:2:3",
                    "2024-01-01 10:00:00 UTC", "2024-01-01T10:00:00GMT+01:00", "+2024-01-01", "2024-01-01 ")],
               options=HI),
    StaticCase("csv-infer-timestamp-not", "csv", [col("2024-01-01T", "2024-01-01T10:00Z", "2024-01-01 24:00:00")],
               options=HI),
    StaticCase("csv-infer-date-then-timestamp", "csv", [col("2024-01-01", "2024-01-01 10:00:00")], options=HI),
    StaticCase("csv-infer-timestamp-then-date", "csv", [col("2024-01-01 10:00:00", "2024-01-01", "2024")],
               options=HI),
    StaticCase("csv-infer-date-then-year", "csv", [col("2024-01-01", "2024")], options=HI),
    StaticCase("csv-infer-year-then-date", "csv", [col("2024", "2024-01-01")], options=HI),
    StaticCase("csv-infer-date-then-int", "csv", [col("2024-01-01", "1")], options=HI),
    # nulls: an empty field leaves the type; a column of nothing but empty fields is STRING
    StaticCase("csv-infer-nulls", "csv", ["a,b,c\n,1,\n,,\n,2,\n"], options=HI),
    # header names: empty and repeated (ignoring case) names renamed as Spark renames them
    StaticCase("csv-header-dedup", "csv", ["a,A,a,,b\n1,2,3,4,5\n"], options=HI),
    StaticCase("csv-header-dedup-strings", "csv", ["a,A,a,,b\n1,2,3,4,5\n6,7,8,9,10\n"], options=H),
    StaticCase("csv-header-renamed-twice", "csv", ["a,a,a0\n1,2,3\n"], options=HI, error="twice"),
    StaticCase("csv-header-quoted-names", "csv", ['"a,b",c\n1,2\n'], options=HI),
    # ragged records: a short record leaves its missing columns untyped (and reads as nulls);
    # fields beyond the header are not looked at
    StaticCase("csv-infer-ragged", "csv", ["a,b\n1\n2,x,9\n3,4\n"], options=HI),
    StaticCase("csv-ragged-strings", "csv", ["a,b\n1\n2,x,9\n3,4\n"], options=H),
    StaticCase("csv-infer-ragged-no-header", "csv", ["1,2\n3\n4,5,6\n"], options=I),
    # without a header the first line gives the number of columns
    StaticCase("csv-no-header-first-line-short", "csv", ["1\n3,4\n4,5,6\n"], options=I),
    StaticCase("csv-no-header-strings", "csv", ["1,2\n3,4\n"]),
    # blank lines before the header and between records
    StaticCase("csv-blank-leading-lines", "csv", ["\n  \n\na,b\n1,2\n\n3,4\n"], options=HI),
    StaticCase("csv-blank-line-one-column", "csv", ["x\n  \n1\n"], options=HI),
    StaticCase("csv-crlf", "csv", ["x,y\r\n1,2\r\n3,4\r\n"], options=HI),
    # a line equal to the header is not a record while inferring
    StaticCase("csv-header-repeated-inside", "csv", ["a\n1\na\n2\n"], options=HI),
    # quoted fields: the delimiter inside quotes, a quoted number
    StaticCase("csv-infer-quoted", "csv", ['a,b,c\n"1,5",2,"3"\n"x y",3,"4"\n'], options=HI),
    StaticCase("csv-infer-sep", "csv", ["a;b\n1;2.5\n"], options={**HI, "sep": ";"}),
    # several files: each file's types merge (INT with DOUBLE is DOUBLE, INT with text STRING, ...)
    StaticCase("csv-infer-files-int-double", "csv", [col("1"), col("2.5")], options=HI),
    StaticCase("csv-infer-files-int-string", "csv", [col("1"), col("a")], options=HI),
    StaticCase("csv-infer-files-int-bigint", "csv", [col("1"), col("9223372036854775807")], options=HI),
    StaticCase("csv-infer-files-decimal-widens", "csv", [col("12345678901234567890123"), col("9223372036854775807")],
               options=HI),
    StaticCase("csv-infer-files-decimal-int", "csv", [col("123456789012345678901234"), col("1")], options=HI),
    StaticCase("csv-infer-files-decimal-double", "csv", [col("123456789012345678901234"), col("1.5")], options=HI),
    StaticCase("csv-infer-files-date-timestamp", "csv", [col("2024-01-01"), col("2024-01-01 10:00:00")],
               options=HI),
    StaticCase("csv-infer-files-boolean-date", "csv", [col("true"), col("2024-01-01")], options=HI),
    StaticCase("csv-infer-files-empty-and-data", "csv", ["", "a\n1\n"], options=HI),
    # D43: files whose first lines differ. Spark takes the names from the largest file (its
    # partitions are ordered by size), reads other files' header lines as records while
    # inferring and applies the names by position; sluice takes them from the first file in path
    # order and matches each file's header by name (D3).
    StaticCase("csv-infer-files-different-headers", "csv", ["a,b\n1,2\n", "a,b,c\n3,4,5\n6,7,8\n"], options=HI,
               diff="D43",
               expect=("columns: sluice (('a', 'int'), ('b', 'int')) "
                       "spark (('a', 'string'), ('b', 'string'), ('c', 'int')); "
                       "batch 0: sluice-only [(1, 2), (3, 4), (6, 7)] "
                       "spark-only [('1', '2', None), ('3', '4', 5), ('6', '7', 8)]")),
    StaticCase("csv-no-header-files-different-widths", "csv", ["1\n", "1,2,3\n4,5,6\n"], options=I,
               diff="D43",
               expect=("columns: sluice (('_c0', 'int'),) spark (('_c0', 'int'), ('_c1', 'int'), ('_c2', 'int')); "
                       "batch 0: sluice-only [(1,), (1,), (4,)] spark-only [(1, 2, 3), (1, None, None), (4, 5, 6)]")),
    # No line to take names from: refused (D46); Spark reads an empty table without columns.
    StaticCase("csv-infer-empty-file", "csv", ["", "\n"], options={"header": "true"}, diff="D46",
               expect="refused by sluice"),
]
