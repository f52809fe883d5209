//! Validation of whole webhook configurations on create and on update, rule by rule as
//! kubernetes' `pkg/apis/admissionregistration/validation/validation.go` does it (with
//! apimachinery's object-metadata, name, label-selector and field-error rules, and
//! `pkg/util/webhook/validation.go` for client configurations).

use std::collections::{BTreeSet, HashSet};

use k8s_openapi::api::admissionregistration::v1 as ar;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use matchcond_compiler::{EnvMode, Environment, KubeVersion};
use matchcond_gocompat::url::Url;
use matchcond_gocompat::validation::mask_trailing_dash;
use matchcond_matcher::MAX_MATCH_CONDITIONS;

use crate::field::{aggregate, json_quote, BadValue, FieldError, Path, Wording};
use crate::names;
use crate::selector::{has_invalid_label_value, validate_label_selector, validate_labels};
use crate::types::{Configuration, HookKind, WebhookSpec, GROUP};

/// The AdmissionReview versions the apiserver accepts.
pub const ACCEPTED_REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];
/// The largest total size of a configuration's annotations.
pub const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

const SUPPORTED_OPERATIONS: [&str; 5] = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const SUPPORTED_SCOPES: [&str; 3] = ["*", "Cluster", "Namespaced"];
const SUPPORTED_FAILURE_POLICIES: [&str; 2] = ["Fail", "Ignore"];
const SUPPORTED_MATCH_POLICIES: [&str; 2] = ["Equivalent", "Exact"];
const ALL_SIDE_EFFECTS: [&str; 4] = ["None", "NoneOnDryRun", "Some", "Unknown"];
const NO_SIDE_EFFECTS: [&str; 2] = ["None", "NoneOnDryRun"];
const SUPPORTED_REINVOCATION_POLICIES: [&str; 2] = ["IfNeeded", "Never"];
const URL_FORM: &str = "; desired format: https://host[/path]";

/// The options `validation.go` derives from the operation (and, on update, the old object).
#[derive(Clone, Debug, Default)]
struct Options {
    ignore_match_conditions: bool,
    require_no_side_effects: bool,
    require_recognized_review_version: bool,
    require_unique_names: bool,
    allow_invalid_label_values: bool,
    preexisting_expressions: HashSet<String>,
}

/// Validates webhook configurations as the apiserver of one Kubernetes version does.
///
/// ```
/// use matchcond::dispatch::{load_documents, Validator};
/// use matchcond::KubeVersion;
///
/// let config = load_documents(r#"
/// apiVersion: admissionregistration.k8s.io/v1
/// kind: ValidatingWebhookConfiguration
/// metadata: {name: config}
/// webhooks:
/// - name: k8s.io
///   sideEffects: None
///   admissionReviewVersions: [v1]
///   clientConfig: {url: "http://example.com"}
/// "#).unwrap().remove(0);
/// let errors: Vec<String> = Validator::new(KubeVersion::V1_34)
///     .validate(&config)
///     .iter()
///     .map(ToString::to_string)
///     .collect();
/// assert_eq!(errors, [
///     r#"webhooks[0].name: Invalid value: "k8s.io": should be a domain with at least three segments separated by dots"#,
///     r#"webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]"#,
/// ]);
/// ```
#[derive(Clone, Debug)]
pub struct Validator {
    version: KubeVersion,
    wording: Wording,
    new_env: Environment,
    stored_env: Environment,
}

impl Validator {
    /// The validator of a Kubernetes version: its environments (new expressions are
    /// compiled in the compatibility version's environment, unchanged ones in the stored
    /// one) and its message wording.
    pub fn new(version: KubeVersion) -> Validator {
        Validator {
            version,
            wording: Wording::for_version(version),
            new_env: Environment::with_mode(version, EnvMode::NewExpressions),
            stored_env: Environment::with_mode(version, EnvMode::StoredExpressions),
        }
    }

    /// The Kubernetes version.
    pub fn version(&self) -> KubeVersion {
        self.version
    }

    /// The message wording in force.
    #[doc(hidden)]
    pub fn wording(&self) -> Wording {
        self.wording
    }

