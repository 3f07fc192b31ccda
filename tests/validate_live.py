#!/usr/bin/env python3
"""Validates a live stream (iofab run --live FILE) against docs/live.schema.json, line by line.

    validate_live.py SCHEMA FILE

Exit 0 when every line is a valid object, 1 when one is not (its line number and the error printed),
77 when the jsonschema module is missing (the caller skips; ci/setup installs python3-jsonschema).
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("validate_live: the jsonschema module is missing (apt-get install python3-jsonschema)")
    sys.exit(77)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    with open(sys.argv[2]) as f:
        for n, line in enumerate(f, 1):
            for e in validator.iter_errors(json.loads(line)):
                print(f"line {n}: {e.json_path}: {e.message}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
