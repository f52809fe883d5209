//! The Kubernetes releases this library models, in one table.
//!
//! [`RELEASES`] has a row for each Kubernetes minor version that changed something the
//! engine models, oldest first: what that release changed ([`Change`]) and what it ended.
//! Everything that differs between versions is projected from it — the compiler's
//! [`Features`](crate::Features) (libraries, language options, parser and checker behaviour,
//! cost mode), the run-time [`Behaviours`](matchcond_runtime::libraries::Behaviours) of the
//! libraries' implementations, the dispatcher's message wording and the lint's cost mode —
//! through [`Change::in_force`]. The modelled range ends at the last row
//! ([`KubeVersion::LATEST`], the default wherever a version is optional).
//!
//! A change belongs to one of two layers ([`Layer`]): what an environment declares
//! (libraries and language options, taken from the environment's version: the binary's own
//! for stored expressions, the previous minor version for new ones), or what the apiserver
//! binary does whatever the environment (its cel-go, its libraries' code, its messages).

use std::fmt;

use matchcond_runtime::libraries::Library;

/// A Kubernetes minor version (`1.34`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    /// Major version (1).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl KubeVersion {
    /// Kubernetes 1.28.
    pub const V1_28: KubeVersion = KubeVersion::new(1, 28);
    /// Kubernetes 1.29.
    pub const V1_29: KubeVersion = KubeVersion::new(1, 29);
    /// Kubernetes 1.30.
    pub const V1_30: KubeVersion = KubeVersion::new(1, 30);
    /// Kubernetes 1.31.
    pub const V1_31: KubeVersion = KubeVersion::new(1, 31);
    /// Kubernetes 1.32.
    pub const V1_32: KubeVersion = KubeVersion::new(1, 32);
    /// Kubernetes 1.33.
    pub const V1_33: KubeVersion = KubeVersion::new(1, 33);
    /// Kubernetes 1.34.
    pub const V1_34: KubeVersion = KubeVersion::new(1, 34);
    /// Kubernetes 1.35.
    pub const V1_35: KubeVersion = KubeVersion::new(1, 35);
    /// Kubernetes 1.36.
    pub const V1_36: KubeVersion = KubeVersion::new(1, 36);
    /// Kubernetes 1.37.
    pub const V1_37: KubeVersion = KubeVersion::new(1, 37);
    /// The oldest version this library models.
    pub const OLDEST: KubeVersion = KubeVersion::V1_28;
    /// The newest version this library models: the last row of [`RELEASES`], and the
    /// default wherever a version is optional.
    pub const LATEST: KubeVersion = match RELEASES.last() {
        Some(release) => release.version,
        None => KubeVersion::OLDEST,
    };

    /// A version.
    pub const fn new(major: u32, minor: u32) -> Self {
        KubeVersion { major, minor }
    }

    /// The previous minor version (the apiserver's default compatibility version).
    pub fn previous(self) -> Self {
        KubeVersion::new(self.major, self.minor.saturating_sub(1))
    }

    /// Reads the major and minor version from what a cluster reports (`1.34`, `v1.34.2`,
    /// `1.34+`, `v1.34.2-eks-…`, `v1.34.2+k3s1`), modelled or not; `str::parse` also checks
    /// the modelled range and gives typed errors.
    pub fn parse(s: &str) -> Option<Self> {
        crate::version::read(s)
    }

    /// True for the versions this library models ([`KubeVersion::OLDEST`] to
    /// [`KubeVersion::LATEST`]).
    pub fn is_modelled(self) -> bool {
        (KubeVersion::OLDEST..=KubeVersion::LATEST).contains(&self)
    }

    /// Every modelled version, oldest first.
    pub fn modelled() -> impl DoubleEndedIterator<Item = KubeVersion> + Clone {
        (KubeVersion::OLDEST.minor..=KubeVersion::LATEST.minor)
            .map(|minor| KubeVersion::new(KubeVersion::LATEST.major, minor))
    }

    /// Whether this version lies in the span a data table gives in minor versions of 1.x:
    /// from `since` until `until` (exclusive; `None`: still). A version 2 or later lies after
    /// every minor version of 1.x.
    pub fn within(self, since: u32, until: Option<u32>) -> bool {
        let minor = if self.major == 1 {
            self.minor
        } else {
            u32::MAX
        };
        since <= minor && until.is_none_or(|u| minor < u)
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Where a change takes effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Layer {
    /// What an environment declares: libraries and language options, per
    /// `pkg/cel/environment/base.go`. Taken from the environment's version, which for new
    /// expressions is the compatibility version (the previous minor version).
    Environment,
    /// What the apiserver binary does, whatever the environment: its cel-go's parser,
    /// checker and interpreter, its libraries' code, its messages and cost mode.
    Binary,
}

/// One dated change between Kubernetes releases, named for what the release brought.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Change {
    /// The library is declared (base.go's `IntroducedVersion`; a row's `ends` is its
    /// `RemovedVersion`).
    Library(Library),
    /// `cel.CrossTypeNumericComparisons(true)`: `1 < 1.5` type checks.
    CrossTypeNumericComparisons,
    /// The duration, timestamp and regex literal validators.
    LiteralValidators,
    /// `string.format` calls are validated when compiling, the message being reported as a
    /// Go format string (cel-go v0.20 to v0.22).
    FormatValidationAsPattern,
    /// `string.format` calls are validated when compiling (cel-go v0.23+).
    FormatValidation,
    /// The optional type is named `optional_type`, not `optional` (cel-go v0.20).
    OptionalTypeNamedOptionalType,
    /// Macro expansions build every use as a node of its own (cel-go v0.18+).
    MacroNodesOfTheirOwn,
    /// Calls are priced by the Kubernetes cost estimator
    /// (`StrictCostEnforcementForWebhooks`, on by default).
    StrictCost,
    /// A result of the wrong type is reported with the type found (`must evaluate to bool
    /// but got int`).
    ResultTypeMessageNamesActual,
    /// The second variable of a two-variable comprehension over a `dyn` range is left
    /// untyped (cel-go v0.22; ended by cel-go v0.23).
    UntypedDynRangeSecondVariable,
    /// Comprehension accumulators are initialized lazily, and an empty expression's syntax
    /// error is at column 0 no more (cel-go v0.22+).
    LazyAccumulatorInit,
    /// `containsCIDR` compares prefixes by overlap.
    CidrContainsByOverlap,
    /// `indexOf`/`lastIndexOf` find nothing at or past the end instead of failing
    /// (cel-go v0.22+).
    StringOffsetsPastEndNotFound,
    /// `lastIndexOf` finds nothing when the substring is longer in bytes than the string
    /// (cel-go v0.26+).
    StringOffsetsLongerNotFound,
    /// Field errors say `may not be more than N bytes` (before: `must have at most N bytes`).
    TooLongSaysMayNot,
    /// `%e` of `string.format` writes plain spaces no more around `×` (golang.org/x/text
    /// v0.23.0).
    UnspacedScientificFormat,
    /// Macros accumulate in the hidden `@result` (cel-go v0.23+).
    HiddenAccumulatorName,
    /// The grammar knows backquoted names and refuses them as `unsupported syntax`; ANTLR's
    /// messages are plain text and invalid code points kept (cel-go v0.23+).
    BackquoteTokens,
    /// Version 2 of the optional library: `first`, `last`, `optional.unwrap`, `unwrapOpt`
    /// (cel-go v0.23+).
    OptionalListFunctions,
    /// An optional value counts as its value's size in size-based charges (cel-go v0.23+).
    SizedOptionals,
    /// Field errors render values that are neither strings nor numbers as JSON (before: Go's
    /// `%#v`).
    JsonFieldValues,
    /// Label keys and values are checked by apimachinery's `content` package: `a valid label
    /// key`, `must be no more than 63 bytes` (before: `a qualified name`, `characters`), in
    /// configuration validation and in the format library alike.
    ContentPackageMessages,
    /// Quantity `add` and `sub` work on a deep copy of their receiver.
    QuantityAddSubDeepCopy,
}

