"""Guide: "Creating streaming DataFrames" - a CSV directory with a user-defined schema."""
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql.types import StructType

work = os.path.abspath(sys.argv[1])
os.makedirs(os.path.join(work, "people"), exist_ok=True)
with open(os.path.join(work, "people", "part-0.csv"), "w") as f:
    f.write("ada;36\nbob;17\ncy;52\n")

spark = SparkSession.builder.appName("csv-with-schema").getOrCreate()

# Read all the csv files written atomically in a directory
userSchema = StructType().add("name", "string").add("age", "integer")
csvDF = spark \
    .readStream \
    .option("sep", ";") \
    .schema(userSchema) \
    .csv(os.path.join(work, "people"))

print("isStreaming:", csvDF.isStreaming)
csvDF.printSchema()

adults = []
query = csvDF.where("age >= 18").writeStream \
    .foreachBatch(lambda batch, batch_id: adults.extend((r.name, r.age) for r in batch.collect())) \
    .option("checkpointLocation", os.path.join(work, "ck")) \
    .trigger(availableNow=True) \
    .start()
query.awaitTermination()
print("adults:", sorted(adults))
