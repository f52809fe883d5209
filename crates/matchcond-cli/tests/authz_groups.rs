//! Authorizer tables that match the user's groups and lists of verbs, in `match` and `eval`.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::Session;

#[test]
fn breakglass_by_user_group() {
    let mut s = Session::new("authz-groups");
    // The breakglass group skips the webhook; another user is checked.
    s.run(&[
        "match",
        "--config",
        "breakglass.yaml",
        "--review",
        "pod-create-breakglass.json",
        "--authorizer",
        "breakglass-authz.yaml",
    ]);
    s.run(&[
        "match",
        "--config",
        "breakglass.yaml",
        "--review",
        "pod-create.json",
        "--authorizer",
        "breakglass-authz.yaml",
    ]);
    s.run(&[
        "eval",
        "authorizer.group('').resource('pods').namespace('default').check('delete').reason()",
        "--review",
        "pod-create-breakglass.json",
        "--authorizer",
        "breakglass-authz.yaml",
    ]);
    s.run(&[
        "eval",
        "authorizer.group('').resource('pods').check('delete').reason()",
        "--review",
        "pod-create.json",
        "--authorizer",
        "breakglass-authz.yaml",
    ]);
    s.check();
}
