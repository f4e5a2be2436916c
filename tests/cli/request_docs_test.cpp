// docs/API.md's field lists are the engine's request tables, written out: a field added,
// renamed or described anew in a table and not in the docs fails here (the fix:
// `gpukill-docgen --update-docs docs`).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli/request_options.hpp"

namespace gpukill::cli {
namespace {

std::string api_doc() {
    std::ifstream in(std::string(GPUKILL_DEPLOY_DIR) + "/../docs/API.md");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(RequestDocs, ApiMdListsExactlyTheRequestTables) {
    const std::string doc = api_doc();
    ASSERT_FALSE(doc.empty());
    auto filled = with_request_field_tables(doc);
    ASSERT_TRUE(filled) << filled.error().what;
    EXPECT_EQ(*filled, doc) << "docs/API.md's field tables differ from the engine's: run "
                               "`build/bin/gpukill-docgen --update-docs docs`";
    for (const char* name : {"list", "kill", "reset", "check", "audit-actions", "audit-usage",
                             "rogue", "guard-test"}) {
        EXPECT_NE(doc.find(std::string("<!-- fields:") + name + " -->"), std::string::npos) << name;
    }
    EXPECT_NE(doc.find("| `not_image` | `--not-image REGEX` |"), std::string::npos);
}

TEST(RequestDocs, ABlockNamingNoRequestIsRefused) {
    auto bad = with_request_field_tables("<!-- fields:kil -->\n<!-- /fields:kil -->\n");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().what.find("'kil'"), std::string::npos);
    auto open = with_request_field_tables("<!-- fields:kill -->\n");
    ASSERT_FALSE(open);
}

}  // namespace
}  // namespace gpukill::cli
