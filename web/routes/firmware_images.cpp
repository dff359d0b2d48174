// /api/v1/firmware/images and /api/v1/boot-images: firmware images and boot images (ISOs a BMC
// mounts as virtual media) kept in PostgreSQL, one catalogue each over the same routes. The upload
// is streamed (the body is read 1 MiB at a time as it arrives and written in chunks, hashed on the
// way), so an image of any size costs the server a chunk of memory. BMCs fetch an image through a
// signed, expiring URL that needs no token, from whichever instance they reach, whole or by byte
// ranges (BMCs read a mounted ISO block by block).
#include <chrono>
#include <exception>

#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/sha256_stream.hpp"
#include "inventory/tasks/firmware_downloads.hpp"
#include "inventory/util/time.hpp"
#include "web/openapi.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;
using Store = db::FirmwareImageStore;

// What differs between the two catalogues.
struct Catalogue {
  db::FirmwareImageStore* Services::*store;
  std::string base;         // "/api/v1/firmware/images"
  std::string target_type;  // of audit entries: "firmware_image"
  std::string noun;         // "firmware image"
  std::string (*content_path)(const std::string& id);
  bool boot = false;  // boot images: a name and a version, no component or model
};

const Catalogue firmware_catalogue{
    &Services::firmware_images, "/api/v1/firmware/images",     "firmware_image",
    "firmware image",           &tasks::firmware_content_path, false};
const Catalogue boot_catalogue{
    &Services::boot_images, "/api/v1/boot-images",           "boot_image",
    "boot image",           &tasks::boot_image_content_path, true};

Store& images_of(Services& s, const Catalogue& c) {
  if (!(s.*c.store)) throw Error(ErrorKind::unavailable, "this server keeps no " + c.noun + "s");
  return *(s.*c.store);
}

const crypto::UrlSigner& signer_of(Services& s) {
  if (!s.url_signer) throw Error(ErrorKind::unavailable, "this server signs no download URLs");
  return *s.url_signer;
}

// X-Checksum-SHA256, when the uploader sent one: 64 hex digits, compared in lower case.
std::optional<std::string> expected_checksum(const RequestContext& ctx) {
  const auto header = ctx.request["X-Checksum-SHA256"];
  if (header.empty()) return std::nullopt;
  std::string hex(header);
  for (char& c : hex) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::uint8_t> bytes;
  if (hex.size() != 64 || !crypto::from_hex(hex, bytes))
    throw invalid("X-Checksum-SHA256 must be the image's SHA-256 in 64 hex digits",
                  "X-Checksum-SHA256");
  return hex;
}

// Reads the body to its end, storing it chunk by chunk; returns its size and SHA-256.
asio::awaitable<std::pair<std::int64_t, std::string>> store_body(Services& s, Store* store,
                                                                 BodyReader& body, std::string id) {
  crypto::Sha256Stream hash;
  std::int64_t size = 0;
  int seq = 0;
  std::string chunk(Store::kChunkSize, '\0');
  std::size_t filled = 0;
  for (;;) {
    const std::size_t n =
        co_await body.read(std::span<char>(chunk.data() + filled, chunk.size() - filled));
    const bool end = n == 0;
    filled += n;
    if (filled == chunk.size() || (end && filled > 0)) {
      chunk.resize(filled);
      hash.update(chunk);
      size += static_cast<std::int64_t>(filled);
      auto write = [store, id, seq, data = std::move(chunk)] { store->append(id, seq, data); };
      co_await s.blocking(std::move(write));
      ++seq;
      chunk.assign(Store::kChunkSize, '\0');
      filled = 0;
    }
    if (end) break;
  }
  co_return std::make_pair(size, crypto::to_hex(hash.finish()));
}

