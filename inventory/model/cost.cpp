#include "inventory/model/cost.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "inventory/error.hpp"

namespace ironhold {
namespace cost_model {

using nlohmann::json;

double hours_between(SystemTime a, SystemTime b) {
  return std::chrono::duration<double>(b - a).count() / 3600.0;
}

// The price of `list` in force at `t` among those `match` accepts: the latest effective_from at
// or before t.
template <class Price, class Match>
const Price* in_force(const std::vector<Price>& list, SystemTime t, Match match) {
  const Price* best = nullptr;
  for (const auto& p : list)
    if (match(p) && p.effective_from <= t && (!best || p.effective_from > best->effective_from))
      best = &p;
  return best;
}

// [from, to) cut at every effective time of `list` that `match` accepts.
template <class Price, class Match>
std::vector<std::pair<SystemTime, SystemTime>> pieces(SystemTime from, SystemTime to,
                                                      const std::vector<Price>& list, Match match) {
  std::vector<SystemTime> cuts = {from, to};
  for (const auto& p : list)
    if (match(p) && p.effective_from > from && p.effective_from < to)
      cuts.push_back(p.effective_from);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<std::pair<SystemTime, SystemTime>> out;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) out.emplace_back(cuts[i], cuts[i + 1]);
  return out;
}

// A site's energy price at t: its own, else the "*" price.
const EnergyPrice* energy_price(const PriceList& prices, const std::optional<std::string>& site,
                                SystemTime t) {
  if (site)
    if (const auto* own =
            in_force(prices.energy, t, [&](const EnergyPrice& p) { return p.site == *site; }))
      return own;
  return in_force(prices.energy, t, [](const EnergyPrice& p) { return p.site == "*"; });
}

const InstancePrice* instance_price(const PriceList& prices, const CostVersion& v, SystemTime t) {
  const std::string provider = v.provider.value_or(""), type = v.model.value_or("");
  auto matches = [&](const InstancePrice& p, const std::string& region) {
    return p.provider == provider && p.instance_type == type && p.region == region;
  };
  if (v.region)
    if (const auto* own = in_force(prices.instances, t,
                                   [&](const InstancePrice& p) { return matches(p, *v.region); }))
      return own;
  return in_force(prices.instances, t, [&](const InstancePrice& p) { return matches(p, "*"); });
}

std::optional<std::string> key_value(const CostVersion& v, CapacityDimension d) {
  switch (d) {
    case CapacityDimension::gpu_model:
      return v.gpu_model;
    case CapacityDimension::source:
      return std::string(v.owned ? "bmc" : "cloud");
    case CapacityDimension::site:
      return v.site;
    case CapacityDimension::project:
      return v.project;
    case CapacityDimension::provider:
      return v.provider;
    case CapacityDimension::model:
      return v.model;
  }
  return std::nullopt;
}

class Pricer {
 public:
  Pricer(const CostQuery& q, const PriceList& prices, CostReport& report)
      : q_(q), prices_(prices), report_(report) {}

  std::size_t group_of(const CostVersion& v) {
    std::vector<std::optional<std::string>> key;
    for (auto d : q_.group_by) key.push_back(key_value(v, d));
    const auto [it, inserted] = index_.try_emplace(key, report_.groups.size());
    if (inserted) {
      CostGroup g;
      for (std::size_t i = 0; i < key.size(); ++i) g.key[q_.group_by[i]] = key[i];
      report_.groups.push_back(std::move(g));
    }
    return it->second;
  }

  void line(const CostVersion& v, std::size_t group, const char* kind, SystemTime from,
            SystemTime to, double quantity, const char* unit, double rate, long long price_id,
            const char* price_kind, bool estimated = false) {
    CostLine l{v.node_id,  v.node_name,     kind,      from, to, quantity, unit, rate, price_id,
               price_kind, quantity * rate, estimated, group};
    for (CostGroup* g : {&report_.groups[group], &report_.totals}) {
      if (l.kind == "capital") g->owned.capital += l.amount;
      if (l.kind == "hosting") g->owned.hosting += l.amount;
      if (l.kind == "energy") {
        g->owned.energy += l.amount;
        (estimated ? g->owned.energy_kwh_estimated : g->owned.energy_kwh_measured) += quantity;
      }
      if (l.kind == "rental") g->rented.rental += l.amount;
    }
    report_.lines.push_back(std::move(l));
  }

