// The Kafka sink ("kafka" format). Columns as Spark's Kafka sink: `value` (required, binary or
// string), `key`, `topic` (or option `topic`), `partition`, `headers`.
//
// Exactly-once (the default, `delivery.guarantee = exactly-once`): each batch is one Kafka
// transaction of a producer whose transactional.id is derived from the query id (a new run
// fences a zombie one and aborts its open transaction). Inside the transaction the sink also
// commits an offset for the consumer group "sluice-sink-<query id>" whose metadata names the
// batch id, so the batch id becomes visible atomically with the rows; a batch redone after a
// crash whose id is already committed is skipped. `at-least-once`: no transaction; every batch
// is produced and flushed (a redone batch is produced again). docs/kafka.md.
#pragma once

#include "sink/sink_registry.h"

namespace sluice::sink {

Status ValidateKafkaSinkSpec(const SinkSpec& spec);
Result<std::unique_ptr<Sink>> MakeKafkaSink(const SinkSpec& spec, const SinkContext& ctx);
/// The registry entry for format("kafka").
SinkKind KafkaSinkKind();

}  // namespace sluice::sink
