#include "inventory/tasks/firmware_downloads.hpp"

namespace ironhold::tasks {

std::string firmware_content_path(const std::string& image_id) {
  return "/api/v1/firmware/images/" + image_id + "/content";
}

std::string boot_image_content_path(const std::string& image_id) {
  return "/api/v1/boot-images/" + image_id + "/content";
}

std::string FirmwareDownloads::url(const std::string& image_id,
                                   std::chrono::system_clock::time_point expires) const {
  return url_of(firmware_content_path(image_id), expires);
}

std::string FirmwareDownloads::url_of(const std::string& path,
                                      std::chrono::system_clock::time_point expires) const {
  if (base_url.empty() || signer == nullptr) return {};
  return base_url + path + signer->query_for(path, expires);
}

std::string without_signature(std::string text, const std::string& url) {
  const auto query = url.find('?');
  if (query == std::string::npos) return text;
  const std::string bare = url.substr(0, query);
  for (auto at = text.find(url); at != std::string::npos; at = text.find(url, at + bare.size()))
    text.replace(at, url.size(), bare);
  return text;
}

}  // namespace ironhold::tasks
