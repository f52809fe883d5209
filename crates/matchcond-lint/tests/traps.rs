//! The lint library on configurations shaped like those of public projects (policy
//! engines, injectors, multi-tenancy controllers, network plugins, authorizer checks): every
//! finding with its code, field path, line:column and operations, and the clean conditions
//! beside them.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use matchcond_compiler::KubeVersion;
use matchcond_lint::{Code, Linter, Operation, Severity, TextReport};

fn data(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn lint(text: &str) -> TextReport {
    Linter::new(KubeVersion::V1_34)
        .with_compatibility(false)
        .lint_text(text)
}

/// (code, path, "line:column", operations) of every finding.
fn summary(report: &TextReport) -> Vec<(Code, String, String, Vec<Operation>)> {
    report
        .findings()
        .map(|f| {
            (
                f.code(),
                f.path().to_owned(),
                f.position().map(|p| p.to_string()).unwrap_or_default(),
                f.operations().to_vec(),
            )
        })
        .collect()
}

fn row(
    code: Code,
    path: &str,
    at: &str,
    ops: &[Operation],
) -> (Code, String, String, Vec<Operation>) {
    (code, path.to_owned(), at.to_owned(), ops.to_vec())
}

use Operation::{Connect, Create, Delete, Update};

#[test]
fn policy_engine_namespace_of_cluster_scoped_resources() {
    let r = lint(&data("policy-engine.yaml"));
    assert_eq!(
        summary(&r),
        [row(
            Code::OmittedRequestField,
            "webhooks[0].matchConditions[0].expression",
            "24:28",
            &[Create, Update, Delete, Connect]
        )]
    );
    let f = r.findings().next().unwrap();
    assert_eq!(
        f.message(),
        "request.namespace is absent for cluster-scoped resources, which the rules match; reading it then fails with \"no such key\" (failurePolicy Ignore: the webhook is silently skipped for these CREATE, UPDATE, DELETE and CONNECT requests)"
    );
    assert_eq!(
        f.help(),
        Some("test has(request.namespace) first, or read request.?namespace.orValue('')")
    );
    let span = f.span().unwrap();
    assert_eq!(
        (span.line, span.column, span.start, span.end),
        (1, 11, 10, 19)
    );
    // The second configuration (namespaced rules, groups always present) is clean.
    assert_eq!(r.documents[1].configurations[0].findings, []);
}

#[test]
fn injector_annotations_and_generated_names() {
    let r = lint(&data("injector.yaml"));
    assert_eq!(
        summary(&r),
        [
            row(
                Code::AbsentMap,
                "webhooks[1].matchConditions[0].expression",
                "39:45",
                &[]
            ),
            row(
                Code::OmittedRequestField,
                "webhooks[1].matchConditions[1].expression",
                "42:27",
                &[Create]
            ),
        ]
    );
    assert_eq!(
        r.findings().next().unwrap().help(),
        Some("test has(object.metadata.annotations) first, or read it optionally: object.metadata.?annotations[?'admission.agent.example.com/config'].orValue('')")
    );
}

#[test]
fn tenancy_deleted_namespaces_and_users_without_extra() {
    let r = lint(&data("tenancy.yaml"));
    assert_eq!(
        summary(&r),
        [
            row(
                Code::ObjectOnDelete,
                "webhooks[0].matchConditions[0].expression",
                "18:50",
                &[Delete]
            ),
            row(
                Code::OmittedRequestField,
                "webhooks[1].matchConditions[2].expression",
                "35:80",
                &[]
            ),
        ]
    );
}

#[test]
fn node_status_subresources() {
    let r = lint(&data("node-status.yaml"));
    assert_eq!(
        summary(&r),
        [row(
            Code::OmittedRequestField,
            "webhooks[1].matchConditions[0].expression",
            "30:26",
            &[Update]
        )]
    );
}

#[test]
fn authorizer_checks_against_the_limits() {
    let r = lint(&data("authz-budget.yaml"));
    assert_eq!(
        summary(&r),
        [
            row(
                Code::CostBudget,
                "webhooks[0].matchConditions",
                "14:3",
                &[Create]
            ),
            row(
                Code::CostLimit,
                "webhooks[1].matchConditions[0].expression",
                "33:7",
                &[Create, Update]
            ),
        ]
    );
    let budget = r.findings().next().unwrap();
    assert_eq!(
        budget.message(),
        "the conditions of this webhook always cost at least 2800040 together, over the budget of 2500000 they share: the apiserver stops with \"validation failed due to running out of cost budget, no further validation rules will be run\" (failurePolicy Fail: the apiserver rejects these CREATE requests instead of calling the webhook)"
    );
    assert_eq!(
        budget.help(),
        Some("at most 7 of its 16 authorizer checks (350,000 each) fit in one webhook's budget: spread the conditions over 3 webhooks with the same rules and clientConfig (each webhook has its own budget of 2500000)")
    );
    let c = &r.documents[0].configurations[0];
    assert_eq!(c.webhooks[0].cost.min, 2_800_040);
    assert_eq!(c.webhooks[0].cost.max, Some(5_600_080));
    assert_eq!(c.webhooks[2].cost.max, Some(350_006));
    // Before strict cost (1.32) a check costs 1: nothing to report.
    let old = Linter::new(KubeVersion::V1_31)
        .with_compatibility(false)
        .lint_text(&data("authz-budget.yaml"));
    assert_eq!(summary(&old), []);
}

#[test]
fn the_advice_fits_the_budget() {
    // Split as advised (3 webhooks of at most 3 conditions), the budget holds.
    let text = data("authz-budget.yaml");
    let head = text.split("- {name: c4").next().unwrap().to_owned();
    let r = lint(&head);
    assert!(r.findings().all(|f| f.code() != Code::CostBudget));
}

#[test]
fn mistakes_the_rules_make_visible() {
    let r = lint(&data("mistakes.yaml"));
    assert_eq!(
        summary(&r),
        [
            row(
                Code::NeverTrue,
                "webhooks[0].matchConditions[0].expression",
                "16:18",
                &[]
            ),
            row(
                Code::AlwaysTrue,
                "webhooks[1].matchConditions[0].expression",
                "25:18",
                &[]
            ),
            row(
                Code::ExcludesAuthenticated,
                "webhooks[1].matchConditions[1].expression",
                "27:18",
                &[]
            ),
            row(
                Code::NamespaceObjectNull,
                "webhooks[2].matchConditions[0].expression",
                "36:18",
                &[Create]
            ),
            row(
                Code::Validation,
                "webhooks[2].matchConditions[1].expression",
                "38:17",
                &[]
            ),
            row(
                Code::ParamsUndeclared,
                "webhooks[2].matchConditions[1].expression",
                "38:42",
                &[]
            ),
            row(
                Code::ConnectOptions,
                "webhooks[3].matchConditions[0].expression",
                "47:41",
                &[Connect]
            ),
        ]
    );
    // Traps never change what is valid: the only error is the apiserver's.
    let errors: Vec<&str> = r
        .findings()
        .filter(|f| f.severity() == Severity::Error)
        .map(|f| f.message())
        .collect();
    assert_eq!(
        errors,
        ["webhooks[2].matchConditions[1].expression: Invalid value: \"object.metadata.name == params.name\": compilation failed: ERROR: <input>:1:25: undeclared reference to 'params' (in container '')\n | object.metadata.name == params.name\n | ........................^"]
    );
}

#[test]
fn the_projects_own_examples_have_no_warnings() {
    let text = std::fs::read_to_string(format!(
        "{}/../../examples/webhooks.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let r = Linter::new(KubeVersion::V1_34).lint_text(&text);
    let worst: Vec<(Code, Severity)> = r.findings().map(|f| (f.code(), f.severity())).collect();
    // Notes only: the optional syntax they use is refused on create by 1.28.
    assert_eq!(
        worst,
        [
            (Code::Compatibility, Severity::Note),
            (Code::Compatibility, Severity::Note)
        ]
    );
    let c = &r.documents[0].configurations[0];
    let refused: Vec<String> = c
        .compatibility
        .iter()
        .filter(|v| !v.errors.is_empty())
        .map(|v| v.version.to_string())
        .collect();
    assert_eq!(refused, ["1.28"]);
    assert_eq!(c.findings[0].versions(), [KubeVersion::V1_28]);
}

#[test]
fn minimum_versions() {
    let text = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: v}\nwebhooks:\n- name: v.example.com\n  admissionReviewVersions: [v1]\n  sideEffects: None\n  clientConfig: {url: 'https://v.example.com'}\n  rules: [{operations: [CREATE], apiGroups: [''], apiVersions: [v1], resources: [pods]}]\n  matchConditions:\n  - {name: semver, expression: \"isSemver('1.2.3')\"}\n";
    let r = Linter::new(KubeVersion::V1_32).lint_text(text);
    let codes: Vec<Code> = r.findings().map(|f| f.code()).collect();
    assert_eq!(codes, [Code::Validation, Code::MinimumVersion]);
    let f = r.findings().nth(1).unwrap();
    assert_eq!(
        f.message(),
        "needs the CEL environment of Kubernetes 1.33 (before: undeclared reference to 'isSemver' (in container '')): Kubernetes 1.33 evaluates it, and apiservers from 1.34 accept it in a new configuration; linted for 1.32"
    );
    let versions: Vec<String> = f.versions().iter().map(ToString::to_string).collect();
    assert_eq!(versions, ["1.28", "1.29", "1.30", "1.31", "1.32"]);
    // Linted for 1.34: accepted; the compatibility note names the versions that refuse it.
    let r = Linter::new(KubeVersion::V1_34).lint_text(text);
    let c = r.configurations().next().unwrap();
    assert_eq!(
        c.webhooks[0].conditions[0].minimum_version,
        Some(KubeVersion::V1_33)
    );
    assert_eq!(
        c.findings[0].message().split(" (1.33:").next().unwrap(),
        format!(
            "accepted on create by Kubernetes 1.34 to {}; refused by 1.28 to 1.33",
            KubeVersion::LATEST
        )
    );
}

#[test]
fn lint_configuration_without_text() {
    let text = data("tenancy.yaml");
    let config = matchcond_dispatch::load_documents(&text).unwrap().remove(0);
    let r = Linter::new(KubeVersion::V1_34)
        .with_compatibility(false)
        .lint_configuration(&config);
    let codes: Vec<(Code, Option<String>)> = r
        .findings
        .iter()
        .map(|f| (f.code(), f.position().map(|p| p.to_string())))
        .collect();
    assert_eq!(
        codes,
        [
            (Code::ObjectOnDelete, None),
            (Code::OmittedRequestField, None),
        ]
    );
}
