// `gpukill list` against real gpusim workloads: what was started is what is listed.
#include <dlfcn.h>
#include <unistd.h>

#include <signal.h>
#include <cerrno>

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "support.hpp"

namespace gpukill::testing {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;
constexpr std::uint64_t MiB = 1ULL << 20;

const nlohmann::json* find_process(const nlohmann::json& doc, pid_t pid) {
    for (const auto& p : doc["processes"]) {
        if (p["pid"] == pid) return &p;
    }
    return nullptr;
}

// Any user can name a process with bytes that are not UTF-8 (exec -a): every JSON
// document is still written, with U+FFFD in their place.
TEST(List, ANameThatIsNotUtf8IsWrittenAsReplacementCharacters) {
    SimulatedHost host;
    Workload odd = host.run({"--gpu", "0", "--mem", "1G", "--name", "py\xff\xfethon"});
    CommandResult r = host.gpukill({"list", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto doc = nlohmann::json::parse(r.out);
    const nlohmann::json* entry = find_process(doc, odd.pid());
    ASSERT_NE(entry, nullptr) << r.out;
    EXPECT_EQ((*entry)["name"], "py\xef\xbf\xbd\xef\xbf\xbdthon");
    CommandResult plan =
        host.gpukill({"kill", "--pid", std::to_string(odd.pid()), "--dry-run", "--json"});
    EXPECT_EQ(plan.exit_code, 0) << plan.err;
    EXPECT_FALSE(nlohmann::json::parse(plan.out, nullptr, false).is_discarded()) << plan.out;
}

// A result that could not be written is a failure, whatever the command.
TEST(List, OutputThatCannotBeWrittenIsAnErrorNotASilentSuccess) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    for (const std::string args : {"list --json", "list", "list --details", "audit --actions"}) {
        CommandResult full = run_command(
            {"/bin/sh", "-c", std::string(GPUKILL_BIN) + " " + args + " >/dev/full"}, host.env());
        EXPECT_EQ(full.exit_code, 1) << args << ": " << full.err;
        EXPECT_NE(full.err.find("gpukill: the output could not be written to stdout"),
                  std::string::npos)
            << args << ": " << full.err;
        CommandResult closed = run_command(
            {"/bin/sh", "-c", std::string(GPUKILL_BIN) + " " + args + " >&-"}, host.env());
        EXPECT_EQ(closed.exit_code, 1) << args << ": " << closed.err;
    }
}

// A process whose fd directory lists but whose links cannot be read (PID 1 in a
// container, even for root) was not seen, and the listing says so.
TEST(List, AProcessWhoseFdLinksCannotBeReadMakesTheViewIncomplete) {
    char target[256];
    errno = 0;
    if (::readlink("/proc/1/fd/0", target, sizeof target) >= 0 || errno != EACCES) {
        GTEST_SKIP() << "PID 1's fd links are readable here";
    }
    SimulatedHost host;
    CommandResult r = host.gpukill({"list", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto doc = nlohmann::json::parse(r.out);
    EXPECT_GE(doc["visibility"]["processes_denied"].get<int>(), 1) << r.out;
    EXPECT_EQ(doc["visibility"]["complete"], false) << r.out;
    bool named = false;  // the warning says which processes were not seen
    for (const auto& warning : doc["warnings"]) {
        named |= warning.get<std::string>().find("(PID 1") != std::string::npos;
    }
    EXPECT_TRUE(named) << doc["warnings"].dump();
}

// Out of file descriptors (ulimit -n), a listing either shows the holder or says that
// it could not see everything: never "No process holds a GPU" as if complete.
TEST(List, RunningOutOfDescriptorsIsReportedNotHidden) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G", "--workers", "2"});
    for (int limit = 4; limit <= 12; ++limit) {
        CommandResult r = run_command({"/bin/sh", "-c",
                                       "ulimit -n " + std::to_string(limit) + "; exec " +
                                           std::string(GPUKILL_BIN) + " list --json 2>/dev/null"},
                                      host.env());
        if (r.exit_code != 0) continue;  // refusing to answer is honest too
        auto doc = nlohmann::json::parse(r.out, nullptr, false);
        ASSERT_FALSE(doc.is_discarded()) << limit << ": " << r.out;
        const bool shown = find_process(doc, job.pid()) != nullptr;
        EXPECT_TRUE(shown || doc["visibility"]["complete"] == false)
            << "ulimit -n " << limit << ": " << doc["visibility"].dump();
    }
}

TEST(List, AnIdleSimulatedHostShowsItsGpusAndNoProcesses) {
    SimulatedHost host;
    auto doc = host.list_json();
    EXPECT_EQ(doc["schema_version"], 1);
    ASSERT_EQ(doc["gpus"].size(), 2u);
    for (const auto& gpu : doc["gpus"]) {
        EXPECT_EQ(gpu["vendor"], "nvidia");
        EXPECT_EQ(gpu["memory_used_bytes"], 0);
        EXPECT_EQ(gpu["unattributed_memory_bytes"], 0);
        EXPECT_GT(gpu["memory_total_bytes"].get<std::uint64_t>(), 0u);
        EXPECT_TRUE(gpu["uuid"].get<std::string>().starts_with("GPU-"));
        // NVML's energy counter comes through in joules (gpusim: the idle draw since init).
        EXPECT_TRUE(gpu["energy_joules"].is_number()) << gpu.dump();
        EXPECT_GE(gpu["energy_joules"].get<double>(), 0.0);
    }
    EXPECT_LT(doc["gpus"][0]["pci_bus_id"].get<std::string>(),
              doc["gpus"][1]["pci_bus_id"].get<std::string>());
    EXPECT_TRUE(doc["processes"].empty());
}

TEST(List, AWorkloadIsListedWithItsMemoryUserStartTimeAndBothSources) {
    SimulatedHost host;
    Workload trainer = host.run({"--gpu", "0", "--mem", "4G", "--util", "60"});
    auto doc = host.list_json();
    EXPECT_EQ(doc["gpus"][0]["memory_used_bytes"], 4 * GiB);
    EXPECT_EQ(doc["gpus"][0]["utilization_percent"], 60);
    EXPECT_EQ(doc["gpus"][0]["unattributed_memory_bytes"], 0);
    EXPECT_EQ(doc["gpus"][0]["process_count"], 1);
    EXPECT_EQ(doc["gpus"][1]["memory_used_bytes"], 0);
    const nlohmann::json* p = find_process(doc, trainer.pid());
    ASSERT_NE(p, nullptr) << doc.dump(2);
    EXPECT_EQ((*p)["user"], current_user_name());
    EXPECT_EQ((*p)["start_time_ticks"], trainer.start_time_ticks());
    EXPECT_FALSE((*p)["start_time"].is_null());
    EXPECT_EQ((*p)["orphaned"], false);
    ASSERT_EQ((*p)["gpus"].size(), 1u);
    EXPECT_EQ((*p)["gpus"][0]["index"], 0);
    EXPECT_EQ((*p)["gpus"][0]["memory_bytes"], 4 * GiB);
    EXPECT_EQ((*p)["gpus"][0]["seen_by"], nlohmann::json({"driver", "device_file"}));
}

TEST(List, OrphanedWorkersAreFoundByDeviceFileAndHoldTheMemory) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "1", "--mem", "3G", "--workers", "2"});
    ASSERT_EQ(job.workers().size(), 2u);
    job.kill_parent();  // `kill -9` on the parent: the memory stays, nvidia-smi shows nobody

