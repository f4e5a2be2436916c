// parse_cri_bundle: the annotations of an OCI config.json that containerd's CRI plugin or
// CRI-O wrote, read into CriBundleFacts. The keys and their sources are in cri_bundle.hpp.
#include <nlohmann/json.hpp>

#include "host/cri_bundle.hpp"
#include "model/bounded_json.hpp"
#include "model/kubernetes_names.hpp"

namespace gpukill {
namespace {

constexpr std::size_t kMaxImageLength = 1024;

struct AnnotationKeys {
    std::string_view image;
    std::string_view image_as_asked;  // when `image` is empty
    std::string_view pod_name;
    std::string_view pod_namespace;
    std::string_view pod_uid;
    std::string_view container_name;
    std::string_view container_type;
};

constexpr AnnotationKeys kContainerdKeys{
    .image = "io.kubernetes.cri.image-name",
    .image_as_asked = "",
    .pod_name = "io.kubernetes.cri.sandbox-name",
    .pod_namespace = "io.kubernetes.cri.sandbox-namespace",
    .pod_uid = "io.kubernetes.cri.sandbox-uid",
    .container_name = "io.kubernetes.cri.container-name",
    .container_type = "io.kubernetes.cri.container-type",
};

constexpr AnnotationKeys kCrioKeys{
    .image = "io.kubernetes.cri-o.ImageName",
    .image_as_asked = "io.kubernetes.cri-o.Image",
    .pod_name = "io.kubernetes.pod.name",
    .pod_namespace = "io.kubernetes.pod.namespace",
    .pod_uid = "io.kubernetes.pod.uid",
    .container_name = "io.kubernetes.container.name",
    .container_type = "io.kubernetes.cri-o.ContainerType",
};

std::optional<std::string> annotation(const nlohmann::json& annotations, std::string_view key) {
    if (key.empty()) return std::nullopt;
    const auto found = annotations.find(std::string(key));
    if (found == annotations.end() || !found->is_string()) return std::nullopt;
    std::string value = found->get<std::string>();
    if (value.empty()) return std::nullopt;
    return value;
}

template <class Valid>
std::optional<std::string> valid(std::optional<std::string> value, Valid is_valid) {
    if (value && !is_valid(*value)) return std::nullopt;
    return value;
}

bool is_image_text(std::string_view image) {
    if (image.size() > kMaxImageLength) return false;
    for (char c : image) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte <= ' ' || byte >= 0x7f) return false;
    }
    return true;
}

}  // namespace

const char* to_string(CriRuntime runtime) {
    return runtime == CriRuntime::containerd ? "containerd" : "cri-o";
}

std::string_view bundle_directory(CriRuntime runtime) {
    return runtime == CriRuntime::containerd ? kContainerdTaskDir : kCrioContainersDir;
}

std::string bundle_config_path(CriRuntime runtime, std::string_view id) {
    return std::string(id) +
           (runtime == CriRuntime::containerd ? "/config.json" : "/userdata/config.json");
}

Result<CriBundleFacts> parse_cri_bundle(std::string_view config_json, CriRuntime runtime,
                                        std::size_t max_bytes) {
    auto parsed = parse_json_bounded(config_json, JsonBounds{.max_bytes = max_bytes});
    if (!parsed) return fail(ErrorCategory::invalid_input, parsed.error().what);
    if (!parsed->is_object()) return fail(ErrorCategory::invalid_input, "not a JSON object");
    CriBundleFacts facts;
    const auto found = parsed->find("annotations");
    if (found == parsed->end() || !found->is_object()) return facts;
    const nlohmann::json& annotations = *found;
    const AnnotationKeys& keys = runtime == CriRuntime::containerd ? kContainerdKeys : kCrioKeys;

    std::optional<std::string> image = annotation(annotations, keys.image);
    if (!image) image = annotation(annotations, keys.image_as_asked);
    image = valid(std::move(image), is_image_text);
    if (image) facts.image = full_image_reference(*image);
    facts.pod_name = valid(annotation(annotations, keys.pod_name), is_kubernetes_subdomain);
    facts.pod_namespace = valid(annotation(annotations, keys.pod_namespace), is_kubernetes_label);
    facts.pod_uid = valid(annotation(annotations, keys.pod_uid), is_pod_uid);
    facts.container_name = valid(annotation(annotations, keys.container_name), is_kubernetes_label);
    facts.sandbox = annotation(annotations, keys.container_type) == "sandbox";
    return facts;
}

}  // namespace gpukill
