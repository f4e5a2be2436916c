// Strict reading of YAML values for the guard policy: every value has one type, and
// anything else is one "FILE:LINE:COLUMN: what" error (1-based, as editors count).
// Plain (unquoted) scalars only where the type is a number or a boolean: "42" in
// quotes is a string, and accepting it would blur the types the schema promises.
#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "guard/policy.hpp"
#include "model/result.hpp"

namespace gpukill::guard {

class YamlFields {
  public:
    explicit YamlFields(std::string source) : source_(std::move(source)) {}

    const std::string& source() const { return source_; }
    std::unexpected<Error> error(const YAML::Mark& mark, std::string_view what) const;
    std::unexpected<Error> error(const YAML::Node& node, std::string_view what) const {
        return error(node.Mark(), what);
    }
    static SourceMark mark_of(const YAML::Node& node);

    // Visits each key of a mapping in file order. A key not in `known`, a key given
    // twice or a key that is not a string is an error; so is a value that is not a
    // mapping (null counts as an empty mapping when allow_null).
    using KeyVisitor = std::function<Result<void>(
        const std::string& key, const YAML::Node& key_node, const YAML::Node& value)>;
    Result<void> for_each_key(const YAML::Node& map, std::string_view where,
                              std::span<const std::string_view> known, const KeyVisitor& visit,
                              bool allow_null = true) const;
    Result<void> for_each_key(const YAML::Node& map, std::string_view where,
                              std::initializer_list<std::string_view> known,
                              const KeyVisitor& visit, bool allow_null = true) const {
        return for_each_key(map, where,
                            std::span<const std::string_view>(known.begin(), known.size()), visit,
                            allow_null);
    }
    // The same for a mapping whose keys are names chosen by the file (users, groups).
    Result<void> for_each_entry(const YAML::Node& map, std::string_view where,
                                const KeyVisitor& visit) const;

    Result<std::string> text(const YAML::Node& node, std::string_view key) const;  // non-empty
    Result<bool> boolean(const YAML::Node& node, std::string_view key) const;
    // A non-negative integer up to `max`.
    Result<std::uint64_t> integer(const YAML::Node& node, std::string_view key,
                                  std::uint64_t max) const;
    Result<unsigned> percent(const YAML::Node& node, std::string_view key) const;  // 0..100
    Result<double> number(const YAML::Node& node, std::string_view key) const;     // finite, >= 0
    // 8G, 512M, 1.5G, 1024 (bytes): model/byte_size.hpp.
    Result<std::uint64_t> size(const YAML::Node& node, std::string_view key) const;
    // 90 (seconds), 90s, 5m, 2h, 1d, 1h30m. Never negative.
    Result<std::chrono::seconds> duration(const YAML::Node& node, std::string_view key) const;
    Result<Action> action(const YAML::Node& node, std::string_view key) const;

    // `key:` with nothing after it is an empty list, so commenting out every entry works.
    Result<std::set<std::string>> names(const YAML::Node& node, std::string_view key) const;
    Result<std::set<unsigned>> gpu_indices(const YAML::Node& node, std::string_view key) const;
    Result<void> for_each_item(const YAML::Node& list, std::string_view key,
                               const std::function<Result<void>(const YAML::Node&)>& visit) const;

  private:
    std::string source_;
};

// A GPU index as written in the file: a plain non-negative integer below this.
inline constexpr unsigned kMaxGpuIndex = 65535;

// Pure: the same grammar as YamlFields::duration, for command-line use.
Result<std::chrono::seconds> parse_duration(std::string_view text);

}  // namespace gpukill::guard
