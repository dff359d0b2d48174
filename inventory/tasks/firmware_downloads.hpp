#pragma once
// Where BMCs download firmware images from: this service's advertised URL, with a signed,
// expiring query instead of an API token (the BMC only ever gets a URL).
#include <chrono>
#include <string>

#include "inventory/crypto/url_signer.hpp"

namespace ironhold::tasks {

// "/api/v1/firmware/images/<id>/content": the route that serves an image's bytes.
std::string firmware_content_path(const std::string& image_id);
// "/api/v1/boot-images/<id>/content": the same for a boot image (an ISO a BMC mounts).
std::string boot_image_content_path(const std::string& image_id);

struct FirmwareDownloads {
  const crypto::UrlSigner* signer = nullptr;
  // --advertise-url, without a trailing '/'; empty when there is none (BMCs cannot download
  // then: images can only be pushed to them).
  std::string base_url;

  // The URL of image `image_id` valid until `expires` (the same inputs give the same URL, so a
  // resumed task can recognise the URL it sent); empty without a base URL.
  std::string url(const std::string& image_id, std::chrono::system_clock::time_point expires) const;
  // The same for any content path of this service (a boot image's).
  std::string url_of(const std::string& path, std::chrono::system_clock::time_point expires) const;
};

// `text` with `url`'s query (its signature) cut wherever the URL appears in it: what reports and
// logs may show.
std::string without_signature(std::string text, const std::string& url);

}  // namespace ironhold::tasks
