//! The binary: exit status, report lines, known-failures files. Only cases whose result does not
//! depend on the engine are used (skipped cases, invalid cases, unreadable files).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fs;
use std::process::Command;

mod common {
    pub mod temp_dir;
}
use common::temp_dir::temp_dir;

fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_matchcond-conformance"))
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

const SKIPPED: &str = "suite: skipped\ncases:\n  - {name: a, expression: x, skip: later}\n  - {name: b, expression: y, skip: later}\n";
const INVALID: &str = "suite: invalid\ncases:\n  - {name: no expect, expression: x}\n  - {name: skipped, expression: x, skip: later}\n";

#[test]
fn exit_status_and_summary() {
    let dir = temp_dir("status");
    let skipped = dir.0.join("skipped.yaml");
    let invalid = dir.0.join("invalid.yaml");
    fs::write(&skipped, SKIPPED).unwrap();
    fs::write(&invalid, INVALID).unwrap();
    let (code, out, _) = run(&[skipped.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (0, "0 passed, 0 failed, 2 skipped\n"));

    let (code, out, _) = run(&["--verbose", dir.0.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "FAIL invalid :: no expect: invalid case: the case has no `expect`\n\
         SKIP invalid :: skipped: later\n\
         SKIP skipped :: a: later\n\
         SKIP skipped :: b: later\n\
         0 passed, 1 failed, 3 skipped\n"
    );

    let missing = dir.0.join("missing.yaml");
    let (code, out, _) = run(&[missing.to_str().unwrap(), skipped.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.starts_with(&format!("ERROR {}: cannot read: ", missing.display())));
    assert!(out.ends_with("\n0 passed, 1 failed, 2 skipped\n"));

    let (code, _, err) = run(&[]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: no suite file or folder given\n"));
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("usage: matchcond-conformance"));
}

#[test]
fn known_failures_round_trip() {
    let dir = temp_dir("known");
    let invalid = dir.0.join("invalid.yaml");
    fs::write(&invalid, INVALID).unwrap();
    let known = dir.0.join("known.txt");
    let suite = invalid.to_str().unwrap();

    // Bootstrap the list: the run still fails, the file lists the failure.
    let (code, _, err) = run(&["--write-known-failures", known.to_str().unwrap(), suite]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!("wrote 1 known failures to {}\n", known.display())
    );
    assert_eq!(
        fs::read_to_string(&known).unwrap(),
        "# Known conformance failures, one per line: <suite> | <case name> | <reason>\n\
         # A listed case must still fail; remove its line once it passes.\n\
         invalid | no expect | invalid case: the case has no `expect`\n"
    );

    // With the list, the run passes; the failure is reported as known and counted as failed.
    let (code, out, _) = run(&["--known-failures", known.to_str().unwrap(), suite]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "KNOWN invalid :: no expect: invalid case: the case has no `expect`\n\
         known failures: 1 listed, 1 still failing\n\
         0 passed, 1 failed, 1 skipped\n"
    );

    // A human-written reason is kept when the list is rewritten.
    fs::write(&known, "invalid | no expect | written on purpose\n").unwrap();
    let rewritten = dir.0.join("rewritten.txt");
    let (code, _, _) = run(&[
        "--known-failures",
        known.to_str().unwrap(),
        "--write-known-failures",
        rewritten.to_str().unwrap(),
        suite,
    ]);
    assert_eq!(code, 0);
    assert!(fs::read_to_string(&rewritten)
        .unwrap()
        .ends_with("\ninvalid | no expect | written on purpose\n"));

    // A stale entry (here: a skipped case) fails the run.
    fs::write(
        &known,
        "invalid | no expect | r\ninvalid | skipped | skipped cases do not run\n",
    )
    .unwrap();
    let (code, out, _) = run(&["--known-failures", known.to_str().unwrap(), suite]);
    assert_eq!(code, 1);
    assert!(out.contains(
        "STALE invalid :: skipped: not among the cases run; remove it from the known-failures file\n"
    ));

    // An unlisted failure fails the run.
    fs::write(&known, "# nothing listed\n").unwrap();
    let (code, out, _) = run(&["--known-failures", known.to_str().unwrap(), suite]);
    assert_eq!(code, 1);
    assert!(out.starts_with("FAIL invalid :: no expect: "));
    assert!(
        out.ends_with("known failures: 0 listed, 0 still failing\n0 passed, 1 failed, 1 skipped\n")
    );

    // A malformed list is a usage error.
    fs::write(&known, "invalid | no expect\n").unwrap();
    let (code, out, err) = run(&["--known-failures", known.to_str().unwrap(), suite]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!(
            "error: known-failures file {}: line 1: expected `<suite> | <case name> | <reason>`, found `invalid | no expect`\n",
            known.display()
        )
    );
}
