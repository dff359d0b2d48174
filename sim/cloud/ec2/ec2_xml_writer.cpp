#include "sim/cloud/ec2/ec2_xml_writer.hpp"

#include <array>
#include <cstdio>
#include <random>

namespace ironhold::sim::cloud::ec2 {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') break;
        out.push_back(ch);
    }
  }
  return out;
}

XmlWriter::XmlWriter(std::string_view root, std::string_view request_id) {
  out_ = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<";
  out_ += root;
  out_ += " xmlns=\"";
  out_ += kEc2Namespace;
  out_ += "\">";
  open_.emplace_back(root);
  leaf("requestId", request_id);
}

XmlWriter& XmlWriter::open(std::string_view name) {
  out_ += '<';
  out_ += name;
  out_ += '>';
  open_.emplace_back(name);
  return *this;
}

XmlWriter& XmlWriter::close() {
  if (open_.empty()) return *this;
  out_ += "</";
  out_ += open_.back();
  out_ += '>';
  open_.pop_back();
  return *this;
}

XmlWriter& XmlWriter::leaf(std::string_view name, std::string_view text) {
  out_ += '<';
  out_ += name;
  out_ += '>';
  out_ += xml_escape(text);
  out_ += "</";
  out_ += name;
  out_ += '>';
  return *this;
}

std::string XmlWriter::finish() {
  while (!open_.empty()) close();
  return std::move(out_);
}

std::string new_request_id() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  const std::uint64_t a = engine();
  const std::uint64_t b = engine();
  std::array<char, 40> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%08x-%04x-4%03x-%04x-%012llx",
                static_cast<unsigned>(a >> 32), static_cast<unsigned>((a >> 16) & 0xFFFF),
                static_cast<unsigned>(a & 0x0FFF),
                static_cast<unsigned>(0x8000 | (b >> 48 & 0x3FFF)),
                static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFULL));
  return std::string(buffer.data());
}

ApiReply error_reply(unsigned status, std::string_view code, std::string_view message) {
  ApiReply reply;
  reply.status = status;
  reply.content_type = "text/xml;charset=UTF-8";
  reply.body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error><Code>" +
               xml_escape(code) + "</Code><Message>" + xml_escape(message) +
               "</Message></Error></Errors><RequestID>" + new_request_id() +
               "</RequestID></Response>";
  return reply;
}

ApiReply xml_reply(std::string body) {
  ApiReply reply;
  reply.status = 200;
  reply.content_type = "text/xml;charset=UTF-8";
  reply.body = std::move(body);
  return reply;
}

}  // namespace ironhold::sim::cloud::ec2
