// Unit tests of driver/build: plugin arguments and build environments, toolchain discovery,
// loop table and verify parsing, ELF code identity on small programs compiled here.
#include "build/builder.h"
#include "build/elf_code.h"
#include "build/loop_table.h"
#include "build/toolchain.h"
#include "build/variant_env.h"
#include "build_test_util.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace looprace::build {
namespace {

using looprace::testing::ScratchDir;
using looprace::testing::shell;
using looprace::testing::write_file;

TEST(PluginArguments, AllKeysInAFixedOrder) {
  VariantSpec spec;
  spec.table = "/w/table.jsonl";
  spec.unroll = {{"1a2b3c4d5e6f7081", 4}, {"src/fir.c:42:19", 0}};
  spec.instrument = {"1a2b3c4d5e6f7081", "00000000000000aa"};
  spec.verify = "/w/verify.jsonl";
  std::vector<std::string> expected = {
      "-fplugin-arg-looprace-table=/w/table.jsonl",
      "-fplugin-arg-looprace-unroll=1a2b3c4d5e6f7081:4,src/fir.c:42:19:0",
      "-fplugin-arg-looprace-instrument=1a2b3c4d5e6f7081,00000000000000aa"};
  if (cpu_has_rdpid()) expected.push_back("-fplugin-arg-looprace-entry-cpu=rdpid");
  expected.push_back("-fplugin-arg-looprace-verify=/w/verify.jsonl");
  EXPECT_EQ(plugin_arguments(spec), expected);
  EXPECT_TRUE(plugin_arguments({}).empty());
}

TEST(PluginArguments, RejectsBadFactorsAndUnsplittablePaths) {
  VariantSpec factor;
  factor.unroll = {{"1a2b3c4d5e6f7081", 17}};
  EXPECT_THROW(plugin_arguments(factor), Error);
  VariantSpec blank;
  blank.table = "/my dir/table.jsonl";
  try {
    plugin_arguments(blank);
    FAIL() << "a blank in a path must be refused";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("/my dir/table.jsonl"), std::string::npos);
  }
  VariantSpec comma;
  comma.instrument = {"a,b"};
  EXPECT_THROW(plugin_arguments(comma), Error);
}

TEST(PluginArguments, LayoutSeedIsPassedToThePlugin) {
  VariantSpec spec;
  spec.layout_seed = 18446744073709551615ULL;
  EXPECT_EQ(plugin_arguments(spec),
            std::vector<std::string>{"-fplugin-arg-looprace-layout-seed=18446744073709551615"});
}

TEST(BuildEnvironment, FillsEveryVariable) {
  Toolchain toolchain{"/opt/lr/lib/looprace.so", "/opt/lr/lib/liblooprace_rt.a", "gcc-12",
                      "g++-12"};
  VariantSpec spec;
  spec.unroll = {{"1a2b3c4d5e6f7081", 8}};
  run::Environment base;
  base.set("PATH", "/usr/bin");
  run::Environment env = build_environment(toolchain, spec, "/w/v/f8", "/src", base);
  const std::string cflags =
      "-fplugin=/opt/lr/lib/looprace.so -fplugin-arg-looprace-unroll=1a2b3c4d5e6f7081:8";
  const std::string ldflags = "-Wl,--whole-archive,/opt/lr/lib/liblooprace_rt.a,--no-whole-archive";
  EXPECT_EQ(env.get("LOOPRACE_CC"), "gcc-12 " + cflags + " " + ldflags);
  EXPECT_EQ(env.get("LOOPRACE_CXX"), "g++-12 " + cflags + " " + ldflags);
  EXPECT_EQ(env.get("LOOPRACE_CFLAGS"), cflags);
  EXPECT_EQ(env.get("LOOPRACE_LDFLAGS"), ldflags);
  EXPECT_EQ(env.get("LOOPRACE_OUTDIR"), "/w/v/f8");
  EXPECT_EQ(env.get("LOOPRACE_SRCDIR"), "/src");
  EXPECT_EQ(env.get("PATH"), "/usr/bin");
}

