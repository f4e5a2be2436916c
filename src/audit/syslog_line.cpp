#include "audit/syslog_line.hpp"

#include "model/json_text.hpp"
#include "model/quoted_text.hpp"
#include "model/utf8.hpp"

#include <syslog.h>

#include <fmt/format.h>

#include <initializer_list>
#include <string_view>

namespace gpukill::audit {
namespace {

using json = nlohmann::ordered_json;

constexpr std::size_t kMaxListedPids = 16;

// The value at a path of object keys, or null when any step is missing.
const json* find(const json& record, std::initializer_list<std::string_view> path) {
    const json* node = &record;
    for (std::string_view key : path) {
        if (!node->is_object()) return nullptr;
        auto it = node->find(key);
        if (it == node->end()) return nullptr;
        node = &*it;
    }
    return node->is_null() ? nullptr : node;
}

bool flag(const json& record, std::string_view key) {
    const json* value = find(record, {key});
    return value != nullptr && value->is_boolean() && value->get<bool>();
}

std::string scalar_text(const json& value) {
    if (value.is_string()) return value.get<std::string>();
    return json_text(value, -1);
}

std::string value_text(const json& value) {
    if (!value.is_array()) return scalar_text(value);
    std::string joined;
    for (const json& item : value) {
        if (!joined.empty()) joined += ',';
        joined += scalar_text(item);
    }
    return joined;
}

// Characters that would end the line, let a value pass for another key=value pair, or
// change what a log viewer shows (C1 controls, bidi overrides, bytes that are not
// UTF-8): quote_escaped writes those escaped.
bool needs_quotes(std::string_view text) {
    if (text.empty()) return true;
    for (std::size_t at = 0; at < text.size();) {
        const Utf8Char c = next_utf8(text, at);
        if (!c.valid || is_unsafe_for_display(c.code) || c.code == ' ' || c.code == '"' ||
            c.code == '\\' || c.code == '=') {
            return true;
        }
        at += c.length;
    }
    return false;
}

std::string shown(std::string_view text) {
    return needs_quotes(text) ? quote_escaped(text) : std::string(text);
}

class Line {
  public:
    explicit Line(std::string_view event) : text_(shown(event)) {}

    void add(std::string_view key, const json* value) {
        if (value == nullptr) return;
        text_ += ' ';
        text_ += key;
        text_ += '=';
        text_ += shown(value_text(*value));
    }
    void add(std::string_view key, const json& record,
             std::initializer_list<std::string_view> path) {
        add(key, find(record, path));
    }

    // Cut at a UTF-8 character boundary, so the cut line is still valid text.
    std::string finish() && {
        if (text_.size() <= kMaxSyslogLineBytes) return std::move(text_);
        std::size_t cut = kMaxSyslogLineBytes - 3;
        while (cut > 0 && (static_cast<unsigned char>(text_[cut]) & 0xC0) == 0x80) --cut;
        text_.resize(cut);
        return std::move(text_) + "...";
    }