  void missing(const std::string& kind, const std::string& what, double hours, double kwh = 0) {
    for (auto& m : report_.missing)
      if (m.kind == kind && m.what == what) {
        m.hours += hours;
        m.kwh += kwh;
        return;
      }
    report_.missing.push_back({kind, what, hours, kwh});
  }

  void owned(const CostVersion& v, std::size_t g, bool measured) {
    const std::string model = v.model.value_or("");
    auto of_model = [&](const ServerPrice& p) { return p.model == model; };
    for (const auto& [a, b] : pieces(v.from, v.to, prices_.servers, of_model)) {
      const ServerPrice* p = in_force(prices_.servers, a, of_model);
      if (!p) {
        missing("server", model.empty() ? "(no model reported)" : model, hours_between(a, b));
        continue;
      }
      for (CostGroup* group : {&report_.groups[g], &report_.totals}) {
        group->owned.gpu_hours_installed_priced += v.gpus * hours_between(a, b);
        if (v.powered_on) group->owned.gpu_hours_used_priced += v.gpus * hours_between(a, b);
      }
      line(v, g, "hosting", a, b, hours_between(a, b), "h", p->hosting_per_month / kHoursPerMonth,
           p->id, "server");
      const double months_hours = p->depreciation_months * kHoursPerMonth;
      const SystemTime written_off =
          v.enrolled + std::chrono::duration_cast<SystemTime::duration>(
                           std::chrono::duration<double, std::ratio<3600>>(months_hours));
      if (std::min(b, written_off) > a)
        line(v, g, "capital", a, std::min(b, written_off),
             hours_between(a, std::min(b, written_off)), "h", p->purchase_price / months_hours,
             p->id, "server");
      if (measured || !v.powered_on) continue;
      // No reading in the whole period: the rated draw for every hour powered on.
      auto of_site = [&](const EnergyPrice& e) {
        return e.site == "*" || (v.site && e.site == *v.site);
      };
      for (const auto& [c, d] : pieces(a, b, prices_.energy, of_site)) {
        const double kwh = p->rated_watts / 1000.0 * hours_between(c, d);
        const EnergyPrice* e = energy_price(prices_, v.site, c);
        if (!e) {
          missing("energy", v.site.value_or("(no site)"), hours_between(c, d), kwh);
          continue;
        }
        line(v, g, "energy", c, d, kwh, "kWh", e->per_kwh, e->id, "energy", true);
      }
    }
  }

  void rented(const CostVersion& v, std::size_t g) {
    if (!v.powered_on) return;  // a stopped instance is not charged for its GPUs
    auto of_type = [&](const InstancePrice& p) {
      return p.provider == v.provider.value_or("") && p.instance_type == v.model.value_or("") &&
             (p.region == "*" || (v.region && p.region == *v.region));
    };
    for (const auto& [a, b] : pieces(v.from, v.to, prices_.instances, of_type)) {
      const InstancePrice* p = instance_price(prices_, v, a);
      if (!p) {
        missing("instance",
                v.provider.value_or("?") + " " + v.region.value_or("?") + " " +
                    v.model.value_or("(no instance type)"),
                hours_between(a, b));
        continue;
      }
      for (CostGroup* group : {&report_.groups[g], &report_.totals})
        group->rented.gpu_hours_used_priced += v.gpus * hours_between(a, b);
      line(v, g, "rental", a, b, hours_between(a, b), "h", p->per_hour, p->id, "instance");
    }
  }

  void measured(const CostVersion& v, std::size_t g, const MeasuredEnergy& m) {
    const EnergyPrice* e = energy_price(prices_, v.site, m.from);
    if (!e) {
      missing("energy", v.site.value_or("(no site)"), hours_between(m.from, m.to), m.kwh);
      for (CostGroup* group : {&report_.groups[g], &report_.totals})
        group->owned.energy_kwh_measured += m.kwh;
      return;
    }
    line(v, g, "energy", m.from, m.to, m.kwh, "kWh", e->per_kwh, e->id, "energy");
  }

