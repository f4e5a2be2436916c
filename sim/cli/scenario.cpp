#include "cli/scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "cli/drm_scenario.hpp"
#include "state/defaults.hpp"
#include "state/files.hpp"
#include "state/pci.hpp"
#include "state/size.hpp"

namespace gpusim {

namespace {

constexpr std::size_t kNameBufferSize = 96;     // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr std::size_t kUuidBufferSize = 80;     // NVML_DEVICE_UUID_V2_BUFFER_SIZE
constexpr std::size_t kVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

// Unwinds out of the walk below to the one place that turns it into an Error value.
struct ScenarioProblem {
    YAML::Mark mark;
    std::string what;
};

[[noreturn]] void scenario_problem(const YAML::Node& at, std::string what) {
    throw ScenarioProblem{at.Mark(), std::move(what)};
}

std::string scalar_text(const YAML::Node& node, std::string_view expected) {
    if (!node.IsScalar()) scenario_problem(node, "expected " + std::string(expected));
    return node.Scalar();
}

// Rejects keys the schema does not know and keys given twice.
template <class Known>
void check_keys(const YAML::Node& map, std::string_view where, const Known& known) {
    if (!map.IsMap()) scenario_problem(map, "expected a mapping for " + std::string(where));
    std::set<std::string> seen;
    for (const auto& entry : map) {
        const std::string key = scalar_text(entry.first, "a key");
        if (!known.contains(key)) {
            scenario_problem(entry.first, "unknown key '" + key + "' in " + std::string(where));
        }
        if (!seen.insert(key).second) scenario_problem(entry.first, "duplicate key '" + key + "'");
    }
}

template <class T>
T parse_unsigned(const YAML::Node& node, T max) {
    const std::string text = scalar_text(node, "a number");
    if (text.starts_with('-')) scenario_problem(node, "must not be negative");
    const bool hex = text.starts_with("0x") || text.starts_with("0X");
    const char* first = text.data() + (hex ? 2 : 0);
    const char* last = text.data() + text.size();
    T value{};
    const auto [end, error] = std::from_chars(first, last, value, hex ? 16 : 10);
    if (error == std::errc::result_out_of_range || (error == std::errc{} && value > max)) {
        scenario_problem(node, "number out of range: " + text);
    }
    if (error != std::errc{} || end != last || first == last) {
        scenario_problem(node, "expected a whole number, got '" + text + "'");
    }
    return value;
}

double parse_watts(const YAML::Node& node) {
    const std::string text = scalar_text(node, "a number of watts");
    if (text.starts_with('-')) scenario_problem(node, "must not be negative");
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || value > 100000.0) {
        scenario_problem(node, "expected a number of watts, got '" + text + "'");
    }
    return value;
}

bool parse_bool(const YAML::Node& node) {
    const std::string text = scalar_text(node, "true or false");
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
    scenario_problem(node, "expected true or false, got '" + text + "'");
}

std::uint64_t parse_bytes(const YAML::Node& node) {
    const std::string text = scalar_text(node, "a size such as 80G");
    auto bytes = parse_size(text);
    if (!bytes) scenario_problem(node, bytes.error().message);
    return *bytes;
}

std::string parse_string(const YAML::Node& node, std::size_t buffer_size) {
    std::string text = scalar_text(node, "a string");
    if (text.empty()) scenario_problem(node, "must not be empty");
    if (text.size() >= buffer_size) {
        scenario_problem(node,
                         "longer than NVML's " + std::to_string(buffer_size) + "-byte buffer");
    }
    return text;
}

Failure parse_failure(const YAML::Node& node) {
    const std::string text = scalar_text(node, "a failure name");
    if (text == "none") return Failure::none;
    const Failure failure = failure_from_name(text);
    if (failure == Failure::none) {
        scenario_problem(
            node, "expected none, not_supported, no_permission or unknown, got '" + text + "'");
    }
    return failure;
}

// A metric is a value, or null / "not_supported" for a GPU that does not report it.
template <class T, class Parse>
void parse_metric(const YAML::Node& node, Metric<T>& metric, Parse parse) {
    if (node.IsNull() || (node.IsScalar() && node.Scalar() == "not_supported")) {
        metric.failure = Failure::not_supported;
        return;
    }
    metric.value = parse(node);
    metric.failure = Failure::none;
}

// How each key of a GPU entry (or of its `failures:`) sets the GPU.
using GpuField = void (*)(const YAML::Node&, GpuSpec&);
using FieldTable = std::map<std::string, GpuField, std::less<>>;

unsigned parse_percent(const YAML::Node& node) {
    return parse_unsigned(node, 100U);
}
unsigned parse_celsius(const YAML::Node& node) {
    return parse_unsigned(node, 200U);
}
unsigned parse_mhz(const YAML::Node& node) {
    return parse_unsigned(node, 100000U);
}
std::uint64_t parse_count(const YAML::Node& node) {
    return parse_unsigned<std::uint64_t>(node, UINT64_MAX);
}

// nvmlDeviceArchitecture_t by name (as NVML's header spells the constants) or number.
unsigned parse_architecture(const YAML::Node& node) {
    static const std::map<std::string, unsigned, std::less<>> kNames{
        {"kepler", 2}, {"maxwell", 3}, {"pascal", 4}, {"volta", 5},     {"turing", 6},
        {"ampere", 7}, {"ada", 8},     {"hopper", 9}, {"blackwell", 10}};
    const std::string text = scalar_text(node, "an architecture such as volta or hopper");
    if (auto known = kNames.find(text); known != kNames.end()) return known->second;
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
        scenario_problem(
            node,
            "expected an architecture (kepler, maxwell, pascal, volta, turing, ampere, "
            "ada, hopper, blackwell) or its NVML number, got '" +
                text + "'");
    }
    return parse_unsigned(node, 0xFFFFFFFEU);
}

