#!/usr/bin/env python3
"""No function over 80 lines in harness/, driver/, workloads/ and reports/ (issue 44, item 5).

universal-ctags finds every function body, class-body members and lambdas included, and its end line;
a function longer than the limit is named as file:line name length and the test fails. A long function
is a sign that one function does several jobs: split it by job rather than raising the limit.

Usage:
  function_length_test.py tree ROOT    every C++ file under ROOT/{harness,driver,workloads,reports}
  function_length_test.py planted      the check itself: an 81-line function in a scratch file is
                                       caught, an 80-line one (and a long comment) is not
"""
import os
import re
import subprocess
import sys
import tempfile

LIMIT = 80
FOLDERS = ["harness", "driver", "workloads", "reports"]


def ctags_or_exit():
    try:
        out = subprocess.run(["ctags", "--version"], capture_output=True, text=True, check=False).stdout
    except FileNotFoundError:
        out = ""
    if "Universal Ctags" not in out:
        sys.exit("function_length_test: needs universal-ctags as `ctags` (ci/setup installs it: "
                 "apt-get install universal-ctags)")


def functions(root, folders):
    """(file, line, name, length) for every function definition and lambda under root/folders."""
    cmd = ["ctags", "-R", "--sort=no", "--languages=C++", "--kinds-C++=f", "--fields=+ne", "-x",
           "--_xformat=%{end}|%{line}|%N|%F"] + [f for f in folders if os.path.isdir(os.path.join(root, f))]
    res = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        sys.exit(f"function_length_test: ctags failed ({res.returncode}): {res.stderr}")
    out = []
    for row in res.stdout.splitlines():
        m = re.fullmatch(r"(\d*)\|(\d+)\|([^|]*)\|(.*)", row)
        if not m or not m.group(1):
            continue  # no end line known: a declaration, not a body
        end, line = int(m.group(1)), int(m.group(2))
        name = "lambda" if m.group(3).startswith("__anon") else m.group(3)  # ctags names lambdas __anonXXXX
        out.append((m.group(4), line, name, end - line + 1))
    return out


def too_long(root, folders):
    return sorted((f for f in functions(root, folders) if f[3] > LIMIT), key=lambda f: -f[3])


def check_tree(root):
    found = functions(root, FOLDERS)
    if not found:
        sys.exit(f"function_length_test: ctags found no functions under {root}: wrong root?")
    # The longest per layer, for the log: what a reader looks at before adding to a layer.
    for folder in FOLDERS:
        mine = [f for f in found if f[0].startswith(folder + "/")]
        if mine:
            f = max(mine, key=lambda f: f[3])
            print(f"longest in {folder}/: {f[3]} lines, {f[2]} ({f[0]}:{f[1]})")
    bad = too_long(root, FOLDERS)
    for f, line, name, n in bad:
        print(f"{f}:{line} {name} {n} lines (limit {LIMIT})")
    if bad:
        print(f"{len(bad)} function(s) over {LIMIT} lines: split each by job")
        return 1
    print(f"{len(found)} functions, none over {LIMIT} lines")
    return 0


def body(n_lines, name):
    """A function of exactly n_lines lines, its signature and closing brace included."""
    inner = "\n".join(f"  x += {i};" for i in range(n_lines - 3))
    return f"int {name}(int x) {{\n{inner}\n  return x;\n}}\n"


def check_planted():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "workloads", "planted"))
        comment = "\n".join("// a long comment is no function" for _ in range(100))
        member = "struct S {\n  int member(int x) {\n" + "\n".join("    x += 1;" for _ in range(80)) + \
                 "\n    return x;\n  }\n};\n"
        lam = "void f() {\n  auto l = [](int x) {\n" + "\n".join("    x += 1;" for _ in range(90)) + \
              "\n    return x;\n  };\n  (void)l;\n}\n"
        with open(os.path.join(root, "workloads", "planted", "planted.cc"), "w", encoding="utf-8") as f:
            f.write(comment + "\n" + body(81, "too_long") + "\n" + body(80, "just_fits") + "\n" + member)
        with open(os.path.join(root, "workloads", "planted", "lambda.cc"), "w", encoding="utf-8") as f:
            f.write(lam)
        bad = {(os.path.basename(f), name, n) for f, _, name, n in too_long(root, FOLDERS)}
        names = {name for _, name, _ in bad}
        failures = []
        if ("planted.cc", "too_long", 81) not in bad:
            failures.append(f"the 81-line function was not caught as 81 lines: {sorted(bad)}")
        if "just_fits" in names:
            failures.append("the 80-line function was caught; the limit is over 80")
        if ("planted.cc", "member", 83) not in bad:
            failures.append(f"the 83-line class-body member was not caught: {sorted(bad)}")
        if ("lambda.cc", "lambda", 93) not in bad:
            failures.append(f"the 93-line lambda was not caught: {sorted(bad)}")
        for msg in failures:
            print(msg)
        if failures:
            return 1
        print("planted: the 81-line function, the long member and the long lambda caught; 80 lines pass")
        return 0


def main():
    ctags_or_exit()
    if len(sys.argv) == 3 and sys.argv[1] == "tree":
        return check_tree(sys.argv[2])
    if len(sys.argv) == 2 and sys.argv[1] == "planted":
        return check_planted()
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
