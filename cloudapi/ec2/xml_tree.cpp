#include "cloudapi/ec2/xml_tree.hpp"

#include <libxml/parser.h>

#include <charconv>
#include <climits>

#include "inventory/error.hpp"

namespace ironhold::cloudapi::ec2::xml {
namespace {

std::string_view local_name(const xmlNode* node) {
  return node->name ? std::string_view(reinterpret_cast<const char*>(node->name))
                    : std::string_view{};
}

std::string first_line(std::string_view text) {
  std::string out(text.substr(0, text.find('\n')));
  return out;
}

}  // namespace

Document::Document(std::string_view text, std::string_view what) : doc_(nullptr, xmlFreeDoc) {
  if (text.size() > static_cast<std::size_t>(INT_MAX))
    throw invalid(std::string(what) + " is too large to be parsed");
  xmlParserCtxtPtr context = xmlNewParserCtxt();
  if (!context) throw Error(ErrorKind::internal, "cannot allocate an XML parser");
  xmlDoc* doc = xmlCtxtReadMemory(
      context, text.data(), static_cast<int>(text.size()), nullptr, nullptr,
      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA);
  std::string reason;
  if (!doc) {
    const xmlError* error = xmlCtxtGetLastError(context);
    reason = error && error->message ? first_line(error->message) : "not well-formed";
  }
  xmlFreeParserCtxt(context);
  if (!doc) throw invalid(std::string(what) + " is not well-formed XML: " + reason);
  doc_.reset(doc);
  const xmlNode* r = xmlDocGetRootElement(doc);
  if (!r) throw invalid(std::string(what) + " has no root element");
  if (r->ns && r->ns->href) ns_ = std::string(reinterpret_cast<const char*>(r->ns->href));
}

const xmlNode* Document::root() const {
  return xmlDocGetRootElement(doc_.get());
}

std::string Document::root_name() const {
  return std::string(local_name(root()));
}

bool Document::in_document_namespace(const xmlNode* node) const {
  const bool has_ns = node->ns && node->ns->href;
  if (!has_ns || !ns_) return has_ns == ns_.has_value();
  return *ns_ == reinterpret_cast<const char*>(node->ns->href);
}

const xmlNode* Document::child(const xmlNode* parent, std::string_view name) const {
  if (!parent) return nullptr;
  for (const xmlNode* n = parent->children; n; n = n->next)
    if (n->type == XML_ELEMENT_NODE && local_name(n) == name && in_document_namespace(n)) return n;
  return nullptr;
}

const xmlNode* Document::find(const xmlNode* parent,
                              std::initializer_list<std::string_view> path) const {
  const xmlNode* node = parent;
  for (const auto name : path) {
    node = child(node, name);
    if (!node) return nullptr;
  }
  return node;
}

std::vector<const xmlNode*> Document::children(const xmlNode* parent, std::string_view name) const {
  std::vector<const xmlNode*> out;
  if (!parent) return out;
  for (const xmlNode* n = parent->children; n; n = n->next)
    if (n->type == XML_ELEMENT_NODE && local_name(n) == name && in_document_namespace(n))
      out.push_back(n);
  return out;
}

std::vector<const xmlNode*> Document::items(const xmlNode* parent,
                                            std::string_view list_name) const {
  return children(child(parent, list_name), "item");
}

std::optional<std::string> Document::text(const xmlNode* parent,
                                          std::initializer_list<std::string_view> path) const {
  const xmlNode* node = find(parent, path);
  if (!node) return std::nullopt;
  return text_of(node);
}

std::optional<long long> Document::integer(const xmlNode* parent,
                                           std::initializer_list<std::string_view> path) const {
  const auto value = text(parent, path);
  if (!value) return std::nullopt;
  std::string_view s = *value;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t'))
    s.remove_suffix(1);
  long long out = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return out;
}

std::string text_of(const xmlNode* node) {
  xmlChar* content = xmlNodeGetContent(node);
  if (!content) return {};
  std::string out(reinterpret_cast<const char*>(content));
  xmlFree(content);
  return out;
}

}  // namespace ironhold::cloudapi::ec2::xml