const FieldTable& failure_fields() {
    static const FieldTable table{
        {"memory_not_available",
         [](const YAML::Node& v, GpuSpec& g) { g.memory_not_available = parse_bool(v); }},
        {"lost", [](const YAML::Node& v, GpuSpec& g) { g.lost = parse_bool(v); }},
        {"utilization", [](const YAML::Node& v,
                           GpuSpec& g) { g.base_utilization_percent.failure = parse_failure(v); }},
        {"temperature",
         [](const YAML::Node& v, GpuSpec& g) { g.temperature_celsius.failure = parse_failure(v); }},
        {"power",
         [](const YAML::Node& v, GpuSpec& g) { g.power_watts.failure = parse_failure(v); }},
        {"power_limit",
         [](const YAML::Node& v, GpuSpec& g) { g.power_limit_watts.failure = parse_failure(v); }},
        {"ecc",
         [](const YAML::Node& v, GpuSpec& g) {
             g.ecc_errors_corrected.failure = g.ecc_errors_uncorrected.failure = parse_failure(v);
         }},
        {"persistence_mode",
         [](const YAML::Node& v, GpuSpec& g) { g.persistence_mode.failure = parse_failure(v); }},
        {"mig_mode",
         [](const YAML::Node& v, GpuSpec& g) { g.mig_mode.failure = parse_failure(v); }},
        {"memory_info",
         [](const YAML::Node& v, GpuSpec& g) { g.memory_info_failure = parse_failure(v); }},
        {"processes",
         [](const YAML::Node& v, GpuSpec& g) { g.processes_failure = parse_failure(v); }},
        {"reset", [](const YAML::Node& v, GpuSpec& g) { g.reset_failure = parse_failure(v); }},
        {"clocks",
         [](const YAML::Node& v, GpuSpec& g) {
             g.sm_clock_mhz.failure = g.memory_clock_mhz.failure = parse_failure(v);
         }},
        {"memory_temperature",
         [](const YAML::Node& v, GpuSpec& g) {
             g.memory_temperature_celsius.failure = parse_failure(v);
         }},
        {"pcie_replay",
         [](const YAML::Node& v, GpuSpec& g) { g.pcie_replay_count.failure = parse_failure(v); }},
        {"video",
         [](const YAML::Node& v, GpuSpec& g) {
             g.encoder_utilization_percent.failure = g.decoder_utilization_percent.failure =
                 parse_failure(v);
         }},
        {"remapped_rows",
         [](const YAML::Node& v, GpuSpec& g) {
             g.remapped_rows_correctable.failure = g.remapped_rows_uncorrectable.failure =
                 g.row_remap_failure.failure = parse_failure(v);
         }},
    };
    return table;
}

