#include "inventory/crypto/secret_box.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"

namespace ironhold::crypto {
namespace {

constexpr std::size_t nonce_size = 12;
constexpr std::size_t tag_size = 16;

struct CipherCtxDeleter {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxDeleter>;

CipherCtx new_ctx() {
  CipherCtx ctx(EVP_CIPHER_CTX_new());
  if (!ctx) throw Error(ErrorKind::internal, "out of memory creating a cipher context");
  return ctx;
}

Error crypto_failure(const char* what) {
  return Error(ErrorKind::internal, std::string("AES-256-GCM ") + what + " failed");
}

}  // namespace

std::string key_id_of(const Key& key) {
  std::string material = "ironhold master key id\n";
  material.append(reinterpret_cast<const char*>(key.data()), key.size());
  auto digest = sha256(material);
  OPENSSL_cleanse(material.data(), material.size());
  return to_hex(std::span(digest).first(8));
}

namespace {

std::vector<std::uint8_t> seal_with(const Key& key, std::string_view plaintext,
                                    std::string_view aad) {
  std::vector<std::uint8_t> out(nonce_size + plaintext.size() + tag_size);
  random_bytes(std::span(out).first(nonce_size));
  auto ctx = new_ctx();
  int len = 0;
  if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(), out.data()) != 1)
    throw crypto_failure("init");
  if (!aad.empty() && EVP_EncryptUpdate(ctx.get(), nullptr, &len,
                                        reinterpret_cast<const unsigned char*>(aad.data()),
                                        static_cast<int>(aad.size())) != 1)
    throw crypto_failure("aad");
  if (EVP_EncryptUpdate(ctx.get(), out.data() + nonce_size, &len,
                        reinterpret_cast<const unsigned char*>(plaintext.data()),
                        static_cast<int>(plaintext.size())) != 1)
    throw crypto_failure("encrypt");
  int final_len = 0;
  if (EVP_EncryptFinal_ex(ctx.get(), out.data() + nonce_size + len, &final_len) != 1)
    throw crypto_failure("final");
  if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, tag_size,
                          out.data() + nonce_size + plaintext.size()) != 1)
    throw crypto_failure("tag");
  return out;
}

// Nothing when the value was sealed under another key (or tampered with): the tag tells.
std::optional<std::string> open_with(const Key& key, std::span<const std::uint8_t> sealed,
                                     std::string_view aad) {
  const std::size_t text_size = sealed.size() - nonce_size - tag_size;
  std::string plaintext(text_size, '\0');
  auto ctx = new_ctx();
  int len = 0;
  if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(), sealed.data()) != 1)
    throw crypto_failure("init");
  if (!aad.empty() && EVP_DecryptUpdate(ctx.get(), nullptr, &len,
                                        reinterpret_cast<const unsigned char*>(aad.data()),
                                        static_cast<int>(aad.size())) != 1)
    throw crypto_failure("aad");
  if (EVP_DecryptUpdate(ctx.get(), reinterpret_cast<unsigned char*>(plaintext.data()), &len,
                        sealed.data() + nonce_size, static_cast<int>(text_size)) != 1)
    throw crypto_failure("decrypt");
  std::array<std::uint8_t, tag_size> tag;
  std::copy_n(sealed.data() + nonce_size + text_size, tag_size, tag.begin());
  if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, tag_size, tag.data()) != 1)
    throw crypto_failure("tag");
  int final_len = 0;
  if (EVP_DecryptFinal_ex(ctx.get(), reinterpret_cast<unsigned char*>(plaintext.data()) + len,
                          &final_len) != 1) {
    OPENSSL_cleanse(plaintext.data(), plaintext.size());
    return std::nullopt;
  }
  return plaintext;
}

}  // namespace

struct SecretBox::State {
  Key current{};
  std::string current_id;
  std::vector<Key> previous;
};

SecretBox::SecretBox(const Key& key) : SecretBox(Keyring{key, {}}) {}

SecretBox::SecretBox(Keyring keys) {
  install(std::move(keys));
}

SecretBox::~SecretBox() = default;

void SecretBox::install(Keyring keys) const {
  auto state = std::make_shared<State>();
  state->current = keys.current;
  state->current_id = key_id_of(keys.current);
  state->previous = std::move(keys.previous);
  std::lock_guard lock(mutex_);
  state_ = std::move(state);
}

std::shared_ptr<const SecretBox::State> SecretBox::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

void SecretBox::set_source(std::function<std::optional<Keyring>()> source) {
  std::lock_guard lock(mutex_);
  source_ = std::move(source);
}

bool SecretBox::refresh() const {
  std::function<std::optional<Keyring>()> source;
  {
    std::lock_guard lock(mutex_);
    source = source_;
    last_refresh_ = std::chrono::steady_clock::now();
  }
  if (!source) return false;
  std::optional<Keyring> keys = source();
  if (!keys) return false;
  const auto now = state();
  if (keys->current == now->current && keys->previous == now->previous) return false;
  install(std::move(*keys));
  return true;
}