    /// Every error of a configuration on create (`ValidateValidatingWebhookConfiguration` /
    /// `ValidateMutatingWebhookConfiguration`), after the apiserver's defaults.
    pub fn validate(&self, config: &Configuration) -> Vec<FieldError> {
        let options = Options {
            ignore_match_conditions: false,
            require_no_side_effects: true,
            require_recognized_review_version: true,
            require_unique_names: true,
            allow_invalid_label_values: false,
            preexisting_expressions: HashSet::new(),
        };
        self.validate_with(&config.defaulted(), &options)
    }

    /// Every error of an update from `old` to `new`
    /// (`Validate…WebhookConfigurationUpdate`): the create rules, relaxed where the old
    /// object already broke them, and without matchConditions checks when no webhook's
    /// matchConditions changed.
    pub fn validate_update(&self, new: &Configuration, old: &Configuration) -> Vec<FieldError> {
        let new = new.defaulted();
        let old = old.defaulted();
        let ignore = new.webhooks.len() == old.webhooks.len()
            && new
                .webhooks
                .iter()
                .zip(&old.webhooks)
                .all(|(n, o)| n.match_conditions == o.match_conditions);
        let no_side_effects = old.webhooks.iter().all(|h| {
            h.side_effects
                .as_deref()
                .is_some_and(|s| NO_SIDE_EFFECTS.contains(&s))
        });
        let recognized = old.webhooks.iter().all(|h| {
            h.admission_review_versions.is_empty()
                || h.admission_review_versions
                    .iter()
                    .any(|v| ACCEPTED_REVIEW_VERSIONS.contains(&v.as_str()))
        });
        let mut names = HashSet::new();
        let unique = old.webhooks.iter().all(|h| names.insert(h.name.as_str()));
        let invalid_labels = old.webhooks.iter().any(|h| {
            h.namespace_selector
                .as_ref()
                .is_some_and(|s| has_invalid_label_value(s, self.wording))
                || h.object_selector
                    .as_ref()
                    .is_some_and(|s| has_invalid_label_value(s, self.wording))
        });
        let preexisting = old
            .webhooks
            .iter()
            .flat_map(|h| h.match_conditions.iter().map(|c| c.expression.clone()))
            .collect();
        let options = Options {
            ignore_match_conditions: ignore,
            require_no_side_effects: no_side_effects,
            require_recognized_review_version: recognized,
            require_unique_names: unique,
            allow_invalid_label_values: invalid_labels,
            preexisting_expressions: preexisting,
        };
        self.validate_with(&new, &options)
    }

    fn validate_with(&self, config: &Configuration, opts: &Options) -> Vec<FieldError> {
        let w = self.wording;
        let mut errs = validate_object_meta(&config.metadata, w);
        let mut seen: HashSet<&str> = HashSet::new();
        let hooks = Path::new("webhooks");
        for (i, hook) in config.webhooks.iter().enumerate() {
            let path = hooks.index(i);
            errs.extend(self.validate_webhook(hook, config.hook_kind(), opts, &path));
            errs.extend(validate_review_versions(
                &hook.admission_review_versions,
                opts.require_recognized_review_version,
                &path.child("admissionReviewVersions"),
                w,
            ));
            if opts.require_unique_names && !hook.name.is_empty() && !seen.insert(&hook.name) {
                errs.push(FieldError::duplicate(
                    path.child("name").as_str(),
                    BadValue::Str(hook.name.clone()),
                    w,
                ));
            }
        }
        errs
    }

