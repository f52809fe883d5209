//! The lint configuration file (`.matchcond.yaml`, or `--lint-config FILE`): the severity of
//! finding codes, the exit threshold, and allow-lists of codes (each with its reason) per
//! path glob and webhook name. It is read strictly: unknown fields, unknown codes, bad
//! levels, bad globs and allow entries without a reason are errors at `FILE:LINE:COLUMN`.
//!
//! ```yaml
//! failOn: warning                # error | warning | note (the command line wins)
//! severity:                      # per finding code
//!   minimumVersion: error
//!   compatibility: warning
//! allow:
//!   - codes: [absentMap]
//!     reason: our mutating webhook adds the labels first
//!     paths: ["legacy/**"]       # globs relative to this file's folder (absent: every file)
//!     webhooks: ["*.legacy.example.com"]  # webhook names or globs (absent: every finding)
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use glob::{MatchOptions, Pattern};
use serde::de::{self, Deserializer};
use serde::Deserialize;

use super::Level;
use crate::input::InputError;

/// The name of the file looked for from each linted file's folder upwards.
pub const FILE_NAME: &str = ".matchcond.yaml";

/// A finding code, checked against the codes the command knows.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct CodeName(pub String);

impl<'de> Deserialize<'de> for CodeName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        check_code(&s).map_err(de::Error::custom)?;
        Ok(CodeName(s))
    }
}

/// Checks a code name: a finding code of the linter or of the command.
pub fn check_code(name: &str) -> Result<(), String> {
    if super::codes::is_known(name) {
        Ok(())
    } else {
        Err(format!(
            "unknown finding code {name:?} (known: {})",
            super::codes::names().join(", ")
        ))
    }
}

/// A glob (`*`, `?`, `[...]`, `**` across folders).
#[derive(Clone, Debug)]
pub struct Glob(pub Pattern);

impl<'de> Deserialize<'de> for Glob {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Pattern::new(&s)
            .map(Glob)
            .map_err(|e| de::Error::custom(format!("invalid glob {s:?}: {e}")))
    }
}

/// A reason: text that is not blank.
#[derive(Clone, Debug)]
pub struct Reason(pub String);

impl<'de> Deserialize<'de> for Reason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.trim().is_empty() {
            return Err(de::Error::custom(
                "the reason is empty: say why the finding does not apply",
            ));
        }
        Ok(Reason(s.trim().to_owned()))
    }
}

/// One allow entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowEntry {
    /// The codes allowed.
    pub codes: Vec<CodeName>,
    /// Why.
    pub reason: Reason,
    /// The files (globs relative to the configuration file's folder); absent: every file.
    #[serde(default)]
    pub paths: Vec<Glob>,
    /// The webhooks (names or globs); absent: every finding.
    #[serde(default)]
    pub webhooks: Vec<Glob>,
}

/// The file as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FileForm {
    /// The exit threshold.
    pub fail_on: Option<Level>,
    /// The severity per code.
    #[serde(default)]
    pub severity: BTreeMap<CodeName, Level>,
    /// The allow entries.
    #[serde(default)]
    pub allow: Vec<AllowEntry>,
}

/// A loaded configuration file.
#[derive(Debug)]
pub struct LintConfig {
    /// The file (as displayed).
    pub name: String,
    /// Its folder (absolute), what `paths` are relative to.
    pub dir: PathBuf,
    /// Its content.
    pub form: FileForm,
    /// The line and column of each allow entry (1-based; 0 when not found), for reporting
    /// an entry that allows nothing.
    pub entry_lines: Vec<(u32, u32)>,
}

/// Finds where each entry of the top-level `allow` list starts (`- ` items: line and
/// column, 1-based), for reports.
fn entry_lines(text: &str, count: usize) -> Vec<(u32, u32)> {
    let mut lines = Vec::new();
    let mut in_allow = false;
    let mut indent = None;
    for (i, line) in text.lines().enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let trimmed = line.trim_start();
        let lead = line.len() - trimmed.len();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if lead == 0 && !trimmed.starts_with('-') {
            in_allow = trimmed.starts_with("allow:");
            indent = None;
            continue;
        }
        if in_allow && trimmed.starts_with('-') {
            let at = *indent.get_or_insert(lead);
            if lead == at {
                lines.push((n, u32::try_from(lead + 1).unwrap_or(u32::MAX)));
            }
        }
    }
    lines.resize(count.max(lines.len()), (0, 0));
    lines
}

