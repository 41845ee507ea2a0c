"""SparkSession: the builder, spark.conf and Spark's configuration keys."""
import pytest

from sluice.errors import IllegalArgumentException
from sluice.sql import SparkSession


def test_builder_returns_the_one_session_and_applies_config(spark):
    again = SparkSession.builder.appName("other").config("spark.sql.shuffle.partitions", 3).getOrCreate()
    assert again is spark
    assert spark.conf.get("spark.sql.shuffle.partitions") == "3"
    # spark.X and sluice.X are one setting.
    assert spark.conf.get("sluice.sql.shuffle.partitions") == "3"
    spark.conf.set("sluice.sql.shuffle.partitions", "5")
    assert spark.conf.get("spark.sql.shuffle.partitions") == "5"
    assert spark.conf.get("spark.sql.no.such.key", "dflt") == "dflt"


def test_iceberg_catalog_keys_as_spark_spells_them(spark):
    spark.conf.set("spark.sql.catalog.lake", "org.apache.iceberg.spark.SparkCatalog")
    spark.conf.set("spark.sql.catalog.lake.type", "jdbc")
    assert spark.conf.get("sluice.sql.catalog.lake.type") == "sql"  # Iceberg's JDBC catalog = sluice's sql
    spark.conf.set("spark.sql.catalog.lake.type", "hadoop")
    assert spark.conf.get("spark.sql.catalog.lake.type") == "hadoop"


def test_near_miss_of_a_known_key_is_refused(spark):
    with pytest.raises(IllegalArgumentException, match="Did you mean 'spark.sql.shuffle.partitions'"):
        spark.conf.set("spark.sql.shuffle.partition", "4")


def test_other_spark_keys_are_accepted_with_a_warning(spark, capsys):
    spark.conf.set("spark.sql.adaptive.enabled", "true")
    assert "spark.sql.adaptive.enabled" in capsys.readouterr().err
    spark.conf.set("spark.jars.packages", "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.6.0")
    assert capsys.readouterr().err == ""
