// Hosts files (node sets a line, or Prometheus file_sd JSON) and the targets a fleet
// command resolves to.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fleet/inventory.hpp"

namespace gpukill::fleet {
namespace {

using Names = std::vector<std::string>;

TEST(Inventory, OneNodeSetALineWithComments) {
    auto hosts = parse_hosts_text("# the cluster\nnode[01-02]\n\n  login   # head\nnode01\n", "h");
    ASSERT_TRUE(hosts) << hosts.error().what;
    EXPECT_EQ(*hosts, (Names{"node01", "node02", "login"}));
}

TEST(Inventory, ABadLineIsNamedByFileAndLine) {
    auto hosts = parse_hosts_text("node1\nnode[1-\n", "hosts.txt");
    ASSERT_FALSE(hosts);
    EXPECT_EQ(hosts.error().what,
              "hosts.txt:2: bad node set 'node[1-': expected a number at column 8");
    EXPECT_EQ(hosts.error().category, ErrorCategory::invalid_input);
}

TEST(Inventory, PrometheusFileSdTargetsKeepTheirPorts) {
    const char* text = R"([
  {"targets": ["node01:9402", "node02:9402"], "labels": {"rack": "a"}},
  {"targets": ["[fd00::3]:9402"]}
])";
    auto hosts = parse_hosts_text(text, "sd.json");
    ASSERT_TRUE(hosts) << hosts.error().what;
    EXPECT_EQ(*hosts, (Names{"node01:9402", "node02:9402", "[fd00::3]:9402"}));
}

TEST(Inventory, FileSdErrorsNameTheLine) {
    auto bad_port = parse_hosts_text("[\n {\"targets\": [\"a:1\",\n \"b:99999\"]}\n]", "sd.json");
    ASSERT_FALSE(bad_port);
    EXPECT_EQ(bad_port.error().what, "sd.json:3: 'b:99999': the port must be 1 to 65535");
    auto not_json = parse_hosts_text("[\n {\"targets\": [\"a\"]\n", "sd.json");
    ASSERT_FALSE(not_json);
    EXPECT_EQ(not_json.error().what.rfind("sd.json:", 0), 0u) << not_json.error().what;
    EXPECT_NE(not_json.error().what.find("not valid JSON"), std::string::npos);
    auto no_targets = parse_hosts_text("[{\"labels\": {}}]", "sd.json");
    ASSERT_FALSE(no_targets);
    EXPECT_EQ(no_targets.error().what, "sd.json:1: a target group needs \"targets\": [...]");
}

TEST(Inventory, HostAddresses) {
    EXPECT_EQ(parse_host_address("node01")->host, "node01");
    EXPECT_FALSE(parse_host_address("node01")->port);
    EXPECT_EQ(*parse_host_address("node01:22")->port, 22u);
    EXPECT_EQ(parse_host_address("[::1]:22")->host, "::1");
    EXPECT_EQ(parse_host_address("fd00::1")->host, "fd00::1");
    EXPECT_FALSE(parse_host_address("node01:0"));
    EXPECT_FALSE(parse_host_address(":22"));
}

TEST(Inventory, TargetsFromEverySourceLessTheExclusions) {
    const auto file = std::filesystem::temp_directory_path() /
                      ("gpukill-inventory-" + std::to_string(::getpid()));
    std::ofstream(file) << "node[03-04]\n";
    auto hosts = resolve_targets({.remote = {"head"},
                                  .node_sets = {"node[01-03]"},
                                  .files = {file.string()},
                                  .exclusions = {"node02"}});
    std::filesystem::remove(file);
    ASSERT_TRUE(hosts) << hosts.error().what;
    EXPECT_EQ(*hosts, (Names{"head", "node01", "node03", "node04"}));
    EXPECT_FALSE(
        resolve_targets({.remote = {}, .node_sets = {"a"}, .files = {}, .exclusions = {"a"}}));
    auto missing = resolve_targets(
        {.remote = {}, .node_sets = {}, .files = {"/nonexistent/h"}, .exclusions = {}});
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().what.find("/nonexistent/h"), std::string::npos);
}

}  // namespace
}  // namespace gpukill::fleet
