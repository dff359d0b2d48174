#include "inventory/crypto/secret_box.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

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

Error crypto_failure(const char* what) { return Error(ErrorKind::internal, std::string("AES-256-GCM ") + what + " failed"); }

}  // namespace

SecretBox::SecretBox(const Key& key) : key_(key) {
  std::string material = "ironhold master key id\n";
  material.append(reinterpret_cast<const char*>(key.data()), key.size());
  auto digest = sha256(material);
  OPENSSL_cleanse(material.data(), material.size());
  key_id_ = to_hex(std::span(digest).first(8));
}

std::vector<std::uint8_t> SecretBox::seal(std::string_view plaintext, std::string_view aad) const {
  std::vector<std::uint8_t> out(nonce_size + plaintext.size() + tag_size);
  random_bytes(std::span(out).first(nonce_size));
  auto ctx = new_ctx();
  int len = 0;
  if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(), out.data()) != 1)
    throw crypto_failure("init");
  if (!aad.empty() &&
      EVP_EncryptUpdate(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(aad.data()),
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

std::string SecretBox::open(std::span<const std::uint8_t> sealed, std::string_view aad) const {
  if (sealed.size() < nonce_size + tag_size)
    throw Error(ErrorKind::internal, "a sealed secret is truncated");
  const std::size_t text_size = sealed.size() - nonce_size - tag_size;
  std::string plaintext(text_size, '\0');
  auto ctx = new_ctx();
  int len = 0;
  if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(), sealed.data()) != 1)
    throw crypto_failure("init");
  if (!aad.empty() &&
      EVP_DecryptUpdate(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(aad.data()),
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
    throw Error(ErrorKind::internal,
                "a sealed secret does not open with the master key (wrong key or tampered row)");
  }
  return plaintext;
}

Key load_master_key(const std::filesystem::path& file, bool create) {
  Key key{};
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    if (!create)
      throw Error(ErrorKind::invalid, "master key file " + file.string() +
                                          " does not exist; pass --master-key-file (or "
                                          "IRONHOLD_MASTER_KEY_FILE) naming a file of 64 hex digits");
    random_bytes(key);
    const std::string text = to_hex(key) + "\n";
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw Error(ErrorKind::invalid, "cannot create master key file " + file.string());
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::fsync(fd);
    ::close(fd);
    if (!written) throw Error(ErrorKind::invalid, "cannot write master key file " + file.string());
    return key;
  }
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    throw Error(ErrorKind::invalid, "master key file " + file.string() +
                                        " may be read by other users; chmod 600 it");
  std::ifstream in(file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  const auto first = text.find_first_not_of(" \t\r\n");
  const auto last = text.find_last_not_of(" \t\r\n");
  std::vector<std::uint8_t> bytes;
  if (first == std::string::npos || !from_hex(std::string_view(text).substr(first, last - first + 1), bytes) ||
      bytes.size() != key.size())
    throw Error(ErrorKind::invalid,
                "master key file " + file.string() + " must hold exactly 64 hex digits (a 256-bit key)");
  std::copy(bytes.begin(), bytes.end(), key.begin());
  OPENSSL_cleanse(bytes.data(), bytes.size());
  OPENSSL_cleanse(text.data(), text.size());
  return key;
}

}  // namespace ironhold::crypto
