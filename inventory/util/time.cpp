#include "inventory/util/time.hpp"

#include <charconv>
#include <cstdio>
#include <ctime>

namespace ironhold {

std::string format_rfc3339(SystemTime t) {
  using namespace std::chrono;
  const auto micros = duration_cast<microseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(micros / 1'000'000);
  long frac = static_cast<long>(micros % 1'000'000);
  if (frac < 0) {
    frac += 1'000'000;
    --secs;
  }
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[80];  // room for any int the format could print, so GCC sees no truncation
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
  return buf;
}

namespace {

bool take_int(std::string_view& s, std::size_t digits, int& out) {
  if (s.size() < digits) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + digits, out);
  if (ec != std::errc{} || p != s.data() + digits) return false;
  s.remove_prefix(digits);
  return true;
}

bool take_char(std::string_view& s, char c) {
  if (s.empty() || (s.front() != c && !(c == 'T' && (s.front() == 't' || s.front() == ' '))))
    return false;
  s.remove_prefix(1);
  return true;
}

}  // namespace

std::optional<SystemTime> parse_rfc3339(std::string_view s) {
  int year, month, day, hour, minute, second;
  if (!take_int(s, 4, year) || !take_char(s, '-') || !take_int(s, 2, month) || !take_char(s, '-') ||
      !take_int(s, 2, day) || !take_char(s, 'T') || !take_int(s, 2, hour) || !take_char(s, ':') ||
      !take_int(s, 2, minute) || !take_char(s, ':') || !take_int(s, 2, second))
    return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  // The clock counts nanoseconds in 64 bits: 1678 to 2262. Past that a time cannot be held (and
  // no inventory record is from then).
  if (year < 1700 || year > 2250) return std::nullopt;
  long micros = 0;
  if (!s.empty() && s.front() == '.') {
    s.remove_prefix(1);
    int digits = 0;
    while (!s.empty() && s.front() >= '0' && s.front() <= '9') {
      if (digits < 6) micros = micros * 10 + (s.front() - '0');
      ++digits;
      s.remove_prefix(1);
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 6; ++i) micros *= 10;
  }
  int offset_minutes = 0;
  if (!s.empty() && (s.front() == 'Z' || s.front() == 'z')) {
    s.remove_prefix(1);
  } else if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    const int sign = s.front() == '-' ? -1 : 1;
    s.remove_prefix(1);
    int oh, om;
    if (!take_int(s, 2, oh) || !take_char(s, ':') || !take_int(s, 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return std::nullopt;
  }
  if (!s.empty()) return std::nullopt;
  using namespace std::chrono;
  const year_month_day ymd{std::chrono::year(year),
                           std::chrono::month(static_cast<unsigned>(month)),
                           std::chrono::day(static_cast<unsigned>(day))};
  if (!ymd.ok()) return std::nullopt;
  SystemTime t = sys_days(ymd);
  t += hours(hour) + minutes(minute) + seconds(second) + microseconds(micros);
  t -= minutes(offset_minutes);
  return t;
}

}  // namespace ironhold
