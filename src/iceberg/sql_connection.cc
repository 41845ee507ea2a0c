// SQLite and PostgreSQL connections for the SQL catalog.
#include "iceberg/sql_connection.h"

#include <libpq-fe.h>
#include <sqlite3.h>

#include <cstring>
#include <filesystem>
#include <system_error>

#include "util/numbers.h"

namespace sluice::iceberg {
namespace {

class SqliteConnection final : public SqlConnection {
 public:
  explicit SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override { sqlite3_close(db_); }

  Result<SqlResult> Exec(const std::string& sql, const std::vector<SqlValue>& params) override {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) return Error("prepare", sql);
    for (size_t i = 0; i < params.size(); ++i) {
      int idx = static_cast<int>(i + 1);
      if (params[i]) {
        sqlite3_bind_text(stmt, idx, params[i]->c_str(), static_cast<int>(params[i]->size()), SQLITE_TRANSIENT);
      } else {
        sqlite3_bind_null(stmt, idx);
      }
    }
    SqlResult result;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      SqlRow row;
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        if (sqlite3_column_type(stmt, c) == SQLITE_NULL) {
          row.emplace_back(std::nullopt);
        } else {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
          row.emplace_back(std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt, c))));
        }
      }
      result.rows.push_back(std::move(row));
    }
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE) {
      if ((rc & 0xff) == SQLITE_CONSTRAINT) {
        return Status::AlreadyExists("SQLite catalog ", path_, ": ", sqlite3_errmsg(db_));
      }
      return Error("run", sql);
    }
    result.affected = sqlite3_changes(db_);
    return result;
  }

 private:
  Status Error(const char* what, const std::string& sql) {
    return Status::IOError("SQLite catalog ", path_, ": cannot ", what, " '", sql, "': ", sqlite3_errmsg(db_));
  }

  sqlite3* db_;
  std::string path_;
};

class PostgresConnection final : public SqlConnection {
 public:
  explicit PostgresConnection(PGconn* conn) : conn_(conn) {
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);  // "already exists, skipping"
  }
  ~PostgresConnection() override { PQfinish(conn_); }

  Result<SqlResult> Exec(const std::string& sql, const std::vector<SqlValue>& params) override {
    std::string text;  // '?' -> $1, $2, ...
    int n = 0;
    for (char c : sql) {
      if (c == '?') {
        text += "$" + std::to_string(++n);
      } else {
        text += c;
      }
    }
    std::vector<const char*> values;
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
    PGresult* res = PQexecParams(conn_, text.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                                 nullptr, nullptr, 0);
    auto status = PQresultStatus(res);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      const char* state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
      std::string msg = PQerrorMessage(conn_);
      bool unique = state && std::strcmp(state, "23505") == 0;
      PQclear(res);
      if (unique) return Status::AlreadyExists("PostgreSQL catalog: ", msg);
      return Status::IOError("PostgreSQL catalog: cannot run '", sql, "': ", msg);
    }
    SqlResult result;
    for (int r = 0; r < PQntuples(res); ++r) {
      SqlRow row;
      for (int c = 0; c < PQnfields(res); ++c) {
        if (PQgetisnull(res, r, c)) {
          row.emplace_back(std::nullopt);
        } else {
          row.emplace_back(std::string(PQgetvalue(res, r, c), static_cast<size_t>(PQgetlength(res, r, c))));
        }
      }
      result.rows.push_back(std::move(row));
    }
    const std::string tuples = PQcmdTuples(res);
    PQclear(res);
    if (!tuples.empty()) {
      ARROW_ASSIGN_OR_RAISE(result.affected, util::ParseInt64(tuples, "PostgreSQL catalog: affected row count"));
    }
    return result;
  }

 private:
  PGconn* conn_;
};

Result<std::unique_ptr<SqlConnection>> OpenSqlite(const std::string& path, const std::string& uri) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    return Status::IOError("Cannot open SQLite catalog database '", path, "' (uri ", uri, "): its directory '",
                           parent.string(), "' does not exist; create it, or fix the catalog's uri setting");
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Status::IOError("Cannot open SQLite catalog database '", path, "' (uri ", uri, "): ", msg);
  }
  sqlite3_busy_timeout(db, 30000);  // concurrent writers wait for the lock instead of failing
  return std::unique_ptr<SqlConnection>(new SqliteConnection(db, path));
}

}  // namespace

Result<std::unique_ptr<SqlConnection>> OpenSqlConnection(const std::string& uri) {
  if (uri.starts_with("sqlite:///")) return OpenSqlite(uri.substr(std::strlen("sqlite:///")), uri);
  if (uri.starts_with("jdbc:sqlite:")) return OpenSqlite(uri.substr(std::strlen("jdbc:sqlite:")), uri);
  std::string pg = uri;
  if (pg.starts_with("jdbc:")) pg = pg.substr(5);
  if (pg.starts_with("postgresql+") || pg.starts_with("postgres+")) pg = "postgresql" + pg.substr(pg.find("://"));
  if (pg.starts_with("postgresql://") || pg.starts_with("postgres://")) {
    PGconn* conn = PQconnectdb(pg.c_str());
    if (PQstatus(conn) != CONNECTION_OK) {
      std::string msg = PQerrorMessage(conn);
      PQfinish(conn);
      return Status::IOError("Cannot connect to PostgreSQL catalog ", uri, ": ", msg);
    }
    return std::unique_ptr<SqlConnection>(new PostgresConnection(conn));
  }
  return Status::Invalid("Unsupported SQL catalog uri '", uri,
                         "': use sqlite:////abs/path/catalog.db or postgresql://user@host:port/db");
}

}  // namespace sluice::iceberg