    fn validate_webhook(
        &self,
        hook: &WebhookSpec,
        kind: HookKind,
        opts: &Options,
        path: &Path,
    ) -> Vec<FieldError> {
        let w = self.wording;
        let mut errs = fully_qualified_name(&path.child("name"), &hook.name, w);
        for (i, rule) in hook.rules.iter().enumerate() {
            errs.extend(validate_rule(rule, &path.child("rules").index(i), w));
        }
        if let Some(p) = &hook.failure_policy {
            if !SUPPORTED_FAILURE_POLICIES.contains(&p.as_str()) {
                errs.push(FieldError::not_supported(
                    path.child("failurePolicy").as_str(),
                    BadValue::Named(p.clone()),
                    &SUPPORTED_FAILURE_POLICIES,
                    w,
                ));
            }
        }
        if let Some(p) = &hook.match_policy {
            if !SUPPORTED_MATCH_POLICIES.contains(&p.as_str()) {
                errs.push(FieldError::not_supported(
                    path.child("matchPolicy").as_str(),
                    BadValue::Named(p.clone()),
                    &SUPPORTED_MATCH_POLICIES,
                    w,
                ));
            }
        }
        let allowed: &[&str] = if opts.require_no_side_effects {
            &NO_SIDE_EFFECTS
        } else {
            &ALL_SIDE_EFFECTS
        };
        match &hook.side_effects {
            None => errs.push(FieldError::required(
                path.child("sideEffects").as_str(),
                format!("must specify one of {}", allowed.join(", ")),
                w,
            )),
            Some(s) if !allowed.contains(&s.as_str()) => errs.push(FieldError::not_supported(
                path.child("sideEffects").as_str(),
                BadValue::Named(s.clone()),
                allowed,
                w,
            )),
            Some(_) => {}
        }
        if let Some(t) = hook.timeout_seconds {
            if !(1..=30).contains(&t) {
                errs.push(FieldError::invalid(
                    path.child("timeoutSeconds").as_str(),
                    BadValue::Int(i64::from(t)),
                    "the timeout value must be between 1 and 30 seconds",
                    w,
                ));
            }
        }
        if let Some(s) = &hook.namespace_selector {
            errs.extend(validate_label_selector(
                s,
                opts.allow_invalid_label_values,
                path.child("namespaceSelector").as_str(),
                w,
            ));
        }
        if let Some(s) = &hook.object_selector {
            errs.extend(validate_label_selector(
                s,
                opts.allow_invalid_label_values,
                path.child("objectSelector").as_str(),
                w,
            ));
        }
        if kind == HookKind::Mutating {
            if let Some(p) = &hook.reinvocation_policy {
                if !SUPPORTED_REINVOCATION_POLICIES.contains(&p.as_str()) {
                    errs.push(FieldError::not_supported(
                        path.child("reinvocationPolicy").as_str(),
                        BadValue::Named(p.clone()),
                        &SUPPORTED_REINVOCATION_POLICIES,
                        w,
                    ));
                }
            }
        }
        errs.extend(validate_client_config(
            &hook.client_config,
            &path.child("clientConfig"),
            w,
        ));
        if !opts.ignore_match_conditions {
            errs.extend(self.validate_match_conditions(
                &hook.match_conditions,
                opts,
                &path.child("matchConditions"),
            ));
        }
        errs
    }

    fn validate_match_conditions(
        &self,
        conditions: &[ar::MatchCondition],
        opts: &Options,
        path: &Path,
    ) -> Vec<FieldError> {
        let w = self.wording;
        let mut errs = Vec::new();
        if conditions.len() > MAX_MATCH_CONDITIONS {
            errs.push(FieldError::too_many(
                path.as_str(),
                conditions.len(),
                MAX_MATCH_CONDITIONS,
                w,
            ));
        }
        let mut names: HashSet<&str> = HashSet::new();
        for (i, c) in conditions.iter().enumerate() {
            let p = path.index(i);
            let trimmed = c.expression.trim();
            if trimmed.is_empty() {
                errs.push(FieldError::required(p.child("expression").as_str(), "", w));
            } else {
                errs.extend(self.compile_expression(trimmed, opts, &p.child("expression")));
            }
            if c.name.is_empty() {
                errs.push(FieldError::required(p.child("name").as_str(), "", w));
            } else {
                for m in names::qualified_name(&c.name, w) {
                    errs.push(FieldError::invalid(
                        p.child("name").as_str(),
                        BadValue::Str(c.name.clone()),
                        m,
                        w,
                    ));
                }
                if !names.insert(&c.name) {
                    errs.push(FieldError::duplicate(
                        p.child("name").as_str(),
                        BadValue::Str(c.name.clone()),
                        w,
                    ));
                }
            }
        }
        errs
    }

    fn compile_expression(&self, trimmed: &str, opts: &Options, path: &Path) -> Vec<FieldError> {
        let env = if opts.preexisting_expressions.contains(trimmed) {
            &self.stored_env
        } else {
            &self.new_env
        };
        match env.compile_condition(trimmed) {
            Ok(_) => Vec::new(),
            Err(e) if e.is_internal() => {
                vec![FieldError::internal(
                    path.as_str(),
                    e.to_string(),
                    self.wording,
                )]
            }
            Err(e) => vec![FieldError::invalid(
                path.as_str(),
                BadValue::Str(trimmed.to_owned()),
                e.to_string(),
                self.wording,
            )],
        }
    }
}

