#pragma once
// PostgreSQL's client programs (pg_dump, pg_restore) as server-side commands run them: those of
// the server's own major version, by absolute path, connected through --dbname. A password in the
// URL never reaches a command line: it goes to a password file only this process can read, which
// exists while the programs run.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "inventory/util/process.hpp"

namespace ironhold::app {

struct ConninfoParts {
  std::string conninfo;  // the same connection without its password
  std::optional<std::string> password;
};

// Takes the password out of a libpq connection string in either form: a URI
// (postgresql://user:secret@host/db?password=...) or key=value pairs. Throws ironhold::Error
// (invalid) for one libpq would not accept either.
ConninfoParts without_password(const std::string& url);

// `tool` ("pg_dump", "pg_restore") for a PostgreSQL `server_major` server: from
// IRONHOLD_PG_BINDIR when it holds the tool, else /usr/lib/postgresql/<major>/bin, else the
// nearest newer version installed there (they read older servers). Throws ironhold::Error
// (unavailable) naming the package to install.
std::filesystem::path find_pg_tool(const std::string& tool, int server_major);

// A connection for the tools: the URL split, and a private password file while this lives.
class PgConnection {
 public:
  // `inherit_environment`: keep the caller's PG* variables (PGSSLMODE and the like, for a
  // --database URL); the embedded cluster's connection is complete without them.
  PgConnection(const std::string& url, bool inherit_environment);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs `tool` with `args`, --no-password and --dbname=<the connection without its password>.
  util::ProcessResult run(const std::filesystem::path& tool, std::vector<std::string> args) const;

 private:
  std::string conninfo_;
  std::filesystem::path private_dir_;  // holds the password file; empty when there is none
  std::vector<std::string> environment_;
};

// Runs `tool` without a connection (reading an archive), in a clean environment.
util::ProcessResult run_pg_tool(const std::filesystem::path& tool,
                                const std::vector<std::string>& args);

// What a tool said on stderr (else stdout), trimmed, for an error message.
std::string tool_said(const util::ProcessResult& result);

}  // namespace ironhold::app