    auto doc = host.list_json();
    const auto& gpu = doc["gpus"][1];
    EXPECT_EQ(gpu["memory_used_bytes"], 3 * GiB);
    EXPECT_EQ(gpu["unattributed_memory_bytes"], 3 * GiB);
    EXPECT_EQ(gpu["process_count"], 2);
    EXPECT_EQ(find_process(doc, job.pid()), nullptr);
    for (pid_t worker : job.workers()) {
        const nlohmann::json* p = find_process(doc, worker);
        ASSERT_NE(p, nullptr) << "worker " << worker << " missing: " << doc.dump(2);
        EXPECT_EQ((*p)["gpus"][0]["index"], 1);
        EXPECT_EQ((*p)["gpus"][0]["seen_by"], nlohmann::json({"device_file"}));
        EXPECT_TRUE((*p)["gpus"][0]["memory_bytes"].is_null());
        EXPECT_EQ((*p)["orphaned"], true);
    }

    CommandResult table = host.gpukill({"list", "--details"});
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_NE(table.out.find("GPU 1: 3.0 GiB used but not in the driver's process list"),
              std::string::npos)
        << table.out;
    EXPECT_NE(table.out.find("file only *"), std::string::npos) << table.out;

    job.kill_all();
    auto after = host.list_json();
    EXPECT_EQ(after["gpus"][1]["memory_used_bytes"], 0);
    EXPECT_TRUE(after["processes"].empty());
}

