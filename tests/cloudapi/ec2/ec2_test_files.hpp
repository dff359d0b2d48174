#pragma once
// Where the EC2 tests find their reference material: the shared samples beside the clone
// (IRONHOLD_SHARED_DIR/cloud-samples/aws) and the python oracles in this folder.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ironhold::test::ec2 {

inline std::filesystem::path aws_samples_dir() {
  return std::filesystem::path(IRONHOLD_SHARED_DIR) / "cloud-samples" / "aws";
}

inline std::filesystem::path oracle_script(const std::string& name) {
  return std::filesystem::path(IRONHOLD_SOURCE_DIR) / "tests" / "cloudapi" / "ec2" / name;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace ironhold::test::ec2