impl Change {
    /// Whether the change is in force in `version`: made by a row of [`RELEASES`] at or
    /// before it and not ended by a later row at or before it.
    pub fn in_force(self, version: KubeVersion) -> bool {
        let mut on = false;
        for release in RELEASES.iter().take_while(|r| r.version <= version) {
            if release.changes.contains(&self) {
                on = true;
            }
            if release.ends.contains(&self) {
                on = false;
            }
        }
        on
    }

    /// Where the change takes effect.
    pub const fn layer(self) -> Layer {
        match self {
            Change::Library(_)
            | Change::CrossTypeNumericComparisons
            | Change::LiteralValidators => Layer::Environment,
            _ => Layer::Binary,
        }
    }
}

/// What one Kubernetes release changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Release {
    /// The release.
    pub version: KubeVersion,
    /// The cel-go version its apiserver is built with (the minor version where the release's
    /// patches differ; empty for rows before the modelled range).
    pub cel_go: &'static str,
    /// What it brought.
    pub changes: &'static [Change],
    /// What it ended (a library replaced by a newer version of itself, a defect fixed).
    pub ends: &'static [Change],
}

/// Every Kubernetes release that changed what the engine models, oldest first; rows
/// before [`KubeVersion::OLDEST`] give the environments that versions' compatibility
/// versions declare (`1.0` is base.go's unversioned base).
pub const RELEASES: &[Release] = {
    use matchcond_runtime::libraries::Library as L;
    use Change::*;
    &[
        Release {
            version: KubeVersion::new(1, 0),
            cel_go: "",
            changes: &[
                Library(L::Standard),
                Library(L::K8sRegex),
                Library(L::K8sUrls),
                Library(L::K8sListsV0),
                Library(L::StringsV0),
            ],
            ends: &[],
        },
        Release {
            version: KubeVersion::new(1, 27),
            cel_go: "",
            changes: &[Library(L::K8sAuthz)],
            ends: &[],
        },
        Release {
            version: KubeVersion::V1_28,
            cel_go: "v0.16",
            changes: &[
                Library(L::K8sQuantity),
                Library(L::Optionals),
                CrossTypeNumericComparisons,
            ],
            ends: &[],
        },
        Release {
            version: KubeVersion::V1_29,
            cel_go: "v0.17",
            changes: &[Library(L::StringsV2), Library(L::Sets), LiteralValidators],
            ends: &[Library(L::StringsV0)],
        },
        Release {
            version: KubeVersion::V1_30,
            cel_go: "v0.17.8",
            changes: &[Library(L::K8sIp), Library(L::K8sCidr)],
            ends: &[],
        },
        Release {
            version: KubeVersion::V1_31,
            cel_go: "v0.20.1",
            changes: &[
                Library(L::K8sFormat),
                Library(L::K8sAuthzSelectors),
                FormatValidationAsPattern,
                OptionalTypeNamedOptionalType,
                MacroNodesOfTheirOwn,
            ],
            ends: &[],
        },
        Release {
            version: KubeVersion::V1_32,
            cel_go: "v0.22.0",
            changes: &[
                Library(L::TwoVarComprehensions),
                StrictCost,
                ResultTypeMessageNamesActual,
                UntypedDynRangeSecondVariable,
                LazyAccumulatorInit,
                CidrContainsByOverlap,
                StringOffsetsPastEndNotFound,
                TooLongSaysMayNot,
            ],
            ends: &[],
        },
        Release {
            version: KubeVersion::V1_33,
            cel_go: "v0.23.2",
            changes: &[
                Library(L::K8sSemver),
                FormatValidation,
                UnspacedScientificFormat,
                HiddenAccumulatorName,
                BackquoteTokens,
                OptionalListFunctions,
                SizedOptionals,
            ],
            ends: &[UntypedDynRangeSecondVariable],
        },
        Release {
            version: KubeVersion::V1_34,
            cel_go: "v0.26.0",
            changes: &[
                Library(L::ListsV3),
                StringOffsetsLongerNotFound,
                JsonFieldValues,
            ],
            ends: &[],
        },
        Release {
            version: KubeVersion::V1_35,
            cel_go: "v0.26.0",
            changes: &[ContentPackageMessages],
            ends: &[],
        },
        Release {
            version: KubeVersion::V1_36,
            cel_go: "v0.26.0",
            changes: &[],
            ends: &[],
        },
        Release {
            version: KubeVersion::V1_37,
            cel_go: "v0.27.0",
            changes: &[Library(L::K8sListsV1), QuantityAddSubDeepCopy],
            ends: &[Library(L::K8sListsV0)],
        },
    ]
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_order_and_every_modelled_version_has_one() {
        assert!(RELEASES.windows(2).all(|w| w[0].version < w[1].version));
        let rows: Vec<KubeVersion> = RELEASES
            .iter()
            .map(|r| r.version)
            .filter(|v| v.is_modelled())
            .collect();
        assert_eq!(rows, KubeVersion::modelled().collect::<Vec<_>>());
        assert_eq!(KubeVersion::LATEST, KubeVersion::V1_37);
        assert_eq!(
            KubeVersion::modelled().next_back(),
            Some(KubeVersion::LATEST)
        );
        for r in RELEASES.iter().filter(|r| r.version.is_modelled()) {
            assert!(!r.cel_go.is_empty(), "{}", r.version);
        }
    }

    #[test]
    fn a_change_holds_from_its_row_until_a_row_ends_it() {
        let untyped = Change::UntypedDynRangeSecondVariable;
        let on: Vec<u32> = KubeVersion::modelled()
            .filter(|&v| untyped.in_force(v))
            .map(|v| v.minor)
            .collect();
        assert_eq!(on, [32]);
        let strings_v0 = Change::Library(Library::StringsV0);
        assert!(strings_v0.in_force(KubeVersion::new(1, 27)));
        assert!(strings_v0.in_force(KubeVersion::V1_28));
        assert!(!strings_v0.in_force(KubeVersion::V1_29));
        assert!(Change::StrictCost.in_force(KubeVersion::new(1, 40)));
        assert!(!Change::StrictCost.in_force(KubeVersion::new(1, 31)));
        assert!(!Change::Library(Library::Standard).in_force(KubeVersion::new(0, 9)));
    }

    #[test]
    fn a_change_is_made_once_and_ended_at_most_once() {
        for (i, r) in RELEASES.iter().enumerate() {
            for c in r.changes {
                let made = RELEASES.iter().filter(|o| o.changes.contains(c)).count();
                assert_eq!(made, 1, "{c:?}");
                assert!(!r.ends.contains(c), "{c:?}");
            }
            for c in r.ends {
                let made_before = RELEASES
                    .get(..i)
                    .is_some_and(|before| before.iter().any(|o| o.changes.contains(c)));
                assert!(made_before, "{c:?} ended before it was made");
            }
        }
    }

    #[test]
    fn spans_of_minor_versions() {
        assert!(KubeVersion::V1_30.within(30, None));
        assert!(!KubeVersion::V1_30.within(31, None));
        assert!(!KubeVersion::V1_30.within(16, Some(30)));
        assert!(KubeVersion::new(1, 29).within(16, Some(30)));
        assert!(KubeVersion::new(2, 0).within(30, None));
        assert!(!KubeVersion::new(2, 0).within(30, Some(40)));
    }

    #[test]
    fn layers() {
        assert_eq!(Change::Library(Library::Sets).layer(), Layer::Environment);
        assert_eq!(Change::LiteralValidators.layer(), Layer::Environment);
        assert_eq!(Change::StrictCost.layer(), Layer::Binary);
    }
}
