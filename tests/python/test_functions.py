"""sluice.sql.functions against the engine's SQL function list and PySpark's own module: every
function sluice's SQL accepts is wrapped under PySpark's name and parameter names, or is listed
as not in PySpark; and the wrappers compute what the SQL functions compute."""
import datetime
import inspect

import pytest

import sluice.sql.functions as F
from sluice._native import native
from sluice.errors import PySparkNotImplementedError

pyspark_functions = pytest.importorskip("pyspark.sql.functions")


def test_every_sql_function_has_a_wrapper_or_is_not_in_pyspark():
    names = native.sql_function_names()
    assert len(names) > 100 and "max_by" in names and "regexp_extract" in names
    missing = [n for n in names if not callable(getattr(F, n, None)) and n not in F.NOT_IN_PYSPARK]
    assert missing == [], "SQL functions without a sluice.sql.functions wrapper"


def test_the_not_in_pyspark_list_is_true_and_current():
    names = set(native.sql_function_names())
    assert sorted(n for n in F.NOT_IN_PYSPARK if hasattr(pyspark_functions, n)) == [], "PySpark has these: wrap them"
    assert sorted(set(F.NOT_IN_PYSPARK) - names) == [], "listed but no longer a SQL function"


def test_every_sql_function_is_documented():
    """docs/sql.md names every function the SQL accepts (the internal spellings of operators aside)."""
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "sql.md").read_text().lower()
    internal = {"add_interval", "get_field", "get_item"}  # ts + INTERVAL, s.field, a[i]
    undocumented = [n for n in native.sql_function_names()
                    if n not in internal and not re.search(r"\b" + re.escape(n) + r"\b", doc)]
    assert undocumented == [], "functions missing from docs/sql.md"


def test_wrappers_take_pysparks_parameters():
    differ = []
    for name in sorted(set(native.sql_function_names()) - set(F.NOT_IN_PYSPARK)):
        ours = [(p.name, p.kind) for p in inspect.signature(getattr(F, name)).parameters.values()]
        theirs = [(p.name, p.kind) for p in inspect.signature(getattr(pyspark_functions, name)).parameters.values()]
        if ours != theirs:
            differ.append((name, ours, theirs))
    assert differ == []


@pytest.fixture
def people(spark):
    return spark.createDataFrame(
        [(1, "ada lovelace", 10.25, "a", datetime.datetime(2024, 5, 1, 10, 30)),
         (2, "bob", 20.5, "a", datetime.datetime(2024, 5, 31, 23, 0)),
         (3, None, -3.75, "b", datetime.datetime(2024, 2, 29, 0, 0))],
        ["id", "name", "score", "team", "ts"])


def test_scalar_wrappers_compute_the_sql_functions(people):
    out = people.select(
        "id", F.round("score", 1).alias("r"), F.abs("score").alias("a"), F.initcap("name").alias("cap"),
        F.concat_ws("-", "team", F.col("id").cast("string")).alias("tag"),
        F.regexp_extract("name", r"(\w+) (\w+)", 2).alias("last"), F.split("name", " ").alias("parts"),
        F.date_format("ts", "yyyy-MM").alias("ym"), F.last_day("ts").alias("eom"), F.nvl("name", F.lit("?")).alias("n"),
        F.greatest("id", F.lit(2)).alias("g"), F.log(2.0, F.lit(8.0)).alias("l"), F.lpad("team", 3, "*").alias("p"),
        F.element_at(F.split("name", " "), 1).alias("first_word"))
    rows = sorted(out.collect(), key=lambda r: r.id)
    assert [r.r for r in rows] == [10.3, 20.5, -3.8]
    assert [r.a for r in rows] == [10.25, 20.5, 3.75]
    assert [r.cap for r in rows] == ["Ada Lovelace", "Bob", None]
    assert [r.tag for r in rows] == ["a-1", "a-2", "b-3"]
    assert [r.last for r in rows] == ["lovelace", "", None]
    assert [r.parts for r in rows] == [["ada", "lovelace"], ["bob"], None]
    assert [r.ym for r in rows] == ["2024-05", "2024-05", "2024-02"]
    assert [r.eom for r in rows] == [datetime.date(2024, 5, 31), datetime.date(2024, 5, 31), datetime.date(2024, 2, 29)]
    assert [r.n for r in rows] == ["ada lovelace", "bob", "?"]
    assert [r.g for r in rows] == [2, 2, 3]
    assert [r.l for r in rows] == [3.0, 3.0, 3.0]
    assert [r.p for r in rows] == ["**a", "**a", "**b"]
    assert [r.first_word for r in rows] == ["ada", "bob", None]


def test_aggregate_wrappers(people):
    out = people.groupBy("team").agg(
        F.max_by("name", "score").alias("best"), F.count_if(F.col("score") > 0).alias("pos"),
        F.collect_list("id").alias("ids"), F.bool_and(F.col("id") > 1).alias("all_gt1"),
        F.stddev_pop("score").alias("sd"))
    rows = {r.team: r for r in out.collect()}
    assert rows["a"].best == "bob" and rows["b"].best is None
    assert (rows["a"].pos, rows["b"].pos) == (2, 0)
    assert sorted(rows["a"].ids) == [1, 2]
    assert (rows["a"].all_gt1, rows["b"].all_gt1) == (False, True)
    assert rows["a"].sd == pytest.approx(5.125)
    assert rows["b"].sd == 0.0


def test_an_unsupported_pyspark_parameter_is_refused_by_name():
    with pytest.raises(PySparkNotImplementedError, match="max_by"):
        F.max_by("a", "b", k=2)
    with pytest.raises(PySparkNotImplementedError, match="regexp_replace"):
        F.regexp_replace("a", "x", "y", position=2)
