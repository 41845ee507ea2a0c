"""Batch DataFrames: transformations, schema, Arrow in and out."""
import pyarrow as pa
import pytest

import sluice.sql.functions as F
from sluice.errors import AnalysisException
from sluice.sql import Row
from sluice.sql.types import BooleanType, DoubleType, LongType, StringType, StructField, StructType


@pytest.fixture
def people(spark):
    return spark.createDataFrame(pa.table({"id": pa.array([1, 2, 3, 4], pa.int64()),
                                           "name": ["ada", "bob", None, "dan"],
                                           "score": [1.5, 2.5, 3.5, None]}))


def test_transformations_and_collect(people):
    out = (people.where(F.col("id") > 1)
           .withColumn("upper", F.upper("name"))
           .withColumnRenamed("score", "points")
           .drop("name")
           .select("id", "upper", (F.col("points") * 2).alias("double_points")))
    assert out.columns == ["id", "upper", "double_points"]
    assert out.collect() == [Row(id=2, upper="BOB", double_points=5.0), Row(id=3, upper=None, double_points=7.0),
                             Row(id=4, upper="DAN", double_points=None)]
    assert not out.isStreaming


def test_select_expr_filter_string_and_when(people):
    out = people.selectExpr("id", "id * 10 AS tens", "upper(name) AS Name").filter("id <= 2")
    assert [tuple(r) for r in out.collect()] == [(1, 10, "ADA"), (2, 20, "BOB")]
    labelled = people.select("id", F.when(F.col("score") >= 3, "high").when(F.col("score").isNull(), "none")
                             .otherwise("low").alias("label"))
    assert [r.label for r in labelled.collect()] == ["low", "low", "high", "none"]
    assert [r["x"] for r in people.select(F.expr("id + 1 AS x")).collect()] == [2, 3, 4, 5]


def test_group_by_agg(people):
    rows = (people.withColumn("even", F.col("id") % 2 == 0)
            .groupBy("even").agg(F.count("*").alias("n"), F.sum("id").alias("total"), F.max("score").alias("best"))
            .collect())
    assert sorted((r.even, r.n, r.total, r.best) for r in rows) == [(False, 2, 4, 3.5), (True, 2, 6, 2.5)]
    assert sorted(tuple(r) for r in people.groupBy().count().collect()) == [(4,)]


def test_schema_and_print_schema(people, capsys):
    assert people.schema == StructType([StructField("id", LongType()), StructField("name", StringType()),
                                        StructField("score", DoubleType())])
    people.printSchema()
    assert capsys.readouterr().out.splitlines() == ["root", " |-- id: long (nullable = true)",
                                                    " |-- name: string (nullable = true)",
                                                    " |-- score: double (nullable = true)"]
    assert people.dtypes == [("id", "bigint"), ("name", "string"), ("score", "double")]


def test_to_arrow_shares_buffers(spark):
    """Arrow crosses without copies: a column the plan passes through keeps its buffer."""
    values = pa.array(range(100000), pa.int64())
    table = pa.table({"v": values})
    out = spark.createDataFrame(table).select("v").toArrow()
    assert out.column("v").chunk(0).buffers()[1].address == values.buffers()[1].address


def test_analysis_errors_name_the_column(people):
    with pytest.raises(AnalysisException, match="nope"):
        people.select("nope")
    with pytest.raises(AnalysisException, match="nope"):
        people.selectExpr("nope + 1")
    with pytest.raises(AnalysisException):
        people.filter("id >")  # SQL syntax error


def test_create_dataframe_from_rows(spark):
    schema = StructType([StructField("k", StringType()), StructField("v", LongType())])
    df = spark.createDataFrame([("a", 1), ("b", 2)], schema)
    assert [r.asDict() for r in df.collect()] == [{"k": "a", "v": 1}, {"k": "b", "v": 2}]
    assert df.count() == 2


def test_write_and_read_files(spark, people, tmp_path):
    people.write.mode("overwrite").parquet(str(tmp_path / "out"))
    back = spark.read.parquet(str(tmp_path / "out"))
    assert sorted(r.id for r in back.collect()) == [1, 2, 3, 4]
    assert back.schema["name"].dataType == StringType()


def test_union_matches_columns_by_position_and_keeps_duplicates(people):
    left = people.select("id", "name")
    right = people.where(F.col("id") <= 2).select((F.col("id") + 10).alias("other"), "name")
    both = left.union(right)
    assert both.columns == ["id", "name"]
    assert sorted(r.id for r in both.collect()) == [1, 2, 3, 4, 11, 12]
    assert both.unionAll(left).count() == 10
    with pytest.raises(AnalysisException, match="column 2 is 'name' string in the first input but 'score' double"):
        left.union(people.select("id", "score")).collect()


def test_inferred_nested_json_schema_rows_and_print_schema(spark, tmp_path, capsys):
    """A batch read without a schema infers Spark's nested types; collect() gives PySpark's
    values for them (a struct a Row, an array a list, a map a dict)."""
    from sluice.sql.types import ArrayType, MapType

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_text('{"s":{"z":1,"a":"x"},"l":[1,2]}\n{"s":{"m":true},"l":[2.5],"n":12}\n')
    df = spark.read.json(str(tmp_path / "in"))
    assert df.schema == StructType([
        StructField("l", ArrayType(DoubleType(), True)), StructField("n", LongType()),
        StructField("s", StructType([StructField("a", StringType()), StructField("m", BooleanType()),
                                     StructField("z", LongType())]))])
    df.printSchema()
    assert capsys.readouterr().out.splitlines() == [
        "root", " |-- l: array (nullable = true)", " |    |-- element: double (containsNull = true)",
        " |-- n: long (nullable = true)", " |-- s: struct (nullable = true)",
        " |    |-- a: string (nullable = true)", " |    |-- m: boolean (nullable = true)",
        " |    |-- z: long (nullable = true)"]
    assert df.collect() == [Row(l=[1.0, 2.0], n=None, s=Row(a="x", m=None, z=1)),
                            Row(l=[2.5], n=12, s=Row(a=None, m=True, z=None))]
    assert df.collect()[0].s.a == "x"
    maps = spark.createDataFrame(pa.table({"m": pa.array([[("b", 2), ("a", None)]], pa.map_(pa.string(), pa.int64()))}))
    assert maps.schema["m"].dataType == MapType(StringType(), LongType(), True)
    assert maps.collect() == [Row(m={"b": 2, "a": None})]
