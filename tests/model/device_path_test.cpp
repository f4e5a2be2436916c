// classify_device_path: exact recognition of GPU device nodes under a devfs root.
#include <gtest/gtest.h>

#include <string>

#include "model/device_node.hpp"

namespace gpukill {
namespace {

std::optional<DeviceNode> classify(std::string_view link) {
    return classify_device_path(link, "/dev");
}

void expect_kind(std::string_view link, DeviceNodeKind kind, std::string_view relative) {
    auto node = classify(link);
    ASSERT_TRUE(node) << link;
    EXPECT_EQ(node->kind, kind) << link;
    EXPECT_EQ(node->relative_path, relative) << link;
    EXPECT_FALSE(node->pci_bus_id) << "classification alone never touches sysfs";
}

TEST(ClassifyDevicePath, NvidiaNodes) {
    auto gpu = classify("/dev/nvidia0");
    ASSERT_TRUE(gpu);
    EXPECT_EQ(gpu->kind, DeviceNodeKind::nvidia_gpu);
    EXPECT_EQ(gpu->relative_path, "nvidia0");
    EXPECT_EQ(gpu->nvidia_minor, 0u);
    EXPECT_FALSE(gpu->dri_minor);

    auto gpu7 = classify("/dev/nvidia17");
    ASSERT_TRUE(gpu7);
    EXPECT_EQ(gpu7->nvidia_minor, 17u);

    expect_kind("/dev/nvidiactl", DeviceNodeKind::nvidia_ctl, "nvidiactl");
    expect_kind("/dev/nvidia-modeset", DeviceNodeKind::nvidia_ctl, "nvidia-modeset");
    expect_kind("/dev/nvidia-uvm", DeviceNodeKind::nvidia_uvm, "nvidia-uvm");
    expect_kind("/dev/nvidia-uvm-tools", DeviceNodeKind::nvidia_uvm, "nvidia-uvm-tools");
    expect_kind("/dev/nvidia-caps/nvidia-cap1", DeviceNodeKind::nvidia_caps,
                "nvidia-caps/nvidia-cap1");
    expect_kind("/dev/nvidia-caps/nvidia-cap2190", DeviceNodeKind::nvidia_caps,
                "nvidia-caps/nvidia-cap2190");
    expect_kind("/dev/nvidia-caps-imex-channels/channel0", DeviceNodeKind::nvidia_caps,
                "nvidia-caps-imex-channels/channel0");
}

TEST(ClassifyDevicePath, DriKfdAccel) {
    auto card = classify("/dev/dri/card1");
    ASSERT_TRUE(card);
    EXPECT_EQ(card->kind, DeviceNodeKind::dri_card);
    EXPECT_EQ(card->dri_minor, 1u);
    EXPECT_EQ(card->relative_path, "dri/card1");
    EXPECT_FALSE(card->nvidia_minor);

    auto render = classify("/dev/dri/renderD128");
    ASSERT_TRUE(render);
    EXPECT_EQ(render->kind, DeviceNodeKind::dri_render);
    EXPECT_EQ(render->dri_minor, 128u);

    expect_kind("/dev/kfd", DeviceNodeKind::kfd, "kfd");
    expect_kind("/dev/accel/accel0", DeviceNodeKind::accel, "accel/accel0");
}

TEST(ClassifyDevicePath, NearMissesAreNotGpuNodes) {
    for (std::string_view link : {"/dev/nvidia",
                                  "/dev/nvidia0x",
                                  "/dev/nvidia-0",
                                  "/dev/nvidia00",
                                  "/dev/nvidia01",
                                  "/dev/nvidia+1",
                                  "/dev/nvidia 0",
                                  "/dev/nvidiactl2",
                                  "/dev/nvidia-uvm0",
                                  "/dev/nvidia-caps/nvidia-cap",
                                  "/dev/nvidia-caps",
                                  "/dev/nvidia-nvswitch0",
                                  "/dev/nvidia-nvswitchctl",
                                  "/dev/nvidia99999999999",
                                  "/dev/dri/card",
                                  "/dev/dri/cardX",
                                  "/dev/dri/renderD",
                                  "/dev/dri/controlD64",
                                  "/dev/dri/by-path/pci-0000:03:00.0-card",
                                  "/dev/dri",
                                  "/dev/kfd2",
                                  "/dev/kfd/x",
                                  "/dev/accel/accel",
                                  "/dev/accel0",
                                  "/dev/null",
                                  "/dev/",
                                  "/dev",
                                  "",
                                  "/dev//nvidia0",
                                  "/dev/./nvidia0",
                                  "/devnvidia0",
                                  "/device/nvidia0",
                                  "/home/u/dev/nvidia0",
                                  "/tmp/nvidia0",
                                  "nvidia0",
                                  "dev/nvidia0",
                                  "socket:[41234]",
                                  "pipe:[1]",
                                  "anon_inode:[eventfd]",
                                  "/dev/nvidia0/"}) {
        EXPECT_FALSE(classify(link)) << link;
    }
}

TEST(ClassifyDevicePath, DeletedNodeStillHoldsTheDevice) {
    auto node = classify("/dev/nvidia3 (deleted)");
    ASSERT_TRUE(node);
    EXPECT_EQ(node->kind, DeviceNodeKind::nvidia_gpu);
    EXPECT_EQ(node->nvidia_minor, 3u);
    EXPECT_EQ(node->relative_path, "nvidia3");
    EXPECT_FALSE(classify("/dev/nvidia3 (deleted) (deleted)"));
}

TEST(ClassifyDevicePath, RelocatedDevfsRoot) {
    auto node = classify_device_path("/tmp/sim/dev/nvidia2", "/tmp/sim/dev");
    ASSERT_TRUE(node);
    EXPECT_EQ(node->nvidia_minor, 2u);
    EXPECT_EQ(node->relative_path, "nvidia2");

    auto render = classify_device_path("/tmp/sim/dev/dri/renderD129", "/tmp/sim/dev///");
    ASSERT_TRUE(render);
    EXPECT_EQ(render->relative_path, "dri/renderD129");

    // The real /dev is outside a relocated root, and vice versa.
    EXPECT_FALSE(classify_device_path("/dev/nvidia0", "/tmp/sim/dev"));
    EXPECT_FALSE(classify_device_path("/tmp/sim/dev/nvidia0", "/dev"));
    EXPECT_FALSE(classify_device_path("/tmp/sim/devx/nvidia0", "/tmp/sim/dev"));
    EXPECT_FALSE(classify_device_path("/tmp/sim/dev", "/tmp/sim/dev"));
}

TEST(ClassifyDevicePath, TrailingSlashAndRootDevfs) {
    EXPECT_TRUE(classify_device_path("/dev/nvidiactl", "/dev/"));
    // devfs_root "/" (a chroot-like layout): nodes directly under it.
    auto node = classify_device_path("/nvidia0", "/");
    ASSERT_TRUE(node);
    EXPECT_EQ(node->relative_path, "nvidia0");
}

TEST(DeviceNodeKind, ToStringIsStableSnakeCase) {
    EXPECT_STREQ(to_string(DeviceNodeKind::nvidia_gpu), "nvidia_gpu");
    EXPECT_STREQ(to_string(DeviceNodeKind::nvidia_ctl), "nvidia_ctl");
    EXPECT_STREQ(to_string(DeviceNodeKind::nvidia_uvm), "nvidia_uvm");
    EXPECT_STREQ(to_string(DeviceNodeKind::nvidia_caps), "nvidia_caps");
    EXPECT_STREQ(to_string(DeviceNodeKind::dri_card), "dri_card");
    EXPECT_STREQ(to_string(DeviceNodeKind::dri_render), "dri_render");
    EXPECT_STREQ(to_string(DeviceNodeKind::kfd), "kfd");
    EXPECT_STREQ(to_string(DeviceNodeKind::accel), "accel");
}

}  // namespace
}  // namespace gpukill