asio::awaitable<Response> upload(Services& s, const Catalogue& c, RequestContext& ctx) {
  if (c.boot)
    ctx.only_query({"name", "version"});
  else
    ctx.only_query({"name", "version", "component", "model"});
  // A boot image is an ISO for any model: its component is "ISO".
  const FirmwareImageSpec spec = parse_firmware_image_spec(
      ctx.query_value("name"), ctx.query_value("version"),
      c.boot ? std::optional<std::string>("ISO") : ctx.query_value("component"),
      c.boot ? std::nullopt : ctx.query_value("model"));
  const auto expected = expected_checksum(ctx);
  if (!ctx.body_reader) throw Error(ErrorKind::internal, "the upload route got no body stream");
  Store* store = &images_of(s, c);
  auto begin = [store, spec, by = ctx.actor()] { return store->begin(spec, by); };
  const std::string id = co_await s.blocking(begin);
  ctx.set_target(c.target_type, id, spec.name);

  std::pair<std::int64_t, std::string> measured;
  std::exception_ptr broken;
  try {
    auto storing = store_body(s, store, *ctx.body_reader, id);  // GCC 12: not in the co_await
    measured = co_await std::move(storing);
  } catch (...) {
    broken = std::current_exception();
  }
  if (broken) {
    auto discard = [store, id] { store->discard(id); };
    co_await s.blocking(discard);
    std::rethrow_exception(broken);
  }
  auto finish = [store, id, measured, expected] {
    return store->finish(id, measured.first, measured.second, expected);
  };
  const FirmwareImage image = co_await s.blocking(finish);
  ctx.audit_details = {{"version", spec.version},
                       {"component", spec.component},
                       {"model", spec.model ? json(*spec.model) : json()},
                       {"size", image.size},
                       {"sha256", image.sha256}};
  auto res = ctx.json(http::status::created, to_json(image));
  res.set(http::field::location, c.base + "/" + id);
  co_return res;
}

asio::awaitable<Response> list(Services& s, const Catalogue& c, RequestContext& ctx) {
  ctx.only_query({});
  Store* store = &images_of(s, c);
  auto work = [store] { return store->list(); };
  const std::vector<FirmwareImage> images = co_await s.blocking(work);
  json items = json::array();
  for (const auto& image : images) items.push_back(to_json(image));
  co_return ctx.json(http::status::ok, {{"items", std::move(items)}});
}

asio::awaitable<Response> show(Services& s, const Catalogue& c, RequestContext& ctx) {
  ctx.only_query({});
  Store* store = &images_of(s, c);
  auto work = [store, id = ctx.path_param("id")] { return store->get(id); };
  const FirmwareImage image = co_await s.blocking(work);
  co_return ctx.json(http::status::ok, to_json(image));
}

asio::awaitable<Response> remove(Services& s, const Catalogue& c, RequestContext& ctx) {
  ctx.only_query({});
  Store* store = &images_of(s, c);
  auto work = [store, id = ctx.path_param("id")] { return store->remove(id); };
  const FirmwareImage image = co_await s.blocking(work);
  ctx.set_target(c.target_type, image.id, image.spec.name);
  ctx.audit_details = {{"version", image.spec.version}, {"sha256", image.sha256}};
  co_return ctx.empty(http::status::no_content);
}

// POST /firmware/images/{id}/url {"expires_in_s": 3600}: a URL a BMC (or anyone holding it) can
// download the image from until it expires.
asio::awaitable<Response> signed_url(Services& s, const Catalogue& c, RequestContext& ctx) {
  ctx.only_query({});
  const json body = ctx.request.body().empty() ? json::object() : ctx.json_body();
  if (!body.is_object()) throw invalid("the body must be a JSON object");
  int seconds = 3600;
  if (const auto it = body.find("expires_in_s"); it != body.end()) {
    if (!it->is_number_integer() || it->get<int>() < 60 || it->get<int>() > 7 * 86400)
      throw unprocessable("expires_in_s must be a whole number from 60 to 604800", "expires_in_s");
    seconds = it->get<int>();
  }
  if (s.advertise_url.empty())
    throw Error(ErrorKind::unavailable,
                "this server has no --advertise-url: it cannot tell BMCs where to download from");
  Store* store = &images_of(s, c);
  auto work = [store, id = ctx.path_param("id")] { return store->get(id); };
  const FirmwareImage image = co_await s.blocking(work);
  const auto expires = std::chrono::system_clock::now() + std::chrono::seconds(seconds);
  const tasks::FirmwareDownloads downloads{&signer_of(s), s.advertise_url};
  ctx.set_target(c.target_type, image.id, image.spec.name);
  ctx.audit_details = {{"expires_in_s", seconds}};
  co_return ctx.json(http::status::ok,
                     {{"url", downloads.url_of(c.content_path(image.id), expires)},
                      {"expires_at", format_rfc3339(expires)},
                      {"sha256", image.sha256},
                      {"size", image.size}});
}

// The image's bytes from `offset`, `length` of them, read from PostgreSQL a chunk at a time as the
// client takes them.
class ImageChunks final : public BodySource {
 public:
  ImageChunks(Services& s, Store& store, std::string id, std::int64_t offset, std::int64_t length)
      : s_(s),
        store_(store),
        id_(std::move(id)),
        remaining_(length),
        seq_(static_cast<int>(offset / static_cast<std::int64_t>(Store::kChunkSize))),
        skip_(static_cast<std::size_t>(offset % static_cast<std::int64_t>(Store::kChunkSize))) {}

