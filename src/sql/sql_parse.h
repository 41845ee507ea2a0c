// SQL text -> libpg_query's parse tree (Postgres grammar), as JSON. The only place that calls
// libpg_query; everything after works on the JSON tree.
#pragma once

#include <nlohmann/json.hpp>

#include "sluice/status.h"
#include "sql/sql_text.h"

namespace sluice::sql {

/// The "stmts" array of libpg_query's parse tree: one {"stmt": {...}, "stmt_location",
/// "stmt_len"} per statement (absent fields are 0). A syntax error is located in `text`.
Result<nlohmann::json> ParseStatements(const SqlText& text);

/// The byte offset stored under "location" in a parse-tree node's body, or -1.
int LocationOf(const nlohmann::json& node_body);

/// The first location found anywhere inside `node` (depth first, in key order), or `fallback`.
int FirstLocation(const nlohmann::json& node, int fallback);

/// body[key], or a null json when `body` has no such key (never throws).
const nlohmann::json& Field(const nlohmann::json& body, const char* key);
/// body[key] as a string / integer, or `def` when absent or of another type.
std::string StringField(const nlohmann::json& body, const char* key, const std::string& def = "");
int64_t IntField(const nlohmann::json& body, const char* key, int64_t def = 0);
/// The value of an integer constant whose value node is `ival` ({"ival": N} in an A_Const, or
/// an Integer node's body). libpg_query 15-4.0's JSON leaves the number out ({}) for 0 and for
/// every negative value, so a missing number is read back from the SQL text: the literal at
/// `location` (an A_Const's), or, with `assigned`, the value of `name = <integer>` there (a
/// DefElem's). An error, never a guess, when the text does not hold an integer.
Result<int64_t> IntegerConstant(const nlohmann::json& ival, int location, const SqlText& text, bool assigned = false);
/// The values of a list of {"String": {"sval": ...}} nodes (libpg_query's name lists).
std::vector<std::string> StringList(const nlohmann::json& list);

/// The single key of a parse-tree node {"Kind": {...}} ("" for anything else).
std::string NodeKind(const nlohmann::json& node);

}  // namespace sluice::sql
