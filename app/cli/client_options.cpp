#include "app/cli/client_options.hpp"

#include <algorithm>
#include <iostream>

#include "app/cli/table.hpp"
#include "inventory/error.hpp"

namespace ironhold::cli {

std::vector<Option> client_options() {
  return {
      {.name = "url",
       .help = "Ironhold server to talk to.",
       .env = "IRONHOLD_URL",
       .default_value = "http://127.0.0.1:8080",
       .value_name = "URL"},
      {.name = "token",
       .help = "API token (prefer the environment variable: argv is public).",
       .env = "IRONHOLD_TOKEN",
       .value_name = "TOKEN"},
      {.name = "cacert",
       .help = "PEM file of the CA that signed the server's certificate.",
       .env = "IRONHOLD_CACERT",
       .value_name = "FILE"},
      {.name = "output",
       .short_name = 'o',
       .help = "Output format: table or json.",
       .default_value = "table",
       .value_name = "FORMAT"},
  };
}

// A command's own option wins over a client option of the same name (`export --output FILE`).
std::vector<Option> with_client_options(std::vector<Option> own) {
  for (auto& o : client_options()) {
    const bool taken = std::any_of(own.begin(), own.end(), [&](const Option& mine) {
      return mine.name == o.name || (o.short_name && mine.short_name == o.short_name);
    });
    if (!taken) own.push_back(std::move(o));
  }
  return own;
}

OutputFormat output_format(const Args& args) {
  const std::string v = args.value_or("output", "table");
  if (v == "table") return OutputFormat::table;
  if (v == "json") return OutputFormat::json;
  throw UsageError("--output must be table or json, not \"" + v + "\"");
}

HttpClient make_client(const Args& args) {
  HttpSettings s;
  s.base_url = args.value_or("url", "http://127.0.0.1:8080");
  if (!s.base_url.starts_with("http://") && !s.base_url.starts_with("https://"))
    throw UsageError("--url must start with http:// or https:// (got \"" + s.base_url + "\")");
  if (s.base_url.find_first_of("?#") != std::string::npos)
    throw UsageError("--url is the server's base URL, without a query or fragment");
  s.token = args.get("token");
  if (s.token) {
    for (char ch : *s.token) {
      const auto c = static_cast<unsigned char>(ch);
      // Never echo the token itself, even in this message.
      if (c < 0x21 || c == 0x7F)
        throw UsageError(
            "the API token contains a space or control character; check "
            "--token / IRONHOLD_TOKEN");
    }
  }
  s.ca_file = args.get("cacert");
  return HttpClient(std::move(s));
}

void print_json(const nlohmann::json& value) {
  // Replacing invalid UTF-8 instead of throwing: a BMC's broken string must not lose the output.
  std::cout << value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

int run_guarded(const std::string& command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << "error: " << terminal_safe(e.what()) << "\nrun '" << command
              << " --help' for usage\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "error: " << terminal_safe(e.what()) << '\n';
    return kExitFailure;
  }
}

}  // namespace ironhold::cli
