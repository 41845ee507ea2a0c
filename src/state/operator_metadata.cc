#include "state/operator_metadata.h"

#include <nlohmann/json.hpp>

#include "util/strings.h"

namespace sluice::state {

using nlohmann::json;

std::string OperatorMetadataPath(const std::string& checkpoint_dir, int64_t operator_id) {
  std::string op_dir = io::JoinPath(io::JoinPath(checkpoint_dir, "state"), std::to_string(operator_id));
  return io::JoinPath(io::JoinPath(op_dir, "_metadata"), "metadata");
}

std::string SerializeOperatorMetadata(const StateOperatorMetadata& md) {
  json j = json::object();
  j["operatorInfo"] = {{"operatorId", md.operator_id}, {"operatorName", md.operator_name}};
  j["stateStoreInfo"] = json::array(
      {{{"storeName", md.store_name}, {"numColsPrefixKey", 0}, {"numPartitions", md.num_partitions}}});
  j["keySchema"] = md.key_schema;
  j["valueSchema"] = md.value_schema;
  return "v1\n" + j.dump();
}

Result<StateOperatorMetadata> ParseOperatorMetadata(const std::string& text, const std::string& where) {
  auto nl = text.find('\n');
  if (nl == std::string::npos || text.substr(0, nl) != "v1") {
    return Status::Invalid("State operator metadata '", where,
                           "' is corrupt or of an unknown version (expected 'v1' then JSON)");
  }
  StateOperatorMetadata md;
  try {
    json j = json::parse(text.substr(nl + 1));
    md.operator_id = j.at("operatorInfo").at("operatorId").get<int64_t>();
    md.operator_name = j.at("operatorInfo").at("operatorName").get<std::string>();
    const json& store = j.at("stateStoreInfo").at(0);
    md.store_name = store.value("storeName", std::string("default"));
    md.num_partitions = store.at("numPartitions").get<int>();
    md.key_schema = j.value("keySchema", std::string());
    md.value_schema = j.value("valueSchema", std::string());
  } catch (const json::exception& e) {
    return Status::Invalid("State operator metadata '", where, "' is corrupt: ", util::JsonErrorWithoutInput(e.what()));
  }
  return md;
}

Result<std::optional<StateOperatorMetadata>> ReadOperatorMetadata(io::FileSystem* fs,
                                                                  const std::string& checkpoint_dir,
                                                                  int64_t operator_id) {
  std::string path = OperatorMetadataPath(checkpoint_dir, operator_id);
  ARROW_ASSIGN_OR_RAISE(auto info, fs->Stat(path));
  if (!info) return std::optional<StateOperatorMetadata>{};
  ARROW_ASSIGN_OR_RAISE(std::string text, fs->ReadFile(path));
  ARROW_ASSIGN_OR_RAISE(auto md, ParseOperatorMetadata(text, path));
  return std::optional<StateOperatorMetadata>(std::move(md));
}

Status CheckCompatible(const StateOperatorMetadata& stored, const StateOperatorMetadata& wanted) {
  auto refuse = [&](const char* what, const auto& was, const auto& now) {
    return Status::Invalid("Cannot restart stateful operator ", wanted.operator_id, " ('", wanted.operator_name,
                           "') from its checkpointed state: the ", what, " changed from ", was, " to ", now,
                           ". Use a new checkpoint location, or restore the query's previous form.");
  };
  auto quoted = [](const std::string& s) { return "'" + s + "'"; };
  if (stored.operator_id != wanted.operator_id) {
    return refuse("operator id", stored.operator_id, wanted.operator_id);
  }
  if (stored.operator_name != wanted.operator_name) {
    return refuse("operator", quoted(stored.operator_name), quoted(wanted.operator_name));
  }
  if (stored.store_name != wanted.store_name) {
    return refuse("state store name", quoted(stored.store_name), quoted(wanted.store_name));
  }
  if (stored.num_partitions != wanted.num_partitions) {
    return refuse("number of state partitions", stored.num_partitions, wanted.num_partitions);
  }
  if (stored.key_schema != wanted.key_schema) {
    return refuse("state key schema", quoted(stored.key_schema), quoted(wanted.key_schema));
  }
  if (stored.value_schema != wanted.value_schema) {
    return refuse("state value schema", quoted(stored.value_schema), quoted(wanted.value_schema));
  }
  return Status::OK();
}

Status WriteOrCheckOperatorMetadata(io::FileSystem* fs, const std::string& checkpoint_dir,
                                    const StateOperatorMetadata& wanted) {
  ARROW_ASSIGN_OR_RAISE(auto stored, ReadOperatorMetadata(fs, checkpoint_dir, wanted.operator_id));
  if (stored) return CheckCompatible(*stored, wanted);
  std::string path = OperatorMetadataPath(checkpoint_dir, wanted.operator_id);
  ARROW_RETURN_NOT_OK(fs->MakeDirs(io::JoinPath(io::JoinPath(checkpoint_dir, "state"),
                                                io::JoinPath(std::to_string(wanted.operator_id), "_metadata"))));
  return fs->WriteAtomic(path, SerializeOperatorMetadata(wanted), /*overwrite=*/false);
}

}  // namespace sluice::state