impl LintConfig {
    /// Reads and checks a configuration file.
    pub fn load(path: &Path) -> Result<LintConfig, InputError> {
        // Shown relative to the working folder when it is below it.
        let name = std::env::current_dir()
            .ok()
            .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
            .unwrap_or_else(|| path.to_path_buf())
            .display()
            .to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| InputError(format!("{name}: cannot read: {e}")))?;
        let form: FileForm = if text.trim().is_empty() {
            FileForm::default()
        } else {
            serde_yaml_ng::from_str(&text).map_err(|e| {
                let at = e
                    .location()
                    .map(|l| format!("{}:{}:", l.line(), l.column()))
                    .unwrap_or_default();
                let message = e.to_string();
                // serde_yaml_ng appends " at line L column C": the position leads instead.
                let message = message
                    .rsplit_once(" at line ")
                    .map_or(message.as_str(), |(m, _)| m)
                    .to_owned();
                InputError(format!("{name}:{at} {message}"))
            })?
        };
        let dir = std::path::absolute(path)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        let entry_lines = entry_lines(&text, form.allow.len());
        Ok(LintConfig {
            name,
            dir: normalize(&dir),
            form,
            entry_lines,
        })
    }

    /// The configuration file that applies to a linted file: `.matchcond.yaml` in its
    /// folder or the nearest folder above.
    pub fn find_for(file: &Path) -> Option<PathBuf> {
        let abs = std::path::absolute(file).ok()?;
        let mut dir = abs.parent();
        while let Some(d) = dir {
            let candidate = d.join(FILE_NAME);
            if candidate.is_file() {
                return Some(candidate);
            }
            dir = d.parent();
        }
        None
    }

    /// The path of a linted file relative to this file's folder (`None`: outside it).
    pub fn relative(&self, file: &Path) -> Option<PathBuf> {
        let abs = normalize(&std::path::absolute(file).ok()?);
        abs.strip_prefix(&self.dir).ok().map(Path::to_path_buf)
    }
}

/// Removes `.` and resolves `..` lexically.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// How globs match paths: `*` stays within a folder, `**` crosses folders.
pub const PATH_MATCH: MatchOptions = MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: false,
};

impl AllowEntry {
    /// True when the entry covers the file (`relative`: its path from the configuration's
    /// folder).
    pub fn covers_file(&self, relative: Option<&Path>) -> bool {
        if self.paths.is_empty() {
            return true;
        }
        let Some(rel) = relative else { return false };
        self.paths
            .iter()
            .any(|g| g.0.matches_path_with(rel, PATH_MATCH))
    }

    /// True when the entry covers a finding of this webhook (`None`: a finding about no
    /// webhook).
    pub fn covers_webhook(&self, webhook: Option<&str>) -> bool {
        if self.webhooks.is_empty() {
            return true;
        }
        webhook.is_some_and(|w| self.webhooks.iter().any(|g| g.0.matches(w)))
    }

    /// True when the entry allows this code.
    pub fn allows(&self, code: &str) -> bool {
        self.codes.iter().any(|c| c.0 == code)
    }
}

impl fmt::Display for CodeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn load(text: &str) -> Result<LintConfig, String> {
        let dir = std::env::temp_dir().join(format!(
            "matchcond-lint-config-{}-{}",
            std::process::id(),
            text.len()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(FILE_NAME);
        std::fs::write(&path, text).unwrap();
        let r = LintConfig::load(&path).map_err(|e| {
            e.0.strip_prefix(&format!("{}:", path.display()))
                .unwrap()
                .to_owned()
        });
        std::fs::remove_dir_all(&dir).unwrap();
        r
    }

    #[test]
    fn strict_with_positions() {
        assert_eq!(
            load("failOn: warning\nseverty: {}\n").unwrap_err(),
            "2:1: unknown field `severty`, expected one of `failOn`, `severity`, `allow`"
        );
        assert!(load("severity:\n  absentMaps: error\n")
            .unwrap_err()
            .starts_with("2:3: severity: unknown finding code \"absentMaps\" (known: "));
        assert_eq!(
            load("severity:\n  absentMap: fatal\n").unwrap_err(),
            "2:14: severity.absentMap: unknown variant `fatal`, expected one of `error`, `warning`, `note`"
        );
        assert_eq!(
            load("allow:\n- codes: [absentMap]\n").unwrap_err(),
            "2:3: allow[0]: missing field `reason`"
        );
        assert_eq!(
            load("allow:\n- codes: [absentMap]\n  reason: '  '\n").unwrap_err(),
            "2:3: allow[0]: the reason is empty: say why the finding does not apply"
        );
        assert_eq!(
            load("allow:\n- codes: [absentMap]\n  reason: r\n  paths: ['a[']\n").unwrap_err(),
            "4:10: allow[0].paths: invalid glob \"a[\": Pattern syntax error near position 1: invalid range pattern"
        );
    }

    #[test]
    fn entries_and_their_lines() {
        let c = load("# top\nfailOn: note\nallow:\n  - codes: [absentMap]\n    reason: r\n    paths: ['charts/**/*.yaml']\n    webhooks: ['*.example.com']\n  - {codes: [costBudget], reason: measured}\nseverity: {minimumVersion: error}\n").unwrap();
        assert_eq!(c.form.fail_on, Some(Level::Note));
        assert_eq!(c.entry_lines, [(4, 3), (8, 3)]);
        let e = &c.form.allow[0];
        assert!(e.allows("absentMap") && !e.allows("costBudget"));
        assert!(e.covers_file(Some(Path::new("charts/a/b/x.yaml"))));
        assert!(e.covers_file(Some(Path::new("charts/x.yaml"))));
        assert!(!e.covers_file(Some(Path::new("other/x.yaml"))));
        assert!(!e.covers_file(None));
        assert!(e.covers_webhook(Some("pods.example.com")));
        assert!(!e.covers_webhook(Some("pods.example.org")));
        assert!(!e.covers_webhook(None));
        assert!(c.form.allow[1].covers_webhook(None));
        assert_eq!(
            c.form.severity.get(&CodeName("minimumVersion".into())),
            Some(&Level::Error)
        );
    }
}
