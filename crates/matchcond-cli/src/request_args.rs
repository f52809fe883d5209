//! Requests from manifests: the options `match` and `eval` share (`--object`,
//! `--operation`, `--user`, `--crd`, …), the files they read, and the checks of
//! hand-written reviews.

use std::collections::BTreeMap;
use std::sync::Arc;

use matchcond::authz::UserInfo;
use matchcond::dispatch::load::{Node, Position};
use matchcond::dispatch::request::{
    build_review, check_request, load_crds, load_namespaces, read_manifests,
    review_from_audit_event, BuildError, BuiltReview, Catalog, CustomResourceDefinition,
    ManifestError, ManifestErrorKind, NamespaceSet, Operation, RequestOptions, ReviewWarning, Role,
};
use matchcond::dispatch::{HookOutcome, ResourceTable};
use matchcond::KubeVersion;
use serde_json::{json, Value as Json};

use crate::input::{self, InputError};

/// The options that describe a request by its manifests.
#[derive(Debug, Default, clap::Args)]
pub struct RequestArgs {
    /// The object of the request: a manifest (YAML or JSON, one object). The review is
    /// built as the apiserver builds it.
    #[arg(long, value_name = "FILE", help_heading = "Request from manifests")]
    pub object: Option<String>,
    /// The stored object (UPDATE, or the object deleted by a DELETE).
    #[arg(
        long = "old-object",
        value_name = "FILE",
        help_heading = "Request from manifests"
    )]
    pub old_object: Option<String>,
    /// CREATE, UPDATE, DELETE or CONNECT (default: from the manifests given and the
    /// subresource).
    #[arg(long, value_name = "OP", value_parser = parse_operation, help_heading = "Request from manifests")]
    pub operation: Option<Operation>,
    /// The subresource (status, scale, exec, eviction, …).
    #[arg(long, value_name = "NAME", help_heading = "Request from manifests")]
    pub subresource: Option<String>,
    /// The requesting user's name.
    #[arg(long, value_name = "NAME", help_heading = "Request from manifests")]
    pub user: Option<String>,
    /// A group of the user (repeatable; system:authenticated is added as impersonation adds it).
    #[arg(
        long = "group",
        value_name = "GROUP",
        help_heading = "Request from manifests"
    )]
    pub groups: Vec<String>,
    /// The user's uid.
    #[arg(long, value_name = "UID", help_heading = "Request from manifests")]
    pub uid: Option<String>,
    /// An extra attribute of the user, `key=value` (repeatable; values of one key add up).
    #[arg(long, value_name = "K=V", value_parser = parse_extra, help_heading = "Request from manifests")]
    pub extra: Vec<(String, String)>,
    /// The request is a dry run.
    #[arg(long = "dry-run", help_heading = "Request from manifests")]
    pub dry_run: bool,
    /// The namespace (must agree with the manifest's metadata.namespace; default "default").
    #[arg(
        short = 'n',
        long,
        value_name = "NAME",
        help_heading = "Request from manifests"
    )]
    pub namespace: Option<String>,
    /// Namespace manifests: the namespaces that exist, whose labels the namespaceSelector
    /// sees (repeatable; several documents per file).
    #[arg(
        long = "namespace-object",
        value_name = "FILE",
        help_heading = "Request from manifests"
    )]
    pub namespace_objects: Vec<String>,
    /// CustomResourceDefinition manifests, for custom kinds (repeatable).
    #[arg(
        long = "crd",
        value_name = "FILE",
        help_heading = "Request from manifests"
    )]
    pub crds: Vec<String>,
    /// An audit.k8s.io/v1 Event (Request or RequestResponse level): the request is the one
    /// the apiserver built for it. One event, or a JSON-lines log with --index.
    #[arg(
        long = "audit-event",
        value_name = "FILE",
        help_heading = "Request from an audit event"
    )]
    pub audit_event: Option<String>,
    /// Which event of a JSON-lines --audit-event file (0-based, counting non-empty lines).
    #[arg(
        long,
        value_name = "N",
        requires = "audit_event",
        help_heading = "Request from an audit event"
    )]
    pub index: Option<usize>,
    /// Print the AdmissionReview built (JSON) and stop.
    #[arg(long = "print-review", help_heading = "Request from manifests")]
    pub print_review: bool,
}

fn parse_operation(text: &str) -> Result<Operation, String> {
    Operation::parse(text).ok_or_else(|| {
        format!("invalid operation {text:?} (expected CREATE, UPDATE, DELETE or CONNECT)")
    })
}

