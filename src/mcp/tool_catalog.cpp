// What the tools share: their listing, their schemas' building blocks, and the
// documents the resources serve too (the snapshot, one GPU explained).
#include <fmt/format.h>

#include "engine/list.hpp"
#include "mcp/tools.hpp"
#include "model/human_format.hpp"
#include "model/snapshot_json.hpp"

namespace gpukill::mcp {
namespace {

using ojson = nlohmann::ordered_json;

const ProcessGpuUse* use_on(const SnapshotProcess& process, unsigned gpu) {
    for (const ProcessGpuUse& use : process.gpus) {
        if (use.gpu_index == gpu) return &use;
    }
    return nullptr;
}

}  // namespace

ToolResult tool_error(std::string reason) {
    return ToolResult{.structured = std::nullopt, .text = std::move(reason), .is_error = true};
}

ojson object_schema(ojson properties, std::vector<std::string> required) {
    ojson schema{{"type", "object"}, {"properties", std::move(properties)}};
    if (!required.empty()) schema["required"] = required;
    schema["additionalProperties"] = false;
    return schema;
}

ojson tool_listing(const Tool& tool) {
    return ojson{
        {"name", tool.name},
        {"title", tool.title},
        {"description", tool.description},
        {"inputSchema", tool.input_schema},
        {"outputSchema", tool.output_schema},
        {"annotations", ojson{{"title", tool.title},
                              {"readOnlyHint", tool.annotations.read_only},
                              {"destructiveHint", tool.annotations.destructive},
                              {"idempotentHint", tool.annotations.idempotent},
                              {"openWorldHint", tool.annotations.open_world}}},
    };
}

std::optional<std::string> unknown_argument(const nlohmann::json& arguments,
                                            const ojson& input_schema) {
    if (!arguments.is_object()) return std::nullopt;
    const ojson& properties = input_schema["properties"];
    for (const auto& [name, value] : arguments.items()) {
        if (!properties.contains(name)) return name;
    }
    return std::nullopt;
}

ojson snapshot_document(engine::Engine& engine) {
    return to_json(engine.snapshot().snapshot);
}

std::optional<ojson> explain_document(engine::Engine& engine, const std::string& gpu,
                                      std::string& error) {
    const Snapshot snapshot = engine.snapshot().snapshot;
    engine::ListRequest request;
    request.gpu = gpu;
    auto selected = engine::narrow(snapshot, request);
    if (!selected) {
        error = selected.error().what;
        return std::nullopt;
    }
    const ojson full = to_json(*selected);
    auto index = engine::resolve_gpu(snapshot, gpu);
    if (!index) {
        error = index.error().what;
        return std::nullopt;
    }
    const Gpu* chosen = find_gpu(snapshot, *index);
    if (chosen == nullptr) {
        error = fmt::format("no GPU {} here", gpu);
        return std::nullopt;
    }
    ojson gpu_doc;
    for (const auto& one : full["gpus"]) {
        if (one["index"] == chosen->index) gpu_doc = one;
    }
    ojson listed = ojson::array();
    ojson file_only = ojson::array();
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < selected->processes.size(); ++i) {
        const SnapshotProcess& process = selected->processes[i];
        const ProcessGpuUse* use = use_on(process, chosen->index);
        if (use == nullptr || !use->known()) continue;
        const ProcessInfo& info = process.info;
        ojson holder{{"pid", info.pid},
                     {"name", info.comm},
                     {"user", info.user},
                     {"memory_bytes", use->memory_bytes ? ojson(*use->memory_bytes) : ojson()},
                     {"orphaned", process.orphaned},
                     {"container", full["processes"][i]["container"]}};
        std::string image;
        if (info.container && info.container->image) image = ", image " + *info.container->image;
        if (use->seen_by.driver) {
            lines.push_back(fmt::format("PID {} ({}, user {}{}) holds {}{}", info.pid, info.comm,
                                        info.user, image,
                                        use->memory_bytes ? format_bytes(*use->memory_bytes)
                                                          : std::string("unknown memory"),
                                        process.orphaned ? "; orphaned: its parent died" : ""));
            listed.push_back(std::move(holder));
        } else {
            lines.push_back(fmt::format(
                "PID {} ({}, user {}{}) holds the device file but the driver does not list it "
                "(nvidia-smi does not show it)",
                info.pid, info.comm, info.user, image));
            file_only.push_back(std::move(holder));
        }
    }
    const auto& reading = chosen->reading;
    const bool used = reading.memory_used_bytes && *reading.memory_used_bytes > 0;
    const bool soft_locked = used && listed.empty() && file_only.empty() &&
                             chosen->unattributed_memory_bytes &&
                             *chosen->unattributed_memory_bytes > 0;
    if (reading.memory_used_bytes) {
        lines.insert(
            lines.begin(),
            fmt::format("GPU {}: {} of {} used by {} listed and {} file-only holder(s)",
                        chosen->index, format_bytes(*reading.memory_used_bytes),
                        reading.memory_total_bytes ? format_bytes(*reading.memory_total_bytes)
                                                   : std::string("unknown"),
                        listed.size(), file_only.size()));
    }
    if (chosen->unattributed_memory_bytes && *chosen->unattributed_memory_bytes > 0) {
        lines.push_back(fmt::format("{} used that no listed process accounts for",
                                    format_bytes(*chosen->unattributed_memory_bytes)));
    }
    if (soft_locked) {
        lines.push_back(
            "soft-locked: memory is used and nothing holds the GPU; only a reset gives it back");
    } else if (!used && listed.empty() && file_only.empty()) {
        lines.push_back("idle: nothing holds it");
    }
    return ojson{
        {"schema_version", 1},
        {"gpu", gpu_doc},
        {"listed_holders", listed},
        {"device_file_holders", file_only},
        {"unaccounted_memory_bytes",
         chosen->unattributed_memory_bytes ? ojson(*chosen->unattributed_memory_bytes) : ojson()},
        {"soft_locked", soft_locked},
        {"explanation", lines}};
}

}  // namespace gpukill::mcp
