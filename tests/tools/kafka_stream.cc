// Runs one Kafka-reading stream with an availableNow trigger through the C++ API, for the
// Kafka tests (tests/kafka/): records `key, value` of the input topic go to an output topic
// (the exactly-once Kafka sink) or to Parquet files. With --fault it runs on a fault-injecting
// filesystem (io::FaultSpec), so a test can stop it at a protocol moment.
//
//   kafka_stream --bootstrap HOST:PORT --input TOPIC --checkpoint DIR
//                (--output-topic TOPIC [--delivery exactly-once|at-least-once] | --output-dir DIR)
//                [--max-offsets-per-trigger N] [--fault SPEC]
//
// Prints the last progress JSON on success; exit 1 with "kafka_stream: <error>" otherwise.
#include <iostream>
#include <map>
#include <string>

#include "api/access.h"
#include "io/fault_injection.h"
#include "tools/tool_args.h"
#include "sluice/sluice.h"

using namespace sluice;

namespace {

int Fail(const Status& st) {
  std::cerr << "kafka_stream: " << st.message() << std::endl;
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  tools::Args args;
  if (!tools::ParseArgs(argc, argv, "kafka_stream", {"--bootstrap", "--input", "--checkpoint"}, &args)) return 2;
  auto fs_or = tools::FileSystemFor(args);
  if (!fs_or.ok()) return Fail(fs_or.status());
  std::shared_ptr<io::FileSystem> fs = *fs_or;
  auto session = api::MakeSession(fs);
  auto reader = session->readStream()
                    .format("kafka")
                    .option("kafka.bootstrap.servers", args["--bootstrap"])
                    .option("subscribe", args["--input"])
                    .option("startingOffsets", "earliest");
  if (args.count("--max-offsets-per-trigger")) reader.option("maxOffsetsPerTrigger", args["--max-offsets-per-trigger"]);
  auto df = reader.load();
  if (!df.ok()) return Fail(df.status());
  auto writer = df->select(std::vector<std::string>{"key", "value"})
                    .writeStream()
                    .option("checkpointLocation", args["--checkpoint"])
                    .trigger(AvailableNow());
  if (args.count("--output-topic")) {
    writer.format("kafka").option("kafka.bootstrap.servers", args["--bootstrap"]).option("topic", args["--output-topic"]);
    if (args.count("--delivery")) writer.option("delivery.guarantee", args["--delivery"]);
  } else if (args.count("--output-dir")) {
    writer.format("parquet").option("path", args["--output-dir"]);
  } else {
    std::cerr << "kafka_stream: give --output-topic or --output-dir" << std::endl;
    return 2;
  }
  auto query = writer.start();
  if (!query.ok()) return Fail(query.status());
  Status st = query->awaitTermination();
  if (!st.ok()) return Fail(st);
  std::cout << query->lastProgress() << std::endl;
  return 0;
}