TEST(Toolchain, FoundBesideTheExecutableOrNamedWhenMissing) {
  ScratchDir dir;
  write_file(dir / "bin/looprace", "");
  write_file(dir / "lib/looprace.so", "");
  try {
    find_toolchain(dir / "bin/looprace");
    FAIL() << "the runtime library is missing";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("liblooprace_rt.a"), std::string::npos)
        << error.what();
  }
  write_file(dir / "lib/liblooprace_rt.a", "");
  ToolchainOverrides compiler;
  compiler.cc = "cc";
  Toolchain toolchain = find_toolchain(dir / "bin/looprace", compiler);
  EXPECT_EQ(toolchain.plugin, std::filesystem::canonical(dir / "lib/looprace.so"));
  EXPECT_EQ(toolchain.runtime, std::filesystem::canonical(dir / "lib/liblooprace_rt.a"));
  EXPECT_EQ(toolchain.cc, "cc");
  EXPECT_EQ(toolchain.cxx, "g++");
  ToolchainOverrides missing;
  missing.plugin = dir / "nope.so";
  EXPECT_THROW(find_toolchain(dir / "bin/looprace", missing), Error);
}

const char* kRow1 =
    R"({"v":1,"id":"1a2b3c4d5e6f7081","file":"src/fir.c","line":42,"column":19,)"
    R"("function":"fir_filter","name":"fir_filter","fn_line":30,"tu":"src/fir.c","depth":1,)"
    R"("ordinal":0,"index":0,"loops":2,"features":{"blocks":4,"niter":-1}})";
const char* kRow2 =
    R"({"v":1,"id":"00000000000000aa","file":"lib/util.h","line":7,"column":3,)"
    R"("function":"_Z3sumPii","name":"sum","depth":2,"index":1,"loops":2,"features":{}})";

TEST(LoopTable, ParsesRowsAndKeepsAnIdOnce) {
  std::string text = std::string(kRow1) + "\n\n" + kRow2 + "\n" + kRow1 + "\n";
  LoopTable table = parse_loop_table(text, "t.jsonl");
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_TRUE(table.warnings.empty());
  const LoopRow& row = table.rows[0];
  EXPECT_EQ(row.id, "1a2b3c4d5e6f7081");
  EXPECT_EQ(row.location(), "src/fir.c:42:19");
  EXPECT_EQ(row.function, "fir_filter");
  EXPECT_EQ(row.fn_line, 30);
  EXPECT_EQ(row.depth, 1);
  EXPECT_EQ(row.position(), "0/2");
  EXPECT_EQ(row.features.at("blocks"), 4);
  EXPECT_EQ(table.rows[1].name, "sum");
  EXPECT_EQ(table.rows[1].tu, "lib/util.h");  // missing tu: the file
}

TEST(LoopTable, WarnsWhenOneIdHasTwoPaths) {
  std::string moved = kRow1;
  moved.replace(moved.find("src/fir.c"), 9, "old/fir.c");
  LoopTable table = parse_loop_table(std::string(kRow1) + "\n" + moved + "\n", "t");
  ASSERT_EQ(table.rows.size(), 1u);
  ASSERT_EQ(table.warnings.size(), 1u);
  EXPECT_NE(table.warnings[0].find("old/fir.c:42:19"), std::string::npos) << table.warnings[0];
}