  asio::awaitable<std::string> next() override {
    if (remaining_ <= 0 || failed_) co_return std::string();
    auto read = [store = &store_, id = id_, seq = seq_]() -> std::optional<std::string> {
      try {
        return store->read_chunk(id, seq);
      } catch (const std::exception&) {
        return std::nullopt;
      }
    };
    std::optional<std::string> piece = co_await s_.blocking(read);
    if (!piece || piece->size() <= skip_) {
      failed_ = true;  // a chunk is missing: the image was deleted while being read
      co_return std::string();
    }
    ++seq_;
    if (skip_ > 0) piece->erase(0, std::exchange(skip_, 0));
    if (static_cast<std::int64_t>(piece->size()) > remaining_)
      piece->resize(static_cast<std::size_t>(remaining_));
    remaining_ -= static_cast<std::int64_t>(piece->size());
    co_return std::move(*piece);
  }
  bool failed() const override { return failed_; }

 private:
  Services& s_;
  Store& store_;
  std::string id_;
  std::int64_t remaining_;
  int seq_;
  std::size_t skip_;
  bool failed_ = false;
};

// One byte range of a Range header ("bytes=a-b", "bytes=a-", "bytes=-n") over `size` bytes, as
// {first, last}; nothing for a header this route serves whole (several ranges, other units), and
// {-1, -1} for a range past the end (416).
std::optional<std::pair<std::int64_t, std::int64_t>> byte_range(std::string_view header,
                                                                std::int64_t size) {
  constexpr std::string_view prefix = "bytes=";
  if (header.substr(0, prefix.size()) != prefix) return std::nullopt;
  header.remove_prefix(prefix.size());
  if (header.find(',') != std::string_view::npos) return std::nullopt;
  const auto dash = header.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view text) -> std::optional<std::int64_t> {
    if (text.empty() || text.size() > 18) return std::nullopt;
    std::int64_t n = 0;
    for (const char ch : text) {
      if (ch < '0' || ch > '9') return std::nullopt;
      n = n * 10 + (ch - '0');
    }
    return n;
  };
  const auto first = number(header.substr(0, dash));
  const auto last = number(header.substr(dash + 1));
  if (!first && !last) return std::nullopt;
  if (!first) {  // the last n bytes
    if (*last == 0) return std::make_pair(std::int64_t{-1}, std::int64_t{-1});
    return std::make_pair(std::max<std::int64_t>(0, size - *last), size - 1);
  }
  if (*first >= size || (last && *last < *first))
    return std::make_pair(std::int64_t{-1}, std::int64_t{-1});
  return std::make_pair(*first, last ? std::min(*last, size - 1) : size - 1);
}

asio::awaitable<Response> content(Services& s, const Catalogue& c, RequestContext& ctx) {
  ctx.only_query({"expires", "signature"});
  const std::string id = ctx.path_param("id");
  const auto expires = ctx.query_value("expires");
  const auto signature = ctx.query_value("signature");
  if (!expires || !signature ||
      !signer_of(s).valid(c.content_path(id), *expires, *signature,
                          std::chrono::system_clock::now()))
    throw Error(ErrorKind::forbidden,
                "this download URL is not signed by this deployment or has expired: ask for a new "
                "one (POST " +
                    c.base + "/{id}/url)");
  Store* store = &images_of(s, c);
  auto work = [store, id] { return store->get(id); };
  const FirmwareImage image = co_await s.blocking(work);
  const auto range = byte_range(ctx.request[http::field::range], image.size);
  if (range && range->first < 0) {
    Response res{http::status::range_not_satisfiable, ctx.request.version()};
    res.set(http::field::content_range, "bytes */" + std::to_string(image.size));
    res.prepare_payload();
    co_return res;
  }
  const std::int64_t first = range ? range->first : 0;
  const std::int64_t length = range ? range->second - range->first + 1 : image.size;
  Response res{range ? http::status::partial_content : http::status::ok, ctx.request.version()};
  res.set(http::field::content_type, "application/octet-stream");
  res.set(http::field::content_disposition, "attachment; filename=\"" + image.spec.name + "\"");
  res.set(http::field::etag, "\"" + image.sha256 + "\"");
  res.set(http::field::accept_ranges, "bytes");
  res.set("X-Checksum-SHA256", image.sha256);
  if (range)
    res.set(http::field::content_range, "bytes " + std::to_string(range->first) + "-" +
                                            std::to_string(range->second) + "/" +
                                            std::to_string(image.size));
  res.content_length(static_cast<std::uint64_t>(length));
  ctx.body_source = std::make_shared<ImageChunks>(s, *store, image.id, first, length);
  co_return res;
}

