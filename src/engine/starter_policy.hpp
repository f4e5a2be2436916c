// The policy `gpukill guard init` writes: docs/examples/guard.yaml, built into the
// binary (one text, documented and installed as the example too), mode dry-run.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpukill::engine {

std::string_view starter_policy_text();

// Where the installed copy of the example configurations is (the package's doc
// directory, next to the binary's prefix); none when it is not installed.
std::optional<std::string> installed_examples_dir();

}  // namespace gpukill::engine
