#pragma once
// Writes the EC2 simulator's XML answers: elements in the EC2 namespace with escaped text, and
// the EC2 error document with its HTTP status.
#include <string>
#include <string_view>
#include <vector>

#include "sim/cloud/api_server.hpp"

namespace ironhold::sim::cloud::ec2 {

inline constexpr std::string_view kEc2Namespace = "http://ec2.amazonaws.com/doc/2016-11-15/";

// &, <, >, " and ' as entities; bytes that XML 1.0 cannot carry (control characters) dropped.
std::string xml_escape(std::string_view text);

class XmlWriter {
 public:
  // <?xml ...?><{root} xmlns="...2016-11-15/"><requestId>{request_id}</requestId>
  XmlWriter(std::string_view root, std::string_view request_id);
  XmlWriter& open(std::string_view name);
  XmlWriter& close();
  XmlWriter& leaf(std::string_view name, std::string_view text);
  // Closes everything still open and returns the document.
  std::string finish();

 private:
  std::string out_;
  std::vector<std::string> open_;
};

// A fresh request id in EC2's form (a UUID).
std::string new_request_id();

// <Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>
ApiReply error_reply(unsigned status, std::string_view code, std::string_view message);

// An answer document with status 200.
ApiReply xml_reply(std::string body);

}  // namespace ironhold::sim::cloud::ec2