// "failures" itself is handled by parse_gpu, after every value.
const FieldTable& gpu_fields() {
    static const FieldTable table{
        {"name",
         [](const YAML::Node& v, GpuSpec& g) { g.name = parse_string(v, kNameBufferSize); }},
        {"uuid",
         [](const YAML::Node& v, GpuSpec& g) { g.uuid = parse_string(v, kUuidBufferSize); }},
        {"pci_bus_id",
         [](const YAML::Node& v, GpuSpec& g) {
             const auto address = parse_pci_address(scalar_text(v, "a PCI bus id"));
             if (!address) scenario_problem(v, "expected a PCI bus id such as 00000000:18:00.0");
             g.pci_bus_id = format_bus_id(*address);
         }},
        {"minor",
         [](const YAML::Node& v, GpuSpec& g) {
             // 255 is /dev/nvidiactl's minor; the driver numbers GPUs below it.
             g.minor = parse_unsigned(v, 254U);
         }},
        {"pci_device_id",
         [](const YAML::Node& v, GpuSpec& g) { g.pci_device_id = parse_unsigned(v, 0xFFFFFFFFU); }},
        {"pci_subsystem_id",
         [](const YAML::Node& v, GpuSpec& g) {
             g.pci_subsystem_id = parse_unsigned(v, 0xFFFFFFFFU);
         }},
        {"memory_total",
         [](const YAML::Node& v, GpuSpec& g) {
             g.memory_total_bytes = parse_bytes(v);
             if (g.memory_total_bytes == 0) scenario_problem(v, "memory_total must be more than 0");
         }},
        {"memory_reserved",
         [](const YAML::Node& v, GpuSpec& g) { g.memory_reserved_bytes = parse_bytes(v); }},
        {"base_utilization_percent",
         [](const YAML::Node& v, GpuSpec& g) {
             parse_metric(v, g.base_utilization_percent, parse_percent);
         }},
        {"temperature_celsius",
         [](const YAML::Node& v, GpuSpec& g) {
             parse_metric(v, g.temperature_celsius, parse_celsius);
         }},
        {"power_watts",
         [](const YAML::Node& v, GpuSpec& g) { parse_metric(v, g.power_watts, parse_watts); }},
        {"power_limit_watts",
         [](const YAML::Node& v, GpuSpec& g) {
             parse_metric(v, g.power_limit_watts, parse_watts);
         }},
        {"persistence_mode",
         [](const YAML::Node& v, GpuSpec& g) { parse_metric(v, g.persistence_mode, parse_bool); }},
        {"mig_mode",
         [](const YAML::Node& v, GpuSpec& g) { parse_metric(v, g.mig_mode, parse_bool); }},
        {"ecc_errors_corrected",
         [](const YAML::Node& v, GpuSpec& g) {
             parse_metric(v, g.ecc_errors_corrected, parse_count);
         }},
        {"ecc_errors_uncorrected",
         [](const YAML::Node& v, GpuSpec& g) {
             parse_metric(v, g.ecc_errors_uncorrected, parse_count);
         }},
        {"architecture", [](const YAML::Node& v,
                            GpuSpec& g) { parse_metric(v, g.architecture, parse_architecture); }},
        {"sm_clock_mhz",
         [](const YAML::Node& v, GpuSpec& g) { parse_metric(v, g.sm_clock_mhz, parse_mhz); }},
        {"memory_clock_mhz",
         [](const YAML::Node& v, GpuSpec& g) { parse_metric(v, g.memory_clock_mhz, parse_mhz); }},
        {"memory_temperature_celsius",
         [](const YAML::Node& v, GpuSpec& g) {
             parse_metric(v, g.memory_temperature_celsius, parse_celsius);
         }},
        {"pcie_replay_count",
         [](const YAML::Node& v, GpuSpec& g) {
             parse_metric(v, g.pcie_replay_count, parse_count);
         }},
        {"encoder_utilization_percent",
         [](const YAML::Node& v, GpuSpec& g) {
             parse_metric(v, g.encoder_utilization_percent, parse_percent);
         }},
        {"decoder_utilization_percent",
         [](const YAML::Node& v, GpuSpec& g) {
             parse_metric(v, g.decoder_utilization_percent, parse_percent);
         }},
        {"remapped_rows_correctable",
         [](const YAML::Node& v, GpuSpec& g) {
             parse_metric(v, g.remapped_rows_correctable, parse_count);
         }},
        {"remapped_rows_uncorrectable",
         [](const YAML::Node& v, GpuSpec& g) {
             parse_metric(v, g.remapped_rows_uncorrectable, parse_count);
         }},
        {"row_remap_failure",
         [](const YAML::Node& v, GpuSpec& g) { parse_metric(v, g.row_remap_failure, parse_bool); }},
        {"failures", [](const YAML::Node&, GpuSpec&) {}},
        {"nvlinks",
         [](const YAML::Node&, GpuSpec&) {}},  // resolve_nvlinks, once all GPUs are known
    };
    return table;
}

