//! Parsing Kubernetes versions as clusters report them.

use std::str::FromStr;

use crate::KubeVersion;

/// The model to use for a version a cluster reported ([`KubeVersion::for_cluster`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ClusterVersion {
    /// The modelled version to build environments and dispatchers with.
    pub model: KubeVersion,
    /// The major and minor version the cluster reported.
    pub reported: KubeVersion,
}

impl ClusterVersion {
    /// True when the cluster is newer than the newest modelled version, and
    /// [`ClusterVersion::model`] is that newest version (worth a log line: expressions
    /// using what the newer version added do not compile under the model).
    pub fn is_newer_than_modelled(&self) -> bool {
        self.reported > self.model
    }
}

impl KubeVersion {
    /// The model to use for a version as a cluster reports it (`v1.38.1`, `1.34+`,
    /// `v1.34.2-eks-1a2b3c`, the forms of [`KubeVersion::parse`]; its `/version`
    /// `gitVersion` for one): the version itself when it is modelled; the newest model,
    /// [`KubeVersion::LATEST`], when it is newer — flagged, see
    /// [`ClusterVersion::is_newer_than_modelled`] — so that a server keeps working the day
    /// its cluster is upgraded; an error when it is older than [`KubeVersion::OLDEST`] or
    /// not a version. `FromStr` stays strict: it refuses any version not modelled.
    ///
    /// ```
    /// use matchcond::KubeVersion;
    /// let v = KubeVersion::for_cluster("v1.38.1").unwrap();
    /// assert_eq!(v.model, KubeVersion::LATEST);
    /// assert!(v.is_newer_than_modelled());
    /// assert!("v1.38.1".parse::<KubeVersion>().is_err());
    /// assert!(KubeVersion::for_cluster("v1.20.0").is_err());
    /// ```
    pub fn for_cluster(text: &str) -> Result<ClusterVersion, ParseKubeVersionError> {
        let reported = read(text).ok_or_else(|| ParseKubeVersionError::Invalid {
            given: text.to_string(),
        })?;
        if reported < KubeVersion::OLDEST {
            return Err(ParseKubeVersionError::Unsupported {
                version: reported,
                oldest: KubeVersion::OLDEST,
                latest: KubeVersion::LATEST,
            });
        }
        Ok(ClusterVersion {
            model: reported.min(KubeVersion::LATEST),
            reported,
        })
    }
}

/// Why a text is not a modelled Kubernetes version.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseKubeVersionError {
    /// Not a version.
    #[error(
        "invalid Kubernetes version {given:?} (expected MAJOR.MINOR[.PATCH], as 1.34, v1.34.2, \
         1.34+ or v1.34.2-eks-1a2b3c)"
    )]
    Invalid {
        /// The text given.
        given: String,
    },
    /// A version outside the modelled range.
    #[error("unsupported Kubernetes version {version} (supported: {oldest} to {latest})")]
    Unsupported {
        /// The version read.
        version: KubeVersion,
        /// The oldest modelled version.
        oldest: KubeVersion,
        /// The newest modelled version.
        latest: KubeVersion,
    },
}

/// Reads the major and minor version of what a cluster reports: an optional `v`, `MAJOR.MINOR`,
/// an optional `.PATCH`, then an optional pre-release or build suffix starting with `-` or
/// `+` (`1.34`, `v1.34.2`, `1.34+` as `kubectl version` shows some providers' minor,
/// `v1.34.2-eks-1a2b3c`, `v1.34.2+k3s1`, `v1.34.0-gke.1234`). Surrounding whitespace is
/// ignored.
pub(crate) fn read(text: &str) -> Option<KubeVersion> {
    let s = text.trim();
    let s = s.strip_prefix('v').unwrap_or(s);
    let (major, rest) = number(s)?;
    let rest = rest.strip_prefix('.')?;
    let (minor, rest) = number(rest)?;
    let rest = match rest.strip_prefix('.') {
        Some(patch) => number(patch)?.1,
        None => rest,
    };
    match rest.chars().next() {
        None | Some('+' | '-') => Some(KubeVersion::new(major, minor)),
        Some(_) => None,
    }
}

/// A decimal number at the start of `s` (at most 9 digits), and what follows it.
fn number(s: &str) -> Option<(u32, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if end == 0 || end > 9 {
        return None;
    }
    let (digits, rest) = s.split_at(end);
    Some((digits.parse().ok()?, rest))
}

impl FromStr for KubeVersion {
    type Err = ParseKubeVersionError;

