#include "engine/request_codec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <type_traits>

#include "engine/audit_queries.hpp"
#include "engine/guard_test.hpp"
#include "engine/health_check.hpp"
#include "engine/kill.hpp"
#include "engine/list.hpp"
#include "engine/reset.hpp"
#include "engine/rogue_scan.hpp"
#include "model/byte_size.hpp"
#include "model/human_format.hpp"

namespace gpukill::engine {
namespace {

using ojson = nlohmann::ordered_json;

constexpr double kMaxSeconds = 3600;
constexpr double kMaxHours = 876000;  // a century: more is a typo

std::string spelled(const FieldDoc& doc, Spelling spelling) {
    return spelling == Spelling::option && !doc.option.empty() ? std::string(doc.option)
                                                               : "'" + std::string(doc.name) + "'";
}

std::unexpected<Error> field_error(const FieldDoc& doc, Spelling spelling,
                                   std::string_view expected) {
    return fail(ErrorCategory::invalid_input,
                fmt::format("{} must be {}", spelled(doc, spelling), expected));
}

const char* expected_words(FieldKind kind) {
    switch (kind) {
        case FieldKind::flag:
            return "true or false";
        case FieldKind::texts:
            return "a list of strings";
        case FieldKind::pids:
            return "a list of PIDs (integers or decimal strings)";
        case FieldKind::gpu:
            return "a GPU index, UUID or PCI bus id";
        case FieldKind::byte_size:
            return "a number of bytes";
        case FieldKind::seconds:
            return "between 0 and 3600 seconds";
        case FieldKind::hours:
            return "more than 0 and at most 876000 hours";
        case FieldKind::plan_id:
            return "16 lowercase hex digits";
        case FieldKind::choice:
            return "one of the documented choices";
        case FieldKind::text:
        case FieldKind::pattern:
        case FieldKind::signal:
        case FieldKind::document:
            return "a string";
    }
    return "a value";
}

bool valid_number(FieldKind kind, double value) {
    if (!std::isfinite(value)) return false;
    if (kind == FieldKind::hours) return value > 0 && value <= kMaxHours;
    return value >= 0 && value <= kMaxSeconds;
}

bool valid_plan_id(std::string_view id) {
    return id.size() == 16 && id.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

bool valid_choice(const FieldDoc& doc, std::string_view value) {
    return std::find(doc.choices.begin(), doc.choices.end(), value) != doc.choices.end();
}

std::string choices_words(const FieldDoc& doc) {
    std::string words;
    for (std::size_t i = 0; i < doc.choices.size(); ++i) {
        words += (i == 0 ? "" : i + 1 == doc.choices.size() ? " or " : ", ");
        words += doc.choices[i];
    }
    return words;
}

// A string value's own check (plan ids, choices); the rest pass as typed.
Result<void> check_string(const FieldDoc& doc, Spelling spelling, std::string_view value) {
    if (doc.kind == FieldKind::plan_id && !valid_plan_id(value)) {
        return field_error(doc, spelling, expected_words(doc.kind));
    }
    if (doc.kind == FieldKind::choice && !valid_choice(doc, value)) {
        return field_error(doc, spelling, choices_words(doc));
    }
    return {};
}

Result<double> number_from_text(const FieldDoc& doc, Spelling spelling, std::string_view text) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
        !valid_number(doc.kind, value)) {
        return field_error(doc, spelling, expected_words(doc.kind));
    }
    return value;
}

// ---- JSON ----

template <class Request>
Result<void> read_json_field(Request& request, const Field<Request>& field,
                             const nlohmann::json& value) {
    const FieldDoc& doc = field.doc;
    const auto wrong = [&] { return field_error(doc, Spelling::field, expected_words(doc.kind)); };
    return std::visit(
        [&](auto member) -> Result<void> {
            auto& slot = request.*member;
            using Slot = std::remove_reference_t<decltype(slot)>;
            if constexpr (std::is_same_v<Slot, bool>) {
                if (!value.is_boolean()) return wrong();
                slot = value.get<bool>();
            } else if constexpr (std::is_same_v<Slot, std::optional<std::string>> ||
                                 std::is_same_v<Slot, std::string>) {
                if (doc.kind == FieldKind::gpu && value.is_number_unsigned()) {
                    slot = std::to_string(value.get<std::uint64_t>());
                    return {};
                }
                if (!value.is_string()) return wrong();
                const std::string text = value.get<std::string>();
                if (auto checked = check_string(doc, Spelling::field, text); !checked) {
                    return checked;
                }
                slot = text;
            } else if constexpr (std::is_same_v<Slot, std::vector<std::string>>) {
                if (!value.is_array()) return wrong();
                Slot items;
                for (const nlohmann::json& item : value) {
                    if (item.is_string()) {
                        items.push_back(item.get<std::string>());
                    } else if (doc.kind == FieldKind::pids && item.is_number_unsigned()) {
                        items.push_back(std::to_string(item.get<std::uint64_t>()));
                    } else if (doc.kind == FieldKind::pids && item.is_number_integer()) {
                        // Negative PIDs pass as typed: the plan's gate refuses them by name.
                        items.push_back(std::to_string(item.get<std::int64_t>()));
                    } else {
                        return wrong();
                    }
                }
                slot = std::move(items);
            } else if constexpr (std::is_same_v<Slot, std::optional<std::uint64_t>> ||
                                 std::is_same_v<Slot, std::uint64_t>) {
                if (!value.is_number_unsigned()) return wrong();
                slot = value.get<std::uint64_t>();
            } else if constexpr (std::is_same_v<Slot, double>) {
                if (!value.is_number() || !valid_number(doc.kind, value.get<double>())) {
                    return wrong();
                }
                slot = value.get<double>();
            }
            return {};
        },
        field.member);
}

template <class Request>
void write_json_field(ojson& out, const Request& request, const Request& defaults,
                      const Field<Request>& field) {
    std::visit(
        [&](auto member) {
            const auto& value = request.*member;
            if (value == defaults.*member) return;
            using Slot = std::remove_cvref_t<decltype(value)>;
            const std::string name(field.doc.name);
            if constexpr (std::is_same_v<Slot, std::optional<std::string>> ||
                          std::is_same_v<Slot, std::optional<std::uint64_t>>) {
                if (value) out[name] = *value;
            } else {
                out[name] = value;
            }
        },
        field.member);
}

// ---- text ----

template <class Request>
Result<void> read_text_field(Request& request, const Field<Request>& field, const std::string& text,
                             Spelling spelling, bool repeated) {
    const FieldDoc& doc = field.doc;
    return std::visit(
        [&](auto member) -> Result<void> {
            auto& slot = request.*member;
            using Slot = std::remove_reference_t<decltype(slot)>;
            if constexpr (std::is_same_v<Slot, std::vector<std::string>>) {
                slot.push_back(text);
                return {};
            } else {
                if (repeated) {
                    return fail(ErrorCategory::invalid_input,
                                fmt::format("{} is given more than once", spelled(doc, spelling)));
                }
                if constexpr (std::is_same_v<Slot, bool>) {
                    // A query string's `?idle` (no value) is given, as a flag is.
                    if (text == "true" || text == "1" || text.empty()) {
                        slot = true;
                    } else if (text == "false" || text == "0") {
                        slot = false;
                    } else {
                        return field_error(doc, spelling, expected_words(doc.kind));
                    }
                } else if constexpr (std::is_same_v<Slot, std::optional<std::string>> ||
                                     std::is_same_v<Slot, std::string>) {
                    if (auto checked = check_string(doc, spelling, text); !checked) return checked;
                    slot = text;
                } else if constexpr (std::is_same_v<Slot, std::optional<std::uint64_t>> ||
                                     std::is_same_v<Slot, std::uint64_t>) {
                    auto bytes = parse_byte_size(text);
                    if (!bytes) {
                        return fail(
                            ErrorCategory::invalid_input,
                            fmt::format("{}: {}", spelled(doc, spelling), bytes.error().what));
                    }
                    slot = *bytes;
                } else if constexpr (std::is_same_v<Slot, double>) {
                    auto number = number_from_text(doc, spelling, text);
                    if (!number) return std::unexpected(number.error());
                    slot = *number;
                }
                return {};
            }
        },
        field.member);
}

template <class Request>
void write_arguments(std::vector<std::string>& out, const Request& request, const Request& defaults,
                     const Field<Request>& field) {
    const FieldDoc& doc = field.doc;
    std::visit(
        [&](auto member) {
            const auto& value = request.*member;
            if (value == defaults.*member) return;
            using Slot = std::remove_cvref_t<decltype(value)>;
            const std::string option(doc.option);
            if constexpr (std::is_same_v<Slot, bool>) {
                // A flag that differs from its default is given; --no-X turns one off.
                out.push_back(option);
            } else if constexpr (std::is_same_v<Slot, std::vector<std::string>>) {
                for (const std::string& item : value) {
                    out.push_back(option);
                    out.push_back(item);
                }
            } else if constexpr (std::is_same_v<Slot, std::optional<std::string>>) {
                if (!value) return;
                out.push_back(doc.kind == FieldKind::document ? std::string(doc.text_option)
                                                              : option);
                out.push_back(*value);
            } else if constexpr (std::is_same_v<Slot, std::optional<std::uint64_t>>) {
                if (!value) return;
                out.push_back(option);
                out.push_back(std::to_string(*value));
            } else if constexpr (std::is_same_v<Slot, std::uint64_t>) {
                out.push_back(option);
                out.push_back(std::to_string(value));
            } else if constexpr (std::is_same_v<Slot, double>) {
                out.push_back(option);
                out.push_back(fmt::format("{}", value));
            } else {
                out.push_back(option);
                out.push_back(value);
            }
        },
        field.member);
}

template <class Request>
void write_text(NamedValues& out, const Request& request, const Request& defaults,
                const Field<Request>& field) {
    std::visit(
        [&](auto member) {
            const auto& value = request.*member;
            if (value == defaults.*member) return;
            using Slot = std::remove_cvref_t<decltype(value)>;
            const std::string name(field.doc.name);
            if constexpr (std::is_same_v<Slot, bool>) {
                out.emplace_back(name, value ? "true" : "false");
            } else if constexpr (std::is_same_v<Slot, std::vector<std::string>>) {
                for (const std::string& item : value) out.emplace_back(name, item);
            } else if constexpr (std::is_same_v<Slot, std::optional<std::string>>) {
                if (value) out.emplace_back(name, *value);
            } else if constexpr (std::is_same_v<Slot, std::optional<std::uint64_t>>) {
                if (value) out.emplace_back(name, std::to_string(*value));
            } else if constexpr (std::is_same_v<Slot, std::uint64_t>) {
                out.emplace_back(name, std::to_string(value));
            } else if constexpr (std::is_same_v<Slot, double>) {
                out.emplace_back(name, fmt::format("{}", value));
            } else {
                out.emplace_back(name, value);
            }
        },
        field.member);
}

// ---- schema and docs ----

ojson schema_type(const FieldDoc& doc) {
    switch (doc.kind) {
        case FieldKind::flag:
            return ojson{{"type", "boolean"}};
        case FieldKind::texts:
            return ojson{{"type", "array"}, {"items", {{"type", "string"}}}};
        case FieldKind::pids:
            return ojson{{"type", "array"},
                         {"items", {{"type", ojson::array({"integer", "string"})}}}};
        case FieldKind::gpu:
            return ojson{{"type", ojson::array({"string", "integer"})}};
        case FieldKind::byte_size:
            return ojson{{"type", "integer"}, {"minimum", 0}};
        case FieldKind::seconds:
            return ojson{{"type", "number"}, {"minimum", 0}, {"maximum", kMaxSeconds}};
        case FieldKind::hours:
            return ojson{{"type", "number"}, {"exclusiveMinimum", 0}, {"maximum", kMaxHours}};
        case FieldKind::plan_id:
            return ojson{{"type", "string"}, {"pattern", "^[0-9a-f]{16}$"}};
        case FieldKind::choice: {
            ojson choices = ojson::array();
            for (std::string_view choice : doc.choices) choices.push_back(choice);
            return ojson{{"type", "string"}, {"enum", choices}};
        }
        case FieldKind::text:
        case FieldKind::pattern:
        case FieldKind::signal:
        case FieldKind::document:
            return ojson{{"type", "string"}};
    }
    return ojson{{"type", "string"}};
}

const char* markdown_type(FieldKind kind) {
    switch (kind) {
        case FieldKind::flag:
            return "boolean";
        case FieldKind::texts:
            return "array of strings";
        case FieldKind::pids:
            return "array of PIDs";
        case FieldKind::gpu:
            return "GPU (string or integer)";
        case FieldKind::byte_size:
            return "integer (bytes)";
        case FieldKind::seconds:
            return "number (seconds)";
        case FieldKind::hours:
            return "number (hours)";
        case FieldKind::plan_id:
            return "string (16 hex digits)";
        case FieldKind::choice:
            return "string (choice)";
        case FieldKind::pattern:
            return "string (regular expression)";
        case FieldKind::document:
            return "string (document text)";
        case FieldKind::text:
        case FieldKind::signal:
            return "string";
    }
    return "string";
}

}  // namespace

