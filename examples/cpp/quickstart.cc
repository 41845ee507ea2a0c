// examples/cpp/quickstart.cc: streams the JSON files of IN_DIR into parquet files under OUT_DIR,
// exactly once (the query remembers its progress in CHECKPOINT_DIR), then reads back the rows
// the sink committed. Run it again after adding files: only the new files are processed.
#include <arrow/api.h>
#include <sluice/sluice.h>

#include <iostream>

using namespace sluice;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: quickstart IN_DIR OUT_DIR CHECKPOINT_DIR\n";
    return 2;
  }
  auto session = Session::Make();
  auto events = session->readStream()
                    .format("json")  // json | csv | parquet | text
                    .schema("id BIGINT, name STRING, price DOUBLE")
                    .option("maxFilesPerTrigger", 10)
                    .load(argv[1]);  // Result<DataFrame>
  if (!events.ok()) {
    std::cerr << events.status().ToString() << "\n";
    return 1;
  }
  auto query = events->filter(col("price") > lit(0.0))
                   .withColumn("name", upper(col("name")))
                   .writeStream()
                   .format("parquet")  // parquet | json | csv | console | memory
                   .option("checkpointLocation", argv[3])
                   .option("path", argv[2])
                   .trigger(AvailableNow())  // or ProcessingTime(ms), Once()
                   .start();                 // Result<StreamingQuery>
  Status st = query.ok() ? query->awaitTermination() : query.status();
  if (!st.ok()) {
    std::cerr << st.ToString() << "\n";
    return 1;
  }
  // The sink's directory as a batch DataFrame: only committed files are read.
  auto committed = session->read().format("parquet").load(argv[2]);
  auto rows = committed.ok() ? committed->select({col("id"), col("name")}).collect() : committed.status();
  if (!rows.ok()) {
    std::cerr << rows.status().ToString() << "\n";
    return 1;
  }
  std::cout << "rows committed: " << (*rows)->num_rows() << "\n" << (*rows)->ToString();
  return 0;
}