TEST(LoopTable, BadLinesNameOriginAndLine) {
  auto message = [](const std::string& text) {
    try {
      parse_loop_table(text, "table.jsonl");
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(std::string(kRow1) + "\n{oops\n").rfind("table.jsonl: line 2: ", 0), 0u)
      << message(std::string(kRow1) + "\n{oops\n");
  EXPECT_NE(message(R"({"id":"1a2b3c4d5e6f7081"})").find("line 1"), std::string::npos);
  EXPECT_NE(message(R"({"v":2,"id":"1a2b3c4d5e6f7081"})").find("version 2"), std::string::npos);
  EXPECT_NE(message(R"({"id":"xyz","file":"a.c","line":1,"column":1,"function":"f"})")
                .find("16 hex digits"),
            std::string::npos);
}

TEST(LoopTable, FindsLoopsByIdOrLocationSuffix) {
  LoopTable table = parse_loop_table(std::string(kRow1) + "\n" + kRow2 + "\n", "t");
  EXPECT_EQ(find_loop(table, "00000000000000aa"), &table.rows[1]);
  EXPECT_EQ(find_loop(table, "src/fir.c:42:19"), &table.rows[0]);
  EXPECT_EQ(find_loop(table, "fir.c:42:19"), &table.rows[0]);
  EXPECT_EQ(find_loop(table, "ir.c:42:19"), nullptr);  // not a whole path component
  EXPECT_EQ(find_loop(table, "fir.c:42:18"), nullptr);
  EXPECT_EQ(find_loop(table, "fir.c:42"), nullptr);
  EXPECT_EQ(find_loop(table, "fir.c:x:19"), nullptr);
}

TEST(VerifyRecords, LastRecordPerIdWins) {
  ScratchDir dir;
  write_file(dir / "verify.jsonl",
             R"({"v":1,"id":"1a2b3c4d5e6f7081","requested":8,"applied":8,"how":""})"
             "\n"
             R"({"v":1,"id":"00000000000000aa","requested":16,"applied":4,"how":"runtime-pow2"})"
             "\n"
             R"({"v":1,"id":"1a2b3c4d5e6f7081","requested":8,"applied":1,"how":"too-big"})"
             "\n");
  auto records = read_verify_file(dir / "verify.jsonl");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records.at("1a2b3c4d5e6f7081").applied, 1);
  EXPECT_EQ(records.at("1a2b3c4d5e6f7081").how, "too-big");
  EXPECT_EQ(records.at("00000000000000aa").requested, 16);
  EXPECT_EQ(records.at("00000000000000aa").applied, 4);
  EXPECT_TRUE(read_verify_file(dir / "none.jsonl").empty());
  write_file(dir / "bad.jsonl", R"({"v":1,"id":"00000000000000aa"})");
  EXPECT_THROW(read_verify_file(dir / "bad.jsonl"), Error);
}

TEST(VariantDir, OnePerLoopFactorAndLayout) {
  EXPECT_EQ(variant_dir("/w", "00000000000000aa", 4), "/w/00000000000000aa/f4");
  EXPECT_EQ(variant_dir("/w", "00000000000000aa", 0, 3), "/w/00000000000000aa/f0-l3");
}

// Small programs compiled here: the code identity sees code, not paths, symbols or objects.
class ElfCodeIdentity : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(dir / "src/sum.c",
               "int sum(const int* a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i] "
               "* (i & 3); return s; }\n"
               "int main(int argc, char** argv) { (void)argv; int a[64] = {0}; a[3] = argc; "
               "return sum(a, 64) & 1; }\n");
  }
  std::filesystem::path build(const std::string& name, const std::string& flags) {
    auto out = dir / name;
    std::filesystem::create_directories(out);
    shell("gcc " + flags + " -c ../src/sum.c -o sum.o && gcc sum.o -o prog", out);
    return out;
  }
  ScratchDir dir;
};

TEST_F(ElfCodeIdentity, IdenticalBuildsHashEqualDifferentCodeDiffers) {
  auto a = build("a", "-O2");
  auto b = build("b", "-O2 -g");  // debug info is not code
  auto c = build("c", "-O1");
  CodeIdentity ia = code_identity(a), ib = code_identity(b), ic = code_identity(c);
  ASSERT_EQ(ia.files.size(), 1u);  // prog only: sum.o is an object file
  EXPECT_EQ(ia.files[0].file, "prog");
  EXPECT_GT(ia.files[0].code_bytes, 0u);
  EXPECT_EQ(ia.digest, ib.digest);
  EXPECT_NE(ia.digest, ic.digest);
  EXPECT_EQ(hash_elf_code(a / "prog").digest, ia.files[0].digest);
}

