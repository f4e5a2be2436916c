// The DRM fdinfo parser on fixture text in the formats the kernel's drivers print
// (tests/fixtures/proc/fdinfo): amdgpu 6.x and 6.1, amdgpu before 5.19, i915 on a
// discrete and an integrated GPU, xe, and fds that are not DRM clients.
#include "host/drm_fdinfo_parse.hpp"

#include <gtest/gtest.h>

#include "host_test_support.hpp"

namespace gpukill {
namespace {

constexpr std::uint64_t KiB = 1ULL << 10;
constexpr std::uint64_t MiB = 1ULL << 20;

using host_test::fixture;

DrmFdinfo parse_fixture(std::string_view name) {
    auto parsed = parse_drm_fdinfo(fixture("proc/fdinfo/" + std::string(name)));
    if (!parsed) throw std::runtime_error(std::string(name) + " did not parse as a DRM client");
    return *parsed;
}

const DrmEngineCounters* engine(const DrmFdinfo& info, std::string_view name) {
    for (const auto& e : info.engines) {
        if (e.name == name) return &e;
    }
    return nullptr;
}

const DrmMemoryRegion* region(const DrmFdinfo& info, std::string_view name) {
    for (const auto& r : info.regions) {
        if (r.name == name) return &r;
    }
    return nullptr;
}

TEST(DrmFdinfoParse, Amdgpu6xIdentifiesTheClientAndItsEngines) {
    DrmFdinfo info = parse_fixture("amdgpu_6x.txt");
    EXPECT_EQ(info.driver, "amdgpu");
    EXPECT_EQ(info.pdev, "0000:03:00.0");
    EXPECT_EQ(info.client_id, 49u);
    EXPECT_FALSE(info.legacy_amdgpu);
    ASSERT_NE(engine(info, "gfx"), nullptr);
    EXPECT_EQ(engine(info, "gfx")->busy_ns, 2203849031u);
    EXPECT_EQ(engine(info, "gfx")->capacity, 1u);
    EXPECT_EQ(engine(info, "dma")->busy_ns, 15209880u);
    EXPECT_EQ(engine(info, "compute")->busy_ns, 0u);
    EXPECT_EQ(info.engines.size(), 3u);
}

TEST(DrmFdinfoParse, Amdgpu6xMemoryIsResidentVramNotTheDeprecatedAlias) {
    DrmFdinfo info = parse_fixture("amdgpu_6x.txt");
    const DrmMemoryRegion* vram = region(info, "vram");
    ASSERT_NE(vram, nullptr);
    EXPECT_EQ(vram->resident_bytes, 1536 * MiB);
    EXPECT_EQ(vram->total_bytes, 1540 * MiB);
    EXPECT_EQ(vram->legacy_bytes, 1576960 * KiB);
    EXPECT_EQ(vram->shared_bytes, 0u);
    // "drm-memory-gtt: \t2048 KiB": the space before the tab is amdgpu's own.
    EXPECT_EQ(region(info, "gtt")->legacy_bytes, 2048 * KiB);
    EXPECT_EQ(region(info, "gtt")->resident_bytes, 2 * MiB);
    EXPECT_EQ(client_gpu_memory_bytes(info), 1536 * MiB);  // gtt and cpu are host RAM
}

TEST(DrmFdinfoParse, Amdgpu61HasOnlyTheDeprecatedMemoryKeys) {
    DrmFdinfo info = parse_fixture("amdgpu_6_1.txt");
    EXPECT_EQ(info.client_id, 17u);
    EXPECT_EQ(region(info, "vram")->resident_bytes, std::nullopt);
    EXPECT_EQ(client_gpu_memory_bytes(info), 512 * MiB);
    EXPECT_EQ(engine(info, "gfx")->busy_ns, 98765432u);
}

TEST(DrmFdinfoParse, OldAmdgpuGivesPercentagesPasidAndKilobytes) {
    DrmFdinfo info = parse_fixture("amdgpu_5_15.txt");
    EXPECT_TRUE(info.legacy_amdgpu);
    EXPECT_EQ(info.driver, "amdgpu");
    EXPECT_EQ(info.pdev, "0000:03:00.0");
    EXPECT_EQ(info.client_id, 32770u);  // pasid: one per open file
    ASSERT_NE(engine(info, "gfx0"), nullptr);
    EXPECT_DOUBLE_EQ(*engine(info, "gfx0")->busy_percent, 45.12);
    EXPECT_DOUBLE_EQ(*engine(info, "compute1")->busy_percent, 61.5);
    EXPECT_DOUBLE_EQ(*engine(info, "dma0")->busy_percent, 0.1);
    EXPECT_EQ(engine(info, "gfx0")->busy_ns, std::nullopt);
    EXPECT_EQ(region(info, "vram")->legacy_bytes, 1048576 * KiB);
    EXPECT_EQ(region(info, "gtt")->legacy_bytes, 8192 * KiB);
    EXPECT_EQ(client_gpu_memory_bytes(info), 1048576 * KiB);
}

TEST(DrmFdinfoParse, I915EnginesCarryTheirCapacity) {
    DrmFdinfo info = parse_fixture("i915_dg2.txt");
    EXPECT_EQ(info.driver, "i915");
    EXPECT_EQ(info.client_id, 12u);
    EXPECT_EQ(engine(info, "render")->busy_ns, 25662044495u);
    EXPECT_EQ(engine(info, "render")->capacity, 1u);
    EXPECT_EQ(engine(info, "video")->capacity, 2u);
    // An engine name with a hyphen is not mistaken for the capacity key of another.
    ASSERT_NE(engine(info, "video-enhance"), nullptr);
    EXPECT_EQ(engine(info, "video-enhance")->capacity, 2u);
    EXPECT_EQ(engine(info, "compute")->capacity, 4u);
    EXPECT_EQ(info.engines.size(), 5u);
}

TEST(DrmFdinfoParse, I915DiscreteCountsLocalMemoryOnly) {
    DrmFdinfo info = parse_fixture("i915_dg2.txt");
    EXPECT_EQ(region(info, "local0")->resident_bytes, 512 * MiB);
    EXPECT_EQ(region(info, "system0")->resident_bytes, 4 * MiB);
    EXPECT_EQ(client_gpu_memory_bytes(info), 512 * MiB);
}

TEST(DrmFdinfoParse, AnIntegratedGpuCountsSystemMemory) {
    DrmFdinfo info = parse_fixture("i915_igpu.txt");
    EXPECT_EQ(info.pdev, "0000:00:02.0");
    EXPECT_EQ(client_gpu_memory_bytes(info), 96 * MiB);
}

TEST(DrmFdinfoParse, XeReportsCyclesAgainstTheGpuClock) {
    DrmFdinfo info = parse_fixture("xe.txt");
    EXPECT_EQ(info.driver, "xe");
    EXPECT_EQ(info.client_id, 4u);
    const DrmEngineCounters* rcs = engine(info, "rcs");
    ASSERT_NE(rcs, nullptr);
    EXPECT_EQ(rcs->cycles, 28257900u);
    EXPECT_EQ(rcs->total_cycles, 7655183225u);
    EXPECT_EQ(rcs->busy_ns, std::nullopt);
    EXPECT_EQ(engine(info, "ccs")->capacity, 4u);
    EXPECT_EQ(engine(info, "vcs")->capacity, 2u);
    EXPECT_EQ(info.engines.size(), 5u);
    // No "total-cycles" region was invented from drm-total-cycles-*.
    EXPECT_EQ(region(info, "cycles-rcs"), nullptr);
    EXPECT_EQ(client_gpu_memory_bytes(info), 23992 * KiB);  // vram0, not system or gtt
}

TEST(DrmFdinfoParse, OrdinaryFilesAndKfdAreNotDrmClients) {
    EXPECT_EQ(parse_drm_fdinfo(fixture("proc/fdinfo/regular_file.txt")), std::nullopt);
    EXPECT_EQ(parse_drm_fdinfo(fixture("proc/fdinfo/kfd.txt")), std::nullopt);
    EXPECT_EQ(parse_drm_fdinfo(""), std::nullopt);
    // An eventfd's fdinfo has keys of its own; still not DRM.
    EXPECT_EQ(parse_drm_fdinfo("pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t1057\n"
                               "eventfd-count:                0\neventfd-id: 2\n"),
              std::nullopt);
}

TEST(DrmFdinfoParse, UnitsAndWhitespaceFollowTheSpec) {
    auto info = parse_drm_fdinfo(
        "drm-driver: panfrost\n"
        "drm-client-id:\t3\n"
        "drm-resident-memory:   1024\n"  // bytes without a unit
        "drm-total-memory:\t3 MiB\n"
        "drm-engine-fragment:\t100 ns\n"
        "drm-cycles-fragment:\t5000\n"
        "drm-maxfreq-fragment:\t800000000 Hz\n"  // ignored
        "drm-curfreq-fragment:\t400000000 Hz\n"
        "drm-engine-capacity-fragment:\t0\n"  // zero is not allowed: stays 1
        "drm-future-key:\tsomething\n");
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->driver, "panfrost");
    EXPECT_EQ(info->pdev, std::nullopt);
    ASSERT_EQ(info->engines.size(), 1u);
    EXPECT_EQ(info->engines[0].busy_ns, 100u);
    EXPECT_EQ(info->engines[0].cycles, 5000u);
    EXPECT_EQ(info->engines[0].capacity, 1u);
    ASSERT_EQ(info->regions.size(), 1u);
    EXPECT_EQ(info->regions[0].resident_bytes, 1024u);
    EXPECT_EQ(info->regions[0].total_bytes, 3 * MiB);
    EXPECT_EQ(client_gpu_memory_bytes(*info), 1024u);  // platform GPU: system memory
}

TEST(DrmFdinfoParse, MalformedValuesAreUnknownNotGuessed) {
    auto info = parse_drm_fdinfo(
        "drm-driver:\tamdgpu\n"
        "drm-client-id:\tabc\n"
        "drm-pdev:\tnot-a-bus-id\n"
        "drm-engine-gfx:\t12 parsecs\n"
        "drm-resident-vram:\t-5 KiB\n"
        "drm-total-vram:\t99999999999999999999 KiB\n");
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->client_id, std::nullopt);
    EXPECT_EQ(info->pdev, std::nullopt);
    EXPECT_EQ(info->engines[0].busy_ns, std::nullopt);
    EXPECT_EQ(info->regions[0].resident_bytes, std::nullopt);
    EXPECT_EQ(info->regions[0].total_bytes, std::nullopt);
    EXPECT_EQ(client_gpu_memory_bytes(*info), std::nullopt);
}

TEST(DrmFdinfoParse, NoMemoryKeysMeansUnknownMemory) {
    auto info = parse_drm_fdinfo("drm-driver:\tv3d\ndrm-client-id:\t9\ndrm-engine-bin:\t5 ns\n");
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(client_gpu_memory_bytes(*info), std::nullopt);
}

}  // namespace
}  // namespace gpukill
