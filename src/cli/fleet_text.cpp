#include "cli/fleet_text.hpp"

#include <fmt/format.h>

#include "cli/command_line.hpp"
#include "cli/snapshot_table.hpp"
#include "model/human_format.hpp"
#include "model/json_text.hpp"
#include "model/snapshot_json_read.hpp"

namespace gpukill::cli {
namespace {

std::string text_of(const nlohmann::ordered_json& value) {
    if (value.is_string()) return printable(value.get<std::string>());
    if (value.is_null()) return "-";
    return value.dump();
}

std::string joined(const nlohmann::ordered_json& array) {
    if (!array.is_array() || array.empty()) return "-";
    std::string out;
    for (const auto& item : array) out += (out.empty() ? "" : ",") + text_of(item);
    return out;
}

std::uint64_t memory_total(const nlohmann::ordered_json& target) {
    std::uint64_t total = 0;
    if (!target.contains("memory_bytes") || !target["memory_bytes"].is_object()) return 0;
    for (const auto& [gpu, bytes] : target["memory_bytes"].items()) {
        if (bytes.is_number_unsigned()) total += bytes.get<std::uint64_t>();
    }
    return total;
}

}  // namespace

std::string fleet_kill_text(const nlohmann::ordered_json& doc) {
    if (!doc.is_object() || !doc.contains("targets")) return json_text(doc, 2) + "\n";
    const bool executed = doc.value("executed", false);
    std::string out;
    std::vector<std::vector<std::string>> rows;
    rows.push_back({"PID", "NAME", "USER", "GPU", "MEMORY", executed ? "OUTCOME" : "PLAN"});
    for (const auto& t : doc["targets"]) {
        const bool refused = t.contains("refusal") && !t["refusal"].is_null();
        std::string state = refused    ? "refused: " + text_of(t["refusal"])
                            : executed ? text_of(t.value("outcome", nlohmann::ordered_json()))
                                       : "to signal";
        rows.push_back({text_of(t.value("pid", nlohmann::ordered_json())),
                        text_of(t.value("name", nlohmann::ordered_json())),
                        text_of(t.value("user", nlohmann::ordered_json())),
                        joined(t.value("gpus", nlohmann::ordered_json())),
                        format_bytes(memory_total(t)), state});
    }
    if (rows.size() == 1) {
        out += "no process matched\n";
    } else {
        for (const auto& row : rows) {
            out += fmt::format("{:<8} {:<16} {:<10} {:<5} {:>9}  {}\n", row[0], row[1], row[2],
                               row[3], row[4], row[5]);
        }
    }
    if (doc.contains("gpus") && doc["gpus"].is_array()) {
        for (const auto& gpu : doc["gpus"]) {
            const std::string index = text_of(gpu.value("index", nlohmann::ordered_json()));
            if (executed) {
                const auto reclaimed =
                    gpu.value("memory_reclaimed_bytes", nlohmann::ordered_json());
                const bool released = gpu.value("released", false);
                const auto seconds = gpu.value("seconds_to_release", nlohmann::ordered_json());
                out += fmt::format(
                    "GPU {}: {} back{}\n", index,
                    reclaimed.is_number() ? format_bytes(reclaimed.get<std::uint64_t>()) : "?",
                    released && seconds.is_number()
                        ? fmt::format(", verified in {:.2f} s", seconds.get<double>())
                    : released ? ", verified"
                               : ": NOT verified released");
            } else {
                const auto expected =
                    gpu.value("memory_expected_release_bytes", nlohmann::ordered_json());
                out += fmt::format(
                    "GPU {}: {} to be freed\n", index,
                    expected.is_number() ? format_bytes(expected.get<std::uint64_t>()) : "?");
            }
        }
    }
    return out;
}

std::string fleet_host_text(Command command, const CommandLine& cl, const fleet::HostResult& host,
                            OutputWidth width) {
    const fleet::HostReply& reply = host.reply;
    std::string error_line;
    if (reply.error) {
        error_line = fmt::format("{} (exit {}): {}\n", fleet::to_string(reply.status),
                                 reply.exit_code, printable(*reply.error));
    }
    const nlohmann::ordered_json& doc = reply.result;
    const bool error_document = doc.is_object() && doc.contains("error");
    if (doc.is_null() || error_document) return error_line.empty() ? "no answer\n" : error_line;
    std::string body;
    switch (command) {
        case Command::list: {
            auto snapshot = snapshot_from_json(doc.dump());
            if (!snapshot) {
                body = "unreadable listing: " + snapshot.error().what + "\n";
            } else {
                body = render_snapshot_table(
                    *snapshot, TableOptions{.details = cl.list.details, .width = width});
            }
            break;
        }
        case Command::kill:
            body = fleet_kill_text(doc);
            break;
        case Command::check:
            body = text_of(doc.value("summary", nlohmann::ordered_json())) + "\n";
            break;
        default:
            body = json_text(doc, 2) + "\n";
            break;
    }
    return body + error_line;
}

}  // namespace gpukill::cli