TEST(List, LeakedMemoryWithNoProcessIsShownAsSuch) {
    SimulatedHost host;
    host.leak(0, "2G");
    auto doc = host.list_json();
    EXPECT_EQ(doc["gpus"][0]["memory_used_bytes"], 2 * GiB);
    EXPECT_EQ(doc["gpus"][0]["unattributed_memory_bytes"], 2 * GiB);
    EXPECT_EQ(doc["gpus"][0]["process_count"], 0);
    CommandResult table = host.gpukill({"--list"});
    EXPECT_NE(table.out.find("no process holds this GPU"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("only a GPU reset frees it"), std::string::npos);
}

TEST(List, GpuSelectorTakesIndexUuidAndBusIdAndRejectsUnknownOnes) {
    SimulatedHost host;
    Workload a = host.run({"--gpu", "0", "--mem", "1G"});
    Workload b = host.run({"--gpu", "1", "--mem", "2G"});
    auto all = host.list_json();
    std::string uuid1 = all["gpus"][1]["uuid"];
    std::string bus1 = all["gpus"][1]["pci_bus_id"];
    for (const std::string& selector : {std::string("1"), uuid1, bus1}) {
        auto doc = host.list_json({"--gpu", selector});
        ASSERT_EQ(doc["gpus"].size(), 1u) << selector;
        EXPECT_EQ(doc["gpus"][0]["index"], 1);
        ASSERT_EQ(doc["processes"].size(), 1u);
        EXPECT_EQ(doc["processes"][0]["pid"], b.pid());
    }
    CommandResult bad = host.gpukill({"list", "--gpu", "7"});
    EXPECT_EQ(bad.exit_code, 3);
    EXPECT_TRUE(bad.out.empty());
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

TEST(List, TwoWorkloadsOnOneGpuAreBothCounted) {
    SimulatedHost host;
    Workload a = host.run({"--gpu", "0", "--mem", "512M"});
    Workload b = host.run({"--gpu", "0", "--mem", "1G", "--name", "trainer"});
    auto doc = host.list_json();
    EXPECT_EQ(doc["gpus"][0]["memory_used_bytes"], 1536 * MiB);
    EXPECT_EQ(doc["gpus"][0]["process_count"], 2);
    const nlohmann::json* named = find_process(doc, b.pid());
    ASSERT_NE(named, nullptr);
    EXPECT_EQ((*named)["name"], "trainer");
}

TEST(List, MemoryTheDriverCannotReportIsNullNotInvented) {
    SimulatedHost host(R"(gpus:
  - name: "NVIDIA A100-SXM4-40GB"
    memory_total: 40G
    failures:
      memory_not_available: true
)");
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    auto doc = host.list_json();
    const nlohmann::json* p = find_process(doc, w.pid());
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE((*p)["gpus"][0]["memory_bytes"].is_null());
    EXPECT_TRUE(doc["gpus"][0]["unattributed_memory_bytes"].is_null());
}

TEST(List, ALostGpuIsMarkedAndTheOthersAreStillRead) {
    SimulatedHost host(R"(gpus:
  - name: "NVIDIA H100 80GB HBM3"
  - name: "NVIDIA H100 80GB HBM3"
    failures:
      lost: true
)");
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    auto doc = host.list_json();
    ASSERT_EQ(doc["gpus"].size(), 2u);
    EXPECT_EQ(doc["gpus"][0]["lost"], false);
    EXPECT_EQ(doc["gpus"][0]["memory_used_bytes"], GiB);
    EXPECT_EQ(doc["gpus"][1]["lost"], true);
    EXPECT_TRUE(doc["gpus"][1]["memory_used_bytes"].is_null());
    CommandResult table = host.gpukill({"list"});
    EXPECT_NE(table.out.find("GPU 1: GPU is lost"), std::string::npos) << table.out;
}

TEST(List, ADriverWithoutV3SymbolsStillListsProcesses) {
    SimulatedHost host(R"(driver:
  version: "470.223.02"
  legacy: true
)");
    ASSERT_NE(host.env().at("GPUKILL_NVML_LIBRARY").find("legacy"), std::string::npos);
    Workload w = host.run({"--gpu", "1", "--mem", "2G"});
    auto doc = host.list_json();
    const nlohmann::json* p = find_process(doc, w.pid());
    ASSERT_NE(p, nullptr) << doc.dump(2);
    EXPECT_EQ((*p)["gpus"][0]["memory_bytes"], 2 * GiB);
    EXPECT_EQ(doc["gpus"][0]["driver_version"], "470.223.02");
}

TEST(List, ALibraryThatIsNotNvmlIsAOneLineError) {
    SimulatedHost host;
    CommandResult r = host.gpukill({"list"}, {{"GPUKILL_NVML_LIBRARY", "/etc/hostname"}});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(r.out.empty());
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("/etc/hostname"), std::string::npos);
}

TEST(List, WithoutAnyDriverHoldersOfDeviceFilesAreStillListed) {
    if (void* real = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
        real != nullptr || (real = dlopen("libnvidia-ml.so.1", RTLD_LAZY)) != nullptr) {
        GTEST_SKIP() << "a real NVIDIA driver library is installed here";
    }
    SimulatedHost host;
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    CommandResult r = host.gpukill({"list", "--json"}, {{"GPUKILL_NVML_LIBRARY", ""}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto doc = nlohmann::json::parse(r.out);
    EXPECT_TRUE(doc["gpus"].empty());
    EXPECT_EQ(doc["backends"][0]["loaded"], false);
    const nlohmann::json* p = find_process(doc, w.pid());
    ASSERT_NE(p, nullptr);
    bool holds_nvidia0 = false;
    for (const auto& file : (*p)["device_files"]) {
        holds_nvidia0 |= file.get<std::string>().ends_with("/nvidia0");
    }
    EXPECT_TRUE(holds_nvidia0);
    CommandResult table = host.gpukill({"list"}, {{"GPUKILL_NVML_LIBRARY", ""}});
    EXPECT_NE(table.out.find("No GPUs found."), std::string::npos);
    EXPECT_NE(table.out.find(std::to_string(w.pid())), std::string::npos) << table.out;
}

TEST(List, VendorFilterHidesOtherVendorsGpusAndHolders) {
    SimulatedHost host;
    Workload w = host.run({"--gpu", "0", "--mem", "1G"});
    auto amd = host.list_json({"--vendor", "amd"});
    EXPECT_TRUE(amd["gpus"].empty());
    EXPECT_TRUE(amd["processes"].empty());
    auto nvidia = host.list_json({"--vendor", "nvidia"});
    EXPECT_EQ(nvidia["gpus"].size(), 2u);
    EXPECT_NE(find_process(nvidia, w.pid()), nullptr);
    EXPECT_EQ(host.gpukill({"list", "--vendor", "matrox"}).exit_code, 3);
}

TEST(List, OutputJsonIsTheSameAsJsonAndCompatFlagsWork) {
    SimulatedHost host;
    CommandResult a = host.gpukill({"--list", "--output", "json"});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    auto doc = nlohmann::json::parse(a.out);
    EXPECT_EQ(doc["gpus"].size(), 2u);
    EXPECT_EQ(host.gpukill({"list", "--output", "yaml"}).exit_code, 3);
    EXPECT_EQ(host.gpukill({"--frobnicate"}).exit_code, 3);
    // Kill options with list would be ignored silently: they are an error instead.
    EXPECT_EQ(host.gpukill({"list", "--pid", "5", "--force"}).exit_code, 3);
    EXPECT_EQ(host.gpukill({"99999", "doctor"}).exit_code, 3);
}

TEST(Watch, JsonWatchEmitsOneDocumentPerIntervalUntilInterrupted) {
    SimulatedHost host;
    RunningCommand watch({GPUKILL_BIN, "list", "--watch", "--interval", "0.1", "--json"},
                         host.env());
    for (int frame = 0; frame < 3; ++frame) {
        auto line = watch.read_line();
        ASSERT_TRUE(line.has_value()) << "frame " << frame;
        auto doc = nlohmann::json::parse(*line);
        EXPECT_EQ(doc["gpus"].size(), 2u);
    }
    // Frames are printed only once SIGTERM is blocked and waited for, so from here
    // on the signal ends the loop cleanly.
    watch.send_signal(SIGTERM);
    EXPECT_EQ(watch.wait(), 0);
}

TEST(Watch, TheTableIsRedrawnWithTheCurrentState) {
    SimulatedHost host;
    RunningCommand watch({GPUKILL_BIN, "list", "--watch", "--interval", "0.1"}, host.env());
    auto first = watch.read_line();
    ASSERT_TRUE(first.has_value());
    Workload w = host.run({"--gpu", "1", "--mem", "3G"});
    // Read frames until one shows the new workload: it must appear within a few frames.
    bool seen = false;
    for (int line = 0; line < 400 && !seen; ++line) {
        auto text = watch.read_line();
        ASSERT_TRUE(text.has_value());
        seen = text->find("3.0 GiB / ") != std::string::npos;
    }
    EXPECT_TRUE(seen);
    watch.send_signal(SIGINT);
    EXPECT_EQ(watch.wait(), 0);
}

TEST(Doctor, ReportsTheLoadedDriverAndVisibility) {
    SimulatedHost host(R"(driver:
  version: "550.54.15"
)");
    CommandResult r = host.gpukill({"doctor", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    auto doc = nlohmann::json::parse(r.out);
    bool saw_driver = false;
    for (const auto& check : doc["checks"]) {
        if (check["name"] == "backend nvml") {
            EXPECT_EQ(check["level"], "ok");
            saw_driver = check["detail"].get<std::string>().find("550.54.15") != std::string::npos;
        }
    }
    EXPECT_TRUE(saw_driver) << r.out;
}

}  // namespace
}  // namespace gpukill::testing