    /// A modelled version from what a cluster reports (see [`KubeVersion::parse`] for the
    /// forms accepted); versions outside [`KubeVersion::OLDEST`]..=[`KubeVersion::LATEST`]
    /// are [`ParseKubeVersionError::Unsupported`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let version = read(s).ok_or_else(|| ParseKubeVersionError::Invalid {
            given: s.to_string(),
        })?;
        if !version.is_modelled() {
            return Err(ParseKubeVersionError::Unsupported {
                version,
                oldest: KubeVersion::OLDEST,
                latest: KubeVersion::LATEST,
            });
        }
        Ok(version)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn versions_as_clusters_report_them() {
        for (text, minor) in [
            ("1.34", 34),
            ("v1.34", 34),
            ("v1.34.2", 34),
            ("1.34+", 34),
            ("v1.34.2-eks-1a2b3c4", 34),
            ("v1.34.2+k3s1", 34),
            ("v1.34.0-gke.1234", 34),
            ("1.28.0", 28),
            (" 1.37 ", 37),
            ("v1.30.14-rc.0", 30),
        ] {
            assert_eq!(
                text.parse::<KubeVersion>(),
                Ok(KubeVersion::new(1, minor)),
                "{text}"
            );
        }
    }

    #[test]
    fn malformed_versions_are_invalid() {
        for text in [
            "",
            "v",
            "1",
            "1.",
            "1.x",
            "v1.34.",
            "1.34.2.1",
            "1.34 2",
            "version 1.34",
            "1.34a",
            "1..34",
            "+1.34",
            "1.34.x",
            "1.9999999999",
        ] {
            assert_eq!(
                text.parse::<KubeVersion>(),
                Err(ParseKubeVersionError::Invalid { given: text.into() }),
                "{text}"
            );
            assert_eq!(KubeVersion::parse(text), None, "{text}");
        }
        assert_eq!(
            "1.x".parse::<KubeVersion>().unwrap_err().to_string(),
            "invalid Kubernetes version \"1.x\" (expected MAJOR.MINOR[.PATCH], as 1.34, \
             v1.34.2, 1.34+ or v1.34.2-eks-1a2b3c)"
        );
    }

    #[test]
    fn versions_outside_the_modelled_range_are_unsupported() {
        let e = "v1.27.3".parse::<KubeVersion>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unsupported Kubernetes version 1.27 (supported: 1.28 to 1.37)"
        );
        assert_eq!(
            "1.38".parse::<KubeVersion>(),
            Err(ParseKubeVersionError::Unsupported {
                version: KubeVersion::new(1, 38),
                oldest: KubeVersion::V1_28,
                latest: KubeVersion::V1_37,
            })
        );
        assert!("2.0".parse::<KubeVersion>().is_err());
        // `parse` reads any version; the range is `from_str`'s.
        assert_eq!(KubeVersion::parse("1.38"), Some(KubeVersion::new(1, 38)));
        assert_eq!(KubeVersion::parse("v1.34.2+k3s1"), Some(KubeVersion::V1_34));
    }

    #[test]
    fn a_cluster_newer_than_modelled_uses_the_newest_model_flagged() {
        let v = KubeVersion::for_cluster("v1.38.1").unwrap();
        assert_eq!(
            (v.model, v.reported, v.is_newer_than_modelled()),
            (KubeVersion::LATEST, KubeVersion::new(1, 38), true)
        );
        let v = KubeVersion::for_cluster("2.0").unwrap();
        assert_eq!(
            (v.model, v.is_newer_than_modelled()),
            (KubeVersion::LATEST, true)
        );
        for text in ["v1.28.0", "1.34+", "v1.34.2-eks-1a2b3c4", "v1.37.0"] {
            let v = KubeVersion::for_cluster(text).unwrap();
            assert_eq!(v.model, v.reported, "{text}");
            assert!(!v.is_newer_than_modelled(), "{text}");
            assert_eq!(text.parse::<KubeVersion>(), Ok(v.model), "{text}");
        }
        assert_eq!(
            KubeVersion::for_cluster("v1.27.9").unwrap_err().to_string(),
            "unsupported Kubernetes version 1.27 (supported: 1.28 to 1.37)"
        );
        assert_eq!(
            KubeVersion::for_cluster("1.x"),
            Err(ParseKubeVersionError::Invalid {
                given: "1.x".into()
            })
        );
        // FromStr stays strict.
        assert!("v1.38.1".parse::<KubeVersion>().is_err());
    }
}
