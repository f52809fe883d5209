//! Semantic versions with the parsing rules and error texts of blang/semver v4 (which the
//! Kubernetes semver library uses), the library's optional normalisation (`semver(s, true)`:
//! a leading `v` dropped, missing minor and patch added, leading zeros removed) and
//! blang's precedence.

use std::cmp::Ordering;

use crate::strconv::quote;

/// A prerelease identifier.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pre {
    /// Digits only.
    Num(u64),
    /// Alphanumerics and hyphens.
    Alpha(String),
}

impl Pre {
    fn compare(&self, other: &Pre) -> Ordering {
        match (self, other) {
            (Pre::Num(a), Pre::Num(b)) => a.cmp(b),
            (Pre::Num(_), Pre::Alpha(_)) => Ordering::Less,
            (Pre::Alpha(_), Pre::Num(_)) => Ordering::Greater,
            (Pre::Alpha(a), Pre::Alpha(b)) => a.as_bytes().cmp(b.as_bytes()),
        }
    }
}

/// A semantic version (blang/semver's `Version`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Semver {
    /// The major version.
    pub major: u64,
    /// The minor version.
    pub minor: u64,
    /// The patch version.
    pub patch: u64,
    pre: Vec<Pre>,
    build: Vec<String>,
}

fn numeric(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

fn alphanumeric(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

fn leading_zero(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// `strconv.ParseUint(s, 10, 64)` with Go's error text.
fn parse_uint(s: &str) -> Result<u64, String> {
    if s.is_empty() || !numeric(s) {
        return Err(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            quote(s)
        ));
    }
    s.parse::<u64>().map_err(|_| {
        format!(
            "strconv.ParseUint: parsing {}: value out of range",
            quote(s)
        )
    })
}

/// One of major, minor (checked for characters, leading zeros, then range).
fn part(s: &str, what: &str, upper: &str) -> Result<u64, String> {
    if !numeric(s) {
        return Err(format!(
            "Invalid character(s) found in {what} number {}",
            quote(s)
        ));
    }
    if leading_zero(s) {
        return Err(format!(
            "{upper} number must not contain leading zeroes {}",
            quote(s)
        ));
    }
    parse_uint(s)
}

impl Semver {
    /// blang/semver v4 `Parse`.
    pub fn parse(s: &str) -> Result<Semver, String> {
        if s.is_empty() {
            return Err("Version string empty".to_owned());
        }
        let mut parts = s.splitn(3, '.');
        let (Some(major), Some(minor), Some(rest)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err("No Major.Minor.Patch elements found".to_owned());
        };
        let major = part(major, "major", "Major")?;
        let minor = part(minor, "minor", "Minor")?;
        let (rest, build) = match rest.split_once('+') {
            Some((r, b)) => (r, Some(b)),
            None => (rest, None),
        };
        let (patch, pre) = match rest.split_once('-') {
            Some((p, pre)) => (p, Some(pre)),
            None => (rest, None),
        };
        let patch = part(patch, "patch", "Patch")?;
        let mut version = Semver {
            major,
            minor,
            patch,
            pre: Vec::new(),
            build: Vec::new(),
        };
        for p in pre
            .map(|p| p.split('.').collect::<Vec<_>>())
            .unwrap_or_default()
        {
            if p.is_empty() {
                return Err("Prerelease is empty".to_owned());
            }
            if numeric(p) {
                if leading_zero(p) {
                    return Err(format!(
                        "Numeric PreRelease version must not contain leading zeroes {}",
                        quote(p)
                    ));
                }
                version.pre.push(Pre::Num(parse_uint(p)?));
            } else if alphanumeric(p) {
                version.pre.push(Pre::Alpha(p.to_owned()));
            } else {
                return Err(format!(
                    "Invalid character(s) found in prerelease {}",
                    quote(p)
                ));
            }
        }
        for b in build
            .map(|b| b.split('.').collect::<Vec<_>>())
            .unwrap_or_default()
        {
            if b.is_empty() {
                return Err("Build meta data is empty".to_owned());
            }
            if !alphanumeric(b) {
                return Err(format!(
                    "Invalid character(s) found in build meta data {}",
                    quote(b)
                ));
            }
            version.build.push(b.to_owned());
        }
        Ok(version)
    }

    /// The library's `normalizeAndParse`: drops one leading `v`, leading zeros of the first
    /// three dot-separated parts, and fills in a missing minor and patch with `0`.
    pub fn parse_normalized(s: &str) -> Result<Semver, String> {
        let s = s.strip_prefix('v').unwrap_or(s);
        let mut parts: Vec<String> = s
            .splitn(3, '.')
            .map(|p| {
                if p.len() > 1 {
                    let trimmed = p.trim_start_matches('0');
                    if trimmed.as_bytes().first().is_some_and(u8::is_ascii_digit) {
                        trimmed.to_owned()
                    } else {
                        format!("0{trimmed}")
                    }
                } else {
                    p.to_owned()
                }
            })
            .collect();
        if parts.len() < 3 {
            if parts
                .last()
                .is_some_and(|p| p.contains('+') || p.contains('-'))
            {
                return Err("short version cannot contain PreRelease/Build meta data".to_owned());
            }
            while parts.len() < 3 {
                parts.push("0".to_owned());
            }
        }
        Semver::parse(&parts.join("."))
    }

    /// Precedence (`Version.Compare`).
    pub fn compare(&self, other: &Semver) -> Ordering {
        let core =
            (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch));
        if core != Ordering::Equal {
            return core;
        }
        match (self.pre.is_empty(), other.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        for (a, b) in self.pre.iter().zip(other.pre.iter()) {
            let c = a.compare(b);
            if c != Ordering::Equal {
                return c;
            }
        }
        self.pre.len().cmp(&other.pre.len())
    }

    /// `Version.String`.
    pub fn to_text(&self) -> String {
        let mut out = format!("{}.{}.{}", self.major, self.minor, self.patch);
        if !self.pre.is_empty() {
            out.push('-');
            let pre: Vec<String> = self
                .pre
                .iter()
                .map(|p| match p {
                    Pre::Num(n) => n.to_string(),
                    Pre::Alpha(a) => a.clone(),
                })
                .collect();
            out.push_str(&pre.join("."));
        }
        if !self.build.is_empty() {
            out.push('+');
            out.push_str(&self.build.join("."));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        Semver::parse(s).unwrap_err()
    }

    #[test]
    fn parse_errors() {
        for (input, want) in [
            ("", "Version string empty"),
            ("v1.0", "No Major.Minor.Patch elements found"),
            (
                "v1.0.0",
                "Invalid character(s) found in major number \"v1\"",
            ),
            (
                "01.1.1",
                "Major number must not contain leading zeroes \"01\"",
            ),
            (
                "1.01.1",
                "Minor number must not contain leading zeroes \"01\"",
            ),
            (
                "1.1.01",
                "Patch number must not contain leading zeroes \"01\"",
            ),
            (
                "1. 0.0",
                "Invalid character(s) found in minor number \" 0\"",
            ),
            (
                "1.0.0 ",
                "Invalid character(s) found in patch number \"0 \"",
            ),
            ("1..0", "strconv.ParseUint: parsing \"\": invalid syntax"),
            (
                "18446744073709551616.0.0",
                "strconv.ParseUint: parsing \"18446744073709551616\": value out of range",
            ),
            ("1.0.0-", "Prerelease is empty"),
            ("1.0.0-a..b", "Prerelease is empty"),
            (
                "1.0.0-01",
                "Numeric PreRelease version must not contain leading zeroes \"01\"",
            ),
            (
                "1.0.0-a_b",
                "Invalid character(s) found in prerelease \"a_b\"",
            ),
            ("1.0.0+", "Build meta data is empty"),
            (
                "1.0.0+a+b",
                "Invalid character(s) found in build meta data \"a+b\"",
            ),
            (
                "1.0.0+é",
                "Invalid character(s) found in build meta data \"é\"",
            ),
        ] {
            assert_eq!(err(input), want, "{input:?}");
        }
        assert_eq!(
            Semver::parse_normalized("1-beta").unwrap_err(),
            "short version cannot contain PreRelease/Build meta data"
        );
    }

    #[test]
    fn parse_and_print() {
        let v = Semver::parse("1.2.3-beta.1+build.001").unwrap();
        assert_eq!(v.to_text(), "1.2.3-beta.1+build.001");
        assert_eq!(v.pre, vec![Pre::Alpha("beta".into()), Pre::Num(1)]);
        for (input, want) in [
            ("v1.0.0", "1.0.0"),
            ("01.01.01", "1.1.1"),
            ("1", "1.0.0"),
            ("v01.01", "1.1.0"),
            ("00.0.000", "0.0.0"),
            ("1.2.03-rc.1", "1.2.3-rc.1"),
        ] {
            assert_eq!(Semver::parse_normalized(input).unwrap().to_text(), want);
        }
        assert!(Semver::parse_normalized("").is_err());
        assert!(Semver::parse_normalized(" 1.0.0").is_err());
        assert!(Semver::parse_normalized("vv1.0.0").is_err());
    }

    #[test]
    fn precedence() {
        let order = [
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.1",
            "1.1.0",
            "2.0.0",
        ];
        for pair in order.windows(2) {
            let a = Semver::parse(pair[0]).unwrap();
            let b = Semver::parse(pair[1]).unwrap();
            assert_eq!(a.compare(&b), Ordering::Less, "{} < {}", pair[0], pair[1]);
            assert_eq!(b.compare(&a), Ordering::Greater);
        }
        let a = Semver::parse("1.0.0+a").unwrap();
        let b = Semver::parse("1.0.0+b").unwrap();
        assert_eq!(a.compare(&b), Ordering::Equal);
    }
}
