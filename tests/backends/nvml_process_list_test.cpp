#include "backends/nvml/nvml_process_list.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace gpukill::nvml {
namespace {

template <class Entry>
std::vector<std::byte> to_bytes(const std::vector<Entry>& entries) {
    std::vector<std::byte> bytes(entries.size() * sizeof(Entry));
    std::memcpy(bytes.data(), entries.data(), bytes.size());
    return bytes;
}

TEST(NvmlProcessList, V2EntriesAreReadWithA24ByteStride) {
    std::vector<nvmlProcessInfo_v2_t> entries = {{1111, 4ULL << 30, 0xFFFFFFFF, 0xFFFFFFFF},
                                                 {2222, 512ULL << 20, 0xFFFFFFFF, 0xFFFFFFFF},
                                                 {3333, 1ULL << 30, 0xFFFFFFFF, 0xFFFFFFFF}};
    auto processes = decode_process_entries(to_bytes(entries), 3, ProcessListAbi::v2,
                                            DriverProcessKind::compute);
    ASSERT_EQ(processes.size(), 3u);
    EXPECT_EQ(processes[0].pid, 1111);
    EXPECT_EQ(processes[1].pid, 2222);
    EXPECT_EQ(processes[2].pid, 3333);
    EXPECT_EQ(processes[1].memory_bytes, 512ULL << 20);
}

TEST(NvmlProcessList, V1EntriesAreReadWithA16ByteStride) {
    std::vector<nvmlProcessInfo_v1_t> entries = {{10, 100}, {20, 200}};
    auto processes = decode_process_entries(to_bytes(entries), 2, ProcessListAbi::v1,
                                            DriverProcessKind::graphics);
    ASSERT_EQ(processes.size(), 2u);
    EXPECT_EQ(processes[1].pid, 20);
    EXPECT_EQ(processes[1].memory_bytes, 200u);
    EXPECT_EQ(processes[1].kind, DriverProcessKind::graphics);
}

TEST(NvmlProcessList, ReadingV2EntriesWithA32ByteStrideWouldGarbleThem) {
    // The R535 failure: 24-byte entries read as 32-byte ones lose every other PID.
    std::vector<nvmlProcessInfo_v2_t> entries = {
        {1111, 1, 0, 0}, {2222, 2, 0, 0}, {3333, 3, 0, 0}, {4444, 4, 0, 0}};
    auto bytes = to_bytes(entries);
    auto processes =
        decode_process_entries(bytes, 4, ProcessListAbi::v2, DriverProcessKind::compute);
    std::vector<pid_t> pids;
    for (const auto& p : processes) pids.push_back(p.pid);
    EXPECT_EQ(pids, (std::vector<pid_t>{1111, 2222, 3333, 4444}));
    EXPECT_EQ(process_entry_size(ProcessListAbi::v2), 24u);
}

TEST(NvmlProcessList, NotAvailableMemoryIsUnknownNotSixteenExbibytes) {
    std::vector<nvmlProcessInfo_v2_t> entries = {{77, NVML_VALUE_NOT_AVAILABLE, 0, 0}};
    auto processes = decode_process_entries(to_bytes(entries), 1, ProcessListAbi::v2,
                                            DriverProcessKind::compute);
    ASSERT_EQ(processes.size(), 1u);
    EXPECT_FALSE(processes[0].memory_bytes.has_value());
}

TEST(NvmlProcessList, CountBeyondTheBufferIsClamped) {
    std::vector<nvmlProcessInfo_v1_t> entries = {{1, 1}};
    auto processes = decode_process_entries(to_bytes(entries), 5, ProcessListAbi::v1,
                                            DriverProcessKind::compute);
    EXPECT_EQ(processes.size(), 1u);
}

TEST(NvmlProcessList, MergeKeepsOneEntryPerPidWithTheLargerMemory) {
    std::vector<DriverProcess> compute = {{5, 100, DriverProcessKind::compute},
                                          {6, std::nullopt, DriverProcessKind::compute}};
    std::vector<DriverProcess> graphics = {{5, 300, DriverProcessKind::graphics},
                                           {6, 50, DriverProcessKind::graphics},
                                           {7, 10, DriverProcessKind::graphics}};
    merge_driver_processes(compute, graphics);
    ASSERT_EQ(compute.size(), 3u);
    EXPECT_EQ(compute[0].memory_bytes, 300u);
    EXPECT_EQ(compute[0].kind, DriverProcessKind::compute);
    EXPECT_EQ(compute[1].memory_bytes, 50u);
    EXPECT_EQ(compute[2].pid, 7);
}

}  // namespace
}  // namespace gpukill::nvml

namespace gpukill::nvml {
namespace {

TEST(NvmlProcessListSanity, PidsThatCannotNameAProcessAreDropped) {
    std::vector<nvmlProcessInfo_v2_t> entries = {
        {0, 1, 0, 0}, {0xFFFFFFFFu, 2, 0, 0}, {4242, 3, 0, 0}};
    std::vector<std::byte> bytes(entries.size() * sizeof(nvmlProcessInfo_v2_t));
    std::memcpy(bytes.data(), entries.data(), bytes.size());
    auto processes =
        decode_process_entries(bytes, 3, ProcessListAbi::v2, DriverProcessKind::compute);
    ASSERT_EQ(processes.size(), 1u);
    EXPECT_EQ(processes[0].pid, 4242);
}

}  // namespace
}  // namespace gpukill::nvml