TEST_F(ElfCodeIdentity, IgnoresObjectsCMakeFilesAndNonElf) {
  auto a = build("a", "-O2");
  std::string before = code_identity(a).digest;
  write_file(a / "notes.txt", "not ELF");
  std::filesystem::create_directories(a / "CMakeFiles/3.25/CompilerIdC");
  std::filesystem::copy_file(dir / "a/prog", a / "CMakeFiles/3.25/CompilerIdC/a.out");
  std::filesystem::copy_file(dir / "a/sum.o", a / "other.o");
  EXPECT_EQ(code_identity(a).digest, before);
  EXPECT_FALSE(is_linked_elf(a / "sum.o"));
  EXPECT_TRUE(is_linked_elf(a / "prog"));
  EXPECT_THROW(hash_elf_code(a / "notes.txt"), Error);
  // A second program in the directory is part of the identity.
  std::filesystem::copy_file(dir / "a/prog", a / "prog2");
  EXPECT_NE(code_identity(a).digest, before);
}

// The cache lists a directory's linked files once, absolute, and nothing for a missing one.
TEST_F(ElfCodeIdentity, LinkedFileCacheListsEachDirectoryOnce) {
  auto a = build("a", "-O2");
  LinkedElfFileCache cache;
  EXPECT_TRUE(cache.files(dir / "missing").empty());
  ASSERT_EQ(cache.files(a), std::vector<std::filesystem::path>{a / "prog"});
  std::filesystem::copy_file(a / "prog", a / "prog2");
  EXPECT_EQ(cache.files(a), std::vector<std::filesystem::path>{a / "prog"});
  EXPECT_EQ(linked_elf_files(a).size(), 2u);
}

TEST_F(ElfCodeIdentity, ReadsTheLoopTableSectionOfEveryLinkedObject) {
  // What the plugin embeds, added by hand: a non-allocated .looprace.loops section per object.
  write_file(dir / "src/lib.c", "int twice(int x) { return 2 * x; }\n");
  write_file(dir / "src/main.c", "int twice(int); int main(void) { return twice(0); }\n");
  write_file(dir / "one.jsonl", std::string(kRow1) + "\n");
  write_file(dir / "two.jsonl", std::string(kRow2) + "\n" + kRow1 + "\n");
  shell(
      "gcc -O2 -c src/lib.c -o lib.o && gcc -O2 -c src/main.c -o main.o && "
      "objcopy --add-section .looprace.loops=one.jsonl lib.o && "
      "objcopy --add-section .looprace.loops=two.jsonl main.o && "
      "mkdir -p out && gcc lib.o main.o -o out/prog",
      dir.path());
  LoopTable object = read_loop_table_elf(dir / "lib.o");
  ASSERT_EQ(object.rows.size(), 1u);
  LoopTable linked = read_loop_table_elf(dir / "out/prog");
  ASSERT_EQ(linked.rows.size(), 2u);
  EXPECT_EQ(linked.rows[0].id, "1a2b3c4d5e6f7081");
  EXPECT_EQ(linked.rows[1].id, "00000000000000aa");
  EXPECT_EQ(read_loop_table_dir(dir / "out").rows.size(), 2u);
  EXPECT_TRUE(read_loop_table_elf(build("plain", "-O2") / "prog").rows.empty());
}

TEST(FewerCopies, OneLinePerReasonInTheOrderMet) {
  EXPECT_EQ(
      fewer_copies_notes({{3, 2, "runtime-pow2"},
                          {5, 4, "runtime-pow2"},
                          {12, 8, "too-big"},
                          {6, 4, "runtime-pow2"},
                          {9, 1, ""}}),
      (std::vector<std::string>{"GCC made fewer copies than asked (runtime-pow2): 3→2 5→4 6→4",
                                "GCC made fewer copies than asked (too-big): 12→8",
                                "GCC made fewer copies than asked (no reason given): 9→1"}));
  EXPECT_TRUE(fewer_copies_notes({}).empty());
}

}  // namespace
}  // namespace looprace::build
