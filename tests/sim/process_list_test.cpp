// The running-process queries byte for byte: entry strides, the sizing handshake, memory the
// driver cannot attribute, and the legacy driver's older queries.

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

#include "nvml_fixture.hpp"
#include "workload_guard.hpp"

namespace {

using namespace nvml_client;
using gpusim_test::NvmlTest;
using gpusim_test::Workload;

constexpr unsigned long long kGiB = 1ULL << 30;
constexpr unsigned char kFill = 0xAB;

template <class T>
T read_at(const std::vector<unsigned char>& bytes, std::size_t offset) {
    T value{};
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return value;
}

class ProcessListTest : public NvmlTest {
  protected:
    // Starts two workloads on GPU 0 (1 GiB and 2 GiB) and returns pid -> bytes.
    std::map<unsigned int, unsigned long long> start_two() {
        first_ = std::make_unique<Workload>(
            std::vector<std::string>{"--root", root_arg(), "--gpu", "0", "--mem", "1G"});
        second_ = std::make_unique<Workload>(
            std::vector<std::string>{"--root", root_arg(), "--gpu", "0", "--mem", "2G"});
        EXPECT_TRUE(first_->ready()) << first_->failure_text();
        EXPECT_TRUE(second_->ready()) << second_->failure_text();
        return {{static_cast<unsigned int>(first_->pid()), kGiB},
                {static_cast<unsigned int>(second_->pid()), 2 * kGiB}};
    }

    // Calls `name` with a buffer of `capacity` entries of `stride` bytes pre-filled with kFill.
    Return call_list(const char* name, std::size_t stride, unsigned int capacity,
                     unsigned int* count, std::vector<unsigned char>& bytes) const {
        bytes.assign(stride * capacity, kFill);
        *count = capacity;
        const auto list = nvml().fn<Return(Device, unsigned int*, void*)>(name);
        EXPECT_NE(list, nullptr) << name;
        return list(nvml().device(0), count, bytes.data());
    }

