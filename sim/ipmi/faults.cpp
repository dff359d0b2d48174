#include "sim/ipmi/faults.hpp"

#include "inventory/error.hpp"

namespace ironhold::sim::ipmi {

using nlohmann::json;

Faults faults_from_json(const json& body, Faults base) {
  if (!body.is_object()) throw invalid("the faults must be a JSON object");
  for (const auto& [key, value] : body.items()) {
    if (key == "loss") {
      if (!value.is_number() || value.get<double>() < 0 || value.get<double>() > 1)
        throw invalid("loss must be a number from 0 to 1", key);
      base.loss = value.get<double>();
    } else if (key == "delay_ms") {
      if (!value.is_number_unsigned() || value.get<std::uint64_t>() > 600'000)
        throw invalid("delay_ms must be a whole number from 0 to 600000", key);
      base.delay_ms = value.get<unsigned>();
    } else if (key == "no_answer" || key == "lockout") {
      if (!value.is_boolean()) throw invalid(key + " must be true or false", key);
      (key == "no_answer" ? base.no_answer : base.lockout) = value.get<bool>();
    } else {
      throw invalid("unknown fault \"" + key + "\" (loss, delay_ms, no_answer, lockout)", key);
    }
  }
  return base;
}

json to_json(const Faults& f) {
  return {{"loss", f.loss},
          {"delay_ms", f.delay_ms},
          {"no_answer", f.no_answer},
          {"lockout", f.lockout}};
}

json active_faults(const Faults& f) {
  json out = json::array();
  if (f.loss > 0) out.push_back("loss");
  if (f.delay_ms > 0) out.push_back("delay_ms");
  if (f.no_answer) out.push_back("no_answer");
  if (f.lockout) out.push_back("lockout");
  return out;
}

}  // namespace ironhold::sim::ipmi
