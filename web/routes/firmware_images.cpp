// /api/v1/firmware/images: firmware images kept in PostgreSQL. The upload is streamed (the body is
// read 1 MiB at a time as it arrives and written in chunks, hashed on the way), so an image of any
// size costs the server a chunk of memory. BMCs fetch an image through a signed, expiring URL that
// needs no token, from whichever instance they reach.
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

Store& images_of(Services& s) {
  if (!s.firmware_images)
    throw Error(ErrorKind::unavailable, "this server keeps no firmware images");
  return *s.firmware_images;
}

const crypto::UrlSigner& signer_of(Services& s) {
  if (!s.url_signer) throw Error(ErrorKind::unavailable, "this server signs no download URLs");
  return *s.url_signer;
}

std::string content_path(const std::string& id) {
  return tasks::firmware_content_path(id);
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

asio::awaitable<Response> upload(Services& s, RequestContext& ctx) {
  ctx.only_query({"name", "version", "component", "model"});
  const FirmwareImageSpec spec =
      parse_firmware_image_spec(ctx.query_value("name"), ctx.query_value("version"),
                                ctx.query_value("component"), ctx.query_value("model"));
  const auto expected = expected_checksum(ctx);
  if (!ctx.body_reader) throw Error(ErrorKind::internal, "the upload route got no body stream");
  Store* store = &images_of(s);
  auto begin = [store, spec, by = ctx.actor()] { return store->begin(spec, by); };
  const std::string id = co_await s.blocking(begin);
  ctx.set_target("firmware_image", id, spec.name);

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
  res.set(http::field::location, "/api/v1/firmware/images/" + id);
  co_return res;
}

asio::awaitable<Response> list(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  Store* store = &images_of(s);
  auto work = [store] { return store->list(); };
  const std::vector<FirmwareImage> images = co_await s.blocking(work);
  json items = json::array();
  for (const auto& image : images) items.push_back(to_json(image));
  co_return ctx.json(http::status::ok, {{"items", std::move(items)}});
}

asio::awaitable<Response> show(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  Store* store = &images_of(s);
  auto work = [store, id = ctx.path_param("id")] { return store->get(id); };
  const FirmwareImage image = co_await s.blocking(work);
  co_return ctx.json(http::status::ok, to_json(image));
}

asio::awaitable<Response> remove(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  Store* store = &images_of(s);
  auto work = [store, id = ctx.path_param("id")] { return store->remove(id); };
  const FirmwareImage image = co_await s.blocking(work);
  ctx.set_target("firmware_image", image.id, image.spec.name);
  ctx.audit_details = {{"version", image.spec.version}, {"sha256", image.sha256}};
  co_return ctx.empty(http::status::no_content);
}

// POST /firmware/images/{id}/url {"expires_in_s": 3600}: a URL a BMC (or anyone holding it) can
// download the image from until it expires.
asio::awaitable<Response> signed_url(Services& s, RequestContext& ctx) {
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
  Store* store = &images_of(s);
  auto work = [store, id = ctx.path_param("id")] { return store->get(id); };
  const FirmwareImage image = co_await s.blocking(work);
  const auto expires = std::chrono::system_clock::now() + std::chrono::seconds(seconds);
  const tasks::FirmwareDownloads downloads{&signer_of(s), s.advertise_url};
  ctx.set_target("firmware_image", image.id, image.spec.name);
  ctx.audit_details = {{"expires_in_s", seconds}};
  co_return ctx.json(http::status::ok, {{"url", downloads.url(image.id, expires)},
                                        {"expires_at", format_rfc3339(expires)},
                                        {"sha256", image.sha256},
                                        {"size", image.size}});
}

// The image's bytes, read from PostgreSQL a chunk at a time as the client takes them.
class ImageChunks final : public BodySource {
 public:
  ImageChunks(Services& s, Store& store, std::string id, std::int64_t size)
      : s_(s), store_(store), id_(std::move(id)), remaining_(size) {}

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
    if (!piece || piece->empty() || static_cast<std::int64_t>(piece->size()) > remaining_) {
      failed_ = true;  // a chunk is missing: the image was deleted while being read
      co_return std::string();
    }
    ++seq_;
    remaining_ -= static_cast<std::int64_t>(piece->size());
    co_return std::move(*piece);
  }
  bool failed() const override { return failed_; }

 private:
  Services& s_;
  Store& store_;
  std::string id_;
  std::int64_t remaining_;
  int seq_ = 0;
  bool failed_ = false;
};