    std::unique_ptr<Workload> first_;
    std::unique_ptr<Workload> second_;
};

TEST_F(ProcessListTest, V2AndV3WriteTwentyFourByteEntries) {
    ASSERT_NO_FATAL_FAILURE(start());
    const auto expected = start_two();
    for (const char* name :
         {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"}) {
        std::vector<unsigned char> bytes;
        unsigned int count = 0;
        ASSERT_EQ(call_list(name, 24, 3, &count, bytes), kSuccess) << name;
        ASSERT_EQ(count, 2U) << name;
        std::map<unsigned int, unsigned long long> seen;
        for (std::size_t i = 0; i < count; ++i) {
            seen[read_at<unsigned int>(bytes, i * 24)] =
                read_at<unsigned long long>(bytes, i * 24 + 8);
            EXPECT_EQ(read_at<unsigned int>(bytes, i * 24 + 16), 0xFFFFFFFFU) << name;
            EXPECT_EQ(read_at<unsigned int>(bytes, i * 24 + 20), 0xFFFFFFFFU) << name;
        }
        EXPECT_EQ(seen, expected) << name;
        for (std::size_t i = 48; i < bytes.size(); ++i) {
            ASSERT_EQ(bytes[i], kFill) << name << ": wrote past two entries at byte " << i;
        }
    }
}

TEST_F(ProcessListTest, PlainQueryWritesSixteenByteEntries) {
    ASSERT_NO_FATAL_FAILURE(start());
    const auto expected = start_two();
    std::vector<unsigned char> bytes;
    unsigned int count = 0;
    ASSERT_EQ(call_list("nvmlDeviceGetComputeRunningProcesses", 16, 3, &count, bytes), kSuccess);
    ASSERT_EQ(count, 2U);
    std::map<unsigned int, unsigned long long> seen;
    for (std::size_t i = 0; i < count; ++i) {
        seen[read_at<unsigned int>(bytes, i * 16)] = read_at<unsigned long long>(bytes, i * 16 + 8);
    }
    EXPECT_EQ(seen, expected);
    for (std::size_t i = 32; i < bytes.size(); ++i) ASSERT_EQ(bytes[i], kFill) << i;
}

TEST_F(ProcessListTest, TheSizingHandshakeReportsTheNumberNeeded) {
    ASSERT_NO_FATAL_FAILURE(start());
    start_two();
    const auto list = nvml().fn<Return(Device, unsigned int*, ProcessV2*)>(
        "nvmlDeviceGetComputeRunningProcesses_v3");
    unsigned int count = 0;
    EXPECT_EQ(list(nvml().device(0), &count, nullptr), kInsufficientSize);
    EXPECT_EQ(count, 2U);

    std::vector<unsigned char> bytes;
    EXPECT_EQ(call_list("nvmlDeviceGetComputeRunningProcesses_v3", 24, 1, &count, bytes),
              kInsufficientSize);
    EXPECT_EQ(count, 2U);
    for (unsigned char byte : bytes) ASSERT_EQ(byte, kFill);  // nothing written

    EXPECT_EQ(call_list("nvmlDeviceGetComputeRunningProcesses_v3", 24, 2, &count, bytes), kSuccess);
    EXPECT_EQ(count, 2U);
    // The other lists stay empty whatever runs.
    EXPECT_EQ(call_list("nvmlDeviceGetGraphicsRunningProcesses_v3", 24, 2, &count, bytes),
              kSuccess);
    EXPECT_EQ(count, 0U);
}

TEST_F(ProcessListTest, MemoryNotAvailableHidesPerProcessMemoryOnly) {
    ASSERT_NO_FATAL_FAILURE(start("gpus: [{failures: {memory_not_available: true}}]\n"));
    Workload workload({"--root", root_arg(), "--gpu", "0", "--mem", "1G"});
    ASSERT_TRUE(workload.ready()) << workload.failure_text();

    const auto entries = processes(0);
    ASSERT_EQ(entries.size(), 1U);
    EXPECT_EQ(entries[0].pid, static_cast<unsigned int>(workload.pid()));
    EXPECT_EQ(entries[0].used_gpu_memory, kValueNotAvailable);

    ProcessV1 plain[2] = {};
    unsigned int count = 2;
    ASSERT_EQ(nvml().fn<Return(Device, unsigned int*, ProcessV1*)>(
                  "nvmlDeviceGetComputeRunningProcesses")(nvml().device(0), &count, plain),
              kSuccess);
    ASSERT_EQ(count, 1U);
    EXPECT_EQ(plain[0].used_gpu_memory, kValueNotAvailable);

    EXPECT_EQ(used(0), kGiB);  // the device total still counts it
}

TEST_F(ProcessListTest, TheLegacyDriverListsThroughItsOlderQueries) {
    ASSERT_NO_FATAL_FAILURE(start("driver: {legacy: true}\n", GPUSIM_LEGACY_NVML_LIBRARY));
    Workload workload({"--root", root_arg(), "--gpu", "0", "--mem", "3G"});
    ASSERT_TRUE(workload.ready()) << workload.failure_text();
    const auto pid = static_cast<unsigned int>(workload.pid());

    std::vector<unsigned char> bytes;
    unsigned int count = 0;
    ASSERT_EQ(call_list("nvmlDeviceGetComputeRunningProcesses", 16, 2, &count, bytes), kSuccess);
    ASSERT_EQ(count, 1U);
    EXPECT_EQ(read_at<unsigned int>(bytes, 0), pid);
    EXPECT_EQ(read_at<unsigned long long>(bytes, 8), 3 * kGiB);

    ASSERT_EQ(call_list("nvmlDeviceGetComputeRunningProcesses_v2", 24, 2, &count, bytes), kSuccess);
    ASSERT_EQ(count, 1U);
    EXPECT_EQ(read_at<unsigned int>(bytes, 0), pid);

    Memory memory{};
    ASSERT_EQ(
        nvml().fn<Return(Device, Memory*)>("nvmlDeviceGetMemoryInfo")(nvml().device(0), &memory),
        kSuccess);
    EXPECT_EQ(memory.used, 3 * kGiB);
}

}  // namespace
