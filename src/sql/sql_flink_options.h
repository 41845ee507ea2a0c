// Flink's connector option keys (the filesystem and kafka connectors, and the json/csv formats)
// where sluice has the feature: each is rewritten to the engine's key and value, so a Flink
// table declaration runs unchanged. Dotted keys not listed here stay as written and are refused
// by name by the source or sink that receives them (docs/sql.md, "Flink SQL spellings").
#pragma once

#include "sql/sql_script.h"
#include "sql/sql_text.h"

namespace sluice::sql {

/// Rewrites the options of `table` (its connector already known) that Flink spells:
///   kafka: properties.<k> -> kafka.<k>; scan.startup.mode earliest-offset / latest-offset /
///          timestamp (with scan.startup.timestamp-millis) -> startingOffsets / startingTimestamp;
///          sink.delivery-guarantee -> delivery.guarantee; topic-pattern -> subscribePattern
///          (topic itself is the sink's option and, when reading, the source's subscribe);
///   files: json.ignore-parse-errors / csv.ignore-parse-errors -> mode (DROPMALFORMED / FAILFAST);
///          csv.field-delimiter -> sep; csv.quote-character -> quote; csv.escape-character -> escape;
///          csv.disable-quote-character = true -> quote = ''.
/// Flink options that have no sluice feature but a known reason (scan.startup.mode group-offsets,
/// source.monitor-interval, ...) are refused at the option, saying what to write instead.
Status MapFlinkOptions(TableDecl* table, const SqlText& text);

}  // namespace sluice::sql
