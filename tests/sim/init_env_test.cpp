// gpusim init and gpusim env: the simulated host on disk and the environment that points at it.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "sim_harness.hpp"

namespace {

using gpusim_test::gpusim;
using gpusim_test::TempDir;
namespace fs = std::filesystem;

nlohmann::json status_json(const fs::path& root) {
    const auto result = gpusim({"status", "--root", root.string(), "--json"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return nlohmann::json::parse(result.out);
}

TEST(Init, DefaultHostHasTwoH100sAndRegularDeviceFiles) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root));
    for (const char* node : {"nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm"}) {
        const fs::path path = root / "dev" / node;
        EXPECT_TRUE(fs::is_regular_file(path)) << path;
        struct stat info {};
        ASSERT_EQ(::stat(path.c_str(), &info), 0);
        EXPECT_EQ(info.st_mode & 0777, 0666U) << path;
    }
    EXPECT_FALSE(fs::exists(root / "dev" / "nvidia2"));

    const auto status = status_json(root);
    EXPECT_EQ(status["schema_version"], 1);
    ASSERT_EQ(status["gpus"].size(), 2U);
    EXPECT_EQ(status["gpus"][0]["name"], "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(status["gpus"][0]["memory_total_bytes"], 81559ULL << 20);
    EXPECT_EQ(status["gpus"][0]["pci_bus_id"], "00000000:18:00.0");
    EXPECT_EQ(status["gpus"][1]["pci_bus_id"], "00000000:2A:00.0");
    EXPECT_EQ(status["gpus"][0]["memory_used_bytes"], 0);
}

TEST(Init, UuidsAreDeterministicAndWellFormed) {
    TempDir tmp;
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(tmp / "a"));
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(tmp / "b"));
    const auto a = status_json(tmp / "a");
    const auto b = status_json(tmp / "b");
    EXPECT_EQ(a["gpus"][0]["uuid"], b["gpus"][0]["uuid"]);
    EXPECT_NE(a["gpus"][0]["uuid"], a["gpus"][1]["uuid"]);
    const std::string uuid = a["gpus"][0]["uuid"];
    ASSERT_EQ(uuid.size(), 40U);  // "GPU-" + 8-4-4-4-12
    EXPECT_TRUE(uuid.starts_with("GPU-"));
    for (std::size_t dash : {12U, 17U, 22U, 27U}) EXPECT_EQ(uuid[dash], '-') << uuid;
}

TEST(Init, RefusesAnExistingRootUnlessForced) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root));
    const auto again = gpusim({"init", "--root", root.string()});
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_EQ(gpusim_test::split_lines(again.err).size(), 1U) << again.err;
    EXPECT_NE(again.err.find("--force"), std::string::npos);

    gpusim_test::write_text(tmp / "one.yaml", "gpu_count: 1\n");
    const auto forced = gpusim(
        {"init", "--root", root.string(), "--force", "--scenario", (tmp / "one.yaml").string()});
    ASSERT_EQ(forced.exit_code, 0) << forced.err;
    EXPECT_EQ(status_json(root)["gpus"].size(), 1U);
    EXPECT_FALSE(fs::exists(root / "dev" / "nvidia1"));  // the old GPU's node is gone
}

TEST(Init, ScenarioDescribesTheHost) {
    TempDir tmp;
    const fs::path root = tmp / "host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root, R"(
driver: {version: "535.104.05", cuda_version: 12020}
gpu_count: 3
gpus:
  - name: NVIDIA A100-SXM4-40GB
    uuid: GPU-11111111-2222-3333-4444-555555555555
    pci_bus_id: "0000:07:00.0"
    memory_total: 40G
)"));
    const auto status = status_json(root);
    EXPECT_EQ(status["driver_version"], "535.104.05");
    ASSERT_EQ(status["gpus"].size(), 3U);
    EXPECT_EQ(status["gpus"][0]["name"], "NVIDIA A100-SXM4-40GB");
    EXPECT_EQ(status["gpus"][0]["uuid"], "GPU-11111111-2222-3333-4444-555555555555");
    EXPECT_EQ(status["gpus"][0]["pci_bus_id"], "00000000:07:00.0");
    EXPECT_EQ(status["gpus"][0]["memory_total_bytes"], 40ULL << 30);
    EXPECT_EQ(status["gpus"][2]["name"], "NVIDIA H100 80GB HBM3");  // filled by gpu_count
    EXPECT_TRUE(fs::exists(root / "dev" / "nvidia2"));
}

