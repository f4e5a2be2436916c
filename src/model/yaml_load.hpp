// The one way gpukill turns YAML text into documents (every config loader: guard.yaml,
// protected.yaml, rogue.yaml, history settings, policy edits).
//
// Why not YAML::LoadAll alone: Debian 12's yaml-cpp 0.7.0 loops forever, allocating a
// null document per turn, when a document starts with a token its parser does not
// consume: a ',' outside [...] or {...} (`"a", b`, `[1, 2], 3`) or a bare `?` key after
// a tagged top-level scalar (upstream jbeder/yaml-cpp#1040, fixed after 0.7.0). A 7-byte
// file hung `gpukill guard check` and every `kill` reading protected.yaml. A first pass
// over the same text with YAML::Parser, recording only where each document starts,
// sees a document that consumed nothing and refuses the text at that mark, in O(1)
// memory; only then does LoadAll run, and it then terminates (same bytes, same parse).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "model/result.hpp"

namespace gpukill {

inline constexpr std::size_t kMaxYamlDocuments = 1000;

// YAML::LoadAll(text), bounded: throws YAML::ParserException (with its mark) where
// LoadAll would throw, and where it would loop; also past kMaxYamlDocuments documents.
std::vector<YAML::Node> load_yaml_documents(std::string_view text);

// "SOURCE:LINE:COLUMN: what" (1-based, as editors count; "SOURCE: what" without a
// mark), every config reader's error line. It stays one line whatever the file or
// yaml-cpp put in it: controls, C1, bidi overrides and invalid bytes become '?'.
std::unexpected<Error> yaml_error(std::string_view source, const YAML::Mark& mark,
                                  std::string_view what);

// A plain (unquoted) scalar. Every config reader takes numbers and booleans only from
// plain scalars: "42" and "true" in quotes are strings, and accepting them would blur the
// types the schemas promise.
inline bool is_plain_scalar(const YAML::Node& node) {
    return node.IsScalar() && node.Tag() == "?";
}

}  // namespace gpukill
