// The Kafka source (Spark's "kafka" format) on librdkafka. Rows: key, value (binary), topic,
// partition, offset, timestamp, timestampType (and headers with includeHeaders), as Spark's.
// Offsets are Spark's JSON ({"topic":{"0":123}}, the next offset to read per partition), so a
// redone batch reads exactly the records of its recorded range. The starting offsets of a new
// query are recorded in <checkpoint>/sources/<i>/0 before its first batch. After each commit the
// offsets are also committed to the consumer group (for lag tools; never read back).
// docs/kafka.md has the options.
#pragma once

#include "source/source_registry.h"

namespace sluice::source {

std::shared_ptr<arrow::Schema> KafkaSourceSchema(bool include_headers);
Result<std::unique_ptr<Source>> MakeKafkaSource(const plan::SourceSpec& spec, const SourceContext& ctx);
/// A batch read (read()): startingOffsets (default earliest) to endingOffsets (default latest).
Result<std::shared_ptr<arrow::Table>> ReadKafkaStatic(const plan::SourceSpec& spec,
                                                      const std::shared_ptr<io::FileSystem>& fs);
/// The registry entry for format("kafka").
SourceKind KafkaSourceKind();

}  // namespace sluice::source