// Applies every key of `map` through `fields`.
void apply_fields(const YAML::Node& map, const FieldTable& fields, GpuSpec& gpu) {
    for (const auto& entry : map) {
        fields.find(entry.first.Scalar())->second(entry.second, gpu);
    }
}

GpuSpec parse_gpu(const YAML::Node& map, unsigned index) {
    check_keys(map, "a GPU", gpu_fields());
    GpuSpec gpu = default_gpu(index);
    apply_fields(map, gpu_fields(), gpu);
    if (gpu.memory_reserved_bytes >= gpu.memory_total_bytes) {
        const YAML::Node reserved = map["memory_reserved"];
        scenario_problem(reserved ? reserved : map,
                         "memory_reserved must be less than memory_total");
    }
    // Failures last, so `failures:` wins over a value given for the same metric.
    if (const YAML::Node failures = map["failures"]) {
        check_keys(failures, "failures", failure_fields());
        apply_fields(failures, failure_fields(), gpu);
    }
    return gpu;
}

void parse_driver(const YAML::Node& map, DriverSpec& driver) {
    static const std::set<std::string, std::less<>> kKeys{"version", "nvml_version", "cuda_version",
                                                          "legacy"};
    check_keys(map, "driver", kKeys);
    if (map["legacy"]) driver = default_driver(parse_bool(map["legacy"]));
    if (map["version"]) driver.version = parse_string(map["version"], kVersionBufferSize);
    if (map["nvml_version"]) {
        driver.nvml_version = parse_string(map["nvml_version"], kVersionBufferSize);
    }
    if (map["cuda_version"]) {
        driver.cuda_version = static_cast<int>(parse_unsigned(map["cuda_version"], 999999U));
    }
}

// Two GPUs cannot share a UUID or a bus address.
void check_unique(const YAML::Node& gpus_node, const std::vector<GpuSpec>& gpus) {
    std::set<std::string> uuids;
    std::set<std::string> buses;
    std::set<unsigned> minors;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        const YAML::Node at = i < gpus_node.size() ? gpus_node[i] : gpus_node;
        if (!minors.insert(gpus[i].minor).second) {
            scenario_problem(at, "duplicate minor " + std::to_string(gpus[i].minor));
        }
        if (!uuids.insert(gpus[i].uuid).second)
            scenario_problem(at, "duplicate uuid " + gpus[i].uuid);
        if (!buses.insert(gpus[i].pci_bus_id).second) {
            scenario_problem(at, "duplicate pci_bus_id " + gpus[i].pci_bus_id);
        }
    }
}

// `nvlinks:` of each listed GPU: one entry per active link, link 0 first, naming a GPU of
// the scenario by index or by bus id, or another device (an NVSwitch) by bus id. A link
// between two GPUs is a cable with two ends, so each must list the other.
void resolve_nvlinks(const YAML::Node& gpus_node, std::vector<GpuSpec>& gpus) {
    constexpr std::size_t kMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS
    std::vector<std::vector<std::size_t>> gpu_peers(gpus.size());
    for (std::size_t i = 0; i < gpus_node.size(); ++i) {
        const YAML::Node links = gpus_node[i]["nvlinks"];
        if (!links) continue;
        if (!links.IsSequence())
            scenario_problem(links, "expected a list of GPU indices or PCI bus ids");
        if (links.size() > kMaxLinks) scenario_problem(links, "at most 18 NVLinks per GPU");
        std::vector<std::string> remotes;
        for (const YAML::Node& link : links) {
            const std::string text = scalar_text(link, "a GPU index or a PCI bus id");
            std::optional<std::size_t> peer;
            if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
                peer = parse_unsigned(link, static_cast<unsigned>(kMaxGpus));
                if (*peer >= gpus.size())
                    scenario_problem(link, "no GPU " + text + " in this scenario");
            } else {
                const auto address = parse_pci_address(text);
                if (!address)
                    scenario_problem(link,
                                     "expected a GPU index or a PCI bus id, got '" + text + "'");
                const std::string bus_id = format_bus_id(*address);
                for (std::size_t j = 0; j < gpus.size(); ++j) {
                    if (gpus[j].pci_bus_id == bus_id) peer = j;
                }
                if (!peer) remotes.push_back(bus_id);  // a switch or another non-GPU device
            }
            if (peer) {
                if (*peer == i) scenario_problem(link, "a GPU cannot be linked to itself");
                gpu_peers[i].push_back(*peer);
                remotes.push_back(gpus[*peer].pci_bus_id);
            }
        }
        gpus[i].nvlink_remote_bus_ids = std::move(remotes);
    }
    for (std::size_t i = 0; i < gpu_peers.size(); ++i) {
        for (std::size_t peer : gpu_peers[i]) {
            const auto& back = gpu_peers[peer];
            if (std::count(back.begin(), back.end(), i) !=
                std::count(gpu_peers[i].begin(), gpu_peers[i].end(), peer)) {
                scenario_problem(gpus_node[i]["nvlinks"],
                                 "GPU " + std::to_string(i) + " links to GPU " +
                                     std::to_string(peer) + ", but GPU " + std::to_string(peer) +
                                     " does not list as many links back");
            }
        }
    }
}

