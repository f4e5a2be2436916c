#include "cli/fleet_text.hpp"

#include <fmt/format.h>

#include "cli/audit_documents.hpp"
#include "cli/command_line.hpp"
#include "cli/guard_report.hpp"
#include "cli/snapshot_table.hpp"
#include "cli/text_table.hpp"
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

std::optional<std::uint64_t> bytes_of(const nlohmann::ordered_json& object, const char* key) {
    auto found = object.find(key);
    if (found == object.end() || !found->is_number_unsigned()) return std::nullopt;
    return found->get<std::uint64_t>();
}

bool flag_of(const nlohmann::ordered_json& object, const char* key) {
    auto found = object.find(key);
    return found != object.end() && found->is_boolean() && found->get<bool>();
}

std::string field_text(const nlohmann::ordered_json& object, const char* key) {
    auto found = object.find(key);
    return found == object.end() ? "-" : text_of(*found);
}

const nlohmann::ordered_json& items_of(const nlohmann::ordered_json& object, const char* key) {
    static const nlohmann::ordered_json kEmpty = nlohmann::ordered_json::array();
    auto found = object.find(key);
    return found != object.end() && found->is_array() ? *found : kEmpty;
}

// The tool's own words, line by line, blank lines dropped (as `gpukill reset` quotes them).
std::string quoted_lines(const std::string& output) {
    std::string out;
    std::size_t start = 0;
    while (start < output.size()) {
        const std::size_t end = std::min(output.find('\n', start), output.size());
        const std::string line = output.substr(start, end - start);
        if (line.find_first_not_of(" \t\r") != std::string::npos) {
            out += "    | " + printable(line) + "\n";
        }
        start = end + 1;
    }
    return out;
}

std::string reset_gpu_outcome(const nlohmann::ordered_json& gpu) {
    auto reset = gpu.find("reset");
    if (reset == gpu.end() || !reset->is_object()) return "";
    const nlohmann::ordered_json& attempt = *reset;
    const std::string pci = field_text(gpu, "pci_bus_id");
    const std::string title = pci == "-"
                                  ? "GPU " + field_text(gpu, "index")
                                  : fmt::format("GPU {} ({})", field_text(gpu, "index"), pci);
    std::string out;
    if (flag_of(attempt, "succeeded")) {
        auto seconds = attempt.find("seconds");
        out += fmt::format(
            "{}: reset by {} in {:.2f} s\n", title, field_text(attempt, "method"),
            seconds != attempt.end() && seconds->is_number() ? seconds->get<double>() : 0.0);
    } else {
        out += fmt::format("{}: reset failed: {}\n", title, field_text(attempt, "message"));
    }
    auto output = attempt.find("output");
    if (output != attempt.end() && output->is_string())
        out += quoted_lines(output->get<std::string>());
    auto advice = attempt.find("advice");
    if (advice != attempt.end() && advice->is_string()) out += "    -> " + text_of(*advice) + "\n";
    if (!flag_of(attempt, "succeeded")) return out;
    auto found = gpu.find("found");
    if (found != gpu.end() && found->is_boolean() && !found->get<bool>()) {
        return out + "    the GPU is not enumerated any more: it did not come back\n";
    }
    if (flag_of(gpu, "lost_after")) {
        return out + "    the driver reports the GPU lost: power-cycle or reboot the node\n";
    }
    const std::string memory =
        fmt::format("memory {} -> {}", format_bytes(bytes_of(gpu, "memory_used_before_bytes")),
                    format_bytes(bytes_of(gpu, "memory_used_after_bytes")));
    const nlohmann::ordered_json& holders = items_of(gpu, "holders_after");
    if (flag_of(gpu, "verified")) {
        auto seconds = gpu.find("seconds_to_verify");
        out += fmt::format(
            "    answers again; {}; verified in {:.2f} s\n", memory,
            seconds != gpu.end() && seconds->is_number() ? seconds->get<double>() : 0.0);
    } else if (!holders.empty()) {
        out += fmt::format("    answers again; {}; but held again by PID {}\n", memory,
                           joined(holders));
    } else {
        out += fmt::format("    answers again; {}: not back to idle within --verify-timeout\n",
                           memory);
    }
    return out;
}

}  // namespace

