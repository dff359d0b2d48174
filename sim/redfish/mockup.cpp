#include "sim/redfish/mockup.hpp"

#include <fstream>
#include <sstream>

#include "inventory/error.hpp"

namespace ironhold::sim::redfish {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view root = "/redfish/v1";

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw invalid("cannot read mockup file " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw invalid("cannot read mockup file " + file.string());
  return text.str();
}

std::string url_of(const fs::path& relative_dir) {
  std::string url(root);
  for (const auto& part : relative_dir) {
    if (part.empty() || part == ".") continue;
    url += '/';
    url += part.string();
  }
  return url;
}

}  // namespace

std::string resource_path(std::string_view target) {
  const auto cut = target.find_first_of("?#");
  if (cut != std::string_view::npos) target = target.substr(0, cut);
  while (target.size() > 1 && target.back() == '/') target.remove_suffix(1);
  if (target.substr(0, root.size()) != root) return {};
  if (target.size() > root.size() && target[root.size()] != '/') return {};  // "/redfish/v10"
  return std::string(target);
}

Mockup Mockup::load(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / "index.json", ec))
    throw invalid("not a Redfish mockup (no index.json service root): " + dir.string(), "mockup");
  Mockup mockup;
  mockup.dir_ = dir;
  std::map<std::string, Document> xml;  // index.xml, used only where there is no index.json
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const fs::path file = it->path();
    const fs::path relative = file.lexically_relative(dir);
    const std::string name = file.filename().string();
    if (relative == "explorer_config.json") continue;  // DMTF's viewer metadata, not a resource
    const bool is_index = name == "index.json" || name == "index.xml";
    const std::string url = is_index ? url_of(relative.parent_path()) : url_of(relative);
    Document doc;
    if (file.extension() == ".json") {
      const std::string text = read_file(file);
      doc.json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (doc.json.is_discarded())
        throw invalid("mockup file is not valid JSON: " + file.string(), "mockup");
      doc.content_type = "application/json";
    } else {
      doc.is_json = false;
      doc.text = read_file(file);
      doc.content_type =
          file.extension() == ".xml" ? "application/xml" : "application/octet-stream";
    }
    if (name == "index.xml")
      xml.emplace(url, std::move(doc));
    else
      mockup.documents_.insert_or_assign(url, std::move(doc));
  }
  if (ec)
    throw invalid("cannot read mockup directory " + dir.string() + ": " + ec.message(), "mockup");
  for (auto& [url, doc] : xml)
    mockup.documents_.emplace(url, std::move(doc));  // keeps an index.json
  return mockup;
}

}  // namespace ironhold::sim::redfish
