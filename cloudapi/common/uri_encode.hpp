#pragma once
// RFC 3986 percent-encoding as the providers' request signers define it (AWS SigV4, Baidu
// bce-auth-v1): every byte but the unreserved characters A-Z a-z 0-9 - . _ ~ becomes %XX with
// upper-case hex; with keep_slash, '/' stays (for paths).
#include <string>
#include <string_view>

namespace ironhold::cloudapi {

std::string rfc3986_encode(std::string_view text, bool keep_slash = false);

}  // namespace ironhold::cloudapi
