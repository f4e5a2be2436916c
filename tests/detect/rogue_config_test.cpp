// rogue.yaml: defaults, partial overrides, list replacement, every way a file can be
// wrong reported as one FILE:LINE:COLUMN line with nothing applied, the export/import
// round trip, loading precedence, and the atomic install.
#include "detect/config_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "../host/host_test_support.hpp"
#include "host/proc_reader.hpp"

namespace gpukill::detect {
namespace {

using host_test::TempDir;
using host_test::write_file;

Result<RogueConfig> parse(std::string_view text) {
    return parse_rogue_config(text, "rogue.yaml");
}

std::string error_of(std::string_view text) {
    auto parsed = parse(text);
    if (parsed) return "(parsed)";
    return parsed.error().what;
}

TEST(RogueConfigFile, EmptyFileIsTheDefaults) {
    auto empty = parse("");
    ASSERT_TRUE(empty) << empty.error().what;
    EXPECT_EQ(*empty, default_rogue_config());
    auto comments = parse("# nothing here\n");
    ASSERT_TRUE(comments);
    EXPECT_EQ(*comments, default_rogue_config());
}

TEST(RogueConfigFile, DocumentedDefaults) {
    const RogueConfig config = default_rogue_config();
    EXPECT_EQ(config.report_threshold, 40);
    EXPECT_EQ(config.risk, (RiskThresholds{40, 70, 90}));
    EXPECT_EQ(config.weight(Signal::miner_name), 60);
    EXPECT_EQ(config.weight(Signal::unattended), 15);
    EXPECT_EQ(config.usage_shape.max_memory_bytes, 1ull << 30);
    EXPECT_EQ(config.temp_dirs, (std::vector<std::string>{"/tmp", "/dev/shm", "/var/tmp"}));
    EXPECT_NE(std::find(config.pool_ports.begin(), config.pool_ports.end(), 3333u),
              config.pool_ports.end());
    for (Signal signal : kAllSignals) EXPECT_GT(config.weight(signal), 0) << signal_name(signal);
}

TEST(RogueConfigFile, PartialMapsKeepTheRestAndListsReplace) {
    auto config = parse(R"(report_threshold: 50
risk_levels: {critical: 95}
weights:
  pool_port_connection: 45
usage_shape:
  min_minutes: 0.5
  max_memory: 512M
pool_ports: [3333, 40000]
allow:
  users: [render]
  names: [blender]
)");
    ASSERT_TRUE(config) << config.error().what;
    EXPECT_EQ(config->report_threshold, 50);
    EXPECT_EQ(config->risk, (RiskThresholds{40, 70, 95}));
    EXPECT_EQ(config->weight(Signal::pool_port_connection), 45);
    EXPECT_EQ(config->weight(Signal::miner_name), 60);
    EXPECT_EQ(config->usage_shape.min_minutes, 0.5);
    EXPECT_EQ(config->usage_shape.max_memory_bytes, 512ull << 20);
    EXPECT_EQ(config->usage_shape.min_utilization_percent, 90u);
    EXPECT_EQ(config->pool_ports, (std::vector<unsigned>{3333, 40000}));
    EXPECT_EQ(config->miner_names, default_rogue_config().miner_names);
    EXPECT_EQ(config->allow.users, std::vector<std::string>{"render"});
    EXPECT_EQ(config->allow.names, std::vector<std::string>{"blender"});
    EXPECT_TRUE(config->allow.executables.empty());

    auto emptied = parse("masquerade_names:\npool_hosts: []\n");
    ASSERT_TRUE(emptied) << emptied.error().what;
    EXPECT_TRUE(emptied->masquerade_names.empty());
    EXPECT_TRUE(emptied->pool_hosts.empty());
}

TEST(RogueConfigFile, ErrorsNameTheFileLineAndColumn) {
    EXPECT_EQ(error_of("report_threshold: 40\nthreshold: 3\n"),
              "rogue.yaml:2:1: unknown key \"threshold\" in the file (expected report_threshold, "
              "check_threshold, risk_levels, weights, usage_shape, unattended_min_hours, "
              "miner_names, masquerade_names, miner_options, algorithms, pool_ports, pool_hosts, "
              "temp_dirs, kernel_thread_names, system_daemon_names, system_program_dirs, "
              "miner_signatures, executable_scan, config_file_max_bytes, allow)");
    EXPECT_TRUE(error_of("weights:\n  miner_nam: 5\n")
                    .starts_with("rogue.yaml:2:3: unknown key \"miner_nam\" in weights (expected "
                                 "miner_name, masquerade, "));
    EXPECT_EQ(error_of("weights:\n  miner_name: 101\n"),
              "rogue.yaml:2:15: weights.miner_name: 101 is outside 0..100");
    EXPECT_EQ(error_of("report_threshold: \"40\"\n"),
              "rogue.yaml:1:19: report_threshold: \"40\" is not an integer");
    EXPECT_EQ(error_of("report_threshold: 0\n"),
              "rogue.yaml:1:19: report_threshold: 0 is outside 1..100");
    EXPECT_EQ(error_of("risk_levels: {medium: 80}\n"),
              "rogue.yaml:1:14: risk_levels must rise: medium 80 < high 70 < critical 90");
    EXPECT_EQ(error_of("pool_ports: [3333, 70000]\n"),
              "rogue.yaml:1:20: pool_ports: 70000 is outside 1..65535");
    EXPECT_EQ(error_of("pool_ports: [3333, 3333]\n"),
              "rogue.yaml:1:20: pool_ports: 3333 is listed twice");
    EXPECT_EQ(error_of("usage_shape: {max_memory: lots}\n"),
              "rogue.yaml:1:27: usage_shape.max_memory: \"lots\" is not a memory size above 0 "
              "(e.g. 512M, 1G)");
    EXPECT_EQ(error_of("usage_shape: {min_minutes: 0}\n"),
              "rogue.yaml:1:28: usage_shape.min_minutes: 0 must be above 0 and at most 525600");
    EXPECT_EQ(error_of("miner_names: xmrig\n"),
              "rogue.yaml:1:14: miner_names must be a list, e.g. miner_names: [a, b]");
    EXPECT_EQ(error_of("miner_names: [\"x*y\"]\n"),
              "rogue.yaml:1:15: miner_names: \"x*y\" has '*' before its end; only a trailing '*' "
              "(a prefix) is supported");
    EXPECT_EQ(error_of("allow:\n  names: [\"python*\"]\n"),
              "rogue.yaml:2:11: allow.names: \"python*\" has '*': allow lists match exactly, "
              "never by pattern");
    EXPECT_EQ(error_of("allow:\n  executables: [bin/x]\n"),
              "rogue.yaml:2:17: allow.executables: \"bin/x\" is not an absolute path");
    EXPECT_EQ(error_of("miner_options: [donate]\n"),
              "rogue.yaml:1:17: miner_options: \"donate\" is not an option (it must start with "
              "'-')");
    EXPECT_EQ(error_of("pool_hosts: [\"stratum+tcp://x:1\"]\n"),
              "rogue.yaml:1:14: pool_hosts: \"stratum+tcp://x:1\" is neither a host name nor an "
              "IP address (no scheme, port or path)");
    EXPECT_EQ(error_of("temp_dirs: [/]\n"),
              "rogue.yaml:1:13: temp_dirs: \"/\" would cover every executable");
    EXPECT_EQ(error_of("report_threshold: 40\nreport_threshold: 50\n"),
              "rogue.yaml:2:1: the file: key \"report_threshold\" appears twice");
    EXPECT_EQ(error_of("[1, 2]\n").substr(0, 45), "rogue.yaml:1:1: expected a mapping with the k");
    EXPECT_EQ(error_of("a: 1\n---\nb: 2\n"),
              "rogue.yaml:3:1: more than one YAML document; use one");
    EXPECT_TRUE(error_of("weights: {miner_name: 1\n").starts_with("rogue.yaml:2:1: "));
}

TEST(RogueConfigFile, ExportReadsBackToTheSameConfiguration) {
    const RogueConfig defaults = default_rogue_config();
    auto again = parse(rogue_config_yaml(defaults, "header\nsecond line"));
    ASSERT_TRUE(again) << again.error().what;
    EXPECT_EQ(*again, defaults);

    RogueConfig custom = defaults;
    custom.report_threshold = 55;
    custom.risk = {50, 60, 99};
    custom.set_weight(Signal::masquerade, 0);
    custom.usage_shape = {.min_utilization_percent = 85,
                          .min_minutes = 12.5,
                          .max_memory_bytes = 1536ull << 20,
                          .max_memory_variation = 0.125,
                          .max_sample_gap_seconds = 90};
    custom.unattended_min_hours = 0.25;
    custom.miner_names = {"odd \"name\"", "tab\there", "xmrig*"};
    custom.pool_hosts = {"2001:db8::1", "pool.example"};
    custom.pool_ports = {};
    custom.kernel_thread_names = {"kworker/*", "[odd]"};
    custom.system_daemon_names = {"sshd"};
    custom.system_program_dirs = {"/opt/system"};
    custom.miner_signatures = {"stratum+tcp", "with \"quote\"", "back\\slash"};
    custom.executable_scan = {.max_bytes = 3ull << 20, .min_signatures = 3};
    custom.config_file_max_bytes = 1000;
    custom.allow = {
        .users = {"alice", "1001"}, .executables = {"/opt/a b/c"}, .names = {"blender", "[weird]"}};
    const std::string yaml = rogue_config_yaml(custom, "");
    auto back = parse(yaml);
    ASSERT_TRUE(back) << back.error().what << "\n" << yaml;
    EXPECT_EQ(*back, custom) << yaml;
}

TEST(RogueConfigFile, JsonHasEverySetting) {
    auto json = rogue_config_json(default_rogue_config());
    EXPECT_EQ(json["report_threshold"], 40);
    EXPECT_EQ(json["weights"]["stratum_url"], 60);
    EXPECT_EQ(json["usage_shape"]["max_memory_bytes"], 1ull << 30);
    EXPECT_TRUE(json["allow"]["names"].is_array());
    EXPECT_EQ(json["weights"]["miner_signature"], 60);
    EXPECT_EQ(json["executable_scan"]["max_bytes"], 64ull << 20);
    EXPECT_EQ(json["executable_scan"]["min_signatures"], 2);
    EXPECT_EQ(json["config_file_max_bytes"], 64ull << 10);
    EXPECT_TRUE(json["miner_signatures"].is_array());
    EXPECT_TRUE(json["kernel_thread_names"].is_array());
}

TEST(RogueConfigFile, ContentAndBorrowedNameSettings) {
    auto config = parse(R"(kernel_thread_names: ["kworker/*", "kthreadd"]
system_daemon_names: [sshd]
system_program_dirs: [/usr/sbin]
miner_signatures: ["stratum+tcp", "kawpow"]
executable_scan: {max_bytes: 8M}
config_file_max_bytes: 4K
weights: {busy_pool_connection: 30}
)");
    ASSERT_TRUE(config) << config.error().what;
    EXPECT_EQ(config->kernel_thread_names, (std::vector<std::string>{"kworker/*", "kthreadd"}));
    EXPECT_EQ(config->system_daemon_names, std::vector<std::string>{"sshd"});
    EXPECT_EQ(config->system_program_dirs, std::vector<std::string>{"/usr/sbin"});
    EXPECT_EQ(config->miner_signatures, (std::vector<std::string>{"stratum+tcp", "kawpow"}));
    EXPECT_EQ(config->executable_scan.max_bytes, 8ull << 20);
    EXPECT_EQ(config->executable_scan.min_signatures, 2u)
        << "the rest of the map keeps its default";
    EXPECT_EQ(config->config_file_max_bytes, 4096u);
    EXPECT_EQ(config->weight(Signal::busy_pool_connection), 30);

    EXPECT_EQ(error_of("miner_signatures: [abc]\n"),
              "rogue.yaml:1:20: miner_signatures: \"abc\" must be 4 to 64 bytes long");
    EXPECT_EQ(error_of("miner_signatures: [\"tab\\there\"]\n"),
              "rogue.yaml:1:20: miner_signatures: \"tab\\x09here\" must be printable ASCII");
    EXPECT_EQ(error_of("kernel_thread_names: [\"k*w\"]\n"),
              "rogue.yaml:1:23: kernel_thread_names: \"k*w\" has '*' before its end; only a "
              "trailing '*' (a prefix) is supported");
    EXPECT_EQ(error_of("system_daemon_names: [/usr/sbin/sshd]\n"),
              "rogue.yaml:1:23: system_daemon_names: \"/usr/sbin/sshd\" is a path; give the "
              "program's name");
    EXPECT_EQ(error_of("system_program_dirs: [usr/bin]\n"),
              "rogue.yaml:1:23: system_program_dirs: \"usr/bin\" is not an absolute path");
    EXPECT_EQ(error_of("executable_scan: {max_bytes: 2G}\n"),
              "rogue.yaml:1:30: executable_scan.max_bytes: \"2G\" is not a size above 0 and at "
              "most 1024 MiB (e.g. 16M, 64M)");
    EXPECT_EQ(error_of("executable_scan: {min_signatures: 0}\n"),
              "rogue.yaml:1:35: executable_scan.min_signatures: 0 is outside 1..100");
    EXPECT_TRUE(error_of("executable_scan: {bytes: 1M}\n")
                    .starts_with("rogue.yaml:1:19: unknown key \"bytes\" in executable_scan "
                                 "(expected max_bytes, min_signatures)"));
    EXPECT_TRUE(error_of("config_file_max_bytes: 0\n").starts_with("rogue.yaml:1:24: "));
}

TEST(RogueConfigFile, LoadingPrefersTheNamedFileThenConfigDirThenDefaults) {
    TempDir dir;
    auto none = load_rogue_config(dir.path(), std::nullopt);
    ASSERT_TRUE(none) << none.error().what;
    EXPECT_EQ(none->source, "built-in defaults");

    write_file(dir / "rogue.yaml", "report_threshold: 61\n");
    auto from_dir = load_rogue_config(dir.path(), std::nullopt);
    ASSERT_TRUE(from_dir) << from_dir.error().what;
    EXPECT_EQ(from_dir->source, dir / "rogue.yaml");
    EXPECT_EQ(from_dir->config.report_threshold, 61);

    write_file(dir / "other.yaml", "report_threshold: 62\n");
    auto named = load_rogue_config(dir.path(), dir / "other.yaml");
    ASSERT_TRUE(named);
    EXPECT_EQ(named->config.report_threshold, 62);

    auto missing = load_rogue_config(dir.path(), dir / "absent.yaml");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().errno_value, ENOENT);

    write_file(dir / "rogue.yaml", "report_threshold: many\n");
    auto broken = load_rogue_config(dir.path(), std::nullopt);
    ASSERT_FALSE(broken);
    EXPECT_EQ(broken.error().errno_value, 0);
    EXPECT_EQ(broken.error().what.rfind(dir / "rogue.yaml:1:19: ", 0), 0u) << broken.error().what;
}

TEST(RogueConfigFile, InstallReplacesAtomicallyAndCreatesTheDirectory) {
    TempDir dir;
    const std::string config_dir = dir / "etc/gpukill";
    auto installed = install_rogue_config(config_dir, "report_threshold: 70\n");
    ASSERT_TRUE(installed) << installed.error().what;
    EXPECT_EQ(*installed, config_dir + "/rogue.yaml");
    struct stat info {};
    ASSERT_EQ(::stat(installed->c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0644u);
    auto loaded = load_rogue_config(config_dir, std::nullopt);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->config.report_threshold, 70);

    ASSERT_TRUE(install_rogue_config(config_dir, "report_threshold: 71\n"));
    EXPECT_EQ(load_rogue_config(config_dir, std::nullopt)->config.report_threshold, 71);
    // No temporary file is left behind.
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(config_dir)) {
        (void)entry;
        ++files;
    }
    EXPECT_EQ(files, 1u);

    write_file(dir / "file", "x");
    auto blocked = install_rogue_config(dir / "file", "report_threshold: 70\n");
    ASSERT_FALSE(blocked);
    EXPECT_EQ(blocked.error().errno_value, ENOTDIR);
}

}  // namespace
}  // namespace gpukill::detect

namespace gpukill::detect {
namespace {

// The documented example states the defaults: installing it as it is changes nothing.
TEST(RogueConfigFile, TheDocumentedExampleIsTheDefaults) {
    const std::string path = std::string(GPUKILL_FIXTURES_DIR) + "/../../docs/examples/rogue.yaml";
    auto text = read_text_file(path);
    ASSERT_TRUE(text) << text.error().what;
    auto config = parse_rogue_config(*text, path);
    ASSERT_TRUE(config) << config.error().what;
    EXPECT_EQ(*config, default_rogue_config());
}

}  // namespace
}  // namespace gpukill::detect
