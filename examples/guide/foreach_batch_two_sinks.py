"""Guide: "Using Foreach and ForeachBatch" - write each micro-batch to two locations."""
import json
import os
import sys

from pyspark.sql import SparkSession

work = os.path.abspath(sys.argv[1])
inbox = os.path.join(work, "in")
os.makedirs(inbox, exist_ok=True)
for n in range(3):
    with open(os.path.join(inbox, f"part-{n}.json"), "w") as f:
        for i in range(n * 10, n * 10 + 10):
            f.write(json.dumps({"id": i, "value": i * i}) + "\n")

spark = SparkSession.builder.appName("foreach-batch").getOrCreate()
streamingDF = spark.readStream.schema("id BIGINT, value BIGINT").option("maxFilesPerTrigger", 1).json(inbox)


def foreach_batch_function(df, epoch_id):
    df.persist()
    df.write.format("parquet").mode("append").save(os.path.join(work, "location1"))
    df.write.format("json").mode("append").save(os.path.join(work, "location2"))
    df.unpersist()


streamingDF.writeStream.foreachBatch(foreach_batch_function) \
    .option("checkpointLocation", os.path.join(work, "ck")).trigger(availableNow=True).start().awaitTermination()

parquet_ids = sorted(r.id for r in spark.read.parquet(os.path.join(work, "location1")).collect())
json_ids = sorted(r.id for r in spark.read.schema("id BIGINT, value BIGINT").json(os.path.join(work, "location2")).collect())
print("location1:", len(parquet_ids), "rows, ids", parquet_ids[0], "..", parquet_ids[-1])
print("location2:", len(json_ids), "rows, same ids:", parquet_ids == json_ids)
