#!/usr/bin/env python3
"""Validates iofab reports against docs/report.schema.json with a real JSON Schema validator.

    validate_reports.py SCHEMA PATH...     each PATH a report, or a folder of *.json reports

Exit 0 when every report is valid (or there is none: the tests that write reports did not run), 1 when
one is not (each error printed with the report's name and the JSON path), 77 when the jsonschema module
is missing (ctest counts that as skipped; ci/setup installs python3-jsonschema).
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("validate_reports: the jsonschema module is missing (apt-get install python3-jsonschema; "
          "ci/setup installs it)")
    sys.exit(77)


def report_paths(args):
    for a in args:
        if os.path.isdir(a):
            for name in sorted(os.listdir(a)):
                if name.endswith(".json"):
                    yield os.path.join(a, name)
        else:
            yield a


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    checked = bad = 0
    for path in report_paths(sys.argv[2:]):
        with open(path) as f:
            doc = json.load(f)
        checked += 1
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            bad += 1
            for e in errors[:20]:
                where = "".join("[%s]" % json.dumps(p) for p in e.absolute_path) or "(top)"
                print("%s: %s: %s" % (path, where, e.message))
    if checked == 0:
        print("validate_reports: no reports to validate (no test that writes one ran)")
    else:
        print("validate_reports: %d report(s) checked against %s, %d invalid" % (checked, sys.argv[1], bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
