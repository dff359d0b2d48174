#include "app/cli/export_commands.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/cli/client_options.hpp"
#include "app/cli/node_commands.hpp"
#include "app/cli/subcommands.hpp"
#include "app/cli/task_wait.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/sha256_stream.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::cli {
// Named, not anonymous: the unity build compiles this file with the other commands', whose
// helpers have the same names.
namespace export_commands {

using nlohmann::json;

std::string export_query(const Args& a) {
  std::string q = node::selector_query(a);
  auto add = [&q](std::string_view key, const std::string& value) {
    q += util::concat(q.empty() ? "?" : "&", key, "=", url_encode(value));
  };
  if (auto v = a.get("as-of")) add("as_of", *v);
  const std::string format = a.get("format").value_or("csv");
  if (format != "csv" && format != "json" && format != "ndjson")
    throw UsageError("--format must be csv, json or ndjson");
  add("format", format);
  return q;
}

std::string sha256_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  crypto::Sha256Stream hash;
  std::string buffer(1 << 16, '\0');
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
    hash.update(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount())));
  return crypto::to_hex(hash.finish());
}

int run_export(const Args& a, const char* kind) {
  if (!a.positional().empty()) throw UsageError("export takes no positional arguments");
  const std::string target = std::string("/api/v1/export/") + kind + export_query(a);
  const auto output = a.get("output");
  HttpClient client = make_client(a);
  // A partial file never stands in for the export: it is written under a temporary name and
  // renamed once the manifest vouches for it.
  const std::string partial = output ? *output + ".partial" : std::string();
  std::FILE* out = output ? std::fopen(partial.c_str(), "wb") : stdout;
  if (!out) throw UsageError("cannot write " + partial);
  HttpClient::Download got;
  try {
    got = client.download(target, out);
  } catch (...) {
    if (output) {
      std::fclose(out);
      std::filesystem::remove(partial);
    }
    throw;
  }
  if (output && std::fclose(out) != 0) throw UsageError("cannot write " + partial);
  if (!output) std::fflush(stdout);
  const auto id = got.headers.find("x-export-id");
  if (id == got.headers.end()) throw Error(ErrorKind::unavailable, "the server named no export id");
  const json manifest = client.get("/api/v1/export/manifests/" + url_encode(id->second));
  if (!output) {
    std::cerr << "export " << id->second << ": " << field_text(manifest, "rows") << " rows, sha256 "
              << field_text(manifest, "sha256") << '\n';
    return kExitOk;
  }
  const std::string local = sha256_of_file(partial);
  if (local != field_text(manifest, "sha256")) {
    std::filesystem::remove(partial);
    throw Error(ErrorKind::unavailable,
                "the file received does not match the export's manifest "
                "(SHA-256 " +
                    local + ", manifest " + field_text(manifest, "sha256") +
                    "); nothing was written");
  }
  std::filesystem::rename(partial, *output);
  const std::string manifest_path = *output + ".manifest.json";
  std::ofstream(manifest_path) << manifest.dump(2) << '\n';
  std::cerr << "wrote " << *output << " (" << field_text(manifest, "rows") << " rows) and "
            << manifest_path << '\n';
  return kExitOk;
}

int assets(const Args& a) {
  return run_export(a, "assets");
}

int firmware(const Args& a) {
  return run_export(a, "firmware");
}

constexpr Subcommand kCommands[] = {
    {"assets", "", "Export asset records (owned servers and cloud instances alike).", &assets},
    {"firmware", "", "Export firmware records: node, component, version and since when.",
     &firmware},
};

std::vector<Option> options_of(std::string_view) {
  std::vector<Option> o = node::selector_options();
  o.push_back(make_option("as-of", "TIME", "The inventory as it was at this RFC 3339 time."));
  o.push_back(make_option("format", "FORMAT", "csv (default), json or ndjson."));
  o.push_back(make_option("output", "FILE",
                          "Write to FILE (checked against the export's manifest, which is "
                          "written to FILE.manifest.json) instead of stdout."));
  return o;
}

}  // namespace export_commands

int run_export_command(std::span<const std::string> argv) {
  using namespace export_commands;
  static const CommandGroup group{"export", "Export asset and firmware records.", kCommands,
                                  &options_of};
  return run_command_group(group, argv);
}

}  // namespace ironhold::cli
