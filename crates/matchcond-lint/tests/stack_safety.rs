//! Linting never needs more than a 2 MiB stack: the deepest nesting the parser accepts and
//! long chains up to the expression length limit, as matchConditions, end in findings.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use matchcond_compiler::{Environment, KubeVersion};
use matchcond_lint::Linter;

const STACK: usize = 2 * 1024 * 1024;
const LIMIT: usize = 100_000;

/// (prefix repeated, suffix repeated, centre) forms of nesting; bool-valued ones are
/// analysed as conditions, the others fail to compile (and are still looked at).
const FORMS: &[(&str, &str, &str)] = &[
    ("!(", ")", "object.metadata.labels['a'] == 'b'"),
    ("(", ")", "request.namespace == 'a'"),
    ("[1].all(x, ", ")", "object.x == x"),
    ("[1].all(x, [x].all(y, ", "))", "oldObject.y == y"),
    (
        "true ? (",
        ") : false",
        "has(object.metadata) && object.metadata.name == 'a'",
    ),
    ("(true ? false : ", ")", "'k' in object.metadata.labels"),
    ("{'a': ", "}.a", "namespaceObject.metadata.name == 'x'"),
    ("[", "][0]", "params.x == 1"),
    ("optional.of(", ").hasValue()", "object.x"),
    ("-(", ")", "1"),
];

fn configuration(expression: &str) -> String {
    format!(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {{name: deep}}\nwebhooks:\n- name: deep.example.com\n  admissionReviewVersions: [v1]\n  sideEffects: None\n  clientConfig: {{url: 'https://deep.example.com'}}\n  rules: [{{operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*']}}]\n  matchConditions:\n  - name: deep\n    expression: |\n      {expression}\n"
    )
}

#[test]
fn the_deepest_nesting_and_the_longest_chains_lint_on_a_small_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(|| {
            let env = Environment::kubernetes(KubeVersion::V1_34);
            let linter = Linter::new(KubeVersion::V1_34).with_compatibility(false);
            let mut linted = 0;
            for (pre, post, centre) in FORMS {
                let text = |n: usize| format!("{}{centre}{}", pre.repeat(n), post.repeat(n));
                let (mut ok, mut bad) = (0usize, 1000usize);
                while bad - ok > 1 {
                    let mid = (ok + bad) / 2;
                    if env.parse(&text(mid)).is_ok() {
                        ok = mid;
                    } else {
                        bad = mid;
                    }
                }
                // Every depth up to the parser's (analysed up to the lint's own bound).
                for n in (1..=ok + 1).step_by(9).chain([ok, ok + 1]) {
                    let report = linter.lint_text(&configuration(&text(n)));
                    assert_eq!(report.configurations().count(), 1);
                    linted += 1;
                }
            }
            let rep = |s: &str, n: usize| s.repeat(n);
            for chain in [
                format!("true{}", rep(" && object.x == 1", (LIMIT - 4) / 17)),
                format!("false{}", rep(" || request.name == 'a'", (LIMIT - 5) / 23)),
                format!("{}true", rep("!", LIMIT - 4)),
                format!("object.a{} == 1", rep(".b", LIMIT / 2 - 10)),
                format!("1{} == 1", rep("+1", LIMIT / 2 - 5)),
                format!("{}true{}", rep("[1].all(x, ", 2000), rep(")", 2000)),
            ] {
                let report = linter.lint_text(&configuration(&chain));
                assert_eq!(report.configurations().count(), 1);
                linted += 1;
            }
            linted
        })
        .unwrap();
    let linted = handle
        .join()
        .expect("linting overflowed the stack or panicked");
    assert!(linted > FORMS.len() * 2 + 6);
}
