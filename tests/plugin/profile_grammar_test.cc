// Unit tests of the shared profile grammar (plugin/profile_grammar.h): round trips through
// format_profile/parse, and every malformed input reported with its line number.
#include "profile_grammar.h"

#include <gtest/gtest.h>

#include <string>

namespace lp = looprace::profile;

namespace {

lp::Entry sample_entry() {
  lp::Entry entry;
  entry.id = "1a2b3c4d5e6f7081";
  entry.file = "src/fir.c";
  entry.line = 42;
  entry.column = 19;
  entry.function = "fir_filter";
  entry.index = 0;
  entry.loops = 2;
  entry.factor = 4;
  entry.evidence = {{"winners", "4,8"}, {"samples", "10,10"}, {"speedup", "1.083"}};
  return entry;
}

// Parses text expected to be malformed and returns the error.
lp::ParseError parse_error(const std::string& text) {
  lp::ParseResult result = lp::parse(text);
  EXPECT_TRUE(std::holds_alternative<lp::ParseError>(result)) << text;
  if (auto* error = std::get_if<lp::ParseError>(&result)) return *error;
  return {};
}

lp::Profile parse_ok(const std::string& text) {
  lp::ParseResult result = lp::parse(text);
  if (auto* error = std::get_if<lp::ParseError>(&result))
    ADD_FAILURE() << "line " << error->line << ": " << error->message;
  if (auto* profile = std::get_if<lp::Profile>(&result)) return *profile;
  return {};
}

void expect_same(const lp::Entry& a, const lp::Entry& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.file, b.file);
  EXPECT_EQ(a.line, b.line);
  EXPECT_EQ(a.column, b.column);
  EXPECT_EQ(a.function, b.function);
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.loops, b.loops);
  EXPECT_EQ(a.factor, b.factor);
  EXPECT_EQ(a.evidence, b.evidence);
}

}  // namespace

TEST(ProfileGrammar, ParsesTheDocumentedExample) {
  lp::Profile profile = parse_ok(
      "looprace-profile 1\n"
      "# looprace: 0.1.0   gcc: 12.2.0\n"
      "# id location function pos factor evidence\n"
      "1a2b3c4d5e6f7081 src/fir.c:42:19   fir_filter  0/2  4       winners=4,8 "
      "samples=10,10 speedup=1.083 ci=1.051,1.112 verdict=faster\n");
  ASSERT_EQ(profile.entries.size(), 1u);
  const lp::Entry& entry = profile.entries[0];
  EXPECT_EQ(entry.id, "1a2b3c4d5e6f7081");
  EXPECT_EQ(entry.file, "src/fir.c");
  EXPECT_EQ(entry.line, 42);
  EXPECT_EQ(entry.column, 19);
  EXPECT_EQ(entry.function, "fir_filter");
  EXPECT_EQ(entry.index, 0);
  EXPECT_EQ(entry.loops, 2);
  EXPECT_EQ(entry.factor, 4);
  ASSERT_EQ(entry.evidence.size(), 5u);
  EXPECT_EQ(entry.evidence[4], (std::pair<std::string, std::string>{"verdict", "faster"}));
  EXPECT_EQ(entry.source_line, 4);
  EXPECT_EQ(profile.header_comments.size(), 2u);
  EXPECT_EQ(profile.header_comments[0], "looprace: 0.1.0   gcc: 12.2.0");
}

TEST(ProfileGrammar, RoundTripsEntriesAndComments) {
  lp::Profile profile;
  profile.header_comments = {"looprace: 0.1.0", "program: make CC=\"$LOOPRACE_CC\""};
  profile.entries.push_back(sample_entry());
  lp::Entry odd = sample_entry();
  odd.id = "00000000000000ff";
  odd.file = "dir with blank/a#b%c:d.c";
  odd.function = "_Z3fooIiEvT_";
  odd.index = 3;
  odd.loops = 4;
  odd.factor = 16;
  odd.evidence = {{"note", "two words"}, {"empty", ""}, {"k=v", "a=b%c#d"}, {"k", "=v"}};
  profile.entries.push_back(odd);
  lp::Entry bare = sample_entry();
  bare.id = "ffffffffffffffff";
  bare.evidence.clear();
  bare.factor = 0;
  profile.entries.push_back(bare);

  std::string text = lp::format_profile(profile);
  lp::Profile again = parse_ok(text);
  EXPECT_EQ(again.header_comments, profile.header_comments);
  ASSERT_EQ(again.entries.size(), profile.entries.size());
  for (std::size_t i = 0; i < profile.entries.size(); ++i)
    expect_same(again.entries[i], profile.entries[i]);
  EXPECT_EQ(lp::format_profile(again), text);
}

// The flags a profile's decisions were raced with survive a round trip, before the entries.
TEST(ProfileGrammar, RoundTripsTheFlagsLine) {
  lp::Profile profile;
  profile.flags = {"-funroll-loops", "-fno-web"};
  profile.entries = {sample_entry()};
  const std::string text = lp::format_profile(profile);
  EXPECT_EQ(text.find("flags -funroll-loops -fno-web\n"), text.find('\n') + 1) << text;
  lp::Profile parsed = parse_ok(text);
  EXPECT_EQ(parsed.flags, profile.flags);
  ASSERT_EQ(parsed.entries.size(), 1u);
  EXPECT_TRUE(parse_ok("looprace-profile 1\n").flags.empty());
}

TEST(ProfileGrammar, IgnoresBlankLinesTrailingCommentsAndCarriageReturns) {
  lp::Profile profile = parse_ok(
      "\n# leading comment\n\nlooprace-profile 1   # version\r\n\n"
      "1a2b3c4d5e6f7081 a.c:1:0 f 0/1 1 # the rest is a comment x=y\r\n");
  ASSERT_EQ(profile.entries.size(), 1u);
  EXPECT_TRUE(profile.entries[0].evidence.empty());
  EXPECT_EQ(profile.entries[0].source_line, 6);
}

