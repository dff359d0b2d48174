#pragma once
// A small read-only view of a libxml2 document for the EC2 parsers: elements found by local name
// within the namespace of the document's root (EC2 answers carry a default xmlns that changes
// with the API version and, in some tools, lacks the trailing slash), text content, and parse
// errors as ironhold::Error. Internal to cloudapi/ec2 (libxml2 is a private dependency).
#include <libxml/tree.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::cloudapi::ec2::xml {

class Document {
 public:
  // Throws ironhold::Error (invalid) naming `what` when `text` is not well-formed XML. No
  // network access, no external entities, no DTD loading.
  Document(std::string_view text, std::string_view what);
  const xmlNode* root() const;
  // The root element's local name.
  std::string root_name() const;

  // The first child element of `parent` called `name` (in the root's namespace), or null.
  const xmlNode* child(const xmlNode* parent, std::string_view name) const;
  // child(child(parent, a), b)... along `path` ("instanceState/name" style, as parts).
  const xmlNode* find(const xmlNode* parent, std::initializer_list<std::string_view> path) const;
  std::vector<const xmlNode*> children(const xmlNode* parent, std::string_view name) const;
  // The items of a list element: <parent><name><item/>...</name></parent>.
  std::vector<const xmlNode*> items(const xmlNode* parent, std::string_view list_name) const;

  // The text of the element at `path` under `parent`; nothing when it is missing.
  std::optional<std::string> text(const xmlNode* parent,
                                  std::initializer_list<std::string_view> path) const;
  // The same, as an integer; nothing when missing or not a number.
  std::optional<long long> integer(const xmlNode* parent,
                                   std::initializer_list<std::string_view> path) const;

 private:
  bool in_document_namespace(const xmlNode* node) const;

  std::unique_ptr<xmlDoc, void (*)(xmlDoc*)> doc_;
  std::optional<std::string> ns_;  // the root element's namespace URI
};

std::string text_of(const xmlNode* node);

}  // namespace ironhold::cloudapi::ec2::xml
