// The engine in this test process, over a simulated host: the same configuration the
// command line would build from `gpusim env`, with syslog off and a private state and
// configuration directory beside the host. The simulated libnvidia-ml.so.1 is loaded
// into this process and reads GPUSIM_ROOT at nvmlInit, as the real one reads the driver.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/engine.hpp"
#include "support.hpp"

namespace gpukill::testing {

inline std::string beside(const SimulatedHost& host, const std::string& name) {
    return (std::filesystem::path(host.root()).parent_path() / name).string();
}

inline engine::EngineConfig engine_config_for(const SimulatedHost& host) {
    const auto& env = host.env();
    ::setenv("GPUSIM_ROOT", env.at("GPUSIM_ROOT").c_str(), 1);
    std::filesystem::create_directories(beside(host, "config"));
    return engine::EngineConfig{.roots = {.procfs = "/proc",
                                          .sysfs = env.at("GPUKILL_SYSFS"),
                                          .devfs = env.at("GPUKILL_DEVFS")},
                                .nvml_library = env.at("GPUKILL_NVML_LIBRARY"),
                                .state_dir = beside(host, "state"),
                                .config_dir = beside(host, "config"),
                                .nvidia_smi = env.at("GPUKILL_NVIDIA_SMI"),
                                .path_env = std::nullopt,
                                .environment = [](const char* name) -> std::optional<std::string> {
                                    if (std::string(name) == "GPUKILL_HISTORY_MIN_INTERVAL_SECONDS")
                                        return "0";
                                    return std::nullopt;
                                },
                                .clock = {},
                                .syslog = false};
}

inline std::unique_ptr<engine::Engine> open_engine_on(const SimulatedHost& host) {
    auto engine = engine::Engine::open(engine_config_for(host));
    if (!engine) throw std::runtime_error("engine did not open: " + engine.error().what);
    return std::move(*engine);
}

inline std::vector<nlohmann::json> audit_log_of(const SimulatedHost& host) {
    std::ifstream log(beside(host, "state") + "/audit.jsonl");
    std::vector<nlohmann::json> records;
    for (std::string line; std::getline(log, line);) records.push_back(nlohmann::json::parse(line));
    return records;
}

}  // namespace gpukill::testing
