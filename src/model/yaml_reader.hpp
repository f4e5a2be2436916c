// The one strict YAML reader every configuration file is read with (guard.yaml,
// rogue.yaml, protected.yaml, history.yaml): every value has one type, and anything
// else is one "FILE:LINE:COLUMN: what" error (1-based, as editors count). Plain
// (unquoted) scalars only where the type is a number or a boolean: "42" in quotes is a
// string, and accepting it would blur the types the schemas promise. Keys and list
// entries may not repeat; `key:` with nothing after it is an empty mapping or list.
#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace gpukill {

class YamlReader {
  public:
    explicit YamlReader(std::string source) : source_(std::move(source)) {}

    const std::string& source() const { return source_; }

    // The file's one document (load_yaml_documents' bounds); none for an empty file. A
    // syntax error or a second document is an error at its position.
    Result<std::optional<YAML::Node>> single_document(std::string_view text) const;
    std::unexpected<Error> error(const YAML::Mark& mark, std::string_view what) const;
    std::unexpected<Error> error(const YAML::Node& node, std::string_view what) const {
        return error(node.Mark(), what);
    }
    // "unknown key K in WHERE (expected KNOWN)", for readers that check keys themselves.
    std::unexpected<Error> unknown_key(const YAML::Node& key, std::string_view where,
                                       std::string_view known) const;

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
    // An integer in [min, max], signed.
    Result<long long> integer_in(const YAML::Node& node, std::string_view key, long long min,
                                 long long max) const;
    // A finite number in (min, max] when min_exclusive, else [min, max].
    Result<double> number_in(const YAML::Node& node, std::string_view key, double min, double max,
                             bool min_exclusive) const;

    // `key:` with nothing after it is an empty list, so commenting out every entry works.
    Result<std::set<std::string>> names(const YAML::Node& node, std::string_view key) const;
    Result<std::set<unsigned>> gpu_indices(const YAML::Node& node, std::string_view key) const;
    Result<void> for_each_item(const YAML::Node& list, std::string_view key,
                               const std::function<Result<void>(const YAML::Node&)>& visit) const;
    // Non-empty text entries in file order, each passed through `check` (why it is
    // wrong, or "" when fine), none repeated.
    using EntryCheck = std::function<std::string(const std::string&)>;
    Result<std::vector<std::string>> strings(const YAML::Node& list, std::string_view key,
                                             const EntryCheck& check) const;

  private:
    std::string source_;
};

// A GPU index as written in the file: a plain non-negative integer below this.
inline constexpr unsigned kMaxGpuIndex = 65535;

// 90 (seconds), 90s, 5m, 2h, 1d, 1h30m: each unit once, largest first. Pure: the
// grammar of YamlReader::duration, for command-line use too.
Result<std::chrono::seconds> parse_duration(std::string_view text);

// The node's text quoted and escaped for an error line, or what it is ("a list").
std::string shown(const YAML::Node& node);

}  // namespace gpukill