json image_schema_ref() {
  return openapi::ref("FirmwareImage");
}

}  // namespace

namespace {

void register_catalogue(Api& api, const Catalogue& c) {
  Services& s = api.services();
  using Fn = asio::awaitable<Response> (*)(Services&, const Catalogue&, RequestContext&);
  auto bind = [&s, &c](Fn fn) -> Handler {
    return [&s, &c, fn](RequestContext& ctx) { return fn(s, c, ctx); };
  };
  const std::string noun = c.noun;
  json upload_query = json::array(
      {{{"name", "name"}, {"in", "query"}, {"required", true}, {"schema", {{"type", "string"}}}},
       {{"name", "version"},
        {"in", "query"},
        {"required", true},
        {"schema", {{"type", "string"}}}}});
  if (!c.boot) {
    upload_query.push_back({{"name", "component"},
                            {"in", "query"},
                            {"required", true},
                            {"schema", {{"type", "string"}}}});
    upload_query.push_back({{"name", "model"},
                            {"in", "query"},
                            {"required", false},
                            {"schema", {{"type", "string"}}}});
  }
  upload_query.push_back({{"name", "X-Checksum-SHA256"},
                          {"in", "header"},
                          {"required", false},
                          {"schema", {{"type", "string"}}}});
  Route upload_route{
      http::verb::post,
      c.base,
      Access::global_admin,
      bind(upload),
      {c.boot ? std::string("Upload a boot image (an ISO a BMC mounts as virtual media "
                            "to reprovision a node): the body is the image "
                            "(streamed, any size), named by the query; 422 when "
                            "X-Checksum-SHA256 does not match")
              : std::string("Upload a firmware image: the body is the image "
                            "(streamed, any size), described by the query; 422 "
                            "when X-Checksum-SHA256 does not match"),
       upload_query,
       {{"type", "string"}, {"format", "binary"}},
       201,
       image_schema_ref()}};
  upload_route.streams_body = true;
  api.router().add(std::move(upload_route));
  api.router().add(
      {http::verb::get,
       c.base,
       Access::viewer,
       bind(list),
       {"The " + noun + "s, newest first",
        json::array(),
        nullptr,
        200,
        {{"type", "object"},
         {"properties", {{"items", {{"type", "array"}, {"items", image_schema_ref()}}}}}}}});
  api.router().add({http::verb::get,
                    c.base + "/{id}",
                    Access::viewer,
                    bind(show),
                    {"One " + noun, json::array(), nullptr, 200, image_schema_ref()}});
  api.router().add({http::verb::delete_,
                    c.base + "/{id}",
                    Access::global_admin,
                    bind(remove),
                    {"Delete a " + noun + " and its bytes", json::array(), nullptr, 204, nullptr}});
  api.router().add({http::verb::post,
                    c.base + "/{id}/url",
                    Access::operator_,
                    bind(signed_url),
                    {"A signed download URL for the " + noun +
                         " that needs no token, valid for expires_in_s (default 3600)",
                     json::array(),
                     {{"type", "object"},
                      {"properties", {{"expires_in_s", {{"type", "integer"}, {"minimum", 60}}}}}},
                     200,
                     {{"type", "object"},
                      {"properties",
                       {{"url", {{"type", "string"}}},
                        {"expires_at", {{"type", "string"}, {"format", "date-time"}}},
                        {"sha256", {{"type", "string"}}},
                        {"size", {{"type", "integer"}}}}}}}});
  api.router().add(
      {http::verb::get,
       c.base + "/{id}/content",
       Access::anyone,
       bind(content),
       {"The " + noun +
            "'s bytes, for a signed URL (no token: what BMCs fetch); a Range of bytes gets 206",
        json::array({{{"name", "expires"},
                      {"in", "query"},
                      {"required", true},
                      {"schema", {{"type", "string"}}}},
                     {{"name", "signature"},
                      {"in", "query"},
                      {"required", true},
                      {"schema", {{"type", "string"}}}},
                     {{"name", "Range"},
                      {"in", "header"},
                      {"required", false},
                      {"schema", {{"type", "string"}}}}}),
        nullptr,
        200,
        {{"type", "string"}, {"format", "binary"}}}});
}

}  // namespace

void register_firmware_image_routes(Api& api) {
  register_catalogue(api, firmware_catalogue);
  register_catalogue(api, boot_catalogue);
}

}  // namespace ironhold::web
