#include "profile/profile_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace looprace::profile {
namespace {

namespace fs = std::filesystem;

Entry entry(const std::string& id, int factor) {
  Entry e;
  e.id = id;
  e.file = "src/a b.c";
  e.line = 10;
  e.column = 3;
  e.function = "f";
  e.index = 0;
  e.loops = 1;
  e.factor = factor;
  e.evidence = {{"winners", "4,8"}, {"verdict", "faster"}};
  return e;
}

class ProfileFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("looprace-profile-test-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(Provenance, ReadsBackWhatTheRaceWrites) {
  const Provenance written{"0.1.0", "gcc (Debian 12.2.0-14+deb12u1) 12.2.0",
                           "AMD EPYC (family 25, model 17, stepping 1)", "2026-11-29T09:00:00Z"};
  Profile p;
  p.header_comments = {"a comment of the user's", provenance_comment(written), "program: make"};
  auto read = read_provenance(p);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->looprace, written.looprace);
  EXPECT_EQ(read->gcc, written.gcc);
  EXPECT_EQ(read->cpu, written.cpu);
  EXPECT_EQ(read->date, written.date);
}

TEST(Provenance, NoneInAProfileWrittenByHand) {
  Profile p;
  p.header_comments = {"looprace: tuned by hand", "cpu: mine"};
  EXPECT_FALSE(read_provenance(p));
}

TEST_F(ProfileFileTest, UpdateKeepsOtherLoopsAndReplacesTheSameId) {
  auto file = dir_ / "p.profile";
  update_profile_file(file, {entry("00000000000000aa", 4), entry("00000000000000bb", 2)},
                      {"first"});
  update_profile_file(file, {entry("00000000000000bb", 8), entry("00000000000000cc", 1)},
                      {"second"});
  Profile p = read_profile_file(file);
  ASSERT_EQ(p.entries.size(), 3u);
  EXPECT_EQ(p.entries[0].id, "00000000000000aa");
  EXPECT_EQ(p.entries[0].factor, 4);
  EXPECT_EQ(p.entries[1].factor, 8);
  EXPECT_EQ(p.entries[2].id, "00000000000000cc");
  EXPECT_EQ(p.entries[1].file, "src/a b.c");
  EXPECT_EQ(p.header_comments, (std::vector<std::string>{"second"}));
  // No temporary file is left behind.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& f : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(ProfileFileTest, ABrokenProfileIsReportedWithItsLineAndNeverOverwritten) {
  auto file = dir_ / "bad.profile";
  std::string text = "looprace-profile 1\n# comment\n00000000000000aa a.c:1:1 f 0/1 99\n";
  std::ofstream(file) << text;
  try {
    read_profile_file(file);
    FAIL() << "parsed a bad factor";
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.profile:3:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(update_profile_file(file, {entry("00000000000000bb", 2)}, {}), ProfileError);
  std::ifstream in(file);
  std::stringstream now;
  now << in.rdbuf();
  EXPECT_EQ(now.str(), text);
}

TEST_F(ProfileFileTest, MissingFileIsAClearError) {
  try {
    read_profile_file(dir_ / "none.profile");
    FAIL();
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("none.profile"), std::string::npos);
  }
}

}  // namespace
}  // namespace looprace::profile
