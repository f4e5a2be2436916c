// What Kubernetes accepts as a namespace, a pod and a container name, and an OCI image
// reference in its full form. Pure.
//
// The API server refuses any other name (k8s.io/apimachinery validation: a namespace and
// a container name are RFC 1123 labels, a pod name an RFC 1123 subdomain), so a name
// outside these rules did not come from Kubernetes: gpukill drops it where a runtime
// wrote it, and refuses it as a selector (`--namespace`, `--pod`) instead of matching
// nothing silently.
#pragma once

#include <string>
#include <string_view>

namespace gpukill {

// An RFC 1123 label: 1 to 63 of [a-z0-9-], starting and ending with a letter or digit.
// Namespaces and container names.
bool is_kubernetes_label(std::string_view name);

// An RFC 1123 subdomain: 1 to 253 characters, dot-separated labels of [a-z0-9-]. Pod names.
bool is_kubernetes_subdomain(std::string_view name);

// A pod UID as the API server makes them (an RFC 4122 UUID, lower-case hex with dashes)
// or as the kubelet names a static pod (32 hex digits).
bool is_pod_uid(std::string_view uid);

// An image reference in the form a runtime pulls it, as Docker's and containerd's
// reference libraries complete a familiar one (distribution/reference
// ParseNormalizedNamed, then a default tag):
//   "python:3.11"              -> "docker.io/library/python:3.11"
//   "pytorch/pytorch"          -> "docker.io/pytorch/pytorch:latest"
//   "index.docker.io/x/y:1"    -> "docker.io/x/y:1"
//   "nvcr.io/nvidia/cuda:12.4" -> unchanged; "localhost:5000/a" -> "localhost:5000/a:latest"
// The first component is a registry when it holds a '.' or a ':' or is "localhost".
// A digest ("@sha256:...") stands instead of the default tag. An image id ("sha256:..."
// or 64 hex digits) names no repository and is returned as it is. So a pattern on the
// registry (`--not-image '^(nvcr\.io|docker\.io/library)/'`) reads the same whether the
// runtime wrote the short or the full name.
std::string full_image_reference(std::string_view reference);

}  // namespace gpukill
