#!/usr/bin/env python3
"""Holds kiln-python's adapter to protocol/protocol.schema.json.

Runs kiln_adapter.py as a process (as the runner does) over: a decode request
for every golden case's block, an encode request for every tensor list it
accepted, and the requests of PROTOCOL.md's worked transcript plus broken ones
(which must get error replies). Every request and every reply must satisfy the
schema. Then the same again with the adapter asking for 64-bit integers as
strings (--int64 string): the requests in that form satisfy the schema, every
64-bit integer of every reply is a string, and the answers are the same.
Needs python3-jsonschema and python3-yaml (scripts/install-deps).

    check_protocol_schema.py SCHEMA CASES_DIR PROTOCOL_MD
Exit 0 when every line passes, 1 otherwise.
"""
import json
import pathlib
import subprocess
import sys

import jsonschema
import yaml

HERE = pathlib.Path(__file__).resolve().parent


def exchange(requests, arguments=()):
    """One adapter process, every request in order; the reply lines."""
    text = "".join(json.dumps(r, separators=(",", ":")) + "\n" if not isinstance(r, str) else r + "\n"
                   for r in requests)
    done = subprocess.run([sys.executable, str(HERE / "kiln_adapter.py"), *arguments], input=text.encode(),
                          capture_output=True, timeout=600, check=True)
    replies = done.stdout.decode("utf-8").splitlines()
    if len(replies) != len(requests):
        raise SystemExit(f"{len(requests)} requests got {len(replies)} replies")
    return [json.loads(line) for line in replies]


def in_string_form(reply):
    """reply with its 64-bit integers (shape dimensions, offset) as decimal strings."""
    reply = dict(reply)
    if "tensors" in reply:
        reply["tensors"] = [dict(t, shape=[str(d) for d in t["shape"]]) for t in reply["tensors"]]
    if isinstance(reply.get("offset"), int):
        reply["offset"] = str(reply["offset"])
    return reply


def main() -> int:
    schema_path, cases_dir, protocol_md = (pathlib.Path(a) for a in sys.argv[1:4])
    validator = jsonschema.Draft7Validator(json.loads(schema_path.read_text(encoding="utf-8")))
    failures = 0

    def check(message, what):
        nonlocal failures
        errors = list(validator.iter_errors(message))
        if errors:
            failures += 1
            print(f"{what}: {errors[0].message[:300]}")

    decodes = []
    for path in sorted(cases_dir.rglob("*.yaml")):
        case = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(case, dict) and isinstance(case.get("block"), str):
            decodes.append({"op": "decode", "case": case["id"], "profile": "kiln-v2",
                            "block": "".join(case["block"].split())})
    if len(decodes) < 100:
        print(f"only {len(decodes)} case blocks found in {cases_dir}")
        return 1
    requests = [{"op": "hello", "protocol": 1}] + decodes
    replies = exchange(requests)
    encodes = [{"op": "encode", "case": request["case"], "tensors": reply["tensors"]}
               for request, reply in zip(requests, replies) if reply.get("result") == "accept"]
    transcript = [line[3:] for line in protocol_md.read_text(encoding="utf-8").splitlines()
                  if line.startswith("-> ")]
    broken = ['{"op":"hello","protocol":2}', '{"op":"decode","block":"zz"}', "not json",
              '{"op":"encode","tensors":[{"name":"x"}]}', "[]"]
    more = encodes + transcript + broken
    more_replies = exchange(more)

    # Generated requests must satisfy the schema; a transcript request does
    # exactly when its reply is not an error (hello aside: a well-formed hello
    # of another version is refused); broken requests get error replies.
    for request, reply in zip(requests + encodes, replies + more_replies):
        check(request, f"request {json.dumps(request)[:120]}")
    for line, reply in zip(transcript, more_replies[len(encodes):]):
        try:
            request = json.loads(line)
        except ValueError:
            request = None
        satisfies = request is not None and not list(validator.iter_errors(request))
        if satisfies != (reply.get("result") != "error"):
            failures += 1
            print(f"transcript request {line[:120]}: satisfies the schema is {satisfies}, "
                  f"but the reply is {json.dumps(reply)[:120]}")
    for request, reply in zip(more, more_replies):
        check(reply, f"reply to {json.dumps(request)[:120]}")
    for request, reply in zip(requests, replies):
        check(reply, f"reply to {json.dumps(request)[:120]}")
    for request, reply in zip(broken, more_replies[-len(broken):]):
        if reply.get("result") != "error":
            failures += 1
            print(f"{request}: expected an error reply, got {json.dumps(reply)[:200]}")
    total = len(requests) + len(more)

    # --int64 string: the same requests, the 64-bit integers of requests as
    # strings, and every reply's as strings too (PROTOCOL.md, "64-bit integers").
    string_encodes = [dict(e, tensors=[dict(t, shape=[str(d) for d in t["shape"]]) for t in e["tensors"]])
                      for e in encodes]
    string_replies = exchange(requests + string_encodes, ["--int64", "string"])
    if string_replies[0].get("int64") != "string":
        failures += 1
        print(f"--int64 string: the hello does not ask for strings: {json.dumps(string_replies[0])[:200]}")
    for request in string_encodes:
        check(request, f"string-form request {json.dumps(request)[:120]}")
    number_replies = replies + more_replies[:len(encodes)]
    for request, reply, number_reply in zip(requests + string_encodes, string_replies, number_replies):
        what = f"--int64 string: reply to {json.dumps(request)[:120]}"
        check(reply, what)
        # The same answer as in numbers, every 64-bit integer a string (hello aside).
        if request["op"] != "hello" and reply != in_string_form(number_reply):
            failures += 1
            print(f"{what}: {json.dumps(reply)[:200]} is not the number form's answer "
                  f"{json.dumps(number_reply)[:200]} with strings")
    total += len(string_replies)
    print(f"{total - failures} passed, {failures} failed")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
