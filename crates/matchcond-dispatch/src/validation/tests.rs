use super::*;
use crate::load::load_documents;

const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART_MSG: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

fn config(kind: &str, webhooks: &str) -> Configuration {
    let text = format!("kind: {kind}\nmetadata: {{name: config}}\nwebhooks:\n{webhooks}");
    load_documents(&text).unwrap().remove(0)
}

/// A validating configuration whose webhooks get `admissionReviewVersions: [v1beta1]`
/// unless they set it (as the Go tests default it).
fn vconfig(webhooks: &str) -> Configuration {
    let mut c = config("ValidatingWebhookConfiguration", webhooks);
    for h in &mut c.webhooks {
        if h.admission_review_versions.is_empty() {
            h.admission_review_versions = vec!["v1beta1".into()];
        }
    }
    c
}

fn errors_at(v: KubeVersion, c: &Configuration) -> Vec<String> {
    Validator::new(v)
        .validate(c)
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn errors(c: &Configuration) -> Vec<String> {
    errors_at(KubeVersion::V1_36, c)
}

fn update_errors(new: &Configuration, old: &Configuration) -> Vec<String> {
    Validator::new(KubeVersion::V1_36)
        .validate_update(new, old)
        .iter()
        .map(ToString::to_string)
        .collect()
}

const URL: &str = "clientConfig: {url: \"https://example.com\"}";

fn hook(extra: &str) -> String {
    format!("- name: webhook.k8s.io\n  {URL}\n  sideEffects: None\n{extra}")
}

#[test]
fn valid_configuration_has_no_errors() {
    let c = vconfig(&hook(
        "  timeoutSeconds: 30\n  matchConditions: [{name: a, expression: 'true'}]\n",
    ));
    assert_eq!(errors(&c), Vec::<String>::new());
}

#[test]
fn review_versions() {
    let c = config(
        "ValidatingWebhookConfiguration",
        &format!("- name: webhook.k8s.io\n  {URL}\n  sideEffects: None\n"),
    );
    assert_eq!(
        errors(&c),
        ["webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"]
    );
    let c = vconfig(&hook("  admissionReviewVersions: [\"0v\"]\n"));
    assert_eq!(errors(&c), [
        "webhooks[0].admissionReviewVersions[0]: Invalid value: \"0v\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        "webhooks[0].admissionReviewVersions: Invalid value: [\"0v\"]: must include at least one of v1, v1beta1",
    ]);
    let c = vconfig(&hook(
        "  admissionReviewVersions: [v1beta1, invalid-version]\n",
    ));
    assert_eq!(errors(&c), Vec::<String>::new());
    let c = vconfig(&hook("  admissionReviewVersions: [invalidVersion]\n"));
    let e = errors_at(KubeVersion::V1_33, &c);
    assert_eq!(
        e.last().unwrap(),
        "webhooks[0].admissionReviewVersions: Invalid value: []string{\"invalidVersion\"}: must include at least one of v1, v1beta1"
    );
    let c = vconfig(&hook("  admissionReviewVersions: [v1beta1, v1beta1]\n"));
    assert_eq!(
        errors(&c),
        ["webhooks[0].admissionReviewVersions[1]: Invalid value: \"v1beta1\": duplicate version"]
    );
}

#[test]
fn webhook_names() {
    let c = vconfig(&format!(
        "{}- name: k8s.io\n  {URL}\n  sideEffects: None\n- name: \"\"\n  {URL}\n  sideEffects: None\n- name: Bad.Name.io\n  {URL}\n  sideEffects: None\n",
        hook("")
    ));
    assert_eq!(
        errors(&c),
        [
            "webhooks[1].name: Invalid value: \"k8s.io\": should be a domain with at least three segments separated by dots".to_owned(),
            "webhooks[2].name: Required value".to_owned(),
            format!("webhooks[3].name: Invalid value: \"Bad.Name.io\": {SUBDOMAIN_MSG}"),
        ]
    );
    let c = vconfig(&format!("{}{}", hook(""), hook("")));
    assert_eq!(
        errors(&c),
        ["webhooks[1].name: Duplicate value: \"webhook.k8s.io\""]
    );
    let long = format!("{}.k8s.io", "a".repeat(250));
    let c = vconfig(&format!("- name: {long}\n  {URL}\n  sideEffects: None\n"));
    assert_eq!(
        errors(&c),
        [format!(
            "webhooks[0].name: Invalid value: \"{long}\": must be no more than 253 characters"
        )]
    );
}

fn rule_hook(rule: &str) -> Configuration {
    vconfig(&hook(&format!("  rules: [{rule}]\n")))
}

#[test]
fn operations() {
    let c = vconfig(&hook(
        "  rules:\n  - {operations: [], apiGroups: [a], apiVersions: [a], resources: [a]}\n  - {apiGroups: [a], apiVersions: [a], resources: [a]}\n",
    ));
    assert_eq!(
        errors(&c),
        [
            "webhooks[0].rules[0].operations: Required value",
            "webhooks[0].rules[1].operations: Required value"
        ]
    );
    let c =
        rule_hook("{operations: [CREATE, \"\"], apiGroups: [a], apiVersions: [a], resources: [a]}");
    assert_eq!(errors(&c), ["webhooks[0].rules[0].operations[1]: Unsupported value: \"\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\""]);
    let c = rule_hook("{operations: [PATCH], apiGroups: [a], apiVersions: [a], resources: [a]}");
    assert_eq!(errors(&c), ["webhooks[0].rules[0].operations[0]: Unsupported value: \"PATCH\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\""]);
    let c = rule_hook(
        "{operations: [CREATE, \"*\"], apiGroups: [a], apiVersions: [a], resources: [a]}",
    );
    assert_eq!(
        errors(&c),
        ["webhooks[0].rules[0].operations: Invalid value: [\"CREATE\",\"*\"]: if '*' is present, must not specify other operations"]
    );
    assert_eq!(
        errors_at(KubeVersion::V1_33, &c),
        ["webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{\"CREATE\", \"*\"}: if '*' is present, must not specify other operations"]
    );
}

#[test]
fn groups_versions_scope() {
    let c = rule_hook("{operations: [\"*\"], apiGroups: [], apiVersions: [], resources: [a]}");
    assert_eq!(
        errors(&c),
        [
            "webhooks[0].rules[0].apiGroups: Required value",
            "webhooks[0].rules[0].apiVersions: Required value"
        ]
    );
    let c = rule_hook("{operations: [\"*\"], apiGroups: [\"*\", a], apiVersions: [\"*\", \"\"], resources: [a], scope: Other}");
    assert_eq!(
        errors(&c),
        [
            "webhooks[0].rules[0].apiGroups: Invalid value: [\"*\",\"a\"]: if '*' is present, must not specify other API groups",
            "webhooks[0].rules[0].apiVersions: Invalid value: [\"*\",\"\"]: if '*' is present, must not specify other API versions",
            "webhooks[0].rules[0].apiVersions[1]: Required value",
            "webhooks[0].rules[0].scope: Unsupported value: \"Other\": supported values: \"*\", \"Cluster\", \"Namespaced\"",
        ]
    );
    let c = rule_hook("{operations: [\"*\"], apiGroups: [\"\"], apiVersions: [v1], resources: [a], scope: Namespaced}");
    assert_eq!(errors(&c), Vec::<String>::new());
}

fn resources_errors(resources: &str) -> Vec<String> {
    errors(&rule_hook(&format!(
        "{{operations: [CREATE], apiGroups: [a], apiVersions: [a], resources: {resources}}}"
    )))
}

#[test]
fn resources() {
    assert_eq!(
        resources_errors("[\"*\", a/b, a/*, \"*/b\"]"),
        Vec::<String>::new()
    );
    assert_eq!(
        resources_errors("[\"*\", a]"),
        ["webhooks[0].rules[0].resources: Invalid value: [\"*\",\"a\"]: if '*' is present, must not specify other resources without subresources"]
    );
    // order dependent: the last entry without a slash decides
    assert_eq!(resources_errors("[a, \"*\"]"), Vec::<String>::new());
    assert_eq!(
        resources_errors("[a/*, a/x]"),
        ["webhooks[0].rules[0].resources[1]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x"]
    );
    assert_eq!(resources_errors("[a/x, a/*]"), Vec::<String>::new());
    assert_eq!(resources_errors("[a/*, a]"), Vec::<String>::new());
    assert_eq!(
        resources_errors("[\"*/a\", x/a]"),
        ["webhooks[0].rules[0].resources[1]: Invalid value: \"x/a\": if '*/a' is present, must not specify x/a"]
    );
    assert_eq!(
        resources_errors("[\"*/*\", a]"),
        ["webhooks[0].rules[0].resources: Invalid value: [\"*/*\",\"a\"]: if '*/*' is present, must not specify other resources"]
    );
    let c = rule_hook(
        "{operations: [CREATE], apiGroups: [a], apiVersions: [a], resources: [\"*/*\", a]}",
    );
    assert_eq!(
        errors_at(KubeVersion::V1_33, &c),
        ["webhooks[0].rules[0].resources: Invalid value: []string{\"*/*\", \"a\"}: if '*/*' is present, must not specify other resources"]
    );
    assert_eq!(
        resources_errors("[]"),
        ["webhooks[0].rules[0].resources: Required value"]
    );
    assert_eq!(
        resources_errors("[a, \"\"]"),
        ["webhooks[0].rules[0].resources[1]: Required value"]
    );
    // both overlap checks on one entry, and */* with */x
    assert_eq!(
        resources_errors("[a/*, \"*/x\", a/x]"),
        [
            "webhooks[0].rules[0].resources[2]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x",
            "webhooks[0].rules[0].resources[2]: Invalid value: \"a/x\": if '*/x' is present, must not specify a/x",
        ]
    );
}

#[test]
fn policies() {
    let mut c = vconfig(&hook("  failurePolicy: other\n  matchPolicy: Loose\n"));
    // A validating webhook has no reinvocationPolicy (the loader refuses the field); the
    // view's value is not validated for it.
    c.webhooks[0].reinvocation_policy = Some("Sometimes".into());
    assert_eq!(
        errors(&c),
        [
            "webhooks[0].failurePolicy: Unsupported value: \"other\": supported values: \"Fail\", \"Ignore\"",
            "webhooks[0].matchPolicy: Unsupported value: \"Loose\": supported values: \"Equivalent\", \"Exact\"",
        ]
    );
    let mut m = config(
        "MutatingWebhookConfiguration",
        &hook("  reinvocationPolicy: Sometimes\n  admissionReviewVersions: [v1]\n"),
    );
    assert_eq!(
        errors(&m),
        ["webhooks[0].reinvocationPolicy: Unsupported value: \"Sometimes\": supported values: \"IfNeeded\", \"Never\""]
    );
    m.webhooks[0].reinvocation_policy = Some("IfNeeded".into());
    assert_eq!(errors(&m), Vec::<String>::new());
}

#[test]
fn side_effects() {
    let c = vconfig(&format!("- name: webhook.k8s.io\n  {URL}\n"));
    assert_eq!(
        errors(&c),
        ["webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"]
    );
    let c = vconfig(&format!(
        "- name: webhook.k8s.io\n  {URL}\n  sideEffects: other\n"
    ));
    assert_eq!(
        errors(&c),
        ["webhooks[0].sideEffects: Unsupported value: \"other\": supported values: \"None\", \"NoneOnDryRun\""]
    );
    for bad in ["Unknown", "Some"] {
        let c = vconfig(&format!(
            "- name: webhook.k8s.io\n  {URL}\n  sideEffects: {bad}\n"
        ));
        assert_eq!(
            errors(&c),
            [format!("webhooks[0].sideEffects: Unsupported value: \"{bad}\": supported values: \"None\", \"NoneOnDryRun\"")]
        );
    }
    let c = vconfig(&format!(
        "- name: webhook.k8s.io\n  {URL}\n  sideEffects: NoneOnDryRun\n"
    ));
    assert_eq!(errors(&c), Vec::<String>::new());
}

#[test]
fn client_config() {
    let cc = |cc: &str| {
        errors(&vconfig(&format!(
            "- name: webhook.k8s.io\n  clientConfig: {cc}\n  sideEffects: None\n"
        )))
    };
    assert_eq!(
        cc("{}"),
        ["webhooks[0].clientConfig: Required value: exactly one of url or service is required"]
    );
    assert_eq!(
        cc("{url: example.com/k8s/webhook, service: {namespace: ns, name: n}}"),
        ["webhooks[0].clientConfig: Required value: exactly one of url or service is required"]
    );
    assert_eq!(
        cc("{url: \"\"}"),
        [
            "webhooks[0].clientConfig.url: Invalid value: \"\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
            "webhooks[0].clientConfig.url: Invalid value: \"\": host must be specified; desired format: https://host[/path]",
        ]
    );
    assert_eq!(
        cc("{url: \"http://example.com\"}"),
        ["webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]"]
    );
    assert_eq!(
        cc("{url: \"https:///fancy/webhook\"}"),
        ["webhooks[0].clientConfig.url: Invalid value: \"\": host must be specified; desired format: https://host[/path]"]
    );
    assert_eq!(
        cc("{url: \"https://example.com/#bookmark\"}"),
        ["webhooks[0].clientConfig.url: Invalid value: \"bookmark\": fragments are not permitted in the URL"]
    );
    assert_eq!(
        cc("{url: \"https://example.com?arg=value\"}"),
        ["webhooks[0].clientConfig.url: Invalid value: \"arg=value\": query parameters are not permitted in the URL"]
    );
    assert_eq!(
        cc("{url: \"https://harry.potter@example.com/\"}"),
        ["webhooks[0].clientConfig.url: Invalid value: \"harry.potter\": user information is not permitted in the URL"]
    );
    assert_eq!(
        cc("{url: \"arg#backwards=thisis?html.index/port:host//:https\"}"),
        [
            "webhooks[0].clientConfig.url: Invalid value: \"\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
            "webhooks[0].clientConfig.url: Invalid value: \"\": host must be specified; desired format: https://host[/path]",
            "webhooks[0].clientConfig.url: Invalid value: \"backwards=thisis?html.index/port:host//:https\": fragments are not permitted in the URL",
        ]
    );
    assert_eq!(
        cc("{url: \"https://example.com:port/\"}"),
        ["webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse \"https://example.com:port/\": invalid port \":port\" after host; desired format: https://host[/path]"]
    );
}

#[test]
fn service() {
    let svc = |svc: &str| {
        errors(&vconfig(&format!(
            "- name: webhook.k8s.io\n  clientConfig: {{service: {svc}}}\n  sideEffects: None\n"
        )))
    };
    assert_eq!(
        svc("{namespace: ns, name: n, path: foo/, port: 443}"),
        ["webhooks[0].clientConfig.service.path: Invalid value: \"foo/\": must start with a '/'"]
    );
    assert_eq!(
        svc("{namespace: ns, name: n, path: /}"),
        Vec::<String>::new()
    );
    assert_eq!(
        svc("{namespace: ns, name: n, path: /foo}"),
        Vec::<String>::new()
    );
    assert_eq!(
        svc("{namespace: ns, name: n, path: \"\"}"),
        Vec::<String>::new()
    );
    assert_eq!(
        svc("{namespace: ns, name: n, path: //}"),
        ["webhooks[0].clientConfig.service.path: Invalid value: \"//\": segment[0] may not be empty"]
    );
    assert_eq!(
        svc("{namespace: ns, name: n, path: /foo//bar/}"),
        ["webhooks[0].clientConfig.service.path: Invalid value: \"/foo//bar/\": segment[1] may not be empty"]
    );
    assert_eq!(
        svc("{namespace: ns, name: n, path: /foo/bar//}"),
        ["webhooks[0].clientConfig.service.path: Invalid value: \"/foo/bar//\": segment[2] may not be empty"]
    );
    assert_eq!(
        svc("{namespace: ns, name: n, path: /apis/foo.bar/v1alpha1/--bad}"),
        [format!("webhooks[0].clientConfig.service.path: Invalid value: \"/apis/foo.bar/v1alpha1/--bad\": segment[3]: {SUBDOMAIN_MSG}")]
    );
    assert_eq!(
        svc("{namespace: ns, name: n, path: \"https://apis/foo.bar\", port: 0}"),
        [
            "webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive".to_owned(),
            "webhooks[0].clientConfig.service.path: Invalid value: \"https://apis/foo.bar\": must start with a '/'".to_owned(),
            format!("webhooks[0].clientConfig.service.path: Invalid value: \"https://apis/foo.bar\": segment[0]: {SUBDOMAIN_MSG}"),
            "webhooks[0].clientConfig.service.path: Invalid value: \"https://apis/foo.bar\": segment[1] may not be empty".to_owned(),
        ]
    );
    assert_eq!(
        svc("{namespace: ns, name: n, port: 65536}"),
        ["webhooks[0].clientConfig.service.port: Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive"]
    );
    assert_eq!(
        svc("{port: 443}"),
        [
            "webhooks[0].clientConfig.service.name: Required value",
            "webhooks[0].clientConfig.service.namespace: Required value"
        ]
    );
}

#[test]
fn timeouts() {
    for t in [31, 0, -1] {
        let c = vconfig(&hook(&format!("  timeoutSeconds: {t}\n")));
        assert_eq!(
            errors(&c),
            [format!("webhooks[0].timeoutSeconds: Invalid value: {t}: the timeout value must be between 1 and 30 seconds")]
        );
    }
    for t in [1, 15, 30] {
        let c = vconfig(&hook(&format!("  timeoutSeconds: {t}\n")));
        assert_eq!(errors(&c), Vec::<String>::new());
    }
}

#[test]
fn selectors() {
    let c = vconfig(&hook(
        "  namespaceSelector: {matchExpressions: [{key: a, operator: In}]}\n  objectSelector: {matchLabels: {\"a/b/c\": x}}\n",
    ));
    let e = errors(&c);
    assert_eq!(e.len(), 2, "{e:#?}");
    assert_eq!(e[0], "webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'");
    assert!(e[1].starts_with("webhooks[0].objectSelector.matchLabels: Invalid value: \"a/b/c\": a valid label key must consist of"), "{}", e[1]);
    let old = errors_at(KubeVersion::V1_34, &c);
    assert!(old[1].starts_with("webhooks[0].objectSelector.matchLabels: Invalid value: \"a/b/c\": a qualified name must consist of"), "{}", old[1]);
}

#[test]
fn match_conditions() {
    let mc = |conds: &str| errors(&vconfig(&hook(&format!("  matchConditions: {conds}\n"))));
    assert_eq!(
        mc("[{expression: 'true'}]"),
        ["webhooks[0].matchConditions[0].name: Required value"]
    );
    assert_eq!(
        mc("[{name: \"-hello\", expression: 'true'}]"),
        [format!(
            "webhooks[0].matchConditions[0].name: Invalid value: \"-hello\": {NAME_PART_MSG}"
        )]
    );
    assert_eq!(
        mc("[{name: .io, expression: 'true'}, {name: thing.test.com, expression: 'true'}, {name: some name, expression: 'true'}]"),
        [
            format!("webhooks[0].matchConditions[0].name: Invalid value: \".io\": {NAME_PART_MSG}"),
            format!("webhooks[0].matchConditions[2].name: Invalid value: \"some name\": {NAME_PART_MSG}"),
        ]
    );
    assert_eq!(
        mc("[{name: webhook.k8s.io}]"),
        ["webhooks[0].matchConditions[0].expression: Required value"]
    );
    assert_eq!(
        mc("[{name: webhook.k8s.io, expression: \"  \\t\"}]"),
        ["webhooks[0].matchConditions[0].expression: Required value"]
    );
    assert_eq!(
        mc("[{name: webhook.k8s.io, expression: \"object.x in [1, 2, \"}]"),
        ["webhooks[0].matchConditions[0].expression: Invalid value: \"object.x in [1, 2,\": compilation failed: ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>'\n | object.x in [1, 2,\n | ..................^"]
    );
    assert_eq!(
        mc("[{name: webhook.k8s.io, expression: 'true'}, {name: webhook.k8s.io, expression: 'true'}]"),
        ["webhooks[0].matchConditions[1].name: Duplicate value: \"webhook.k8s.io\""]
    );
    assert_eq!(
        mc("[{name: a, expression: '6'}]"),
        ["webhooks[0].matchConditions[0].expression: Invalid value: \"6\": must evaluate to bool but got int"]
    );
    assert_eq!(
        mc("[{name: a, expression: 'imnotafield == null'}]"),
        ["webhooks[0].matchConditions[0].expression: Invalid value: \"imnotafield == null\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'imnotafield' (in container '')\n | imnotafield == null\n | ^"]
    );
    assert_eq!(
        mc("[{name: a, expression: 'params.x'}]"),
        ["webhooks[0].matchConditions[0].expression: Invalid value: \"params.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x\n | ^"]
    );
    // repeated names are allowed across webhooks
    let c = vconfig(&format!(
        "{}- name: webhook2.k8s.io\n  {URL}\n  sideEffects: None\n  matchConditions: [{{name: a, expression: 'true'}}]\n",
        hook("  matchConditions: [{name: a, expression: 'true'}]\n")
    ));
    assert_eq!(errors(&c), Vec::<String>::new());
}

#[test]
fn too_many_conditions_are_still_checked() {
    let mut conds: Vec<String> = (0..65)
        .map(|i| format!("{{name: c{i}, expression: 'true'}}"))
        .collect();
    let c = vconfig(&hook(&format!(
        "  matchConditions: [{}]\n",
        conds.join(", ")
    )));
    assert_eq!(
        errors(&c),
        ["webhooks[0].matchConditions: Too many: 65: must have at most 64 items"]
    );
    conds.pop();
    let c = vconfig(&hook(&format!(
        "  matchConditions: [{}]\n",
        conds.join(", ")
    )));
    assert_eq!(errors(&c), Vec::<String>::new());
    conds.push("{name: c0, expression: '1'}".into());
    let c = vconfig(&hook(&format!(
        "  matchConditions: [{}]\n",
        conds.join(", ")
    )));
    assert_eq!(
        errors(&c),
        [
            "webhooks[0].matchConditions: Too many: 65: must have at most 64 items",
            "webhooks[0].matchConditions[64].expression: Invalid value: \"1\": must evaluate to bool but got int",
            "webhooks[0].matchConditions[64].name: Duplicate value: \"c0\"",
        ]
    );
}

#[test]
fn metadata() {
    let mut c = vconfig(&hook(""));
    c.metadata.name = None;
    assert_eq!(
        errors(&c),
        ["metadata.name: Required value: name or generateName is required"]
    );
    c.metadata.name = Some("Bad_Name".into());
    c.metadata.namespace = Some("default".into());
    c.metadata.generation = Some(-1);
    c.metadata.generate_name = Some("ok-".into());
    c.metadata.finalizers = Some(vec![
        "orphan".into(),
        "foregroundDeletion".into(),
        "a/b/c".into(),
    ]);
    c.metadata.labels = Some([("k".to_owned(), "-v".to_owned())].into());
    c.metadata.annotations = Some([("A_/b".to_owned(), "x".repeat(262_144))].into());
    let e = errors(&c);
    assert_eq!(
        e[0],
        format!("metadata.name: Invalid value: \"Bad_Name\": {SUBDOMAIN_MSG}")
    );
    assert_eq!(
        e[1],
        "metadata.namespace: Forbidden: not allowed on this type"
    );
    assert_eq!(
        e[2],
        "metadata.generation: Invalid value: -1: must be greater than or equal to 0"
    );
    assert!(
        e[3].starts_with("metadata.labels: Invalid value: \"-v\": a valid label must be"),
        "{}",
        e[3]
    );
    assert_eq!(
        e[4],
        format!("metadata.annotations: Invalid value: \"A_/b\": prefix part {SUBDOMAIN_MSG}")
    );
    assert_eq!(
        e[5],
        "metadata.annotations: Too long: may not be more than 262144 bytes"
    );
    assert!(
        e[6].starts_with("metadata.finalizers: Invalid value: \"a/b/c\": a valid label key"),
        "{}",
        e[6]
    );
    assert_eq!(e[7], "metadata.finalizers: Invalid value: [\"orphan\",\"foregroundDeletion\",\"a/b/c\"]: finalizer orphan and foregroundDeletion cannot be both set");
    assert_eq!(e.len(), 8, "{e:#?}");
    let mut c = vconfig(&hook(""));
    c.metadata.generate_name = Some("Bad-".into());
    assert_eq!(
        errors(&c),
        [format!(
            "metadata.generateName: Invalid value: \"Bad-\": {SUBDOMAIN_MSG}"
        )]
    );
}

#[test]
fn owner_references() {
    let mut c = vconfig(&hook(""));
    c.metadata.owner_references = Some(vec![
        OwnerReference {
            api_version: "a/b/c".into(),
            ..OwnerReference::default()
        },
        OwnerReference {
            api_version: "v1".into(),
            kind: "Event".into(),
            name: "e".into(),
            uid: "u".into(),
            controller: Some(true),
            ..OwnerReference::default()
        },
        OwnerReference {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            name: "d".into(),
            uid: "u2".into(),
            controller: Some(true),
            ..OwnerReference::default()
        },
    ]);
    assert_eq!(errors(&c), [
        "metadata.ownerReferences[0].apiVersion: Invalid value: \"a/b/c\": must be <group>/<version> or <version>",
        "metadata.ownerReferences[0].kind: Required value: must not be empty",
        "metadata.ownerReferences[0].name: Required value: must not be empty",
        "metadata.ownerReferences[0].uid: Required value: must not be empty",
        "metadata.ownerReferences[1]: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"u\",\"controller\":true}: /v1, Kind=Event is disallowed from being an owner",
        "metadata.ownerReferences: Invalid value: [{\"apiVersion\":\"a/b/c\",\"kind\":\"\",\"name\":\"\",\"uid\":\"\"},{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"u\",\"controller\":true},{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"name\":\"d\",\"uid\":\"u2\",\"controller\":true}]: Only one reference can have Controller set to true. Found \"true\" in references for Event/e and Deployment/d",
    ]);
}

#[test]
fn mutating_configuration_is_checked_alike() {
    let c = config(
        "MutatingWebhookConfiguration",
        "- name: k8s.io\n  clientConfig: {url: \"https://example.com\"}\n  admissionReviewVersions: [v1]\n",
    );
    assert_eq!(
        errors(&c),
        [
            "webhooks[0].name: Invalid value: \"k8s.io\": should be a domain with at least three segments separated by dots",
            "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
        ]
    );
}

#[test]
fn update_relaxations() {
    let unknown = |extra: &str| {
        vconfig(&format!(
            "- name: webhook.k8s.io\n  {URL}\n  sideEffects: Unknown\n{extra}"
        ))
    };
    // Unknown side effects pass when the old object already had one.
    let old = unknown("");
    let new = unknown("  admissionReviewVersions: [v1beta1]\n");
    assert_eq!(update_errors(&new, &old), Vec::<String>::new());
    let none = vconfig(&hook(""));
    assert_eq!(
        update_errors(&new, &none),
        ["webhooks[0].sideEffects: Unsupported value: \"Unknown\": supported values: \"None\", \"NoneOnDryRun\""]
    );
    let nil = vconfig(&format!("- name: webhook.k8s.io\n  {URL}\n"));
    assert_eq!(
        update_errors(&nil, &old),
        ["webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun, Some, Unknown"]
    );
    // review versions
    let invalid_old = unknown("  admissionReviewVersions: [invalid-v0]\n");
    let invalid_new = unknown("  admissionReviewVersions: [invalid-v1, invalid-v2]\n");
    assert_eq!(
        update_errors(&invalid_new, &invalid_old),
        Vec::<String>::new()
    );
    let valid_old = unknown("  admissionReviewVersions: [v1beta1, invalid-v1]\n");
    let new = unknown("  admissionReviewVersions: [invalid-v1]\n");
    assert_eq!(
        update_errors(&new, &valid_old),
        ["webhooks[0].admissionReviewVersions: Invalid value: [\"invalid-v1\"]: must include at least one of v1, v1beta1"]
    );
    let mut missing_old = unknown("");
    missing_old.webhooks[0].admission_review_versions.clear();
    assert_eq!(
        update_errors(&new, &missing_old),
        ["webhooks[0].admissionReviewVersions: Invalid value: [\"invalid-v1\"]: must include at least one of v1, v1beta1"]
    );
    // unique names
    let dup = unknown(&format!(
        "- name: webhook.k8s.io\n  {URL}\n  sideEffects: Unknown\n"
    ));
    assert_eq!(
        update_errors(&dup, &old),
        ["webhooks[1].name: Duplicate value: \"webhook.k8s.io\""]
    );
    assert_eq!(update_errors(&dup, &dup), Vec::<String>::new());
    // invalid label values in selectors
    let bad_sel = unknown(
        "  objectSelector: {matchExpressions: [{key: a, operator: In, values: [\"-x\"]}]}\n",
    );
    assert_eq!(update_errors(&bad_sel, &bad_sel), Vec::<String>::new());
    assert_eq!(update_errors(&bad_sel, &old).len(), 1);
}

#[test]
fn update_match_conditions() {
    let with = |expr: &str| {
        vconfig(&hook(&format!(
            "  matchConditions: [{{name: checkStorage, expression: '{expr}'}}]\n"
        )))
    };
    // unchanged: not validated at all (even broken ones)
    let broken = with("test() == true");
    assert_eq!(update_errors(&broken, &broken), Vec::<String>::new());
    // changed: validated in the new-expressions environment
    assert_eq!(
        update_errors(&broken, &with("true")),
        ["webhooks[0].matchConditions[0].expression: Invalid value: \"test() == true\": compilation failed: ERROR: <input>:1:5: undeclared reference to 'test' (in container '')\n | test() == true\n | ....^"]
    );
    // a different number of webhooks re-validates everything
    let two = vconfig(&format!(
        "{}- name: webhook2.k8s.io\n  {URL}\n  sideEffects: None\n",
        hook("  matchConditions: [{name: checkStorage, expression: 'test() == true'}]\n")
    ));
    assert_eq!(update_errors(&two, &broken).len(), 1);
}

#[test]
fn stored_expressions_use_the_stored_environment() {
    // `sortBy` (the lists extension) is in the 1.34 binary but not in its compatibility
    // version (1.33): new expressions cannot use it, unchanged ones may.
    let expr = "[2, 1].sortBy(x, x) == [1, 2]";
    let with = |name: &str| {
        vconfig(&hook(&format!(
            "  matchConditions: [{{name: {name}, expression: '{expr}'}}]\n"
        )))
    };
    let v = Validator::new(KubeVersion::V1_34);
    let created: Vec<String> = v
        .validate(&with("a"))
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(created.len(), 1, "{created:?}");
    assert!(created[0].starts_with("webhooks[0].matchConditions[0].expression: Invalid value: \"[2, 1].sortBy(x, x) == [1, 2]\": compilation failed:"), "{}", created[0]);
    // renaming the condition makes the list differ, but the expression is preexisting
    let updated = v.validate_update(&with("b"), &with("a"));
    assert_eq!(updated, Vec::new());
    assert_eq!(
        Validator::new(KubeVersion::V1_35).validate(&with("a")),
        Vec::new()
    );
}

#[test]
fn whole_message() {
    let c = vconfig(&format!("- name: k8s.io\n  {URL}\n  sideEffects: None\n- name: \"\"\n  {URL}\n  sideEffects: None\n"));
    let errs = Validator::new(KubeVersion::V1_36).validate(&c);
    assert_eq!(
        invalid_message(HookKind::Validating, "config", &errs),
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io \"config\" is invalid: [webhooks[0].name: Invalid value: \"k8s.io\": should be a domain with at least three segments separated by dots, webhooks[1].name: Required value]"
    );
    assert_eq!(
        invalid_message(HookKind::Mutating, "x", &[]),
        "MutatingWebhookConfiguration.admissionregistration.k8s.io \"x\" is invalid"
    );
}
