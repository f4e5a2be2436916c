// What a watching session shows after the first frames, when holders and their details
// come from kernel events and a cache instead of a sweep (as root; without the privilege
// every frame sweeps and reads every detail, and the same must hold): a holder that
// exec'd shows its new command line, and the workers a trainer forks after opening its
// GPU show, in the first frame taken after the change.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>

#include "execing_shell.hpp"
#include "support.hpp"

namespace gpukill::testing {
namespace {

std::int64_t unix_ms_now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The first frame whose sample began after `after_ms`.
nlohmann::json frame_after(RunningCommand& watch, std::int64_t after_ms) {
    for (int frame = 0; frame < 100; ++frame) {
        const std::optional<std::string> line = watch.read_line();
        if (!line) break;
        nlohmann::json doc = nlohmann::json::parse(*line);
        if (doc.at("timestamp_unix_ms").get<std::int64_t>() > after_ms) return doc;
    }
    ADD_FAILURE() << "no frame after " << after_ms;
    return nlohmann::json::object();
}

std::optional<nlohmann::json> listed(const nlohmann::json& frame, pid_t pid) {
    if (!frame.contains("processes")) return std::nullopt;
    for (const nlohmann::json& process : frame.at("processes")) {
        if (process.at("pid").get<pid_t>() == pid) return process;
    }
    return std::nullopt;
}

std::string joined(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
    return text;
}

TEST(WatchEvents, AnExecAndNewWorkersOfAHolderShowInTheNextFrame) {
    SimulatedHost host;
    RunningCommand watch({GPUKILL_BIN, "list", "--watch", "--json", "--interval", "0.1"},
                         host.env());
    const std::string node = host.env().at("GPUKILL_DEVFS") + "/nvidia0";
    ExecingShell shell(host.root(), "exec 3<'" + node + "'; ");
    ASSERT_TRUE(shell.wait_ready());
    const pid_t pid = shell.command().pid();
    // A few frames in: the tracker (from the second frame) and the cache hold it now.
    frame_after(watch, unix_ms_now());
    const nlohmann::json opened = frame_after(watch, unix_ms_now());
    const std::optional<nlohmann::json> before = listed(opened, pid);
    ASSERT_TRUE(before.has_value()) << opened.dump();
    EXPECT_NE(before->at("cmdline").get<std::string>().find("echo ready"), std::string::npos);

    ASSERT_TRUE(shell.exec_now());
    const nlohmann::json execd = frame_after(watch, unix_ms_now());
    const std::optional<nlohmann::json> after = listed(execd, pid);
    ASSERT_TRUE(after.has_value()) << "it still holds the device: " << execd.dump();
    EXPECT_EQ(after->at("cmdline"), joined(shell.second_cmdline()));

    Workload trainer = host.run({"--gpu", "1", "--mem", "1G", "--workers", "3"});
    const nlohmann::json with_workers = frame_after(watch, unix_ms_now());
    EXPECT_TRUE(listed(with_workers, trainer.pid()).has_value());
    for (pid_t worker : trainer.workers()) {
        EXPECT_TRUE(listed(with_workers, worker).has_value()) << "worker " << worker;
    }
    watch.send_signal(SIGTERM);
    EXPECT_EQ(watch.wait(), 0);
}

}  // namespace
}  // namespace gpukill::testing