TEST(ProfileGrammar, CommentsEndingInCarriageReturnsRoundTrip) {
  // Found by tests/fuzz: one '\r' was taken off per rewrite, so a rewrite changed the text.
  lp::Profile profile = parse_ok("looprace-profile 1\n# note\r\r\r\n");
  EXPECT_EQ(profile.header_comments, std::vector<std::string>{"note"});
  EXPECT_EQ(lp::format_profile(parse_ok(lp::format_profile(profile))), lp::format_profile(profile));
}

TEST(ProfileGrammar, EscapesAndUnescapes) {
  EXPECT_EQ(lp::escape("a b%c#d\te"), "a%20b%25c%23d%09e");
  EXPECT_EQ(lp::unescape("a%20b%25c%23d%09e"), "a b%c#d\te");
  EXPECT_FALSE(lp::unescape("bad%2").has_value());
  EXPECT_FALSE(lp::unescape("bad%zz").has_value());
  EXPECT_FALSE(lp::unescape("%").has_value());
}

TEST(ProfileGrammar, ParsesLocationsAndFactors) {
  auto location = lp::parse_location("C:/x/y.c:12:3");
  ASSERT_TRUE(location.has_value());
  EXPECT_EQ(location->file, "C:/x/y.c");
  EXPECT_EQ(location->line, 12);
  EXPECT_EQ(location->column, 3);
  EXPECT_FALSE(lp::parse_location("y.c:12").has_value());
  EXPECT_FALSE(lp::parse_location(":12:3").has_value());
  EXPECT_FALSE(lp::parse_location("y.c:0:3").has_value());
  EXPECT_FALSE(lp::parse_location("y.c:1:-3").has_value());
  EXPECT_FALSE(lp::parse_location("y.c:1x:3").has_value());
  for (int f = 0; f <= 16; ++f) EXPECT_EQ(lp::parse_factor(std::to_string(f)), f);
  for (const char* bad : {"-1", "17", "", "4x", " 4", "99999999999999999999"})
    EXPECT_FALSE(lp::parse_factor(bad).has_value()) << bad;
  EXPECT_TRUE(lp::is_loop_id("0123456789abcdef"));
  EXPECT_FALSE(lp::is_loop_id("0123456789ABCDEF"));
  EXPECT_FALSE(lp::is_loop_id("0123456789abcde"));
  EXPECT_FALSE(lp::is_loop_id("0123456789abcdeg"));
}

struct MalformedCase {
  const char* text;
  int line;
  const char* message_part;
};

class ProfileGrammarMalformed : public testing::TestWithParam<MalformedCase> {};

TEST_P(ProfileGrammarMalformed, ReportsLineAndReason) {
  const MalformedCase& bad = GetParam();
  lp::ParseError error = parse_error(bad.text);
  EXPECT_EQ(error.line, bad.line) << error.message;
  EXPECT_NE(error.message.find(bad.message_part), std::string::npos) << error.message;
}

#define HEADER "looprace-profile 1\n"
INSTANTIATE_TEST_SUITE_P(
    EveryCase, ProfileGrammarMalformed,
    testing::Values(
        MalformedCase{"", 1, "missing 'looprace-profile 1'"},
        MalformedCase{"# only a comment\n\n", 2, "missing 'looprace-profile 1'"},
        MalformedCase{"# only a comment\n\n", 2, "missing"},
        MalformedCase{"1a2b3c4d5e6f7081 a.c:1:1 f 0/1 4\n", 1, "not a looprace profile"},
        MalformedCase{"looprace-profile 2\n", 1, "unsupported profile version"},
        MalformedCase{"looprace-profile\n", 1, "unsupported profile version"},
        MalformedCase{"looprace-profile 1 extra\n", 1, "unsupported profile version"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f 0/1\n", 2, "got 4 field(s)"},
        MalformedCase{HEADER "\n1A2B3C4D5E6F7081 a.c:1:1 f 0/1 4\n", 3, "bad loop id"},
        MalformedCase{HEADER "1a2b3c4d5e6f708 a.c:1:1 f 0/1 4\n", 2, "bad loop id"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1 f 0/1 4\n", 2, "bad location"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:x:1 f 0/1 4\n", 2, "bad location"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a%2.c:1:1 f 0/1 4\n", 2, "bad location"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f%g 0/1 4\n", 2, "bad function"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f 1/1 4\n", 2, "bad position"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f 0 4\n", 2, "bad position"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f -1/2 4\n", 2, "bad position"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f 0/1 17\n", 2, "bad factor '17'"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f 0/1 -1\n", 2, "bad factor"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f 0/1 four\n", 2, "bad factor"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f 0/1 4 winners\n", 2, "bad evidence"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f 0/1 4 =x\n", 2, "bad evidence"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f 0/1 4 k=%q\n", 2, "bad evidence"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f 0/1 4\n"
                             "1a2b3c4d5e6f7081 a.c:2:1 f 0/1 2\n",
                      3, "duplicate loop id 1a2b3c4d5e6f7081 (first on line 2)"},
        MalformedCase{HEADER "flags\n", 2, "the flags line names no flag"},
        MalformedCase{HEADER "flags -funroll-loops O2\n", 2, "flag 'O2' on the flags line"},
        MalformedCase{HEADER "flags -fweb\nflags -funroll-loops\n", 3, "a second flags line"},
        MalformedCase{HEADER "1a2b3c4d5e6f7081 a.c:1:1 f 0/1 4\nflags -fweb\n", 3,
                      "before the first loop line"}));
#undef HEADER