asio::awaitable<Response> content(Services& s, RequestContext& ctx) {
  ctx.only_query({"expires", "signature"});
  const std::string id = ctx.path_param("id");
  const auto expires = ctx.query_value("expires");
  const auto signature = ctx.query_value("signature");
  if (!expires || !signature ||
      !signer_of(s).valid(content_path(id), *expires, *signature, std::chrono::system_clock::now()))
    throw Error(ErrorKind::forbidden,
                "this download URL is not signed by this deployment or has expired: ask for a new "
                "one (POST /api/v1/firmware/images/{id}/url)");
  Store* store = &images_of(s);
  auto work = [store, id] { return store->get(id); };
  const FirmwareImage image = co_await s.blocking(work);
  Response res{http::status::ok, ctx.request.version()};
  res.set(http::field::content_type, "application/octet-stream");
  res.set(http::field::content_disposition, "attachment; filename=\"" + image.spec.name + "\"");
  res.set(http::field::etag, "\"" + image.sha256 + "\"");
  res.set("X-Checksum-SHA256", image.sha256);
  res.content_length(static_cast<std::uint64_t>(image.size));
  ctx.body_source = std::make_shared<ImageChunks>(s, *store, image.id, image.size);
  co_return res;
}

json image_schema_ref() {
  return openapi::ref("FirmwareImage");
}

}  // namespace

void register_firmware_image_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  const json upload_query = json::array(
      {{{"name", "name"}, {"in", "query"}, {"required", true}, {"schema", {{"type", "string"}}}},
       {{"name", "version"}, {"in", "query"}, {"required", true}, {"schema", {{"type", "string"}}}},
       {{"name", "component"},
        {"in", "query"},
        {"required", true},
        {"schema", {{"type", "string"}}}},
       {{"name", "model"}, {"in", "query"}, {"required", false}, {"schema", {{"type", "string"}}}},
       {{"name", "X-Checksum-SHA256"},
        {"in", "header"},
        {"required", false},
        {"schema", {{"type", "string"}}}}});
  Route upload_route{http::verb::post,
                     "/api/v1/firmware/images",
                     Access::global_admin,
                     bind(upload),
                     {"Upload a firmware image: the body is the image (streamed, any size), "
                      "described by the query; 422 when X-Checksum-SHA256 does not match",
                      upload_query,
                      {{"type", "string"}, {"format", "binary"}},
                      201,
                      image_schema_ref()}};
  upload_route.streams_body = true;
  api.router().add(std::move(upload_route));
  api.router().add(
      {http::verb::get,
       "/api/v1/firmware/images",
       Access::viewer,
       bind(list),
       {"Firmware images, newest first",
        json::array(),
        nullptr,
        200,
        {{"type", "object"},
         {"properties", {{"items", {{"type", "array"}, {"items", image_schema_ref()}}}}}}}});
  api.router().add({http::verb::get,
                    "/api/v1/firmware/images/{id}",
                    Access::viewer,
                    bind(show),
                    {"One firmware image", json::array(), nullptr, 200, image_schema_ref()}});
  api.router().add(
      {http::verb::delete_,
       "/api/v1/firmware/images/{id}",
       Access::global_admin,
       bind(remove),
       {"Delete a firmware image and its bytes", json::array(), nullptr, 204, nullptr}});
  api.router().add(
      {http::verb::post,
       "/api/v1/firmware/images/{id}/url",
       Access::operator_,
       bind(signed_url),
       {"A signed download URL for the image that needs no token, valid for expires_in_s "
        "(default 3600)",
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
  api.router().add({http::verb::get,
                    "/api/v1/firmware/images/{id}/content",
                    Access::anyone,
                    bind(content),
                    {"The image's bytes, for a signed URL (no token: what BMCs fetch)",
                     json::array({{{"name", "expires"},
                                   {"in", "query"},
                                   {"required", true},
                                   {"schema", {{"type", "string"}}}},
                                  {{"name", "signature"},
                                   {"in", "query"},
                                   {"required", true},
                                   {"schema", {{"type", "string"}}}}}),
                     nullptr,
                     200,
                     {{"type", "string"}, {"format", "binary"}}}});
}

}  // namespace ironhold::web
