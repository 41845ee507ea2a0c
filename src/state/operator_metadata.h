// state/<operatorId>/_metadata/metadata: what a stateful operator's state was written by, so a
// restart with a changed aggregation or state schema is refused instead of misreading state.
// Text like every checkpoint file: a "v1" line, then one JSON object in Spark's layout plus
// sluice's schema fields:
//   {"operatorInfo":{"operatorId":0,"operatorName":"stateStoreSave"},
//    "stateStoreInfo":[{"storeName":"default","numColsPrefixKey":0,"numPartitions":2}],
//    "keySchema":"...","valueSchema":"..."}
// Written once (create-only) when the operator first runs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "io/file_system.h"

namespace sluice::state {

struct StateOperatorMetadata {
  int64_t operator_id = 0;
  std::string operator_name;       // e.g. "aggregate", "dedup", "sessionWindow"
  int num_partitions = 1;
  std::string store_name = "default";
  std::string key_schema;          // a description string chosen by the operator, compared verbatim
  std::string value_schema;
};

/// <checkpoint_dir>/state/<operator_id>/_metadata/metadata
std::string OperatorMetadataPath(const std::string& checkpoint_dir, int64_t operator_id);

std::string SerializeOperatorMetadata(const StateOperatorMetadata& md);
/// `where` names the file in errors.
Result<StateOperatorMetadata> ParseOperatorMetadata(const std::string& text, const std::string& where);

/// nullopt when the file does not exist.
Result<std::optional<StateOperatorMetadata>> ReadOperatorMetadata(io::FileSystem* fs,
                                                                  const std::string& checkpoint_dir,
                                                                  int64_t operator_id);

/// OK when `wanted` may continue from state written as `stored`; otherwise Invalid naming the
/// operator and both the stored and the wanted value of the first field that differs.
Status CheckCompatible(const StateOperatorMetadata& stored, const StateOperatorMetadata& wanted);

/// At the first run writes `wanted` (create-only); at a restart reads the file and applies
/// CheckCompatible. Called before the operator's first batch.
Status WriteOrCheckOperatorMetadata(io::FileSystem* fs, const std::string& checkpoint_dir,
                                    const StateOperatorMetadata& wanted);

}  // namespace sluice::state