/// `IsFullyQualifiedName`.
fn fully_qualified_name(path: &Path, name: &str, w: Wording) -> Vec<FieldError> {
    if name.is_empty() {
        return vec![FieldError::required(path.as_str(), "", w)];
    }
    let errs = names::dns1123_subdomain(name, false);
    if !errs.is_empty() {
        return vec![FieldError::invalid(
            path.as_str(),
            BadValue::Str(name.to_owned()),
            errs.join(","),
            w,
        )];
    }
    if name.split('.').count() < 3 {
        return vec![FieldError::invalid(
            path.as_str(),
            BadValue::Str(name.to_owned()),
            "should be a domain with at least three segments separated by dots",
            w,
        )];
    }
    Vec::new()
}

fn strings(v: Option<&Vec<String>>) -> &[String] {
    v.map(Vec::as_slice).unwrap_or(&[])
}

fn validate_rule(rule: &ar::RuleWithOperations, path: &Path, w: Wording) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let ops = strings(rule.operations.as_ref());
    if ops.is_empty() {
        errs.push(FieldError::required(
            path.child("operations").as_str(),
            "",
            w,
        ));
    }
    if ops.len() > 1 && ops.iter().any(|o| o == "*") {
        errs.push(FieldError::invalid(
            path.child("operations").as_str(),
            BadValue::List {
                type_name: "admissionregistration.OperationType",
                items: ops.to_vec(),
                nil: false,
            },
            "if '*' is present, must not specify other operations",
            w,
        ));
    }
    for (i, op) in ops.iter().enumerate() {
        if !SUPPORTED_OPERATIONS.contains(&op.as_str()) {
            errs.push(FieldError::not_supported(
                path.child("operations").index(i).as_str(),
                BadValue::Named(op.clone()),
                &SUPPORTED_OPERATIONS,
                w,
            ));
        }
    }
    let groups = strings(rule.api_groups.as_ref());
    if groups.is_empty() {
        errs.push(FieldError::required(
            path.child("apiGroups").as_str(),
            "",
            w,
        ));
    }
    if groups.len() > 1 && groups.iter().any(|g| g == "*") {
        errs.push(FieldError::invalid(
            path.child("apiGroups").as_str(),
            BadValue::strings(groups),
            "if '*' is present, must not specify other API groups",
            w,
        ));
    }
    let versions = strings(rule.api_versions.as_ref());
    if versions.is_empty() {
        errs.push(FieldError::required(
            path.child("apiVersions").as_str(),
            "",
            w,
        ));
    }
    if versions.len() > 1 && versions.iter().any(|v| v == "*") {
        errs.push(FieldError::invalid(
            path.child("apiVersions").as_str(),
            BadValue::strings(versions),
            "if '*' is present, must not specify other API versions",
            w,
        ));
    }
    for (i, v) in versions.iter().enumerate() {
        if v.is_empty() {
            errs.push(FieldError::required(
                path.child("apiVersions").index(i).as_str(),
                "",
                w,
            ));
        }
    }
    errs.extend(validate_resources(
        strings(rule.resources.as_ref()),
        &path.child("resources"),
        w,
    ));
    if let Some(scope) = &rule.scope {
        if !SUPPORTED_SCOPES.contains(&scope.as_str()) {
            errs.push(FieldError::not_supported(
                path.child("scope").as_str(),
                BadValue::Named(scope.clone()),
                &SUPPORTED_SCOPES,
                w,
            ));
        }
    }
    errs
}