std::string field_description(const FieldDoc& doc) {
    std::string text(doc.help);
    if (doc.kind == FieldKind::choice) text += " (" + choices_words(doc) + ")";
    if (!doc.default_text.empty()) text += fmt::format(" (default {})", doc.default_text);
    return text;
}

template <class Request>
Result<Request> request_from_json(const nlohmann::json& body) {
    if (!body.is_object()) {
        return fail(ErrorCategory::invalid_input, "the request must be a JSON object");
    }
    const auto table = request_fields<Request>();
    for (const auto& [key, value] : body.items()) {
        const bool known = std::any_of(table.begin(), table.end(),
                                       [&](const Field<Request>& f) { return f.doc.name == key; });
        if (!known) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("unknown field '{}'", printable(key)));
        }
    }
    Request request;
    for (const Field<Request>& field : table) {
        const auto it = body.find(std::string(field.doc.name));
        if (it == body.end() || it->is_null()) continue;
        if (auto read = read_json_field(request, field, *it); !read) {
            return std::unexpected(read.error());
        }
    }
    return request;
}

template <class Request>
nlohmann::ordered_json request_to_json(const Request& request) {
    const Request defaults{};
    ojson out = ojson::object();
    for (const Field<Request>& field : request_fields<Request>()) {
        write_json_field(out, request, defaults, field);
    }
    return out;
}

