#!/usr/bin/env python3
"""Under -flto a factor still acts like the pragma, provided the plugin is also given at link
time (GCC 12 drops has_unroll across LTO; the plugin's RTL pass restores it), and the
executable still carries the loop table in .looprace.loops."""
import plugin_testlib as lib

args = lib.arguments(__doc__)
failures = lib.Failures()
source = args.corpus / "kernels.c"
work = args.work


def text_section(name, compile_flags, link_flags):
    """Builds an LTO executable and returns its .text bytes."""
    obj, exe = work / f"{name}.o", work / name
    lib.compile_object(source, obj, ["-O2", "-flto"] + compile_flags, args.corpus)
    lib.run(["gcc", "-O2", "-flto", str(obj), "-o", str(exe)] + link_flags)
    section = work / f"{name}.text"
    lib.run(["objcopy", "-O", "binary", "--only-section=.text", str(exe), str(section)])
    return section.read_bytes()


at_link = lib.plugin_flags(args.plugin)
for factor in (2, 4, 8):
    pragma = text_section(f"pragma{factor}", ["-DLR_USE_PRAGMA", f"-DLR_FACTOR={factor}"],
                          at_link)
    plugin = text_section(f"plugin{factor}",
                          lib.plugin_flags(args.plugin, unroll=f"*:{factor}"), at_link)
    failures.check(pragma == plugin, f"-flto factor {factor}: plugin != pragma")
    not_unrolled = text_section(f"plugin{factor}-one", lib.plugin_flags(args.plugin, unroll="*:1"),
                                at_link)
    failures.check(plugin != not_unrolled, f"-flto factor {factor}: same code as factor 1")
# The table travels through the LTO bytecode into the executable, even linked without the plugin.
table = work / "lto-table.jsonl"
table.unlink(missing_ok=True)
lib.compile_object(source, work / "t.o", ["-O2", "-flto"] +
                   lib.plugin_flags(args.plugin, table=table), args.corpus)
lib.run(["gcc", "-O2", "-flto", str(work / "t.o"), "-o", str(work / "t")])
lib.run(["objcopy", "--dump-section", f".looprace.loops={work / 't.section'}", str(work / "t")])
failures.check((work / "t.section").read_text() == table.read_text() and table.read_text(),
               "-flto executable: .looprace.loops differs from the table")
failures.finish("LTO")
