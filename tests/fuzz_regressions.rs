//! Replays the saved fuzz inputs — every file under `fuzz/regressions/<target>/` and
//! `fuzz/seeds/<target>/` — through the same functions the fuzz targets run
//! (`tests/fuzz_targets/mod.rs`), on a thread with a 2 MiB stack: none may panic, overflow
//! the stack or run for long.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;
mod fuzz_targets;

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The most one input may take in a debug build.
const PER_INPUT: Duration = Duration::from_secs(20);

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

fn replay(kind: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(kind);
    let mut count = 0;
    for target in fuzz_targets::TARGETS {
        for path in files(&root.join(target)) {
            let data = std::fs::read(&path).unwrap();
            let label = path.display().to_string();
            let known = common::bounded(&format!("{label} ({target})"), PER_INPUT, move || {
                fuzz_targets::run(target, &data)
            });
            assert!(known, "{target} is not a target");
            count += 1;
        }
    }
    count
}

#[test]
fn regressions_replay_cleanly() {
    let n = replay("regressions");
    // Every directory of regressions belongs to a target.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    if let Ok(rd) = std::fs::read_dir(&root) {
        for e in rd {
            let p = e.unwrap().path();
            if p.is_dir() {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                assert!(
                    fuzz_targets::TARGETS.contains(&name.as_str()),
                    "fuzz/regressions/{name} is not a target"
                );
            }
        }
    }
    eprintln!("{n} regression inputs replayed");
}

#[test]
fn seeds_replay_cleanly() {
    let n = replay("seeds");
    eprintln!("{n} seed inputs replayed");
}

#[test]
fn targets_take_their_input_formats() {
    // A request, then two conditions; the targets accept any bytes.
    let mut data = br#"{"request": {"operation": "CREATE", "namespace": "a"}}"#.to_vec();
    data.push(fuzz_targets::SEPARATOR);
    data.extend_from_slice(b"request.namespace == 'a'");
    data.push(fuzz_targets::SEPARATOR);
    data.extend_from_slice(b"object == null");
    for target in fuzz_targets::TARGETS {
        assert!(fuzz_targets::run(target, &data));
        assert!(fuzz_targets::run(target, b""));
        assert!(fuzz_targets::run(target, b"\xff\xfe("));
    }
    assert!(!fuzz_targets::run("nope", b""));
}