TEST(Init, TheExampleScenarioIsValid) {
    TempDir tmp;
    const auto result = gpusim({"init", "--root", (tmp / "host").string(), "--scenario",
                                std::string(GPUSIM_SCENARIO_DIR) + "/example.yaml"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
}

struct Malformed {
    const char* label;
    const char* yaml;
    const char* position;  // "LINE:COL" or "" when only the format matters
    const char* mentions;
};

// Names the case in test output instead of dumping its bytes.
void PrintTo(const Malformed& malformed, std::ostream* out) {
    *out << malformed.label;
}

class MalformedScenario : public testing::TestWithParam<Malformed> {};

TEST_P(MalformedScenario, IsOneLineWithPositionExitThreeAndCreatesNothing) {
    const Malformed& param = GetParam();
    TempDir tmp;
    const fs::path file = tmp / "scenario.yaml";
    const fs::path root = tmp / "host";
    gpusim_test::write_text(file, param.yaml);

    const auto result = gpusim({"init", "--root", root.string(), "--scenario", file.string()});
    EXPECT_EQ(result.exit_code, 3);
    const auto lines = gpusim_test::split_lines(result.err);
    ASSERT_EQ(lines.size(), 1U) << result.err;
    const std::string prefix = "gpusim: scenario " + file.string() + ":";
    ASSERT_TRUE(lines[0].starts_with(prefix)) << lines[0];
    if (*param.position != '\0') {
        EXPECT_TRUE(lines[0].substr(prefix.size()).starts_with(std::string(param.position) + ":"))
            << lines[0];
    }
    EXPECT_NE(lines[0].find(param.mentions), std::string::npos) << lines[0];
    EXPECT_FALSE(fs::exists(root));
}

INSTANTIATE_TEST_SUITE_P(
    Scenario, MalformedScenario,
    testing::Values(
        Malformed{"bad_yaml", "gpus: [\n  {name: x\n", "", ""},
        Malformed{"unknown_key", "gpus:\n  - name: A\n    colour: red\n", "3:5", "colour"},
        Malformed{"unknown_top_key", "gpu_cuont: 2\n", "1:1", "gpu_cuont"},
        Malformed{"wrong_type", "gpu_count: many\n", "1:12", "whole number"},
        Malformed{"gpus_not_a_list", "gpus: {name: x}\n", "1:7", "list"},
        Malformed{"negative_memory", "gpus:\n  - memory_total: -5G\n", "2:19", "negative"},
        Malformed{"bad_size", "gpus:\n  - memory_total: 80X\n", "2:19", "bad size"},
        Malformed{"bad_bool", "gpus:\n  - failures: {lost: maybe}\n", "2:22", "true or false"},
        Malformed{"bad_failure", "gpus:\n  - failures: {temperature: broken}\n", "2:29",
                  "not_supported"},
        Malformed{"duplicate_uuid", "gpus:\n  - uuid: GPU-1\n  - uuid: GPU-1\n", "3:5",
                  "duplicate uuid"},
        Malformed{"count_below_list", "gpu_count: 1\ngpus: [{}, {}]\n", "1:12", "gpu_count"},
        Malformed{"reserved_not_below_total",
                  "gpus:\n  - memory_total: 16G\n    memory_reserved: 16G\n", "3:22",
                  "memory_reserved"},
        Malformed{"not_a_mapping", "- a\n- b\n", "1:1", "mapping"}),
    [](const testing::TestParamInfo<Malformed>& param_info) {
        return std::string(param_info.param.label);
    });

TEST(Init, MissingScenarioFileIsAUsageError) {
    TempDir tmp;
    const auto result = gpusim(
        {"init", "--root", (tmp / "host").string(), "--scenario", (tmp / "absent.yaml").string()});
    EXPECT_EQ(result.exit_code, 3);
    EXPECT_EQ(gpusim_test::split_lines(result.err).size(), 1U);
    EXPECT_FALSE(fs::exists(tmp / "host"));
}

TEST(Env, PrintsQuotedAbsoluteExports) {
    TempDir tmp;
    const fs::path root = tmp / "it's a host";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root));
    const auto result = gpusim({"env", "--root", root.string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::string quoted_root = "'" + tmp.path().string() + "/it'\\''s a host'";
    const std::string library =
        fs::weakly_canonical(fs::path(GPUSIM_NVML_LIBRARY)).lexically_normal().string();
    const auto lines = gpusim_test::split_lines(result.out);
    ASSERT_EQ(lines.size(), 5U) << result.out;
    EXPECT_EQ(lines[0], "export GPUKILL_NVML_LIBRARY='" + library + "'");
    EXPECT_EQ(lines[1],
              "export GPUKILL_DEVFS=" + quoted_root.substr(0, quoted_root.size() - 1) + "/dev'");
    EXPECT_EQ(lines[2], "export GPUSIM_ROOT=" + quoted_root);
    EXPECT_EQ(lines[3],
              "export GPUKILL_SYSFS=" + quoted_root.substr(0, quoted_root.size() - 1) + "/sys'");
    EXPECT_EQ(lines[4], "export GPUKILL_NVIDIA_SMI=" +
                            quoted_root.substr(0, quoted_root.size() - 1) + "/bin/nvidia-smi'");
}

TEST(Env, LegacyScenarioPointsAtTheLegacyLibrary) {
    TempDir tmp;
    const fs::path root = tmp / "old";
    ASSERT_NO_FATAL_FAILURE(gpusim_test::init_root(root, "driver: {legacy: true}\n"));
    const auto result = gpusim({"env", "--root", root.string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::string library =
        fs::weakly_canonical(fs::path(GPUSIM_LEGACY_NVML_LIBRARY)).lexically_normal().string();
    EXPECT_EQ(gpusim_test::split_lines(result.out).at(0),
              "export GPUKILL_NVML_LIBRARY='" + library + "'");
}

TEST(Env, RefusesARootThatWasNeverInitialised) {
    TempDir tmp;
    const auto result = gpusim({"env", "--root", (tmp / "nothing").string()});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("not a gpusim root"), std::string::npos);
}

}  // namespace
