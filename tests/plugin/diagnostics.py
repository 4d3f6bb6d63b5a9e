#!/usr/bin/env python3
"""Every bad input is a GCC error naming the argument or the file and line, never an internal
compiler error; unknown ids are not an error (the driver reports them program-wide)."""
import os

import plugin_testlib as lib

args = lib.arguments(__doc__)
failures = lib.Failures()
source = args.corpus / "kernels.c"
work = args.work


def write(name, text):
    path = work / name
    path.write_text(text)
    return path


GOOD_ID = "0123456789abcdef"
unreadable = work / "unreadable.profile"
write("unreadable.profile", "looprace-profile 1\n").chmod(0)
# (description, plugin keys, expected text in the diagnostic)
CASES = [
    ("unknown key", {"colour": "red"}, "unknown argument '-fplugin-arg-looprace-colour'"),
    ("key without value", {"unroll": None}, "'-fplugin-arg-looprace-unroll' needs a value"),
    ("table without value", {"table": None}, "'-fplugin-arg-looprace-table' needs a value"),
    ("factor too big", {"unroll": f"{GOOD_ID}:17"}, f"bad unroll factor in '{GOOD_ID}:17'"),
    ("negative factor", {"unroll": f"{GOOD_ID}:-1"}, "bad unroll factor"),
    ("factor not a number", {"unroll": "kernels.c:20:5:four"}, "bad unroll factor"),
    ("missing factor", {"unroll": GOOD_ID}, f"bad loop selector in '{GOOD_ID}'"),
    ("short id", {"unroll": "abc:4"}, "bad loop selector in 'abc:4'"),
    ("upper-case id", {"unroll": "0123456789ABCDEF:4"}, "bad loop selector"),
    ("empty item", {"unroll": f"{GOOD_ID}:4,,"}, "bad loop selector in ''"),
    ("bad location", {"unroll": "kernels.c:x:3:4"}, "bad loop selector"),
    ("bad instrument selector", {"instrument": "main"}, "bad loop selector 'main'"),
    ("missing profile", {"profile": work / "absent.profile"},
     f"cannot read profile '{work}/absent.profile': No such file or directory"),
    ("profile directory", {"profile": work}, f"cannot read profile '{work}'"),
    ("endless profile", {"profile": "/dev/zero"},
     "profile '/dev/zero' is larger than 64 MiB: not a looprace profile"),
    ("empty profile", {"profile": write("empty.profile", "")},
     "empty.profile:1: empty profile"),
    ("profile without header", {"profile": write("noheader.profile",
                                                 f"{GOOD_ID} a.c:1:1 f 0/1 4\n")},
     "noheader.profile:1: not a looprace profile"),
    ("profile wrong version", {"profile": write("v2.profile", "looprace-profile 2\n")},
     "v2.profile:1: unsupported profile version"),
    ("profile bad factor", {"profile": write("factor.profile",
                                             f"looprace-profile 1\n# c\n"
                                             f"{GOOD_ID} a.c:1:1 f 0/1 99\n")},
     "factor.profile:3: bad factor '99'"),
    ("profile bad id", {"profile": write("id.profile",
                                         "looprace-profile 1\nxyz a.c:1:1 f 0/1 4\n")},
     "id.profile:2: bad loop id 'xyz'"),
    ("profile short line", {"profile": write("short.profile",
                                             f"looprace-profile 1\n{GOOD_ID} a.c:1:1\n")},
     "short.profile:2: expected"),
    ("profile bad position", {"profile": write("pos.profile",
                                               f"looprace-profile 1\n{GOOD_ID} a.c:1:1 f 2/2 4\n")},
     "pos.profile:2: bad position '2/2'"),
    ("profile duplicate", {"profile": write("dup.profile",
                                            f"looprace-profile 1\n{GOOD_ID} a.c:1:1 f 0/1 4\n"
                                            f"{GOOD_ID} a.c:1:1 f 0/1 2\n")},
     "dup.profile:3: duplicate loop id"),
    ("unwritable table", {"table": work / "no/such/dir/t.jsonl"},
     "cannot append the loop table to"),
]

if os.geteuid() != 0:  # root reads a mode-000 file anyway
    CASES.append(("unreadable profile", {"profile": unreadable},
                  f"cannot read profile '{unreadable}': Permission denied"))

for description, keys, expected in CASES:
    result = lib.run(["gcc", "-O2", "-c", str(source), f"-I{args.corpus}", "-o",
                      str(work / "d.o")] + lib.plugin_flags(args.plugin, **keys), check=False)
    text = result.stderr.replace("\u2018", "'").replace("\u2019", "'")
    failures.check(result.returncode != 0, f"{description}: compilation succeeded")
    failures.check("error:" in text and expected in text,
                   f"{description}: diagnostic lacks {expected!r}:\n{text}")
    failures.check("internal compiler error" not in text, f"{description}: ICE\n{text}")

# Ids and locations that match no loop of this unit are fine here: other units may have them.
ok = lib.run(["gcc", "-O2", "-c", str(source), f"-I{args.corpus}", "-o", str(work / "d.o")] +
             lib.plugin_flags(args.plugin, unroll=f"{GOOD_ID}:4,other.c:3:4:2",
                              instrument="ffffffffffffffff"), check=False)
failures.check(ok.returncode == 0 and not ok.stderr, f"unknown ids: {ok.stderr}")
failures.finish(f"diagnostics, {len(CASES)} bad inputs")