std::string SecretBox::key_id() const {
  return state()->current_id;
}

std::vector<std::uint8_t> SecretBox::seal(std::string_view plaintext, std::string_view aad) const {
  return seal_with(state()->current, plaintext, aad);
}

std::string SecretBox::open(std::span<const std::uint8_t> sealed, std::string_view aad) const {
  if (sealed.size() < nonce_size + tag_size)
    throw Error(ErrorKind::internal, "a sealed secret is truncated");
  for (int round = 0; round < 2; ++round) {
    const auto keys = state();
    if (auto plain = open_with(keys->current, sealed, aad)) return std::move(*plain);
    for (const Key& key : keys->previous)
      if (auto plain = open_with(key, sealed, aad)) return std::move(*plain);
    // A rotation may have re-sealed it under a key this process has not read yet: read the key
    // file again, at most once a second.
    bool due = false;
    {
      std::lock_guard lock(mutex_);
      due = source_ && std::chrono::steady_clock::now() - last_refresh_ > std::chrono::seconds(1);
    }
    if (round > 0 || !due || !refresh()) break;
  }
  throw Error(ErrorKind::internal,
              "a sealed secret does not open with the master key (wrong key or tampered row)");
}

namespace {

// A key file's text, made with one new key when missing and `create`.
std::string read_key_text(const std::filesystem::path& file, bool create, const std::string& name,
                          std::string_view flag) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    if (!create)
      throw Error(ErrorKind::invalid, name + " file " + file.string() + " does not exist; pass " +
                                          std::string(flag) + " naming a file of 64 hex digits");
    Key key{};
    random_bytes(key);
    std::string text = to_hex(key) + "\n";
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw Error(ErrorKind::invalid, "cannot create " + name + " file " + file.string());
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::fsync(fd);
    ::close(fd);
    if (!written)
      throw Error(ErrorKind::invalid, "cannot write " + name + " file " + file.string());
    return text;
  }
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    throw Error(ErrorKind::invalid,
                name + " file " + file.string() + " may be read by other users; chmod 600 it");
  std::ifstream in(file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The keys of a key file: whitespace-separated runs of 64 hex digits.
std::vector<Key> parse_keys(std::string& text, const std::string& name,
                            const std::filesystem::path& file) {
  std::vector<Key> keys;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    std::vector<std::uint8_t> bytes;
    Key key{};
    if (!from_hex(word, bytes) || bytes.size() != key.size())
      throw Error(ErrorKind::invalid, name + " file " + file.string() +
                                          " must hold 64 hex digits (a 256-bit key) per line");
    std::copy(bytes.begin(), bytes.end(), key.begin());
    OPENSSL_cleanse(bytes.data(), bytes.size());
    OPENSSL_cleanse(word.data(), word.size());
    keys.push_back(key);
  }
  OPENSSL_cleanse(text.data(), text.size());
  if (keys.empty())
    throw Error(ErrorKind::invalid, name + " file " + file.string() + " holds no key");
  return keys;
}

}  // namespace

Key load_key_file(const std::filesystem::path& file, bool create, std::string_view what,
                  std::string_view flag) {
  const std::string name(what);
  std::string text = read_key_text(file, create, name, flag);
  const auto keys = parse_keys(text, name, file);
  if (keys.size() != 1)
    throw Error(ErrorKind::invalid,
                name + " file " + file.string() + " must hold exactly one key (64 hex digits)");
  return keys.front();
}

Keyring load_master_keyring(const std::filesystem::path& file, bool create) {
  std::string text =
      read_key_text(file, create, "master key", "--master-key-file (or IRONHOLD_MASTER_KEY_FILE)");
  auto keys = parse_keys(text, "master key", file);
  Keyring ring{keys.front(), {}};
  ring.previous.assign(keys.begin() + 1, keys.end());
  return ring;
}

Key load_master_key(const std::filesystem::path& file, bool create) {
  return load_master_keyring(file, create).current;
}

void write_master_keyring(const std::filesystem::path& file, const Keyring& keys) {
  std::string text = to_hex(keys.current) + "\n";
  for (const Key& key : keys.previous) text += to_hex(key) + "\n";
  const std::filesystem::path temporary = file.string() + ".new";
  std::filesystem::remove(temporary);
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw Error(ErrorKind::invalid, "cannot create " + temporary.string());
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  OPENSSL_cleanse(text.data(), text.size());
  if (!written || !synced) throw Error(ErrorKind::invalid, "cannot write " + temporary.string());
  // rename() replaces the file at once: a reader sees the old keys or the new ones, never half.
  std::filesystem::rename(temporary, file);
}

}  // namespace ironhold::crypto
