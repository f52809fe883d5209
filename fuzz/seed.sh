#!/usr/bin/env bash
# Builds the starting corpora of the fuzz targets under fuzz/corpus/<target>/ (not kept in
# git) from the conformance suites (conformance/suites and ../shared/conformance/cel-spec),
# the example reviews and the example configurations, plus fuzz/seeds/<target>/.
#
#   bash fuzz/seed.sh            # from the repository root; needs python3 with PyYAML
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - "$@" <<'PY'
import hashlib, json, os, pathlib, shutil, sys
import yaml

root = pathlib.Path(".")
out = root / "fuzz" / "corpus"
suites = sorted((root / "conformance" / "suites").glob("*.yaml"))
shared = root / ".." / "shared" / "conformance" / "cel-spec"
suites += sorted(shared.glob("*.yaml")) if shared.is_dir() else []
reviews = [json.loads(p.read_text()) for p in sorted((root / "examples" / "reviews").glob("*.json"))]
SEP = b"\0"

corpus = {t: set() for t in ["parse", "check", "eval", "decide", "config", "manifest", "testfile"]}

def request_bytes(req):
    return json.dumps(req, separators=(",", ":")).encode()

expressions, requests, condition_sets, webhooks = [], [], [], []
for path in suites:
    doc = yaml.safe_load(path.read_text()) or {}
    for case in doc.get("cases") or []:
        req = case.get("request")
        if req is not None:
            requests.append(req)
        if isinstance(case.get("expression"), str):
            expressions.append((case["expression"], req))
        mcs = case.get("matchConditions")
        if mcs:
            condition_sets.append(([m.get("expression", "") for m in mcs], req))
        hook = case.get("webhook")
        if hook:
            kind = "MutatingWebhookConfiguration" if "reinvocationPolicy" in hook else "ValidatingWebhookConfiguration"
            webhooks.append({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
                             "metadata": {"name": "fuzz"}, "webhooks": [hook]})
            for m in hook.get("matchConditions") or []:
                expressions.append((m.get("expression", ""), req))
        if case.get("webhookConfiguration"):
            webhooks.append(case["webhookConfiguration"])

review_requests = [r["request"] for r in reviews]
all_requests = review_requests + requests[:50]
for i, (expr, req) in enumerate(expressions):
    e = expr.encode()
    corpus["parse"].add(e)
    corpus["check"].add(e)
    r = req if req is not None else review_requests[i % len(review_requests)]
    corpus["eval"].add(e + SEP + request_bytes(r))
for i, (exprs, req) in enumerate(condition_sets):
    r = req if req is not None else review_requests[i % len(review_requests)]
    corpus["decide"].add(SEP.join([request_bytes(r)] + [x.encode() for x in exprs]))
# Groups of three consecutive expressions as conditions over each review.
for i in range(0, len(expressions), 3):
    group = [x.encode() for x, _ in expressions[i:i + 3]]
    r = review_requests[(i // 3) % len(review_requests)]
    corpus["decide"].add(SEP.join([request_bytes(r)] + group))
for w in webhooks:
    corpus["config"].add(yaml.safe_dump(w, sort_keys=False).encode())
    corpus["config"].add(json.dumps(w).encode())
corpus["config"].add((root / "examples" / "webhooks.yaml").read_bytes())
for path in sorted((root / "examples").glob("*.test.yaml")):
    corpus["testfile"].add(path.read_bytes())
for path in sorted((root / "examples" / "manifests").glob("*.yaml")):
    for op in [b"", b"CREATE user=alice", b"UPDATE ns=shop", b"DELETE dry", b"CONNECT sub=exec"]:
        corpus["manifest"].add(op + SEP + path.read_bytes() + SEP + path.read_bytes())

seeds = root / "fuzz" / "seeds"
for target, items in corpus.items():
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    extra = sorted((seeds / target).glob("*")) if (seeds / target).is_dir() else []
    for p in extra:
        items.add(p.read_bytes())
    for data in items:
        (d / hashlib.sha1(data).hexdigest()).write_bytes(data)
    print(f"{target}: {len(items)} inputs in {d}")
PY
