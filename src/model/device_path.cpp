// classify_device_path: is an fd's target one of the GPU device nodes? The names are the
// ones the drivers register (nvidia.ko, nvidia-uvm.ko, nvidia-modeset.ko, DRM, amdkfd,
// the accel subsystem); the choices for edge cases are documented in proc_parse.hpp.
#include <string>

#include "model/device_node.hpp"
#include "model/parse_util.hpp"

namespace gpukill {
namespace {

// "<prefix><N>" with N canonical decimal; the N.
std::optional<unsigned> numbered(std::string_view name, std::string_view prefix) {
    if (!name.starts_with(prefix)) return std::nullopt;
    const auto digits = name.substr(prefix.size());
    if (!text::is_canonical_decimal(digits)) return std::nullopt;
    return text::parse_int<unsigned>(digits);
}

std::optional<DeviceNode> classify_relative(std::string_view rel) {
    DeviceNode node;
    node.relative_path = std::string(rel);

    if (rel == "nvidiactl" || rel == "nvidia-modeset") {
        node.kind = DeviceNodeKind::nvidia_ctl;
    } else if (rel == "nvidia-uvm" || rel == "nvidia-uvm-tools") {
        node.kind = DeviceNodeKind::nvidia_uvm;
    } else if (auto minor = numbered(rel, "nvidia")) {
        node.kind = DeviceNodeKind::nvidia_gpu;
        node.nvidia_minor = minor;
    } else if (numbered(rel, "nvidia-caps/nvidia-cap") ||
               numbered(rel, "nvidia-caps-imex-channels/channel")) {
        node.kind = DeviceNodeKind::nvidia_caps;
    } else if (auto card = numbered(rel, "dri/card")) {
        node.kind = DeviceNodeKind::dri_card;
        node.dri_minor = card;
    } else if (auto render = numbered(rel, "dri/renderD")) {
        node.kind = DeviceNodeKind::dri_render;
        node.dri_minor = render;
    } else if (rel == "kfd") {
        node.kind = DeviceNodeKind::kfd;
    } else if (numbered(rel, "accel/accel")) {
        node.kind = DeviceNodeKind::accel;
    } else {
        return std::nullopt;
    }
    return node;
}

}  // namespace

std::optional<DeviceNode> classify_device_path(std::string_view link_target,
                                               std::string_view devfs_root) {
    while (!devfs_root.empty() && devfs_root.back() == '/') devfs_root.remove_suffix(1);

    // An unlinked node stays open on the same device: the holder still holds the GPU.
    constexpr std::string_view deleted = " (deleted)";
    if (link_target.ends_with(deleted)) link_target.remove_suffix(deleted.size());

    if (!link_target.starts_with(devfs_root)) return std::nullopt;
    link_target.remove_prefix(devfs_root.size());
    if (link_target.size() < 2 || link_target.front() != '/') return std::nullopt;
    link_target.remove_prefix(1);
    return classify_relative(link_target);
}

}  // namespace gpukill