/// `validateResources` (subresources allowed), with its order-dependent overlap checks.
fn validate_resources(resources: &[String], path: &Path, w: Wording) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if resources.is_empty() {
        errs.push(FieldError::required(path.as_str(), "", w));
    }
    let mut with_wildcard_sub: HashSet<&str> = HashSet::new();
    let mut sub_with_wildcard_res: HashSet<&str> = HashSet::new();
    let mut has_double_wildcard = false;
    let mut has_single_wildcard = false;
    let mut has_resource_without_sub = false;
    for (i, res_sub) in resources.iter().enumerate() {
        if res_sub.is_empty() {
            errs.push(FieldError::required(path.index(i).as_str(), "", w));
            continue;
        }
        if res_sub == "*/*" {
            has_double_wildcard = true;
        }
        if res_sub == "*" {
            has_single_wildcard = true;
        }
        let Some((res, sub)) = res_sub.split_once('/') else {
            has_resource_without_sub = res_sub != "*";
            continue;
        };
        if with_wildcard_sub.contains(res) {
            errs.push(FieldError::invalid(
                path.index(i).as_str(),
                BadValue::Str(res_sub.clone()),
                format!("if '{res}/*' is present, must not specify {res_sub}"),
                w,
            ));
        }
        if sub_with_wildcard_res.contains(sub) {
            errs.push(FieldError::invalid(
                path.index(i).as_str(),
                BadValue::Str(res_sub.clone()),
                format!("if '*/{sub}' is present, must not specify {res_sub}"),
                w,
            ));
        }
        if sub == "*" {
            with_wildcard_sub.insert(res);
        }
        if res == "*" {
            sub_with_wildcard_res.insert(sub);
        }
    }
    if resources.len() > 1 && has_double_wildcard {
        errs.push(FieldError::invalid(
            path.as_str(),
            BadValue::strings(resources),
            "if '*/*' is present, must not specify other resources",
            w,
        ));
    }
    if has_single_wildcard && has_resource_without_sub {
        errs.push(FieldError::invalid(
            path.as_str(),
            BadValue::strings(resources),
            "if '*' is present, must not specify other resources without subresources",
            w,
        ));
    }
    errs
}

fn validate_review_versions(
    versions: &[String],
    require_recognized: bool,
    path: &Path,
    w: Wording,
) -> Vec<FieldError> {
    let accepted = ACCEPTED_REVIEW_VERSIONS.join(", ");
    if versions.is_empty() {
        return vec![FieldError::required(
            path.as_str(),
            format!("must specify one of {accepted}"),
            w,
        )];
    }
    let mut errs = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut has_accepted = false;
    for (i, v) in versions.iter().enumerate() {
        if !seen.insert(v) {
            errs.push(FieldError::invalid(
                path.index(i).as_str(),
                BadValue::Str(v.clone()),
                "duplicate version",
                w,
            ));
            continue;
        }
        for m in names::dns1035_label(v) {
            errs.push(FieldError::invalid(
                path.index(i).as_str(),
                BadValue::Str(v.clone()),
                m,
                w,
            ));
        }
        if ACCEPTED_REVIEW_VERSIONS.contains(&v.as_str()) {
            has_accepted = true;
        }
    }
    if require_recognized && !has_accepted {
        errs.push(FieldError::invalid(
            path.as_str(),
            BadValue::strings(versions),
            format!("must include at least one of {accepted}"),
            w,
        ));
    }
    errs
}

fn validate_client_config(
    cc: &ar::WebhookClientConfig,
    path: &Path,
    w: Wording,
) -> Vec<FieldError> {
    match (&cc.url, &cc.service) {
        (Some(url), None) => validate_url(url, &path.child("url"), w),
        (None, Some(service)) => validate_service(service, &path.child("service"), w),
        _ => vec![FieldError::required(
            path.as_str(),
            "exactly one of url or service is required",
            w,
        )],
    }
}

/// `ValidateWebhookURL` with `forceHttps`.
fn validate_url(raw: &str, path: &Path, w: Wording) -> Vec<FieldError> {
    let p = path.as_str();
    let u = match Url::parse(raw) {
        Ok(u) => u,
        Err(e) => {
            return vec![FieldError::required(
                p,
                format!("url must be a valid URL: {e}{URL_FORM}"),
                w,
            )]
        }
    };
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut errs = Vec::new();
    if u.scheme() != b"https" {
        errs.push(FieldError::invalid(
            p,
            BadValue::Str(text(u.scheme())),
            format!("'https' is the only allowed URL scheme{URL_FORM}"),
            w,
        ));
    }
    if u.host().is_empty() {
        errs.push(FieldError::invalid(
            p,
            BadValue::Str(text(u.host())),
            format!("host must be specified{URL_FORM}"),
            w,
        ));
    }
    if let Some(user) = u.user_text() {
        errs.push(FieldError::invalid(
            p,
            BadValue::Str(user),
            "user information is not permitted in the URL",
            w,
        ));
    }
    if !u.fragment().is_empty() {
        errs.push(FieldError::invalid(
            p,
            BadValue::Str(text(u.fragment())),
            "fragments are not permitted in the URL",
            w,
        ));
    }
    if !u.raw_query().is_empty() {
        errs.push(FieldError::invalid(
            p,
            BadValue::Str(text(u.raw_query())),
            "query parameters are not permitted in the URL",
            w,
        ));
    }
    errs
}