std::string fleet_reset_text(const nlohmann::ordered_json& doc, OutputWidth width) {
    if (!doc.is_object() || !doc.contains("decision")) return json_text(doc, 2) + "\n";
    const bool dry_run = flag_of(doc, "dry_run");
    const std::string decision = field_text(doc, "decision");
    const nlohmann::ordered_json& gpus = items_of(doc, "gpus");
    std::string out;
    if (!gpus.empty()) {
        out += dry_run ? "Reset plan (dry run: nothing is done):\n" : "Reset plan:\n";
    }
    for (const auto& gpu : gpus) {
        std::string title = "GPU " + field_text(gpu, "index");
        if (gpu.contains("name") && gpu["name"].is_string()) title += "  " + text_of(gpu["name"]);
        if (gpu.contains("pci_bus_id") && gpu["pci_bus_id"].is_string()) {
            title += "  " + text_of(gpu["pci_bus_id"]);
        }
        out += fmt::format("  {}  via {}  used {} / {}\n", title, field_text(gpu, "method"),
                           format_bytes(bytes_of(gpu, "memory_used_before_bytes")),
                           format_bytes(bytes_of(gpu, "memory_total_bytes")));
        for (const auto& note : items_of(gpu, "notes")) out += "    note: " + text_of(note) + "\n";
    }
    for (const auto& skipped : items_of(doc, "skipped")) {
        out += "  skipped: " + field_text(skipped, "why") + "\n";
    }
    const nlohmann::ordered_json& holders = items_of(doc, "holders");
    if (!holders.empty()) {
        out +=
            fmt::format("Held by {} process{}:\n", holders.size(), holders.size() == 1 ? "" : "es");
        TextTable table({"PID", "USER", "NAME", "GPUS", "MEMORY", "SEEN BY"},
                        {true, false, false, false, true, false});
        for (const auto& holder : holders) {
            auto memory = bytes_of(holder, "memory_bytes");
            table.add_row({field_text(holder, "pid"), field_text(holder, "user"),
                           field_text(holder, "name"), joined(items_of(holder, "gpus")),
                           memory ? format_bytes(*memory) : "-",
                           flag_of(holder, "driver_listed") ? "driver" : "file only"});
        }
        out += table.render(2, width);
    }
    if (gpus.empty() && decision == "reset") return out + "No GPU to reset.\n";
    if (decision == "held" || decision == "refused") {
        out += "Not reset: " + field_text(doc, "why") + "\n";
        if (doc.contains("advice") && doc["advice"].is_string()) {
            out += "  -> " + text_of(doc["advice"]) + "\n";
        }
        return out;
    }
    auto reclaim = doc.find("reclaim");
    if (reclaim != doc.end() && reclaim->is_object()) {
        out += flag_of(*reclaim, "executed") ? "Reclaimed the holders first:\n"
                                             : "The holders are reclaimed first:\n";
        out += fleet_kill_text(*reclaim);
    }
    auto stopped = doc.find("stopped");
    if (stopped != doc.end() && stopped->is_string()) {
        return out + "Not reset: " + text_of(*stopped) + "\n";
    }
    if (dry_run) return out + "Dry run: nothing was signalled or reset.\n";
    for (const auto& gpu : gpus) out += reset_gpu_outcome(gpu);
    return out;
}

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
        case Command::reset:
            body = fleet_reset_text(doc, width);
            break;
        case Command::audit:
            body = audit_document_text(doc, width).value_or(json_text(doc, 2) + "\n");
            break;
        case Command::guard:
            body = doc.is_object() && doc.contains("decisions") ? render_guard_document(doc)
                                                                : json_text(doc, 2) + "\n";
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
