// `ironhold firmware images|upload|rm|update`: the CLI over /api/v1/firmware/images and
// POST /api/v1/nodes/{node}/firmware.
#include <fstream>
#include <iostream>

#include "app/cli/client_options.hpp"
#include "app/cli/node_tasks.hpp"
#include "app/cli/subcommands.hpp"
#include "app/cli/table.hpp"
#include "app/cli/task_commands.hpp"
#include "app/cli/task_wait.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/sha256_stream.hpp"
#include "inventory/error.hpp"

namespace ironhold::cli {
// Named, not anonymous: the unity build compiles this file with the other commands', whose
// helpers have the same names.
namespace firmware_commands {

using nlohmann::json;

std::string image_row_size(const json& image) {
  const double bytes = image.value("size", 0.0);
  char text[32];
  if (bytes >= 1 << 20)
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1 << 20));
  else
    std::snprintf(text, sizeof text, "%.0f B", bytes);
  return text;
}

void print_images(const Args& a, const std::vector<json>& images) {
  if (output_format(a) == OutputFormat::json) {
    print_json(json(images));
    return;
  }
  Table table({"ID", "NAME", "COMPONENT", "VERSION", "MODEL", "SIZE", "SHA256", "UPLOADED"});
  for (const auto& i : images)
    table.add_row({field_text(i, "id"), field_text(i, "name"), field_text(i, "component"),
                   field_text(i, "version"), field_text(i, "model"), image_row_size(i),
                   field_text(i, "sha256").substr(0, 12), field_text(i, "created_at")});
  std::cout << table.render();
}

int images(const Args& a) {
  if (!a.positional().empty()) throw UsageError("images takes no arguments");
  HttpClient client = make_client(a);
  const json page = client.get("/api/v1/firmware/images");
  std::vector<json> items;
  for (const auto& item : page.value("items", json::array())) items.push_back(item);
  print_images(a, items);
  return kExitOk;
}

// The file's SHA-256, read once before the upload so that the server can refuse a copy that
// changed on the way (X-Checksum-SHA256).
std::string file_sha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::invalid, "cannot open " + path);
  crypto::Sha256Stream hash;
  std::string buffer(1 << 20, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    hash.update(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount())));
  }
  if (in.bad()) throw Error(ErrorKind::invalid, "cannot read " + path);
  const auto digest = hash.finish();
  return crypto::to_hex(digest);
}

int upload(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one FILE");
  const std::string path = a.positional()[0];
  const auto version = a.get("version");
  const auto component = a.get("component");
  if (!version || !component) throw UsageError("--version and --component are required");
  std::string name = a.get("name").value_or(path.substr(path.rfind('/') + 1));
  std::string target = "/api/v1/firmware/images?name=" + url_encode(name) +
                       "&version=" + url_encode(*version) + "&component=" + url_encode(*component);
  if (auto model = a.get("model")) target += "&model=" + url_encode(*model);
  const std::string sha256 = file_sha256(path);
  HttpClient client = make_client(a);
  const json image =
      client.post_file(target, path, {"X-Checksum-SHA256: " + sha256, "Expect: 100-continue"});
  if (output_format(a) == OutputFormat::json)
    print_json(image);
  else
    std::cout << "uploaded " << terminal_safe(field_text(image, "name")) << ": image "
              << field_text(image, "id") << " (" << terminal_safe(field_text(image, "component"))
              << " " << terminal_safe(field_text(image, "version")) << ", sha256 "
              << field_text(image, "sha256") << ")\n";
  return kExitOk;
}

int remove(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one IMAGE id");
  HttpClient client = make_client(a);
  client.del("/api/v1/firmware/images/" + url_encode(a.positional()[0]));
  if (output_format(a) != OutputFormat::json)
    std::cout << "deleted image " << terminal_safe(a.positional()[0]) << '\n';
  return kExitOk;
}

int update(const Args& a) {
  if (a.positional().empty()) throw UsageError("give at least one NODE");
  const auto image = a.get("image");
  if (!image) throw UsageError("--image is required (an id from 'ironhold firmware images')");
  json body = {{"image", *image}, {"reset", !a.flag("no-reset")}};
  if (const auto transfer = a.get("transfer"))
    body["transfer"] = *transfer;  // checked by the server
  add_timeout(a, body);
  HttpClient client = make_client(a);
  return report_tasks(a, client, create_node_tasks(client, a.positional(), "firmware", body));
}

constexpr Subcommand kCommands[] = {
    {"images", "", "List the uploaded firmware images.", &images},
    {"upload", "FILE", "Upload a firmware image (streamed; its SHA-256 is checked by the server).",
     &upload},
    {"rm", "IMAGE", "Delete a firmware image.", &remove},
    {"update", "NODE...",
     "Update a firmware component of owned servers from an image (one task per node): the BMC "
     "downloads it (or it is pushed to the BMC), the task follows the BMC, resets when needed "
     "and confirms the new version.",
     &update},
};

std::vector<Option> options_of(std::string_view name) {
  if (name == "upload")
    return {make_option("version", "VERSION",
                        "The version the component reports once updated (required)."),
            make_option("component", "NAME",
                        "The firmware inventory entry it updates: BMC, BIOS, ... (required)."),
            make_option("model", "MODEL", "The server model it is for (default: any)."),
            make_option("name", "NAME", "The image's name (default: the file name).")};
  if (name == "update") {
    auto options = wait_options();
    options[1] = make_option("timeout", "SECONDS",
                             "How long the BMC's update may take (server default 3600).");
    options.push_back(make_option("image", "IMAGE", "The firmware image's id (required)."));
    options.push_back(make_option(
        "no-reset", "",
        "Leave firmware that waits for a reset staged (the version is then not confirmed)."));
    options.push_back(make_option(
        "transfer", "auto|pull|push",
        "How the image reaches the BMC: pull (it downloads a signed URL), push (sent to its "
        "MultipartHttpPushUri), auto (pull when it can, the default)."));
    return options;
  }
  return {};
}

}  // namespace firmware_commands

int run_firmware_command(std::span<const std::string> argv) {
  using namespace firmware_commands;
  static const CommandGroup group{
      "firmware", "Firmware images and updates (staged rollouts: ironhold rollout).", kCommands,
      &options_of};
  return run_command_group(group, argv);
}

}  // namespace ironhold::cli