/// `ValidateWebhookService`.
fn validate_service(s: &ar::ServiceReference, path: &Path, w: Wording) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if s.name.is_empty() {
        errs.push(FieldError::required(path.child("name").as_str(), "", w));
    }
    if s.namespace.is_empty() {
        errs.push(FieldError::required(
            path.child("namespace").as_str(),
            "",
            w,
        ));
    }
    let port = s.port.unwrap_or(443);
    if !(1..=65535).contains(&port) {
        errs.push(FieldError::invalid(
            path.child("port").as_str(),
            BadValue::Int(i64::from(port)),
            "port is not valid: must be between 1 and 65535, inclusive",
            w,
        ));
    }
    let Some(url_path) = &s.path else {
        return errs;
    };
    let pp = path.child("path");
    let invalid = |detail: String| {
        FieldError::invalid(pp.as_str(), BadValue::Str(url_path.clone()), detail, w)
    };
    if url_path.is_empty() || url_path == "/" {
        return errs;
    }
    if url_path == "//" {
        errs.push(invalid("segment[0] may not be empty".to_owned()));
        return errs;
    }
    if !url_path.starts_with('/') {
        errs.push(invalid("must start with a '/'".to_owned()));
    }
    // Go drops the first byte whatever it is, then one trailing '/'.
    let mut to_check = url_path.get(1..).unwrap_or_else(|| {
        let mut chars = url_path.chars();
        chars.next();
        chars.as_str()
    });
    if let Some(stripped) = to_check.strip_suffix('/') {
        to_check = stripped;
    }
    for (i, step) in to_check.split('/').enumerate() {
        if step.is_empty() {
            errs.push(invalid(format!("segment[{i}] may not be empty")));
            continue;
        }
        for m in names::dns1123_subdomain(step, false) {
            errs.push(invalid(format!("segment[{i}]: {m}")));
        }
    }
    errs
}

/// `NameIsDNSSubdomain` with `prefix` (generateName): a trailing dash is masked as Go does
/// (the last two bytes replaced by `a`).
fn name_is_dns_subdomain(name: &str, prefix: bool) -> Vec<String> {
    if prefix {
        return names::dns1123_subdomain(mask_trailing_dash(name), false);
    }
    names::dns1123_subdomain(name, false)
}

/// `ValidateObjectMeta` for a cluster-scoped object whose name is a DNS subdomain.
/// (`managedFields` are not checked: the apiserver rewrites them before validation.)
fn validate_object_meta(meta: &ObjectMeta, w: Wording) -> Vec<FieldError> {
    let path = Path::new("metadata");
    let mut errs = Vec::new();
    if let Some(g) = meta.generate_name.as_deref().filter(|g| !g.is_empty()) {
        for m in name_is_dns_subdomain(g, true) {
            errs.push(FieldError::invalid(
                path.child("generateName").as_str(),
                BadValue::Str(g.to_owned()),
                m,
                w,
            ));
        }
    }
    match meta.name.as_deref().filter(|n| !n.is_empty()) {
        None => errs.push(FieldError::required(
            path.child("name").as_str(),
            "name or generateName is required",
            w,
        )),
        Some(n) => {
            for m in name_is_dns_subdomain(n, false) {
                errs.push(FieldError::invalid(
                    path.child("name").as_str(),
                    BadValue::Str(n.to_owned()),
                    m,
                    w,
                ));
            }
        }
    }
    if meta.namespace.as_deref().is_some_and(|n| !n.is_empty()) {
        errs.push(FieldError::forbidden(
            path.child("namespace").as_str(),
            "not allowed on this type",
            w,
        ));
    }
    if let Some(g) = meta.generation.filter(|g| *g < 0) {
        errs.push(FieldError::invalid(
            path.child("generation").as_str(),
            BadValue::Int(g),
            "must be greater than or equal to 0",
            w,
        ));
    }
    errs.extend(validate_labels(
        meta.labels.as_ref(),
        &path.child("labels"),
        w,
    ));
    let annotations = path.child("annotations");
    let mut size = 0usize;
    for (k, v) in meta.annotations.iter().flatten() {
        for m in names::qualified_name(&k.to_lowercase(), w) {
            errs.push(FieldError::invalid(
                annotations.as_str(),
                BadValue::Str(k.clone()),
                m,
                w,
            ));
        }
        size = size.saturating_add(k.len()).saturating_add(v.len());
    }
    if size > TOTAL_ANNOTATION_SIZE_LIMIT {
        errs.push(FieldError::too_long(
            annotations.as_str(),
            TOTAL_ANNOTATION_SIZE_LIMIT,
            w,
        ));
    }
    errs.extend(validate_owner_references(
        meta.owner_references.as_deref().unwrap_or(&[]),
        &path.child("ownerReferences"),
        w,
    ));
    errs.extend(validate_finalizers(
        meta.finalizers.as_deref().unwrap_or(&[]),
        &path.child("finalizers"),
        w,
    ));
    errs
}

