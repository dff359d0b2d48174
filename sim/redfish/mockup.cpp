#include "sim/redfish/mockup.hpp"

#include <fstream>
#include <set>
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

// Collections by the names Redfish gives them: a folder of these names that a capture holds no
// document for is served as a collection of the members it does hold.
bool collection_name(std::string_view name) {
  static constexpr std::string_view names[] = {
      "Accounts",      "Certificates",  "Chassis",           "Controls",
      "Drives",        "Endpoints",     "Entries",           "EthernetInterfaces",
      "Fabrics",       "Fans",          "FirmwareInventory", "LogServices",
      "Managers",      "Memory",        "NetworkAdapters",   "PCIeDevices",
      "PCIeFunctions", "Ports",         "PowerSupplies",     "Processors",
      "Roles",         "Sensors",       "Sessions",          "SoftwareInventory",
      "Storage",       "Subscriptions", "Switches",          "Systems",
      "Tasks",         "Volumes"};
  for (auto n : names)
    if (n == name) return true;
  return false;
}

// Real captures are rarely whole: a crawl tool missed a collection, or a public copy dropped it.
// Every folder that holds documents below it but none of its own is served as what its name says
// (a collection of the members held, else a resource linking its sub-folders), marked as made by
// the simulator, so a driver can walk a capture from its root the way it walks a BMC.
void fill_missing_folders(std::map<std::string, Document>& documents) {
  std::map<std::string, std::set<std::string>> children;  // missing folder -> child URLs
  for (const auto& [url, doc] : documents) {
    std::string child = url;
    while (child.size() > root.size()) {
      const std::string parent = child.substr(0, child.rfind('/'));
      if (parent.size() < root.size()) break;
      if (!documents.count(parent)) children[parent].insert(child);
      child = parent;
    }
  }
  for (const auto& [url, members] : children) {
    const std::string name = url.substr(url.rfind('/') + 1);
    // A folder named after an inline property of its parent ("Processors/GPU_1/MemorySummary"
    // holding MemorySummary's MemoryMetrics) is a path, not a resource the capture lost.
    const auto parent = documents.find(url.substr(0, url.rfind('/')));
    if (parent != documents.end() && parent->second.is_json && parent->second.json.is_object()) {
      const auto property = parent->second.json.find(name);
      if (property != parent->second.json.end() && property->is_object() &&
          !property->contains("@odata.id"))
        continue;
    }
    nlohmann::json doc = {{"@odata.id", url},
                          {"Id", name},
                          {"Name", name},
                          {"Oem",
                           {{"IronholdSimulator",
                             {{"Synthesized", true},
                              {"Reason",
                               "the capture holds no document here; the simulator lists what "
                               "it holds below"}}}}}};
    if (collection_name(name)) {
      doc["Members"] = nlohmann::json::array();
      for (const auto& member : members) doc["Members"].push_back({{"@odata.id", member}});
      doc["Members@odata.count"] = members.size();
    } else {
      for (const auto& member : members)
        doc[member.substr(member.rfind('/') + 1)] = {{"@odata.id", member}};
    }
    Document filled;
    filled.json = std::move(doc);
    filled.content_type = "application/json";
    documents.emplace(url, std::move(filled));
  }
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

std::string link_path(const nlohmann::json& object, std::string_view name) {
  if (!object.is_object()) return {};
  const auto it = object.find(name);
  if (it == object.end() || !it->is_object()) return {};
  const auto id = it->find("@odata.id");
  return id != it->end() && id->is_string() ? resource_path(id->get<std::string>()) : std::string();
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
  fill_missing_folders(mockup.documents_);
  return mockup;
}

}  // namespace ironhold::sim::redfish