fn parse_extra(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.to_owned())),
        _ => Err(format!("invalid extra {text:?} (expected key=value)")),
    }
}

impl RequestArgs {
    /// Whether a manifest describes the request.
    pub fn has_manifests(&self) -> bool {
        self.object.is_some() || self.old_object.is_some()
    }

    /// The files read, by option, for the check that standard input is read once.
    pub fn inputs(&self) -> Vec<(&'static str, Option<&str>)> {
        let mut v = vec![
            ("--object", self.object.as_deref()),
            ("--old-object", self.old_object.as_deref()),
            ("--audit-event", self.audit_event.as_deref()),
        ];
        v.extend(
            self.namespace_objects
                .iter()
                .map(|f| ("--namespace-object", Some(f.as_str()))),
        );
        v.extend(self.crds.iter().map(|f| ("--crd", Some(f.as_str()))));
        v
    }

    /// The request options.
    pub fn options(&self) -> RequestOptions {
        let mut user = UserInfo::new(self.user.as_deref().unwrap_or(""));
        user.groups.clone_from(&self.groups);
        user.uid = self.uid.clone().unwrap_or_default();
        let mut extra: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (k, v) in &self.extra {
            extra.entry(k.clone()).or_default().push(v.clone());
        }
        user.extra = extra;
        let mut o = RequestOptions::default();
        o.operation = self.operation;
        o.subresource.clone_from(&self.subresource);
        o.namespace.clone_from(&self.namespace);
        o.user = user;
        o.dry_run = self.dry_run;
        o
    }
}

/// `FILE:LINE:COLUMN: …` for a problem of a file.
pub fn at_file(name: &str, e: &ManifestError) -> String {
    match e.position() {
        Some(_) => format!("{name}:{e}"),
        None => format!("{name}: {e}"),
    }
}

/// Reads the one object of a manifest file, with the warnings about it (`FILE:LINE:COLUMN:
/// PATH: …`).
pub fn read_object(path: &str, option: &str) -> Result<(Node, Vec<String>), InputError> {
    let name = input::display_name(path);
    let text = input::read_text(path)?;
    let mut m = read_manifests(&text);
    if !m.errors.is_empty() {
        let lines: Vec<String> = m.errors.iter().map(|e| at_file(name, e)).collect();
        return Err(InputError::of_problems(&lines));
    }
    let warnings = m.warnings.iter().map(|e| at_file(name, e)).collect();
    match m.objects.len() {
        1 => Ok((m.objects.remove(0), warnings)),
        0 => Err(InputError(format!(
            "{name}: no object: {option} takes a manifest of one object"
        ))),
        n => Err(InputError(format!(
            "{name}: {n} objects: {option} takes a manifest of one object"
        ))),
    }
}

/// The catalog of a version with the CRDs of the files (every problem of every file
/// reported).
pub fn catalog(crd_files: &[String], version: KubeVersion) -> Result<Catalog, InputError> {
    resources(crd_files, version).map(|(catalog, _)| catalog)
}

/// The catalog and the resource-equivalence table of a version, with the CRDs of the files
/// (read once): their resources in the catalog, their served versions equivalent to each
/// other in the table, as the apiserver registers them.
pub fn resources(
    crd_files: &[String],
    version: KubeVersion,
) -> Result<(Catalog, Arc<ResourceTable>), InputError> {
    let mut catalog = Catalog::builtin_for(version);
    let mut table = ResourceTable::builtin_for(version);
    for c in &crds(crd_files)? {
        catalog.add_crd(c);
        table.add_crd(c);
    }
    Ok((catalog, Arc::new(table)))
}

/// The CustomResourceDefinitions of the files (every problem of every file reported).
fn crds(crd_files: &[String]) -> Result<Vec<CustomResourceDefinition>, InputError> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for path in crd_files {
        let name = input::display_name(path);
        let text = match input::read_text(path) {
            Ok(t) => t,
            Err(e) => {
                errors.push(e.0);
                continue;
            }
        };
        let (crds, errs) = load_crds(&text);
        errors.extend(errs.iter().map(|e| at_file(name, e)));
        out.extend(crds);
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(InputError::of_problems(&errors))
    }
}

/// The namespaces of the files (every problem of every file reported).
pub fn namespaces(files: &[String]) -> Result<NamespaceSet, InputError> {
    let mut set = NamespaceSet::new();
    let mut errors = Vec::new();
    for path in files {
        let name = input::display_name(path);
        let text = match input::read_text(path) {
            Ok(t) => t,
            Err(e) => {
                errors.push(e.0);
                continue;
            }
        };
        let (ns, errs) = load_namespaces(&text);
        errors.extend(errs.iter().map(|e| at_file(name, e)));
        for n in ns {
            set.insert(n);
        }
    }
    if errors.is_empty() {
        Ok(set)
    } else {
        Err(InputError::of_problems(&errors))
    }
}

