#include "cli/request_options.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/audit_queries.hpp"
#include "engine/guard_test.hpp"
#include "engine/health_check.hpp"
#include "engine/kill.hpp"
#include "engine/list_request.hpp"
#include "engine/reset.hpp"
#include "engine/rogue_scan.hpp"

namespace gpukill::cli {
namespace {

using engine::FieldDoc;
using engine::FieldKind;

// gpu-kill's spellings of the same options.
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {{"--dry-run", "--safe"}};

template <class Request>
void append_fields(std::vector<const FieldDoc*>& out) {
    for (const auto& field : engine::request_fields<Request>()) {
        const bool known = std::any_of(out.begin(), out.end(), [&](const FieldDoc* doc) {
            return doc->option == field.doc.option;
        });
        if (!known) out.push_back(&field.doc);
    }
}

template <class Request>
std::vector<const FieldDoc*> fields_of() {
    std::vector<const FieldDoc*> out;
    append_fields<Request>(out);
    return out;
}

// Every field of every request, one per option: what the parser registers.
std::vector<const FieldDoc*> every_request_field() {
    std::vector<const FieldDoc*> all;
    for (Command command : kAllCommands) {
        for (const FieldDoc* doc : request_fields_of(command)) {
            const bool known = std::any_of(all.begin(), all.end(), [&](const FieldDoc* seen) {
                return seen->option == doc->option;
            });
            if (!known) all.push_back(doc);
        }
    }
    return all;
}

bool takes_value(const FieldDoc& doc) {
    return doc.kind != FieldKind::flag;
}

bool repeatable(const FieldDoc& doc) {
    return doc.kind == FieldKind::texts || doc.kind == FieldKind::pids;
}

std::string names_of(const FieldDoc& doc) {
    std::string names(doc.option);
    if (!doc.short_option.empty()) names += "," + std::string(doc.short_option);
    for (const auto& [option, alias] : kAliases) {
        if (option == doc.option) names += "," + std::string(alias);
    }
    return names;
}

Result<std::string> read_document(const FieldDoc& doc, const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const int error = errno;
        return fail(ErrorCategory::invalid_input,
                    fmt::format("{}: cannot read {}: {}", doc.option, path, std::strerror(error)));
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

std::vector<const FieldDoc*> request_fields_of(Command command) {
    switch (command) {
        case Command::list:
            return fields_of<engine::ListRequest>();
        case Command::kill:
            return fields_of<engine::KillRequest>();
        case Command::reset:
            return fields_of<engine::ResetRequest>();
        case Command::check:
            return fields_of<engine::CheckRequest>();
        case Command::guard:
            return fields_of<engine::GuardTestRequest>();
        case Command::audit: {
            std::vector<const FieldDoc*> out;
            append_fields<engine::UsageRequest>(out);
            append_fields<engine::ActionsRequest>(out);
            append_fields<engine::RogueScanRequest>(out);
            return out;
        }
        case Command::top: {
            // The monitor shows one GPU when asked: list's --gpu.
            std::vector<const FieldDoc*> out;
            for (const auto& field : engine::request_fields<engine::ListRequest>()) {
                if (field.doc.name == "gpu") out.push_back(&field.doc);
            }
            return out;
        }
        case Command::doctor:
        case Command::agent:
        case Command::mcp:
            return {};
    }
    return {};
}

std::vector<Command> commands_taking(std::string_view option) {
    std::vector<Command> commands;
    for (Command command : kAllCommands) {
        for (const FieldDoc* doc : request_fields_of(command)) {
            if (doc->option == option || doc->text_option == option) {
                commands.push_back(command);
                break;
            }
        }
    }
    return commands;
}

std::vector<std::string> request_option_names() {
    std::vector<std::string> names;
    for (const FieldDoc* doc : every_request_field()) {
        names.emplace_back(doc->option);
        if (!doc->text_option.empty()) names.emplace_back(doc->text_option);
    }
    return names;
}

Result<std::string> with_request_field_tables(std::string_view markdown) {
    const std::pair<std::string_view, std::string> tables[] = {
        {"list", engine::request_markdown<engine::ListRequest>()},
        {"kill", engine::request_markdown<engine::KillRequest>()},
        {"reset", engine::request_markdown<engine::ResetRequest>()},
        {"check", engine::request_markdown<engine::CheckRequest>()},
        {"audit-actions", engine::request_markdown<engine::ActionsRequest>()},
        {"audit-usage", engine::request_markdown<engine::UsageRequest>()},
        {"rogue", engine::request_markdown<engine::RogueScanRequest>()},
        {"guard-test", engine::request_markdown<engine::GuardTestRequest>()},
    };
    constexpr std::string_view kOpen = "<!-- fields:";
    std::string out;
    std::size_t at = 0;
    while (true) {
        const std::size_t start = markdown.find(kOpen, at);
        if (start == std::string_view::npos) break;
        const std::size_t name_end = markdown.find(" -->", start);
        if (name_end == std::string_view::npos) {
            return fail(ErrorCategory::invalid_input, "a fields block is not closed");
        }
        const std::string_view name =
            markdown.substr(start + kOpen.size(), name_end - start - kOpen.size());
        const std::string close = fmt::format("<!-- /fields:{} -->", name);
        const std::size_t end = markdown.find(close, name_end);
        const auto table = std::find_if(std::begin(tables), std::end(tables),
                                        [&](const auto& entry) { return entry.first == name; });
        if (end == std::string_view::npos || table == std::end(tables)) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("fields block '{}': no such request, or no {}", name, close));
        }
        const std::size_t body = name_end + 4;
        out.append(markdown.substr(at, body - at));
        out += "\n" + table->second;
        at = end;
    }
    out.append(markdown.substr(at));
    return out;
}

void RequestOptions::add_to(CLI::App& app) {
    for (const FieldDoc* doc : every_request_field()) {
        const std::string option(doc->option);
        if (!takes_value(*doc)) {
            app.add_flag(names_of(*doc), flags_[option], std::string(doc->help));
            continue;
        }
        CLI::Option* added = app.add_option(names_of(*doc), values_[option], std::string(doc->help))
                                 ->type_name(std::string(doc->value_name));
        if (!repeatable(*doc)) {
            // One value an occurrence; a second occurrence is kept so that the codec
            // refuses it by name rather than one silently winning.
            added->expected(1)->allow_extra_args(false)->multi_option_policy(
                CLI::MultiOptionPolicy::TakeAll);
        }
        if (!doc->text_option.empty()) {
            const std::string text_option(doc->text_option);
            app.add_option(text_option, values_[text_option],
                           fmt::format("the {} itself, instead of a file", doc->name))
                ->type_name("DOCUMENT")
                ->expected(1)
                ->allow_extra_args(false)
                ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        }
    }
}

bool RequestOptions::given(std::string_view option) const {
    if (auto flag = flags_.find(option); flag != flags_.end()) return flag->second > 0;
    auto value = values_.find(option);
    return value != values_.end() && !value->second.empty();
}

std::vector<std::string> RequestOptions::values(std::string_view option) const {
    if (auto flag = flags_.find(option); flag != flags_.end()) {
        return std::vector<std::string>(
            static_cast<std::size_t>(std::max<std::int64_t>(flag->second, 0)), "true");
    }
    auto value = values_.find(option);
    return value == values_.end() ? std::vector<std::string>{} : value->second;
}

void RequestOptions::add_value(std::string_view option, std::string value) {
    values_[std::string(option)].push_back(std::move(value));
}

void RequestOptions::replace_value(std::string_view option, std::string value) {
    values_[std::string(option)] = {std::move(value)};
}

Result<engine::NamedValues> RequestOptions::named_values(const std::vector<const FieldDoc*>& fields,
                                                         std::string_view request_name) const {
    engine::NamedValues named;
    const auto field_for = [&](std::string_view option) -> const FieldDoc* {
        for (const FieldDoc* doc : fields) {
            if (doc->option == option || doc->text_option == option) return doc;
        }
        return nullptr;
    };
    const auto take = [&](std::string_view option, std::int64_t count,
                          const std::vector<std::string>* values) -> Result<void> {
        if (count == 0) return {};
        const FieldDoc* doc = field_for(option);
        if (doc == nullptr) {
            return fail(ErrorCategory::invalid_input,
                        fmt::format("{} does not apply to {}", option, request_name));
        }
        const std::string name(doc->name);
        if (values == nullptr) {
            for (std::int64_t i = 0; i < count; ++i) {
                named.emplace_back(name, doc->negated_option ? "false" : "true");
            }
            return {};
        }
        for (const std::string& value : *values) {
            if (doc->kind == FieldKind::document && option == doc->option) {
                auto text = read_document(*doc, value);
                if (!text) return std::unexpected(text.error());
                named.emplace_back(name, std::move(*text));
            } else {
                named.emplace_back(name, value);
            }
        }
        return {};
    };
    for (const auto& [option, count] : flags_) {
        if (auto taken = take(option, count, nullptr); !taken) {
            return std::unexpected(taken.error());
        }
    }
    for (const auto& [option, values] : values_) {
        if (auto taken = take(option, static_cast<std::int64_t>(values.size()), &values); !taken) {
            return std::unexpected(taken.error());
        }
    }
    return named;
}

template <class Request>
Result<Request> RequestOptions::request() const {
    auto named = named_values(fields_of<Request>(), engine::request_name<Request>());
    if (!named) return std::unexpected(named.error());
    return engine::request_from_text<Request>(*named, engine::Spelling::option);
}

template Result<engine::ListRequest> RequestOptions::request<engine::ListRequest>() const;
template Result<engine::KillRequest> RequestOptions::request<engine::KillRequest>() const;
template Result<engine::ResetRequest> RequestOptions::request<engine::ResetRequest>() const;
template Result<engine::CheckRequest> RequestOptions::request<engine::CheckRequest>() const;
template Result<engine::GuardTestRequest> RequestOptions::request<engine::GuardTestRequest>() const;
template Result<engine::ActionsRequest> RequestOptions::request<engine::ActionsRequest>() const;
template Result<engine::UsageRequest> RequestOptions::request<engine::UsageRequest>() const;
template Result<engine::RogueScanRequest> RequestOptions::request<engine::RogueScanRequest>() const;

}  // namespace gpukill::cli