fn owner_json(r: &OwnerReference) -> String {
    let mut parts = vec![
        format!("\"apiVersion\":{}", json_quote(&r.api_version)),
        format!("\"kind\":{}", json_quote(&r.kind)),
        format!("\"name\":{}", json_quote(&r.name)),
        format!("\"uid\":{}", json_quote(&r.uid)),
    ];
    if let Some(c) = r.controller {
        parts.push(format!("\"controller\":{c}"));
    }
    if let Some(b) = r.block_owner_deletion {
        parts.push(format!("\"blockOwnerDeletion\":{b}"));
    }
    format!("{{{}}}", parts.join(","))
}

fn validate_owner_references(refs: &[OwnerReference], path: &Path, w: Wording) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut first_controller: Option<String> = None;
    for (i, r) in refs.iter().enumerate() {
        let p = path.index(i);
        let slashes = r.api_version.matches('/').count();
        let version_empty = match r.api_version.split_once('/') {
            _ if r.api_version == "/" => true,
            Some((_, v)) => v.is_empty(),
            None => r.api_version.is_empty(),
        };
        if r.api_version.is_empty() {
            errs.push(FieldError::required(
                p.child("apiVersion").as_str(),
                "must not be empty",
                w,
            ));
        } else if slashes > 1 || version_empty {
            errs.push(FieldError::invalid(
                p.child("apiVersion").as_str(),
                BadValue::Str(r.api_version.clone()),
                "must be <group>/<version> or <version>",
                w,
            ));
        }
        for (field, value) in [("kind", &r.kind), ("name", &r.name), ("uid", &r.uid)] {
            if value.is_empty() {
                errs.push(FieldError::required(
                    p.child(field).as_str(),
                    "must not be empty",
                    w,
                ));
            }
        }
        if slashes <= 1 && (r.api_version == "v1" || r.api_version == "/v1") && r.kind == "Event" {
            errs.push(FieldError::invalid(
                p.as_str(),
                BadValue::Json(owner_json(r)),
                "/v1, Kind=Event is disallowed from being an owner",
                w,
            ));
        }
        if r.controller == Some(true) {
            let current = format!("{}/{}", r.kind, r.name);
            match &first_controller {
                Some(first) => errs.push(FieldError::invalid(
                    path.as_str(),
                    BadValue::Json(format!(
                        "[{}]",
                        refs.iter().map(owner_json).collect::<Vec<_>>().join(",")
                    )),
                    format!(
                        "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"
                    ),
                    w,
                )),
                None => first_controller = Some(current),
            }
        }
    }
    errs
}

fn validate_finalizers(finalizers: &[String], path: &Path, w: Wording) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for f in finalizers {
        for m in names::qualified_name(f, w) {
            errs.push(FieldError::invalid(
                path.as_str(),
                BadValue::Str(f.clone()),
                m,
                w,
            ));
        }
    }
    let set: BTreeSet<&str> = finalizers.iter().map(String::as_str).collect();
    if set.contains("orphan") && set.contains("foregroundDeletion") {
        errs.push(FieldError::invalid(
            path.as_str(),
            BadValue::strings(finalizers),
            "finalizer orphan and foregroundDeletion cannot be both set",
            w,
        ));
    }
    errs
}

/// The apiserver's rejection text for an invalid configuration
/// (`<Kind>.admissionregistration.k8s.io "<name>" is invalid: <errors>`).
pub fn invalid_message(kind: HookKind, name: &str, errors: &[FieldError]) -> String {
    let qualified = format!("{}.{GROUP}", kind.configuration_kind());
    let name = matchcond_gocompat::strconv::quote(name);
    if errors.is_empty() {
        format!("{qualified} {name} is invalid")
    } else {
        format!("{qualified} {name} is invalid: {}", aggregate(errors))
    }
}

#[cfg(test)]
mod tests;
