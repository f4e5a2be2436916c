// Strict reading of YAML values for rogue.yaml (config_reader.cpp): every mistake is an
// error "FILE:LINE:COLUMN: what" (1-based), types are exact (a quoted "42" is text, not
// a number), and keys and list entries may not repeat. Internal to src/detect.
#pragma once

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"
#include "model/yaml_load.hpp"

namespace gpukill::detect::yaml_fields {

// Makes "FILE:LINE:COLUMN: what" errors for the file being read.
class Reader {
  public:
    explicit Reader(std::string_view source) : source_(source) {}
    std::unexpected<Error> error(const YAML::Mark& mark, std::string_view what) const {
        return yaml_error(source_, mark, what);
    }

  private:
    std::string source_;
};

// The node's text quoted and escaped for an error line, or "that value".
std::string shown(const YAML::Node& node);

// An integer in [min, max].
Result<long long> read_int(const Reader& reader, const YAML::Node& node, std::string_view key,
                           long long min, long long max);

// A finite number in (min, max] when min_exclusive, else [min, max].
Result<double> read_number(const Reader& reader, const YAML::Node& node, std::string_view key,
                           double min, double max, bool min_exclusive);

using KeyVisitor =
    std::function<Result<void>(const std::string& name, const YAML::Node& key, const YAML::Node&)>;

// Visits a mapping's keys, refusing repeated ones; `key:` with nothing is an empty mapping.
Result<void> for_each_key(const Reader& reader, const YAML::Node& map, std::string_view what,
                          const KeyVisitor& visit);

std::unexpected<Error> unknown_key(const Reader& reader, const YAML::Node& key,
                                   std::string_view what, std::string_view known);

// Checks one list entry; returns why it is wrong, or "" when it is fine.
using EntryCheck = std::function<std::string(const std::string&)>;

// A list of non-empty text entries, each checked, none repeated. `key:` with nothing
// after it is an empty list, so commenting out every entry works.
Result<std::vector<std::string>> read_strings(const Reader& reader, const YAML::Node& list,
                                              std::string_view key, const EntryCheck& check);

}  // namespace gpukill::detect::yaml_fields
