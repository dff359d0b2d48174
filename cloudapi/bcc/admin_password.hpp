#pragma once
// The admin password of a BCC rebuild travels encrypted, as Baidu documents and its Go SDK does
// (Aes128EncryptUseSecreteKey): AES-128-ECB keyed with the first 16 bytes of the account's secret
// key, PKCS#7 padding, lower-case hex. ECB is Baidu's choice, not ours; the request itself rides
// on HTTPS.
#include <optional>
#include <string>
#include <string_view>

namespace ironhold::cloudapi::bcc {

// Throws ironhold::Error (invalid) when the secret key is shorter than 16 bytes.
std::string encrypt_admin_password(std::string_view secret_key, std::string_view password);

// The inverse (the simulator checks what it receives); nullopt when `hex` is not valid hex of a
// whole number of blocks or its padding is wrong.
std::optional<std::string> decrypt_admin_password(std::string_view secret_key,
                                                  std::string_view hex);

}  // namespace ironhold::cloudapi::bcc
