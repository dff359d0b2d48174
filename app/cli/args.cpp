#include "app/cli/args.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "app/cli/config_file.hpp"

namespace ironhold::cli {
namespace {

bool truthy(std::string_view v) {
  return v == "1" || v == "true" || v == "yes" || v == "on" || v == "TRUE" || v == "True";
}

std::string left_column(const Option& opt) {
  std::string s = opt.short_name ? std::string("-") + opt.short_name + ", " : "    ";
  s += "--" + opt.name;
  if (opt.takes_value) s += " " + opt.value_name;
  return s;
}

// Word-wraps `text` to `width` columns, keeping its own line breaks; continuation lines start
// with `indent` spaces.
std::string wrap(const std::string& text, std::size_t width, std::size_t indent) {
  std::string out, line, word;
  std::istringstream lines(text);
  while (std::getline(lines, line)) {
    if (!out.empty()) out += '\n' + std::string(indent, ' ');
    std::size_t column = 0;
    std::istringstream words(line);
    while (words >> word) {
      if (column > 0 && column + 1 + word.size() > width) {
        out += '\n' + std::string(indent, ' ');
        column = 0;
      } else if (column > 0) {
        out += ' ';
        ++column;
      }
      out += word;
      column += word.size();
    }
  }
  return out;
}

}  // namespace

Args::Args(std::string command, std::string usage, std::string summary, std::vector<Option> options)
    : command_(std::move(command)),
      usage_(std::move(usage)),
      summary_(std::move(summary)),
      options_(std::move(options)) {
  if (find_long("config"))
    throw std::logic_error(command_ + " declares --config, which every command has already");
  options_.push_back({.name = "config",
                      .help = "read option values from this TOML file (see docs/install.md)",
                      .env = "IRONHOLD_CONFIG",
                      .value_name = "FILE"});
}

std::size_t Args::index_of(std::string_view name) const {
  for (std::size_t i = 0; i < options_.size(); ++i)
    if (options_[i].name == name) return i;
  throw std::logic_error("option --" + std::string(name) + " is not declared by " + command_);
}

const Option* Args::find_long(std::string_view name) const {
  for (const auto& o : options_)
    if (o.name == name) return &o;
  return nullptr;
}

const Option* Args::find_short(char c) const {
  for (const auto& o : options_)
    if (o.short_name == c) return &o;
  return nullptr;
}

void Args::record(const Option& opt, std::string value) {
  given_.push_back({static_cast<std::size_t>(&opt - options_.data()), std::move(value)});
}

void Args::parse(std::span<const std::string> argv) {
  given_.clear();
  positional_.clear();
  help_requested_ = false;
  // The first error is kept rather than thrown at once so that a --help later on the line still
  // shows the help instead of complaining about a half-typed command.
  std::optional<std::string> first_error;
  std::size_t i = 0;
  while (i < argv.size()) {
    const std::string& word = argv[i];
    if (word == "--") {
      positional_.insert(positional_.end(), argv.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                         argv.end());
      break;
    }
    if (word == "--help" || word == "-h") {
      help_requested_ = true;
      ++i;
      continue;
    }
    if (word.size() < 2 || word[0] != '-') {
      positional_.push_back(word);
      ++i;
      continue;
    }
    try {
      i += word[1] == '-' ? parse_long(argv.subspan(i)) : parse_short(argv.subspan(i));
    } catch (const UsageError& e) {
      if (!first_error) first_error = e.what();
      ++i;
    }
  }
  if (first_error && !help_requested_) throw UsageError(*first_error);
  from_config_.assign(options_.size(), {});
  // A broken config file must not hide the help that may explain it.
  if (!help_requested_) read_config();
}

void Args::read_config() {
  const auto path = get("config");
  if (!path || path->empty()) return;
  from_config_ = config_values(read_config_file(*path), command_, options_);
}

std::size_t Args::parse_long(std::span<const std::string> rest) {
  std::string_view body = std::string_view(rest[0]).substr(2);
  std::optional<std::string> inline_value;
  if (auto eq = body.find('='); eq != std::string_view::npos) {
    inline_value = std::string(body.substr(eq + 1));
    body = body.substr(0, eq);
  }
  const Option* opt = find_long(body);
  if (!opt) throw UsageError("unknown option --" + std::string(body));
  if (!opt->takes_value) {
    if (inline_value) throw UsageError("option --" + opt->name + " takes no value");
    record(*opt, "true");
    return 1;
  }
  if (inline_value) {
    record(*opt, std::move(*inline_value));
    return 1;
  }
  if (rest.size() < 2) throw UsageError("option --" + opt->name + " needs a " + opt->value_name);
  record(*opt, rest[1]);
  return 2;
}

std::size_t Args::parse_short(std::span<const std::string> rest) {
  const std::string& word = rest[0];
  // Bundled flags: "-ab" is "-a -b"; the first option that takes a value ends the bundle and
  // takes the remainder of the word ("-ojson") or the next word ("-o json") as its value.
  for (std::size_t k = 1; k < word.size(); ++k) {
    if (word[k] == 'h') {
      help_requested_ = true;
      continue;
    }
    const Option* opt = find_short(word[k]);
    if (!opt) throw UsageError(std::string("unknown option -") + word[k]);
    if (!opt->takes_value) {
      record(*opt, "true");
      continue;
    }
    if (k + 1 < word.size()) {
      record(*opt, word.substr(k + 1));
      return 1;
    }
    if (rest.size() < 2)
      throw UsageError(std::string("option -") + word[k] + " needs a " + opt->value_name);
    record(*opt, rest[1]);
    return 2;
  }
  return 1;
}

std::vector<std::string> Args::fallback(std::size_t option) const {
  const Option& opt = options_[option];
  if (!opt.env.empty()) {
    if (const char* v = std::getenv(opt.env.c_str()); v && *v) return {std::string(v)};
  }
  if (option < from_config_.size() && !from_config_[option].empty()) return from_config_[option];
  if (!opt.default_value.empty()) return {opt.default_value};
  return {};
}

std::optional<std::string> Args::get(std::string_view name) const {
  const std::size_t idx = index_of(name);
  for (auto it = given_.rbegin(); it != given_.rend(); ++it)
    if (it->option == idx) return it->value;
  auto values = fallback(idx);
  if (values.empty()) return std::nullopt;
  return std::move(values.back());
}

std::string Args::value_or(std::string_view name, std::string fallback_value) const {
  auto v = get(name);
  return v ? *v : std::move(fallback_value);
}

std::vector<std::string> Args::all(std::string_view name) const {
  const std::size_t idx = index_of(name);
  std::vector<std::string> values;
  for (const auto& g : given_)
    if (g.option == idx) values.push_back(g.value);
  if (values.empty()) values = fallback(idx);
  return values;
}

bool Args::flag(std::string_view name) const {
  const std::size_t idx = index_of(name);
  for (const auto& g : given_)
    if (g.option == idx) return true;
  const auto values = fallback(idx);
  return !values.empty() && truthy(values.back());
}

bool Args::given(std::string_view name) const {
  const std::size_t idx = index_of(name);
  return std::any_of(given_.begin(), given_.end(),
                     [idx](const Given& g) { return g.option == idx; });
}

std::string Args::help_text() const {
  constexpr std::size_t kLineWidth = 100;
  std::ostringstream out;
  out << "Usage: " << command_ << " [OPTIONS]";
  if (!usage_.empty()) out << ' ' << usage_;
  out << "\n\n" << wrap(summary_, kLineWidth, 0) << "\n\nOptions:\n";
  Option help_opt{
      .name = "help", .short_name = 'h', .takes_value = false, .help = "Show this help and exit."};
  std::vector<const Option*> all_opts;
  for (const auto& o : options_) all_opts.push_back(&o);
  all_opts.push_back(&help_opt);

  constexpr std::size_t kMaxLeft = 28;
  std::size_t width = 0;
  for (const Option* o : all_opts) width = std::max(width, left_column(*o).size());
  width = std::min(width, kMaxLeft);
  for (const Option* o : all_opts) {
    std::string text = o->help;
    if (o->repeatable) text += " (repeatable)";
    // \x1F keeps "[env: X]" on one line through wrap(); it becomes a space again below.
    if (!o->default_value.empty()) text += " [default:\x1F" + o->default_value + "]";
    if (!o->env.empty()) text += " [env:\x1F" + o->env + "]";
    const std::string left = left_column(*o);
    out << "  " << left;
    if (left.size() > width) {
      out << '\n' << std::string(width + 2, ' ');
    } else {
      out << std::string(width - left.size(), ' ');
    }
    std::string wrapped = wrap(text, kLineWidth - width - 4, width + 4);
    std::replace(wrapped.begin(), wrapped.end(), '\x1F', ' ');
    out << "  " << wrapped << '\n';
  }
  std::string sections;
  for (const auto& s : config_sections(command_))
    sections += (sections.empty() ? "[" : " or [") + s + "]";
  const std::string where =
      sections.empty() ? "at the top level" : "at the top level or under " + sections;
  out << '\n'
      << wrap(
             "Options may also be set in the --config file, as `name = value` with the option's "
             "long name, " +
                 where +
                 ". The command line wins over the environment, the environment over the file.",
             kLineWidth, 0)
      << '\n';
  return out.str();
}

Option make_option(std::string name, std::string value_name, std::string help) {
  Option o{.name = std::move(name), .help = std::move(help)};
  o.takes_value = !value_name.empty();
  o.repeatable = value_name.ends_with("...");
  if (o.repeatable) value_name.resize(value_name.size() - 3);
  o.value_name = std::move(value_name);
  return o;
}

}  // namespace ironhold::cli