template <class Request>
Result<Request> request_from_text(const NamedValues& values, Spelling spelling) {
    const auto table = request_fields<Request>();
    Request request;
    std::vector<std::string_view> seen;
    for (const auto& [name, text] : values) {
        const auto field = std::find_if(table.begin(), table.end(), [&](const Field<Request>& f) {
            return f.doc.name == name;
        });
        if (field == table.end()) {
            return fail(
                ErrorCategory::invalid_input,
                fmt::format("unknown {} '{}'", spelling == Spelling::field ? "parameter" : "option",
                            printable(name)));
        }
        const bool repeated = std::find(seen.begin(), seen.end(), field->doc.name) != seen.end();
        seen.push_back(field->doc.name);
        if (auto read = read_text_field(request, *field, text, spelling, repeated); !read) {
            return std::unexpected(read.error());
        }
    }
    return request;
}

template <class Request>
NamedValues request_to_text(const Request& request) {
    const Request defaults{};
    NamedValues out;
    for (const Field<Request>& field : request_fields<Request>()) {
        write_text(out, request, defaults, field);
    }
    return out;
}

template <class Request>
std::vector<std::string> request_to_arguments(const Request& request) {
    const Request defaults{};
    std::vector<std::string> out;
    for (const Field<Request>& field : request_fields<Request>()) {
        write_arguments(out, request, defaults, field);
    }
    return out;
}

