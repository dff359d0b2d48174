#include "app/server/pg_tools.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "inventory/error.hpp"

namespace ironhold::app {
namespace fs = std::filesystem;
namespace {

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  return true;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) throw invalid("the database URL has a malformed %-escape");
    const int hi = hex_digit(text[i + 1]);
    const int lo = hex_digit(text[i + 2]);
    if (hi < 0 || lo < 0) throw invalid("the database URL has a malformed %-escape");
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// postgresql://[user[:password]@]hosts[/dbname][?key=value&...], as libpq reads it: the user
// information ends at the first '@' before any '/'.
ConninfoParts split_uri(const std::string& url, size_t scheme_end) {
  ConninfoParts parts;
  std::string rest = url.substr(scheme_end);
  size_t at = 0;
  while (at < rest.size() && rest[at] != '@' && rest[at] != '/') ++at;
  if (at < rest.size() && rest[at] == '@') {
    std::string user_info = rest.substr(0, at);
    if (const size_t colon = user_info.find(':'); colon != std::string::npos) {
      parts.password = percent_decode(user_info.substr(colon + 1));
      user_info.resize(colon);
    }
    rest = user_info + "@" + rest.substr(at + 1);
  }
  if (const size_t query = rest.find('?'); query != std::string::npos) {
    std::string kept;
    size_t start = query + 1;
    while (start <= rest.size()) {
      size_t end = rest.find('&', start);
      if (end == std::string::npos) end = rest.size();
      const std::string pair = rest.substr(start, end - start);
      if (pair.starts_with("password=")) {
        parts.password = percent_decode(pair.substr(9));
      } else if (!pair.empty()) {
        kept += (kept.empty() ? "" : "&") + pair;
      }
      start = end + 1;
    }
    rest = rest.substr(0, query) + (kept.empty() ? "" : "?" + kept);
  }
  parts.conninfo = url.substr(0, scheme_end) + rest;
  return parts;
}

std::string quoted_value(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// key = value pairs separated by spaces; a value is single-quoted (backslash escapes) or runs to
// the next space.
ConninfoParts split_pairs(const std::string& text) {
  ConninfoParts parts;
  size_t i = 0;
  const auto skip_space = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  for (;;) {
    skip_space();
    if (i >= text.size()) break;
    std::string key;
    while (i < text.size() && text[i] != '=' && !std::isspace(static_cast<unsigned char>(text[i])))
      key += text[i++];
    skip_space();
    if (i >= text.size() || text[i] != '=')
      throw invalid("the database URL is neither a postgresql:// URI nor key=value pairs (\"" +
                    key + "\" has no value)");
    ++i;
    skip_space();
    std::string value;
    if (i < text.size() && text[i] == '\'') {
      ++i;
      bool closed = false;
      while (i < text.size()) {
        char c = text[i++];
        if (c == '\\' && i < text.size()) {
          value += text[i++];
        } else if (c == '\'') {
          closed = true;
          break;
        } else {
          value += c;
        }
      }
      if (!closed) throw invalid("the database URL has an unterminated quoted value");
    } else {
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) {
        char c = text[i++];
        if (c == '\\' && i < text.size()) c = text[i++];
        value += c;
      }
    }
    if (key == "password") {
      parts.password = value;
    } else {
      parts.conninfo += (parts.conninfo.empty() ? "" : " ") + key + "=" + quoted_value(value);
    }
  }
  return parts;
}

// hostname:port:database:username:password, each field with ':' and '\' escaped.
std::string passfile_line(const std::string& password) {
  if (password.find('\n') != std::string::npos || password.find('\r') != std::string::npos)
    throw invalid("a database password with a line break cannot be handed to pg_dump/pg_restore");
  std::string escaped;
  for (char c : password) {
    if (c == ':' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "*:*:*:*:" + escaped + "\n";
}

void write_private_file(const fs::path& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    throw Error(ErrorKind::internal,
                "cannot create " + path.string() + ": " + std::strerror(errno));
  const bool written =
      ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  ::close(fd);
  if (!written) throw Error(ErrorKind::internal, "cannot write " + path.string());
}

bool has_tool(const fs::path& dir, const std::string& tool) {
  std::error_code ec;
  return fs::is_regular_file(dir / tool, ec);
}

}  // namespace

ConninfoParts without_password(const std::string& url) {
  for (const char* scheme : {"postgresql://", "postgres://"})
    if (starts_with_ci(url, scheme)) return split_uri(url, std::strlen(scheme));
  return split_pairs(url);
}

fs::path find_pg_tool(const std::string& tool, int server_major) {
  if (const char* env = std::getenv("IRONHOLD_PG_BINDIR"); env && *env && has_tool(env, tool))
    return fs::path(env) / tool;
  const fs::path root = "/usr/lib/postgresql";
  if (has_tool(root / std::to_string(server_major) / "bin", tool))
    return root / std::to_string(server_major) / "bin" / tool;
  int nearest = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const int version = std::atoi(entry.path().filename().c_str());
    if (version > server_major && (nearest == 0 || version < nearest) &&
        has_tool(entry.path() / "bin", tool))
      nearest = version;
  }
  if (nearest > 0) return root / std::to_string(nearest) / "bin" / tool;
  throw Error(ErrorKind::unavailable,
              tool + " for PostgreSQL " + std::to_string(server_major) + " is not in " +
                  root.string() + "/" + std::to_string(server_major) +
                  "/bin: install it (apt-get install postgresql-client-" +
                  std::to_string(server_major) +
                  ") or set IRONHOLD_PG_BINDIR to the directory holding it");
}

PgConnection::PgConnection(const std::string& url, bool inherit_environment) {
  ConninfoParts parts = without_password(url);
  conninfo_ = std::move(parts.conninfo);
  if (!inherit_environment) {
    // PGHOST, PGDATABASE and friends from the caller's shell must not redirect the tools.
    environment_ = util::environment_without({"PG"});
  } else if (parts.password) {
    environment_ = util::environment_without({"PGPASSWORD=", "PGPASSFILE="});
  } else {
    environment_ = util::environment_without({});
  }
  if (!parts.password) return;
  std::string pattern = (fs::temp_directory_path() / "ironhold-pg-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw Error(ErrorKind::internal, "cannot create a private temporary directory: " +
                                         std::string(std::strerror(errno)));
  private_dir_ = pattern;
  write_private_file(private_dir_ / "pgpass", passfile_line(*parts.password));
  environment_.push_back("PGPASSFILE=" + (private_dir_ / "pgpass").string());
}

PgConnection::~PgConnection() {
  if (private_dir_.empty()) return;
  std::error_code ignored;
  fs::remove_all(private_dir_, ignored);
}

util::ProcessResult PgConnection::run(const fs::path& tool, std::vector<std::string> args) const {
  args.insert(args.begin(), {"--no-password", "--dbname=" + conninfo_});
  util::ProcessOptions options;
  options.environment = environment_;
  return util::run_process(tool, args, options);
}

util::ProcessResult run_pg_tool(const fs::path& tool, const std::vector<std::string>& args) {
  util::ProcessOptions options;
  options.environment = util::environment_without({"PG"});
  return util::run_process(tool, args, options);
}

std::string tool_said(const util::ProcessResult& result) {
  std::string said = result.err.empty() ? result.out : result.err;
  while (!said.empty() && std::isspace(static_cast<unsigned char>(said.back()))) said.pop_back();
  return said.empty() ? result.status_text() : said;
}

}  // namespace ironhold::app