  private:
    std::string text_;
};

void add_plan_summary(Line& line, const json& record) {
    const json* targets = find(record, {"targets"});
    const json* refusals = find(record, {"refusals"});
    const json target_count = targets != nullptr ? targets->size() : 0;
    const json refusal_count = refusals != nullptr ? refusals->size() : 0;
    line.add("targets", &target_count);
    if (targets != nullptr && !targets->empty()) {
        json pids = json::array();
        for (const json& target : *targets) {
            if (pids.size() == kMaxListedPids) {
                pids.push_back("...");
                break;
            }
            if (const json* pid = find(target, {"pid"})) pids.push_back(*pid);
        }
        line.add("pids", &pids);
    }
    line.add("refusals", &refusal_count);
    line.add("aborted", record, {"aborted"});
    if (flag(record, "needs_batch_confirmation")) {
        line.add("needs_batch_confirmation", record, {"needs_batch_confirmation"});
    }
}

void add_reset_plan_summary(Line& line, const json& record) {
    json gpus = json::array();
    if (const json* planned = find(record, {"gpus"}); planned != nullptr && planned->is_array()) {
        for (const json& gpu : *planned) {
            if (const json* index = find(gpu, {"index"})) gpus.push_back(*index);
        }
    }
    const json* holders = find(record, {"holders"});
    const json holder_count = holders != nullptr && holders->is_array() ? holders->size() : 0;
    line.add("gpus", &gpus);
    line.add("decision", record, {"decision"});
    line.add("holders", &holder_count);
    line.add("dry_run", record, {"dry_run"});
}

void add_target(Line& line, const json& record) {
    line.add("pid", record, {"target", "pid"});
    line.add("name", record, {"target", "name"});
    line.add("user", record, {"target", "user"});
}

}  // namespace

int syslog_priority(const json& record) {
    const json* event = find(record, {"event"});
    const std::string name =
        event != nullptr && event->is_string() ? event->get<std::string>() : "";
    if (name == "refused") return LOG_WARNING;
    if (name == "planned") return flag(record, "aborted") ? LOG_WARNING : LOG_INFO;
    if (name == "signal_intent") return LOG_INFO;
    if (name == "result") {
        const json* outcome = find(record, {"outcome"});
        return outcome != nullptr && *outcome == "survived" ? LOG_WARNING : LOG_NOTICE;
    }
    if (name == "verified") {
        return flag(record, "released") && !flag(record, "soft_locked") ? LOG_NOTICE : LOG_WARNING;
    }
    if (name == "reset_planned") return LOG_INFO;
    if (name == "reset_refused") return LOG_WARNING;
    if (name == "reset_result") return flag(record, "verified") ? LOG_NOTICE : LOG_WARNING;
    if (name == "rogue_finding") return LOG_WARNING;
    if (name == "guard_warning") return LOG_WARNING;
    return LOG_NOTICE;
}

std::string syslog_line(const json& record) {
    const json* event = find(record, {"event"});
    const std::string name = event != nullptr ? value_text(*event) : "unknown";
    Line line(name);
    if (name == "planned") {
        add_plan_summary(line, record);
    } else if (name == "refused") {
        line.add("pid", record, {"pid"});
        if (find(record, {"pid"}) == nullptr) line.add("argument", record, {"argument"});
        line.add("name", record, {"name"});
        line.add("kind", record, {"kind"});
        line.add("why", record, {"why"});
    } else if (name == "signal_intent") {
        add_target(line, record);
        line.add("signal", record, {"signal"});
    } else if (name == "signalled") {
        add_target(line, record);
        line.add("signal", record, {"signal"});
        line.add("signals", record, {"signals_sent"});
    } else if (name == "result") {
        add_target(line, record);
        line.add("outcome", record, {"outcome"});
        line.add("signals", record, {"signals_sent"});
        line.add("elapsed_seconds", record, {"elapsed_seconds"});
        line.add("note", record, {"note"});
    } else if (name == "verified") {
        line.add("gpu", record, {"gpu"});
        line.add("memory_reclaimed_bytes", record, {"memory_reclaimed_bytes"});
        line.add("released", record, {"released"});
        line.add("soft_locked", record, {"soft_locked"});
        line.add("seconds_to_release", record, {"seconds_to_release"});
    } else if (name == "reset_planned") {
        add_reset_plan_summary(line, record);
    } else if (name == "reset_refused") {
        line.add("gpus", record, {"gpus"});
        line.add("block", record, {"block"});
        line.add("why", record, {"why"});
        line.add("holders", record, {"holders"});
    } else if (name == "reset_result") {
        line.add("gpu", record, {"gpu"});
        line.add("pci_bus_id", record, {"pci_bus_id"});
        line.add("method", record, {"reset", "method"});
        line.add("exit_status", record, {"reset", "exit_status"});
        line.add("message", record, {"reset", "message"});
        line.add("memory_freed_bytes", record, {"memory_freed_bytes"});
        line.add("verified", record, {"verified"});
    } else if (name == "rogue_finding") {
        line.add("pid", record, {"process", "pid"});
        line.add("name", record, {"process", "name"});
        line.add("user", record, {"process", "user"});
        line.add("score", record, {"score"});
        line.add("risk", record, {"risk"});
        json signals = json::array();
        if (const json* evidence = find(record, {"evidence"}); evidence && evidence->is_array()) {
            for (const json& item : *evidence) {
                if (const json* signal = find(item, {"signal"})) signals.push_back(*signal);
            }
        }
        line.add("signals", &signals);
    } else if (name == "rogue_config_installed") {
        line.add("path", record, {"path"});
        line.add("from", record, {"from"});
    } else if (name == "guard_warning" || name == "guard_action") {
        line.add("mode", record, {"mode"});
        line.add("pid", record, {"process", "pid"});
        line.add("name", record, {"process", "name"});
        line.add("user", record, {"process", "user"});
        if (name == "guard_warning") {
            line.add("rule", record, {"rule"});
            line.add("rule_action", record, {"rule_action"});
            line.add("acts_at", record, {"acts_at"});
        } else {
            json rules = json::array();
            if (const json* list = find(record, {"rules"}); list && list->is_array()) {
                for (const json& item : *list) {
                    if (const json* rule = find(item, {"rule"})) rules.push_back(*rule);
                }
            }
            line.add("action", record, {"action"});
            line.add("rules", &rules);
            line.add("outcome", record, {"outcome"});
        }
    }
    line.add("by", record, {"user"});
    line.add("uid", record, {"uid"});
    line.add("sudo_user", record, {"sudo_user"});
    // The command line is the default actor; others (agent, MCP, guard) are named.
    if (const json* via = find(record, {"actor", "interface"}); via && *via != "cli") {
        line.add("via", record, {"actor", "interface"});
        line.add("for", record, {"actor", "name"});
        line.add("from", record, {"actor", "remote"});
    }
    line.add("run_id", record, {"run_id"});
    return std::move(line).finish();
}

}  // namespace gpukill::audit