template <class Request>
nlohmann::ordered_json request_schema(const std::vector<std::string_view>& left_out) {
    ojson properties = ojson::object();
    for (const Field<Request>& field : request_fields<Request>()) {
        const FieldDoc& doc = field.doc;
        if (std::find(left_out.begin(), left_out.end(), doc.name) != left_out.end()) continue;
        ojson property = schema_type(doc);
        property["description"] = field_description(doc);
        properties[std::string(doc.name)] = std::move(property);
    }
    return properties;
}

template <class Request>
std::string request_markdown() {
    std::string text = "| field | command line | type | meaning |\n| --- | --- | --- | --- |\n";
    for (const Field<Request>& field : request_fields<Request>()) {
        const FieldDoc& doc = field.doc;
        std::string option(doc.option);
        if (!doc.value_name.empty()) option += " " + std::string(doc.value_name);
        if (!doc.text_option.empty()) option += ", " + std::string(doc.text_option) + " DOCUMENT";
        text += fmt::format("| `{}` | `{}` | {} | {} |\n", doc.name, option,
                            markdown_type(doc.kind), field_description(doc));
    }
    return text;
}

template <class Request>
const FieldDoc* field_for_option(std::string_view option) {
    for (const Field<Request>& field : request_fields<Request>()) {
        const FieldDoc& doc = field.doc;
        if (doc.option == option || (!doc.short_option.empty() && doc.short_option == option) ||
            (!doc.text_option.empty() && doc.text_option == option)) {
            return &doc;
        }
    }
    return nullptr;
}

#define GPUKILL_REQUEST_CODEC(Request)                                                             \
    template Result<Request> request_from_json<Request>(const nlohmann::json&);                    \
    template nlohmann::ordered_json request_to_json<Request>(const Request&);                      \
    template Result<Request> request_from_text<Request>(const NamedValues&, Spelling);             \
    template NamedValues request_to_text<Request>(const Request&);                                 \
    template std::vector<std::string> request_to_arguments<Request>(const Request&);               \
    template nlohmann::ordered_json request_schema<Request>(const std::vector<std::string_view>&); \
    template std::string request_markdown<Request>();                                              \
    template const FieldDoc* field_for_option<Request>(std::string_view);

GPUKILL_REQUEST_CODEC(ListRequest)
GPUKILL_REQUEST_CODEC(KillRequest)
GPUKILL_REQUEST_CODEC(ResetRequest)
GPUKILL_REQUEST_CODEC(CheckRequest)
GPUKILL_REQUEST_CODEC(GuardTestRequest)
GPUKILL_REQUEST_CODEC(ActionsRequest)
GPUKILL_REQUEST_CODEC(UsageRequest)
GPUKILL_REQUEST_CODEC(RogueScanRequest)
#undef GPUKILL_REQUEST_CODEC

}  // namespace gpukill::engine
