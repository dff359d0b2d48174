#include "sim/tls_cert.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

#include "inventory/error.hpp"

namespace ironhold::sim {

namespace {

template <class T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;

[[noreturn]] void fail(const std::string& what) {
  throw Error(ErrorKind::internal, "cannot make the simulator's certificate: " + what + " failed");
}

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace

SelfSignedCert make_self_signed_cert(const std::string& ip) {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) fail("EVP_PKEY_Q_keygen");
  X509Ptr cert(X509_new());
  if (!cert) fail("X509_new");
  BnPtr serial(BN_new());
  if (!serial || !BN_rand(serial.get(), 64, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY)) fail("BN_rand");
  if (!BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())))
    fail("BN_to_ASN1_INTEGER");
  X509_set_version(cert.get(), X509_VERSION_3);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  if (!X509_set_pubkey(cert.get(), key.get())) fail("X509_set_pubkey");
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>("Ironhold simulated BMC"), -1,
                             -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(ip.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
  const std::string san = "IP:" + ip;
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, san.c_str());
  if (!ext) fail("subjectAltName " + san);
  X509_add_ext(cert.get(), ext, -1);
  X509_EXTENSION_free(ext);
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) fail("X509_sign");

  BioPtr cert_bio(BIO_new(BIO_s_mem()));
  BioPtr key_bio(BIO_new(BIO_s_mem()));
  if (!cert_bio || !key_bio) fail("BIO_new");
  if (!PEM_write_bio_X509(cert_bio.get(), cert.get())) fail("PEM_write_bio_X509");
  if (!PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr))
    fail("PEM_write_bio_PrivateKey");
  return {bio_text(cert_bio.get()), bio_text(key_bio.get())};
}

std::string sha256_fingerprint(const std::string& cert_pem) {
  BioPtr bio(BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())));
  X509Ptr cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!cert) throw invalid("not a PEM certificate", "certificate");
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (X509_digest(cert.get(), EVP_sha256(), digest, &size) != 1) fail("X509_digest");
  std::string hex;
  for (unsigned i = 0; i < size; ++i) {
    hex += "0123456789abcdef"[digest[i] >> 4];
    hex += "0123456789abcdef"[digest[i] & 0xF];
  }
  return hex;
}

}  // namespace ironhold::sim