/// The text of a build error, with the file of the manifest it is about and the option
/// that would resolve it.
pub fn build_error_text(e: &BuildError, object: Option<&str>, old_object: Option<&str>) -> String {
    let file = match e.role {
        Role::Object => object.or(old_object),
        Role::OldObject => old_object.or(object),
        _ => None,
    };
    let mut text = match file {
        Some(f) => at_file(input::display_name(f), &e.error),
        None => e.error.to_string(),
    };
    if e.error.kind() == ManifestErrorKind::UnknownKind {
        text.push_str(" (give its CustomResourceDefinition with --crd)");
    }
    text
}

/// Builds the request the options describe, with the warnings about its manifests
/// (`FILE:LINE:COLUMN: PATH: …`).
pub fn build(
    args: &RequestArgs,
    version: KubeVersion,
) -> Result<(BuiltReview, Vec<String>), InputError> {
    let catalog = catalog(&args.crds, version)?;
    let mut warnings = Vec::new();
    let mut read = |path: Option<&str>, option: &str| -> Result<Option<Node>, InputError> {
        let Some(path) = path else { return Ok(None) };
        let (node, w) = read_object(path, option)?;
        warnings.extend(w);
        Ok(Some(node))
    };
    let object = read(args.object.as_deref(), "--object")?;
    let old = read(args.old_object.as_deref(), "--old-object")?;
    let built =
        build_review(&catalog, object.as_ref(), old.as_ref(), &args.options()).map_err(|e| {
            InputError(build_error_text(
                &e,
                args.object.as_deref(),
                args.old_object.as_deref(),
            ))
        })?;
    Ok((built, warnings))
}

/// The warnings about a hand-written review, with the position of each member (or of the
/// nearest member that is there) in the review's text.
pub fn review_warnings(text: &str, request: &Json) -> Vec<(Option<Position>, ReviewWarning)> {
    let root = read_manifests(text).objects.into_iter().next();
    check_request(request, &Catalog::builtin())
        .into_iter()
        .map(|w| (root.as_ref().map(|r| r.locate_nearest(&w.path)), w))
        .collect()
}

/// What to say of a webhook whose conditions read objects the apiserver would first convert
/// to the version it is matched with (`matchPolicy: Equivalent`): `None` when there is none
/// to convert.
pub fn conversion_warning(outcome: &HookOutcome, request: &Json) -> Option<String> {
    let kind = outcome.converted_to.as_ref()?;
    let has_objects = ["object", "oldObject"]
        .iter()
        .any(|m| request.get(*m).is_some_and(|o| !o.is_null()));
    has_objects.then(|| {
        format!("the apiserver converts the objects to {kind} for this webhook (matchPolicy: Equivalent) before its conditions read them; they read them as given")
    })
}

/// The warnings as JSON.
pub fn warnings_json(name: &str, warnings: &[(Option<Position>, ReviewWarning)]) -> Json {
    Json::Array(
        warnings
            .iter()
            .map(|(at, w)| {
                json!({
                    "file": name,
                    "line": at.map(|p| p.line),
                    "column": at.map(|p| p.column),
                    "path": w.path,
                    "message": w.message,
                })
            })
            .collect(),
    )
}

/// The request a command works on: from a review file or built from manifests.
pub struct RequestInput {
    /// The name shown for it (the review's file, or the object's).
    pub name: String,
    /// The AdmissionRequest.
    pub request: Json,
    /// The warnings about a hand-written review.
    pub warnings: Vec<(Option<Position>, ReviewWarning)>,
    /// The namespaces given with --namespace-object.
    pub namespaces: Option<NamespaceSet>,
}

/// What the request options ask for.
pub enum Resolved {
    /// Print this review and stop (`--print-review`).
    Print(Json),
    /// Work on this request (`None`: no request given).
    Request(Option<RequestInput>),
}