 private:
  const CostQuery& q_;
  const PriceList& prices_;
  CostReport& report_;
  std::map<std::vector<std::optional<std::string>>, std::size_t> index_;
};

double round_to(double v, double scale = 1e6) {
  return std::round(v * scale) / scale;
}

json or_null(double numerator, double denominator) {
  return denominator > 0 ? json(round_to(numerator / denominator)) : json(nullptr);
}

json group_json(const CostReport& report, const CostGroup& g, bool with_key) {
  const OwnedCost& o = g.owned;
  const RentedCost& r = g.rented;
  json out = {
      {"owned",
       {{"gpu_hours_installed", round_to(o.gpu_hours_installed)},
        {"gpu_hours_used", round_to(o.gpu_hours_used)},
        {"utilisation", or_null(o.gpu_hours_used, o.gpu_hours_installed)},
        {"capital", round_to(o.capital)},
        {"hosting", round_to(o.hosting)},
        {"energy", round_to(o.energy)},
        {"energy_kwh_measured", round_to(o.energy_kwh_measured)},
        {"energy_kwh_estimated", round_to(o.energy_kwh_estimated)},
        {"estimated", o.energy_kwh_estimated > 0},
        {"total", round_to(o.total())},
        {"gpu_hours_unpriced", round_to(o.gpu_hours_installed - o.gpu_hours_installed_priced)},
        {"cost_per_gpu_hour_used", or_null(o.total(), o.gpu_hours_used_priced)}}},
      {"rented",
       {{"gpu_hours_used", round_to(r.gpu_hours_used)},
        {"rental", round_to(r.rental)},
        {"total", round_to(r.rental)},
        {"gpu_hours_unpriced", round_to(r.gpu_hours_used - r.gpu_hours_used_priced)},
        {"cost_per_gpu_hour_used", or_null(r.rental, r.gpu_hours_used_priced)}}}};
  // Owning pays from the utilisation u where fixed/u + energy = rented, per used GPU-hour.
  json break_even = nullptr;
  if (o.gpu_hours_installed_priced > 0 && r.gpu_hours_used_priced > 0) {
    const double fixed = (o.capital + o.hosting) / o.gpu_hours_installed_priced;
    const double energy = o.gpu_hours_used_priced > 0 ? o.energy / o.gpu_hours_used_priced : 0;
    const double rent = r.rental / r.gpu_hours_used_priced;
    if (rent > energy) break_even = round_to(fixed / (rent - energy));
  }
  out["break_even_utilisation"] = break_even;
  if (with_key) {
    json key = json::object();
    for (auto d : report.query.group_by) {
      const auto it = g.key.find(d);
      key[std::string(to_string(d))] =
          it != g.key.end() && it->second ? json(*it->second) : json(nullptr);
    }
    out["key"] = std::move(key);
  }
  return out;
}

std::string decimal(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6f", std::abs(v) < 5e-7 ? 0.0 : v);
  return text;
}

std::string exact(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

}  // namespace cost_model

using namespace cost_model;

CostQuery parse_cost_query(const std::optional<std::string>& from,
                           const std::optional<std::string>& to,
                           const std::optional<std::string>& group_by,
                           const std::optional<std::string>& inputs, SystemTime now) {
  CostQuery q;
  const auto period =
      parse_period(from, to, std::chrono::hours(24 * 30), PeriodPrecision::whole_hour, now);
  q.from = period.from;
  q.to = period.to;
  // The grouping is the capacity report's, parsed by its rules.
  const CapacityQuery grouped = parse_capacity_query(
      std::nullopt, std::nullopt, std::string("week"), group_by ? group_by : "gpu_model", now);
  q.group_by = grouped.group_by;
  const std::string with = inputs.value_or("true");
  if (with != "true" && with != "false")
    throw invalid("\"inputs\" must be true or false", "inputs");
  q.with_inputs = with == "true";
  return q;
}

std::vector<SystemTime> energy_price_boundaries(const PriceList& prices) {
  std::set<SystemTime> out;
  for (const auto& p : prices.energy) out.insert(p.effective_from);
  return {out.begin(), out.end()};
}

CostReport compute_cost(const CostQuery& query, const PriceList& prices,
                        const std::vector<CostVersion>& versions,
                        const std::vector<MeasuredEnergy>& energy) {
  CostReport report;
  report.query = query;
  report.currency = prices.currency;
  Pricer pricer(query, prices, report);
  std::set<std::string> measured_nodes;
  std::map<long long, std::pair<const CostVersion*, std::size_t>> by_version;
  for (const auto& v : versions) by_version[v.version_id] = {&v, pricer.group_of(v)};
  for (const auto& m : energy)
    if (m.kwh > 0 && by_version.count(m.version_id))
      measured_nodes.insert(by_version[m.version_id].first->node_id);
  for (const auto& v : versions) {
    const std::size_t g = by_version[v.version_id].second;
    const double gpu_hours = v.gpus * hours_between(v.from, v.to);
    for (CostGroup* group : {&report.groups[g], &report.totals}) {
      if (v.owned) {
        group->owned.gpu_hours_installed += gpu_hours;
        if (v.powered_on) group->owned.gpu_hours_used += gpu_hours;
      } else if (v.powered_on) {
        group->rented.gpu_hours_used += gpu_hours;
      }
    }
    if (v.owned)
      pricer.owned(v, g, measured_nodes.count(v.node_id) > 0);
    else
      pricer.rented(v, g);
  }
  for (const auto& m : energy) {
    const auto it = by_version.find(m.version_id);
    if (it == by_version.end() || !it->second.first->owned) continue;
    pricer.measured(*it->second.first, it->second.second, m);
  }
  return report;
}

json to_json(const CostReport& report) {
  json dims = json::array();
  for (auto d : report.query.group_by) dims.push_back(std::string(to_string(d)));
  json groups = json::array();
  for (const auto& g : report.groups) groups.push_back(group_json(report, g, true));
  json missing = json::array();
  for (const auto& m : report.missing)
    missing.push_back({{"kind", m.kind},
                       {"what", m.what},
                       {"hours", round_to(m.hours)},
                       {"kwh", round_to(m.kwh)}});
  json out = {{"from", format_rfc3339(report.query.from)},
              {"to", format_rfc3339(report.query.to)},
              {"currency", report.currency ? json(*report.currency) : json(nullptr)},
              {"group_by", std::move(dims)},
              {"totals", group_json(report, report.totals, false)},
              {"groups", std::move(groups)},
              {"missing_prices", std::move(missing)}};
  if (report.query.with_inputs) {
    json lines = json::array();
    for (const auto& l : report.lines)
      lines.push_back({{"node_id", l.node_id},
                       {"node", l.node_name},
                       {"kind", l.kind},
                       {"from", format_rfc3339(l.from)},
                       {"to", format_rfc3339(l.to)},
                       {"quantity", l.quantity},
                       {"unit", l.unit},
                       {"rate", l.rate},
                       {"price_kind", l.price_kind},
                       {"price_id", l.price_id},
                       {"amount", l.amount},
                       {"estimated", l.estimated},
                       {"group", l.group}});
    out["inputs"] = std::move(lines);
  }
  return out;
}

std::vector<std::string> cost_csv_header(const CostReport& report) {
  std::vector<std::string> header;
  for (auto d : report.query.group_by) header.emplace_back(to_string(d));
  for (const char* name : {"node_id", "node", "kind", "from", "to", "quantity", "unit", "rate",
                           "currency", "price_kind", "price_id", "amount", "estimated"})
    header.emplace_back(name);
  return header;
}

std::vector<std::vector<std::string>> cost_csv_rows(const CostReport& report) {
  std::vector<std::vector<std::string>> rows;
  rows.reserve(report.lines.size());
  for (const auto& l : report.lines) {
    std::vector<std::string> row;
    const CostGroup& g = report.groups[l.group];
    for (auto d : report.query.group_by) {
      const auto it = g.key.find(d);
      row.push_back(it != g.key.end() && it->second ? *it->second : "");
    }
    for (auto cell : {l.node_id, l.node_name, l.kind, format_rfc3339(l.from), format_rfc3339(l.to),
                      exact(l.quantity), l.unit, exact(l.rate), report.currency.value_or(""),
                      l.price_kind, std::to_string(l.price_id), decimal(l.amount),
                      std::string(l.estimated ? "true" : "false")})
      row.push_back(std::move(cell));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace ironhold