SimConfig parse_root(const YAML::Node& root) {
    SimConfig config = default_scenario();
    if (root.IsNull()) return config;  // an empty file: the default host
    static const std::set<std::string, std::less<>> kKeys{"driver", "gpu_count", "gpus",
                                                          "drm_gpus"};
    check_keys(root, "the scenario", kKeys);

    if (root["driver"]) parse_driver(root["driver"], config.driver);

    std::optional<unsigned> gpu_count;
    if (root["gpu_count"]) {
        gpu_count = parse_unsigned(root["gpu_count"], static_cast<unsigned>(kMaxGpus));
    }
    const YAML::Node gpus_node = root["gpus"];
    std::size_t listed = 0;
    if (gpus_node) {
        if (!gpus_node.IsSequence()) scenario_problem(gpus_node, "expected a list of GPUs");
        listed = gpus_node.size();
        if (listed > kMaxGpus) scenario_problem(gpus_node, "at most 64 GPUs");
        if (gpu_count && *gpu_count < listed) {
            scenario_problem(root["gpu_count"],
                             "gpu_count is smaller than the number of GPUs listed");
        }
    }
    // gpu_count GPUs in all: the listed ones first, then default ones.
    const std::size_t total = gpu_count ? *gpu_count : (gpus_node ? listed : kDefaultGpuCount);
    config.gpus.clear();
    for (unsigned i = 0; i < total; ++i) {
        config.gpus.push_back(i < listed ? parse_gpu(gpus_node[i], i) : default_gpu(i));
    }
    check_unique(gpus_node ? gpus_node : root, config.gpus);
    if (gpus_node) resolve_nvlinks(gpus_node, config.gpus);
    if (root["drm_gpus"]) config.drm_gpus = parse_drm_gpus(root["drm_gpus"], config.gpus);
    return config;
}

Error scenario_error(std::string_view file, const YAML::Mark& mark, std::string_view what) {
    // yaml-cpp counts from 0; editors and compilers count from 1.
    const int line = mark.is_null() ? 1 : mark.line + 1;
    const int column = mark.is_null() ? 1 : mark.column + 1;
    return Error{kExitUsage, "scenario " + std::string(file) + ":" + std::to_string(line) + ":" +
                                 std::to_string(column) + ": " + std::string(what)};
}

}  // namespace

SimConfig default_scenario() {
    SimConfig config;
    config.driver = default_driver(false);
    for (unsigned i = 0; i < kDefaultGpuCount; ++i) config.gpus.push_back(default_gpu(i));
    return config;
}

Result<SimConfig> parse_scenario(std::string_view yaml_text, std::string_view file_label) {
    try {
        return parse_root(YAML::Load(std::string(yaml_text)));
    } catch (const ScenarioProblem& p) {
        return std::unexpected(scenario_error(file_label, p.mark, p.what));
    } catch (const YAML::Exception& e) {
        return std::unexpected(scenario_error(file_label, e.mark, e.msg));
    }
}

Result<SimConfig> load_scenario(const std::filesystem::path& file) {
    auto text = read_file(file);
    if (!text) {
        return fail(kExitUsage, "scenario " + file.string() + ": " + text.error().message);
    }
    return parse_scenario(*text, file.string());
}

}  // namespace gpusim