/// Reads or builds the request of `match` or `eval`.
pub fn resolve(
    review: Option<&str>,
    args: &RequestArgs,
    version: KubeVersion,
) -> Result<Resolved, InputError> {
    let sources = [
        review.is_some(),
        args.has_manifests(),
        args.audit_event.is_some(),
    ];
    if sources.iter().filter(|s| **s).count() > 1 {
        return Err(InputError(
            "--review, --object/--old-object and --audit-event each describe the request: give one"
                .to_owned(),
        ));
    }
    let namespaces = if args.namespace_objects.is_empty() {
        None
    } else {
        let set = namespaces(&args.namespace_objects);
        // Every file's problems are reported together.
        if let (Err(a), Err(b)) = (&set, catalog(&args.crds, version)) {
            return Err(InputError::of_problems(&[a.0.clone(), b.0.clone()]));
        }
        Some(set?)
    };
    if let Some(path) = review {
        let name = input::display_name(path).to_owned();
        let r = input::read_review(path).inspect_err(|e| {
            if e.0.contains(": not an AdmissionReview: ") {
                errln!("matchcond: hint: to build the AdmissionReview from a manifest, give the manifest with --object (with --operation, --user, --group, -n, … as needed)");
            }
        })?;
        for w in &r.warnings {
            errln!("matchcond: warning: {w}");
        }
        let warnings = review_warnings(&r.text, &r.request);
        if args.print_review {
            return Ok(Resolved::Print(
                json!({"apiVersion": input::REVIEW_API_VERSION, "kind": "AdmissionReview", "request": r.request}),
            ));
        }
        return Ok(Resolved::Request(Some(RequestInput {
            name,
            request: r.request,
            warnings,
            namespaces,
        })));
    }
    if let Some(path) = &args.audit_event {
        let (name, review, warnings) =
            audit_review(path, args.index, &catalog(&args.crds, version)?)?;
        if args.print_review {
            return Ok(Resolved::Print(review));
        }
        let request = review.get("request").cloned().unwrap_or(Json::Null);
        return Ok(Resolved::Request(Some(RequestInput {
            name,
            request,
            warnings: warnings.into_iter().map(|w| (None, w)).collect(),
            namespaces,
        })));
    }
    if !args.has_manifests() {
        if args.print_review {
            return Err(InputError(
                "--print-review needs a request: --review, --object, --old-object or --audit-event"
                    .to_owned(),
            ));
        }
        return Ok(Resolved::Request(None));
    }
    let (built, warnings) = build(args, version)?;
    for w in &warnings {
        errln!("matchcond: warning: {w}");
    }
    if args.print_review {
        return Ok(Resolved::Print(built.review));
    }
    for note in &built.notes {
        errln!("matchcond: note: {note}");
    }
    let name = args
        .object
        .as_deref()
        .or(args.old_object.as_deref())
        .map(input::display_name)
        .unwrap_or_default()
        .to_owned();
    Ok(Resolved::Request(Some(RequestInput {
        name,
        request: built.request().clone(),
        warnings: Vec::new(),
        namespaces,
    })))
}

/// Prints the review warnings on standard error.
pub fn print_warnings(input: &RequestInput, paint: crate::color::Streams) {
    for (at, w) in &input.warnings {
        let place = match at {
            Some(p) => format!("{}:{p}", input.name),
            None => input.name.clone(),
        };
        errln!(
            "{}",
            paint.err.tone(
                crate::color::Tone::Warning,
                &format!("matchcond: warning: {place}: {w}")
            )
        );
    }
}

/// The review of one event of an audit log file: the whole file when it holds one event,
/// else the non-empty line `index` (required when the file has several). The name is
/// `FILE:LINE`.
pub fn audit_review(
    path: &str,
    index: Option<usize>,
    catalog: &Catalog,
) -> Result<(String, Json, Vec<ReviewWarning>), InputError> {
    let name = input::display_name(path);
    // Bytes, line by line: a line that is not UTF-8 is that line's problem, not the file's.
    let bytes = input::read_bytes(path)?;
    let lines: Vec<(usize, &[u8])> = bytes
        .split(|b| *b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.trim_ascii().is_empty())
        .collect();
    let (at, event) = if lines.len() > 1 && serde_json::from_slice::<Json>(&bytes).is_ok() {
        // One event written over several lines.
        (1, bytes.as_slice())
    } else {
        let i = match (index, lines.len()) {
            (Some(i), _) => i,
            (None, 0 | 1) => 0,
            (None, n) => {
                return Err(InputError(format!(
                    "{name}: {n} audit events: choose one with --index (0 to {})",
                    n - 1
                )))
            }
        };
        match lines.get(i) {
            Some((line, l)) => (line + 1, *l),
            None => {
                return Err(InputError(format!(
                    "{name}: no audit event at --index {i} (the file has {})",
                    lines.len()
                )))
            }
        }
    };
    let built = review_from_audit_event(event, catalog)
        .map_err(|e| InputError(format!("{name}:{at}: {e}")))?;
    Ok((format!("{name}:{at}"), built.review, built.warnings))
}
