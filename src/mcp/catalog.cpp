#include "mcp/catalog.hpp"

#include <fmt/format.h>

#include "engine/audit_queries.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/tools.hpp"

namespace gpukill::mcp {
namespace {

constexpr const char* kSnapshotUri = "gpukill://snapshot";
constexpr const char* kActionsUri = "gpukill://audit/actions";
constexpr const char* kGpuUriPrefix = "gpukill://gpu/";

nlohmann::json catalog_json_contents(const std::string& uri, const nlohmann::ordered_json& doc) {
    return nlohmann::json{{"uri", uri}, {"mimeType", "application/json"}, {"text", to_line(doc)}};
}

nlohmann::ordered_json recent_actions(engine::Engine& engine) {
    auto actions = engine::audit_actions(engine, engine::ActionsRequest{});
    if (!actions) return nlohmann::ordered_json{{"error", actions.error().what}};
    return actions->document();
}

std::optional<std::string> prompt_gpu(const nlohmann::json& arguments, std::string& error) {
    const auto gpu = arguments.find("gpu");
    if (gpu == arguments.end() || !gpu->is_string() || gpu->get<std::string>().empty()) {
        error = "gpu: required (index, UUID or PCI bus id)";
        return std::nullopt;
    }
    return gpu->get<std::string>();
}

nlohmann::json user_message(std::string text) {
    return nlohmann::json{{"role", "user"},
                          {"content", {{"type", "text"}, {"text", std::move(text)}}}};
}

}  // namespace

nlohmann::json resource_listing(engine::Engine& engine) {
    nlohmann::json resources = nlohmann::json::array();
    resources.push_back(
        {{"uri", kSnapshotUri},
         {"name", "snapshot"},
         {"title", "Host snapshot"},
         {"description", "Every GPU and every process holding one (gpukill list --json)"},
         {"mimeType", "application/json"}});
    const Snapshot snapshot = engine.snapshot().snapshot;
    for (const Gpu& gpu : snapshot.gpus) {
        resources.push_back(
            {{"uri", fmt::format("{}{}", kGpuUriPrefix, gpu.index)},
             {"name", fmt::format("gpu-{}", gpu.index)},
             {"title", fmt::format("GPU {}{}", gpu.index,
                                   gpu.reading.name ? " (" + *gpu.reading.name + ")" : "")},
             {"description", "Why this GPU's memory is used: holders, unaccounted memory"},
             {"mimeType", "application/json"}});
    }
    resources.push_back({{"uri", kActionsUri},
                         {"name", "audit-actions"},
                         {"title", "Recent actions"},
                         {"description", "Kills, resets and refusals of the last 24 hours"},
                         {"mimeType", "application/json"}});
    return nlohmann::json{{"resources", resources}};
}

nlohmann::json resource_templates() {
    return nlohmann::json{
        {"resourceTemplates",
         nlohmann::json::array({{{"uriTemplate", std::string(kGpuUriPrefix) + "{index}"},
                                 {"name", "gpu"},
                                 {"title", "One GPU explained"},
                                 {"mimeType", "application/json"}}})}};
}

std::optional<nlohmann::json> resource_contents(engine::Engine& engine, const std::string& uri,
                                                std::string& error) {
    if (uri == kSnapshotUri) return catalog_json_contents(uri, snapshot_document(engine));
    if (uri == kActionsUri) return catalog_json_contents(uri, recent_actions(engine));
    if (uri.starts_with(kGpuUriPrefix)) {
        const std::string index = uri.substr(std::string_view(kGpuUriPrefix).size());
        if (!index.empty() && index.find_first_not_of("0123456789") == std::string::npos) {
            auto doc = explain_document(engine, index, error);
            if (doc) return catalog_json_contents(uri, *doc);
            return std::nullopt;
        }
    }
    error = "unknown resource: " + uri;
    return std::nullopt;
}

nlohmann::json completion_values(engine::Engine& engine, const nlohmann::json& params) {
    nlohmann::json values = nlohmann::json::array();
    const nlohmann::json* argument = nullptr;
    if (params.is_object() && params.contains("argument") && params["argument"].is_object()) {
        argument = &params["argument"];
    }
    if (argument != nullptr && argument->contains("name") && (*argument)["name"].is_string()) {
        const std::string name = (*argument)["name"].get<std::string>();
        const std::string typed = argument->contains("value") && (*argument)["value"].is_string()
                                      ? (*argument)["value"].get<std::string>()
                                      : std::string();
        if (name == "gpu" || name == "index") {
            for (const Gpu& gpu : engine.snapshot().snapshot.gpus) {
                const std::string index = std::to_string(gpu.index);
                if (index.starts_with(typed)) values.push_back(index);
            }
        }
    }
    return nlohmann::json{
        {"completion", {{"values", values}, {"total", values.size()}, {"hasMore", false}}}};
}

nlohmann::json prompt_listing() {
    const nlohmann::json gpu_argument = nlohmann::json::array(
        {{{"name", "gpu"}, {"description", "index, UUID or PCI bus id"}, {"required", true}}});
    return nlohmann::json{
        {"prompts",
         nlohmann::json::array(
             {{{"name", "free_gpu"},
               {"title", "Free a GPU"},
               {"description", "Find what holds a GPU and give its memory back safely"},
               {"arguments", gpu_argument}},
              {{"name", "explain_gpu_memory"},
               {"title", "Why is this GPU's memory used?"},
               {"description", "Explain who holds a GPU's memory, and what nobody accounts for"},
               {"arguments", gpu_argument}}})}};
}

std::optional<nlohmann::json> prompt_messages(const std::string& name,
                                              const nlohmann::json& arguments, std::string& error) {
    if (name != "free_gpu" && name != "explain_gpu_memory") {
        error = "unknown prompt: " + name;
        return std::nullopt;
    }
    auto gpu = prompt_gpu(arguments, error);
    if (!gpu) return std::nullopt;
    if (name == "free_gpu") {
        return nlohmann::json{
            {"description", "Free GPU " + *gpu},
            {"messages",
             nlohmann::json::array({user_message(fmt::format(
                 "Free GPU {} on this host. First call explain_gpu with gpu \"{}\" to see who "
                 "holds it. Then call plan_kill with gpu {} (and narrower selectors if only some "
                 "holders should go), show me the exact targets, and only after I agree call "
                 "execute_kill_plan with the plan_id. If memory stays used with nothing holding "
                 "the GPU (soft-locked), suggest reset_gpu with dry_run first.",
                 *gpu, *gpu, *gpu))})}};
    }
    return nlohmann::json{
        {"description", "Why GPU " + *gpu + "'s memory is used"},
        {"messages",
         nlohmann::json::array({user_message(fmt::format(
             "Explain why GPU {}'s memory is used. Call explain_gpu with gpu \"{}\" and say, "
             "in plain words: which processes the driver lists and how much each holds, which "
             "hold the device file without being listed, how much memory nobody accounts for, "
             "and whether the GPU looks soft-locked.",
             *gpu, *gpu))})}};
}

}  // namespace gpukill::mcp
