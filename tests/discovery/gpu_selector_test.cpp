#include "discovery/gpu_selector.hpp"

#include <gtest/gtest.h>

namespace gpukill {
namespace {

std::vector<Gpu> two_gpus() {
    std::vector<Gpu> gpus(2);
    gpus[0].index = 0;
    gpus[0].reading.uuid = "GPU-1a2b3c4d-0000-1111-2222-333344445555";
    gpus[0].reading.pci_bus_id = "0000:18:00.0";
    gpus[1].index = 1;
    gpus[1].reading.uuid = "GPU-1a2b9999-0000-1111-2222-333344445555";
    gpus[1].reading.pci_bus_id = "0000:2a:00.0";
    return gpus;
}

TEST(GpuSelector, AcceptsIndexUuidUuidPrefixAndBothBusIdSpellings) {
    auto gpus = two_gpus();
    EXPECT_EQ(resolve_gpu_selector("1", gpus), 1u);
    EXPECT_EQ(resolve_gpu_selector("GPU-1a2b3c4d-0000-1111-2222-333344445555", gpus), 0u);
    EXPECT_EQ(resolve_gpu_selector("gpu-1A2B99", gpus), 1u);
    EXPECT_EQ(resolve_gpu_selector("00000000:2A:00.0", gpus), 1u);
    EXPECT_EQ(resolve_gpu_selector("0000:18:00.0", gpus), 0u);
}

TEST(GpuSelector, RejectsOutOfRangeAmbiguousAndGarbageWithAReason) {
    auto gpus = two_gpus();
    auto out_of_range = resolve_gpu_selector("2", gpus);
    ASSERT_FALSE(out_of_range);
    EXPECT_NE(out_of_range.error().what.find("GPUs 0-1"), std::string::npos);
    auto ambiguous = resolve_gpu_selector("GPU-1a2b", gpus);
    ASSERT_FALSE(ambiguous);
    EXPECT_NE(ambiguous.error().what.find("matches 2 GPUs"), std::string::npos);
    EXPECT_FALSE(resolve_gpu_selector("-1", gpus));
    EXPECT_FALSE(resolve_gpu_selector("", gpus));
    EXPECT_FALSE(resolve_gpu_selector("0000:99:00.0", gpus));
    EXPECT_FALSE(resolve_gpu_selector("99999999999999999999", gpus));
}

TEST(GpuSelector, RestrictKeepsOnlyProcessesOnTheSelectedGpu) {
    Snapshot s;
    s.gpus = two_gpus();
    SnapshotProcess on_zero;
    on_zero.info.pid = 10;
    on_zero.gpus.push_back({.gpu_index = 0});
    SnapshotProcess on_both;
    on_both.info.pid = 11;
    on_both.gpus.push_back({.gpu_index = 0});
    on_both.gpus.push_back({.gpu_index = 1});
    s.processes = {on_zero, on_both};
    Snapshot r = restrict_to_gpus(s, {1});
    ASSERT_EQ(r.gpus.size(), 1u);
    EXPECT_EQ(r.gpus[0].index, 1u);
    ASSERT_EQ(r.processes.size(), 1u);
    EXPECT_EQ(r.processes[0].info.pid, 11);
    ASSERT_EQ(r.processes[0].gpus.size(), 1u);
    EXPECT_EQ(r.processes[0].gpus[0].gpu_index, 1u);
}

TEST(VendorFilter, ParsesKnownVendorsAndRejectsOthers) {
    EXPECT_EQ(parse_vendor_filter("all").value(), std::optional<Vendor>{});
    EXPECT_EQ(parse_vendor_filter("amd").value(), std::optional<Vendor>{Vendor::amd});
    EXPECT_FALSE(parse_vendor_filter("NVIDIA "));
}

}  // namespace
}  // namespace gpukill
