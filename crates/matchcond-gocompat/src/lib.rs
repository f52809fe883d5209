//! The Go behaviours that matchcond reproduces, with no CEL in sight.
//!
//! kube-apiserver's answers depend on more than CEL: on how Go's standard library and
//! kubernetes/apimachinery parse, print and reject text. This crate reimplements those parts,
//! word for word where their error texts reach a user, for the Kubernetes releases matchcond
//! models (1.30 to 1.37: k8s.io/apiserver and k8s.io/apimachinery v0.30 to v0.37, built with
//! the Go releases of their time):
//!
//! | module | reproduces | used by |
//! | --- | --- | --- |
//! | [`base64`] | Go's `encoding/base64` standard encoding as `encoding/json` decodes a `[]byte`, with Go's error offsets and text | configuration validation (`caBundle`) |
//! | [`regexp`] | Go's `regexp/syntax` (RE2) translated to the `regex` crate, with Go's errors; the size limits and a per-thread cache | `matches`, the Kubernetes regex and format libraries |
//! | [`strconv`] | Go's `strconv` (`ParseInt`, `ParseFloat`, `Quote`, `FormatFloat`, …) and `unicode.IsPrint` | CEL conversions, every message that quotes a value |
//! | [`fmt`] | Go's `strconv` digit generation, `%g` of a float64 and `time.Duration.String()` | `string.format`, messages |
//! | [`netip`] | Go's `net/netip` (`ParseAddr`, `ParsePrefix`, their texts and predicates) | the IP and CIDR libraries, URL hosts |
//! | [`url`] | Go's `net/url` (`Parse`, `ParseRequestURI`, `URL.Query`, …) | the URL library, webhook `clientConfig.url` checks |
//! | [`quantity`] | apimachinery's `resource.Quantity` (parsing, arithmetic, canonical text) | the quantity library |
//! | [`semver`] | blang/semver v4 (`Parse`, precedence) and the Kubernetes library's normalisation | the semver library |
//! | [`validation`] | apimachinery's name checks (`IsDNS1123Subdomain`, `IsQualifiedName`, …) and their messages, in both packages' wordings | configuration validation, the format library, authorizer checks |
//! | [`selectors`] | apimachinery's `fields.ParseSelector` and `labels.ParseToRequirements` | the authorizer library's selectors, webhook selectors |
//! | [`stack`] | (no Go counterpart) running a deep recursion on a large stack, the one place that knows whether the target has threads | regex compilation, the compiler |
//!
//! Each module's documentation names the Go code it follows and what it does not reproduce.
//! Tests pin the behaviour to results recorded from the Go code (`tests/data/k8s_net.jsonl`
//! for `net/netip`) and to the Go packages' own test tables.
//!
//! # Should I be using this crate?
//!
//! Probably not. This is an internal crate of matchcond: its API follows what matchcond's
//! other crates need and changes without notice. To decide webhooks' matchConditions, use the
//! `matchcond` crate (the facade at the root of the workspace), whose API is the one kept
//! stable.

pub mod base64;
pub mod fmt;
pub mod netip;
pub mod quantity;
pub mod regexp;
pub mod selectors;
pub mod semver;
pub mod stack;
pub mod strconv;
pub mod url;
pub mod validation;
