#pragma once
// `ironhold gpu-model list|show|set|rm|alias|unalias|unmapped`: the CLI over the GPU catalogue
// (/api/v1/gpu-models).
#include <span>
#include <string>

namespace ironhold::cli {

int run_gpu_model_command(std::span<const std::string> argv);

}  // namespace ironhold::cli
