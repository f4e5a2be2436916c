// /proc/PID/maps lines as the kernel writes them. Fixtures:
//   proc/maps/mapped_holder.txt: real lines, read from /proc/self/maps of a process that
//     mapped regular files standing in for device nodes under /tmp/mapcap/dev (as gpusim's
//     are), closed their descriptors, unlinked one, mapped shared anonymous memory, a memfd
//     and a file with a newline in its name; with its heap, libc, stack, vdso, vsyscall.
//   proc/maps/cuda_devtmpfs.txt: a CUDA process's lines on a real driver (nodes on devtmpfs,
//     00:05), written in the kernel's layout (fields padded so the path starts at column 74),
//     with a root filesystem on NVMe (major 259, printed 103).
#include <gtest/gtest.h>

#include <sys/sysmacros.h>

#include <string>
#include <vector>

#include "host/proc_maps_parse.hpp"
#include "host_test_support.hpp"
#include "model/parse_util.hpp"

namespace gpukill {
namespace {

std::vector<std::string> fixture_lines(std::string_view name) {
    std::vector<std::string> lines;
    const std::string text = host_test::fixture(std::string("proc/maps/") + std::string(name));
    text::for_each_line(text, [&](std::string_view line) { lines.emplace_back(line); });
    return lines;
}

TEST(ProcMapsParse, ADeviceNodeMappingOnDevtmpfs) {
    const auto lines = fixture_lines("cuda_devtmpfs.txt");
    ASSERT_EQ(lines.size(), 14u);
    const auto gpu = parse_maps_line(lines[6]);
    ASSERT_TRUE(gpu);
    EXPECT_EQ(gpu->range, "7f21d0e00000-7f21d0e01000");
    EXPECT_EQ(gpu->device, ::makedev(0, 5));
    EXPECT_EQ(gpu->inode, 1052u);
    EXPECT_EQ(gpu->path, "/dev/nvidia0");

    const auto at_offset = parse_maps_line(lines[7]);  // an offset into the node
    ASSERT_TRUE(at_offset);
    EXPECT_EQ(at_offset->path, "/dev/nvidia1");
    EXPECT_EQ(at_offset->inode, 1053u);

    const auto low = parse_maps_line(lines[1]);  // nine hex digits: CUDA's fixed addresses
    ASSERT_TRUE(low);
    EXPECT_EQ(low->range, "200200000-200400000");
    EXPECT_EQ(low->path, "/dev/nvidiactl");
}

TEST(ProcMapsParse, AMajorNumberAboveTwoHexDigits) {
    const auto lines = fixture_lines("cuda_devtmpfs.txt");
    const auto python = parse_maps_line(lines[4]);
    ASSERT_TRUE(python);
    EXPECT_EQ(::major(python->device), 259u);
    EXPECT_EQ(::minor(python->device), 2u);
    EXPECT_EQ(python->inode, 1835443u);
    EXPECT_EQ(python->path, "/usr/bin/python3.11");
}

TEST(ProcMapsParse, AnonymousMemoryHasNoPathWithOrWithoutItsTrailingSpace) {
    const auto lines = fixture_lines("cuda_devtmpfs.txt");
    const auto reserved = parse_maps_line(lines[0]);  // "... 00:00 0 " as the kernel ends it
    ASSERT_TRUE(reserved);
    EXPECT_EQ(reserved->device, ::makedev(0, 0));
    EXPECT_EQ(reserved->inode, 0u);
    EXPECT_TRUE(reserved->path.empty());
    const auto trimmed = parse_maps_line("7f21c8000000-7f21c8021000 rw-p 00000000 00:00 0");
    ASSERT_TRUE(trimmed);
    EXPECT_TRUE(trimmed->path.empty());
    EXPECT_EQ(parse_maps_line(lines[13])->path, "[stack]");
}

TEST(ProcMapsParse, RealLinesOfAProcessHoldingNodesByMappingAlone) {
    const auto lines = fixture_lines("mapped_holder.txt");
    std::vector<std::string> paths;
    for (const std::string& line : lines) {
        const auto parsed = parse_maps_line(line);
        ASSERT_TRUE(parsed) << line;
        // The quick look at the path agrees with the full parse on every line.
        EXPECT_EQ(maps_line_path(line), parsed->path) << line;
        if (parsed->path.starts_with("/tmp/mapcap/")) paths.emplace_back(parsed->path);
    }
    EXPECT_EQ(paths, (std::vector<std::string>{
                         "/tmp/mapcap/odd\\012name", "/tmp/mapcap/dev/nvidia1 (deleted)",
                         "/tmp/mapcap/dev/dri/renderD128", "/tmp/mapcap/dev/nvidia0",
                         "/tmp/mapcap/dev/nvidia-uvm", "/tmp/mapcap/dev/nvidiactl"}));
    const auto node = parse_maps_line(lines[15]);  // nvidiactl, a regular file
    ASSERT_TRUE(node);
    EXPECT_EQ(node->path, "/tmp/mapcap/dev/nvidiactl");
    EXPECT_EQ(node->device, ::makedev(0xfe, 0));
    EXPECT_EQ(node->inode, 10953399u);
}

TEST(ProcMapsParse, SharedAnonymousMemoryIsNamedAfterDevZeroNotAGpu) {
    const auto lines = fixture_lines("mapped_holder.txt");
    bool seen = false;
    for (const std::string& line : lines) {
        const auto parsed = parse_maps_line(line);
        if (parsed && parsed->path == "/dev/zero (deleted)") {
            seen = true;
            EXPECT_EQ(parsed->device, ::makedev(0, 1));  // shmem, not the device
        }
    }
    EXPECT_TRUE(seen);
}

TEST(ProcMapsParse, WhatIsNotAMapsLineIsRefused) {
    for (const char* line :
         {"", "7f00-7f01", "7f00-7f01 rw-s", "7f00-7f01 rw-s 0 00:05",
          "7f00 rw-s 00000000 00:05 12 /dev/nvidia0", "7f00-zz rw-s 00000000 00:05 12 /dev/nvidia0",
          "7f00-7f01 rw-s 00000000 0005 12 /dev/nvidia0",
          "7f00-7f01 rw-s 00000000 00:05 -12 /dev/nvidia0",
          "7f00-7f01 rws 00000000 00:05 12 /dev/nvidia0"}) {
        EXPECT_FALSE(parse_maps_line(line)) << line;
    }
    EXPECT_TRUE(maps_line_path("no fields here").empty());
    EXPECT_TRUE(maps_line_path("").empty());
}

}  // namespace
}  // namespace gpukill
