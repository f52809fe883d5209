//! What the command's tests share: running the built `matchcond` (in `tests/data`, with or
//! without standard input), and sessions compared whole with snapshot files.
//!
//! A [`Session`] records each command it runs: the command line, its standard input, exit
//! code, standard output and standard error. [`Session::check`] compares the record with
//! `tests/snapshots/<name>.txt`; with `UPDATE_SNAPSHOTS=1` in the environment it writes the
//! file instead, so that a change of output is reviewed as a diff of that file. JSON output
//! is recorded pretty-printed, after checking that the command wrote it compact, with sorted
//! keys, on one line.
// Each test file uses a part of these.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one run of the command gave.
#[derive(Debug)]
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// The folder of the tests' input files, where the command runs.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// The path of an input file.
pub fn data(name: &str) -> String {
    data_dir().join(name).display().to_string()
}

fn finish(mut command: Command, stdin: Option<&str>) -> Run {
    let mut child = command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // The command may exit before reading (a refused option): a closed pipe is fine.
        let _ = pipe.write_all(text.as_bytes());
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// The command in `dir`, `NO_COLOR` removed from its environment.
pub fn command_in(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_matchcond"));
    command.args(args).current_dir(dir).env_remove("NO_COLOR");
    command
}

/// Runs the command in `tests/data` with `stdin` as its standard input (none: empty).
pub fn run_with_stdin(args: &[&str], stdin: Option<&str>) -> Run {
    finish(command_in(&data_dir(), args), stdin)
}

/// Runs the command in `tests/data`.
pub fn run(args: &[&str]) -> Run {
    run_with_stdin(args, None)
}

/// Runs the command in `tests/data` with environment variables set.
pub fn run_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = command_in(&data_dir(), args);
    command.envs(env.iter().copied());
    finish(command, None)
}

/// Runs the command in another folder.
pub fn run_in(dir: &Path, args: &[&str]) -> Run {
    finish(command_in(dir, args), None)
}

/// The text without its ANSI colour sequences.
pub fn strip_colour(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find('m').unwrap();
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Parses JSON output.
pub fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

/// Commands run one after the other, recorded for a snapshot file.
pub struct Session {
    name: String,
    record: String,
}

/// A word of a command line as a shell reads it back.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,@+".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else if !word.contains('\'') {
        format!("'{word}'")
    } else if !word.contains(['"', '$', '`', '\\']) {
        format!("\"{word}\"")
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Appends an output section: its lines, and a mark when the last has no line break.
fn section(record: &mut String, title: &str, text: &str) {
    if text.is_empty() {
        return;
    }
    let _ = writeln!(record, "--- {title}");
    record.push_str(text);
    if !text.ends_with('\n') {
        record.push_str("\n[no line break at the end]\n");
    }
}

impl Session {
    /// A session recorded in `tests/snapshots/<name>.txt`.
    pub fn new(name: &str) -> Session {
        Session {
            name: name.to_owned(),
            record: String::new(),
        }
    }

    /// Runs the command in `tests/data` and records it.
    pub fn run(&mut self, args: &[&str]) -> Run {
        self.run_with_stdin(args, None)
    }

    /// Runs the command in `tests/data` with a standard input and records it.
    pub fn run_with_stdin(&mut self, args: &[&str], stdin: Option<&str>) -> Run {
        let r = run_with_stdin(args, stdin);
        self.record(args, stdin, &r);
        r
    }

    /// Runs the command with the file `tests/data/<name>` as its standard input and records
    /// it (as `< name`).
    pub fn run_with_stdin_file(&mut self, args: &[&str], name: &str) -> Run {
        let text = std::fs::read_to_string(data(name)).unwrap();
        let r = run_with_stdin(args, Some(&text));
        let mut line = args.to_vec();
        line.extend(["<", name]);
        self.record(&line, None, &r);
        r
    }

    fn record(&mut self, args: &[&str], stdin: Option<&str>, r: &Run) {
        if !self.record.is_empty() {
            self.record.push('\n');
        }
        self.record.push_str("$ matchcond");
        for a in args {
            self.record.push(' ');
            self.record.push_str(&if *a == "<" {
                "<".to_owned()
            } else {
                shell_word(a)
            });
        }
        self.record.push('\n');
        if let Some(text) = stdin {
            section(&mut self.record, "stdin", text);
        }
        let _ = writeln!(self.record, "--- exit code {}", r.code);
        let json_output = args.windows(2).any(|w| w == ["--output", "json"]);
        match serde_json::from_str::<serde_json::Value>(&r.stdout) {
            Ok(value) if json_output => {
                let compact = format!("{}\n", serde_json::to_string(&value).unwrap());
                assert_eq!(
                    r.stdout, compact,
                    "{args:?}: JSON output is compact, one line"
                );
                let pretty = format!("{}\n", serde_json::to_string_pretty(&value).unwrap());
                section(&mut self.record, "stdout (JSON)", &pretty);
            }
            _ => section(&mut self.record, "stdout", &r.stdout),
        }
        section(&mut self.record, "stderr", &r.stderr);
    }

    /// Compares the record with the snapshot file (or writes it, with `UPDATE_SNAPSHOTS=1`).
    pub fn check(self) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/snapshots")
            .join(format!("{}.txt", self.name));
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1") {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &self.record).unwrap();
            return;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}\n(run the tests with UPDATE_SNAPSHOTS=1 to write it)\n\n{}",
                path.display(),
                self.record
            )
        });
        if want != self.record {
            let first = want
                .lines()
                .zip(self.record.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| want.lines().count().min(self.record.lines().count()));
            panic!(
                "the output differs from {} from line {}\n(if the change is intended, run the tests with UPDATE_SNAPSHOTS=1 and review the diff)\n\n--- expected\n{want}\n--- got\n{}",
                path.display(),
                first + 1,
                self.record
            );
        }
    }
}
