"""Guide: "Output Sinks" - the file sink (parquet) with a checkpoint; stop, new data, restart."""
import json
import os
import sys

from pyspark.sql import SparkSession
import pyspark.sql.functions as F

work = os.path.abspath(sys.argv[1])
inbox = os.path.join(work, "in")
os.makedirs(inbox, exist_ok=True)


def add(n):
    with open(os.path.join(inbox, f"part-{n}.json"), "w") as f:
        for i in range(n * 5, n * 5 + 5):
            f.write(json.dumps({"id": i, "name": f"user{i}"}) + "\n")


spark = SparkSession.builder.appName("file-sink").getOrCreate()


def run():
    df = spark.readStream.schema("id BIGINT, name STRING").json(inbox).withColumn("name", F.upper(F.col("name")))
    query = df.writeStream \
        .format("parquet") \
        .option("checkpointLocation", os.path.join(work, "ck")) \
        .option("path", os.path.join(work, "out")) \
        .trigger(once=True) \
        .start()
    query.awaitTermination()


add(0)
run()
add(1)
run()
out = spark.read.parquet(os.path.join(work, "out"))
print("rows:", out.count(), "distinct ids:", len({r.id for r in out.collect()}))
print("names:", sorted(r.name for r in out.collect())[:3])
