#pragma once
// GPU facts every provider reports differently ("A100" in BCC, {manufacturer "NVIDIA", name
// "H100"} in EC2, "a100:8" in a Nova flavor), turned into the normalized model's form: a model
// name with its vendor ("NVIDIA H100"), a count, and one gpu component per card.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/drivers/cloud_driver.hpp"

namespace ironhold::cloudapi {

// "NVIDIA H100" from ("NVIDIA", "H100"); the vendor is not repeated when the name already starts
// with it ("NVIDIA A10G" stays as it is); a bare card name with no vendor gets "NVIDIA" when it
// is one of NVIDIA's data-centre families (A…, H…, B…, L…, T4, V100, P4/P40/P100, K40/K80).
std::string gpu_model_name(std::string_view manufacturer, std::string_view name);

struct GpuFacts {
  std::string model;  // gpu_model_name(...)
  std::optional<std::string> manufacturer;
  int count = 0;
  std::optional<long long> memory_mib;  // per card
};

// Sets summary.gpu_model/gpu_count and appends one gpu component per card (slots "GPU0"…), with
// details {memory_gib} where the memory is known. Nothing when count is 0.
void add_gpus(CloudInstance& instance, const GpuFacts& gpus);

}  // namespace ironhold::cloudapi
