#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
use super::*;
use matchcond_front::{parse, ParserOptions};

use crate::finding::Operation::{Connect, Create, Delete, Update};

fn raws(text: &str, ops: &[Operation]) -> Vec<Raw> {
    let parsed = parse(text, &ParserOptions::default()).unwrap();
    let scope = Scope::of_operations(ops);
    analyze(&parsed.expr, &scope, &Facts::worlds(scope.all()))
}

/// The code and the 12 characters at each finding.
fn traps(text: &str, ops: &[Operation]) -> Vec<(Code, String)> {
    raws(text, ops)
        .into_iter()
        .map(|r| {
            let at: String = text[r.offset..].chars().take(12).collect();
            (r.code, at)
        })
        .collect()
}

fn codes(text: &str, ops: &[Operation]) -> Vec<Code> {
    raws(text, ops).into_iter().map(|r| r.code).collect()
}

const ALL: &[Operation] = &[Create, Update, Delete];

fn clean(text: &str) {
    assert_eq!(traps(text, ALL), [], "{text}");
}

#[test]
fn object_reads_without_guard() {
    assert_eq!(
        traps("object.metadata.name == 'x'", ALL),
        [(Code::ObjectOnDelete, "object.metad".to_owned())]
    );
    assert_eq!(
        traps(
            "request.namespace == 'a' && object['spec'] != null",
            &[Create, Delete]
        ),
        [(Code::ObjectOnDelete, "object['spec".to_owned())]
    );
    // Once per expression and variable, at the first read.
    assert_eq!(
        traps("object.a == 1 || object.b == 2", ALL),
        [(Code::ObjectOnDelete, "object.a == ".to_owned())]
    );
    assert_eq!(
        codes("object.spec.containers.all(c, c.image != '')", ALL),
        [Code::ObjectOnDelete]
    );
    // Tests that do not guard.
    assert_eq!(
        codes("request.operation == 'DELETE' && object.x == 1", ALL),
        [Code::ObjectOnDelete]
    );
    assert_eq!(
        codes("request.operation != 'CREATE' && object.x == 1", ALL),
        [Code::ObjectOnDelete]
    );
    assert_eq!(
        codes("object.metadata.name == 'a' && object.spec.x == 1", ALL),
        [Code::ObjectOnDelete]
    );
    // has() of a deeper path reads object.metadata.
    assert_eq!(
        traps("has(object.metadata.labels)", ALL),
        [(Code::ObjectOnDelete, "object.metad".to_owned())]
    );
}

#[test]
fn key_presence_tests_do_not_guard_the_object() {
    // Each of these reads object.metadata, which fails on DELETE, in the guard itself.
    for text in [
        "'labels' in object.metadata && object.metadata.labels.?app == optional.of('x')",
        "object.metadata.labels.?app == optional.of('x') && 'labels' in object.metadata",
        "has(object.metadata.annotations) && 'x' in object.metadata.annotations",
        "'x' in object.metadata.annotations && has(object.metadata.annotations)",
        "has(object.metadata.labels) ? object.metadata.labels.size() == 1 : false",
        "!has(object.metadata.labels) || object.metadata.labels.size() == 1",
    ] {
        assert_eq!(codes(text, ALL), [Code::ObjectOnDelete], "{text}");
        assert_eq!(codes(text, &[Create, Update]), [], "{text}");
    }
}

#[test]
fn object_guards() {
    clean("request.operation != 'DELETE' && object.x == 1");
    clean("object.x == 1 && request.operation != 'DELETE'");
    clean("'DELETE' != request.operation && object.x == 1");
    clean("object == null || object.x == 1");
    clean("null == object || object.x == 1");
    clean("object != null && object.x == 1");
    clean("request.operation == 'DELETE' || object.x == 1");
    clean("request.operation in ['CREATE', 'UPDATE'] && object.spec.replicas > 1");
    clean("!(request.operation in ['DELETE', 'CONNECT']) && object.spec.replicas > 1");
    clean("!(request.operation == 'DELETE' || object == null) && object.x == 1");
    clean("request.operation == 'CREATE' && object.x == 1");
    clean("object != null ? object.x == 1 : false");
    clean("object == null ? false : object.x == 1");
    clean("has(object.spec) && object.spec.replicas > 1");
    clean("has(object.metadata)");
    clean("object.?metadata.?labels['app'].orValue('') == 'web'");
    clean("object[?'metadata'].hasValue()");
    clean("object.?spec.replicas.orValue(0) > 1");
    clean("object == null");
    clean("request.operation != 'DELETE' && (object.a == 1 || object.b == 2)");
    clean("request.operation == 'UPDATE' && [1].all(i, object.x == i)");
    clean("[{'a': 1}].all(object, object.a == 1)");
    clean("request.operation == 'DELETE' ? oldObject.x == 1 : object.x == 1");
}

#[test]
fn rules_without_delete_need_no_guard() {
    let create_update = &[Create, Update];
    assert_eq!(traps("object.x == 1", create_update), []);
    assert_eq!(
        traps("object.x == oldObject.x", create_update),
        [(Code::OldObjectOnCreate, "oldObject.x".to_owned())]
    );
    assert_eq!(traps("object.x == oldObject.x", &[Update]), []);
    assert_eq!(traps("object.x == 1", &[]), []);
}

#[test]
fn old_object_reads() {
    assert_eq!(
        traps("oldObject.spec != object.spec", ALL),
        [
            (Code::OldObjectOnCreate, "oldObject.sp".to_owned()),
            (Code::ObjectOnDelete, "object.spec".to_owned())
        ]
    );
    clean("request.operation != 'UPDATE' || object.spec != oldObject.spec");
    clean("request.operation == 'UPDATE' && object.spec != oldObject.spec");
    clean("oldObject == null || oldObject.spec.replicas != 1");
    let with_connect = &[Create, Update, Delete, Connect];
    assert_eq!(
        codes(
            "request.operation != 'CREATE' && oldObject.x == 1",
            with_connect
        ),
        [Code::OldObjectOnCreate]
    );
    let r = raws(
        "request.operation != 'CREATE' && oldObject.x == 1",
        with_connect,
    );
    assert_eq!(
        r[0].message,
        "oldObject is null for CONNECT requests, where oldObject.x fails with \"no such key\""
    );
    assert_eq!(
        codes(
            "request.operation in ['UPDATE', 'DELETE'] && oldObject.x == 1",
            with_connect
        ),
        []
    );
}

#[test]
fn connect_options() {
    let ops = &[Create, Connect];
    // Decisive only on CREATE: nothing to report.
    assert_eq!(
        codes(
            "request.operation != 'CREATE' || object.metadata.name == 'x'",
            ops
        ),
        []
    );
    let r = raws(
        "request.operation != 'DELETE' && object.metadata.name == 'x'",
        ops,
    );
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].code, Code::ConnectOptions);
    assert_eq!(
        r[0].message,
        "on CONNECT, object is the operation's options (PodExecOptions, PodAttachOptions, PodPortForwardOptions or a proxy's options), which have no metadata: object.metadata fails with \"no such key\""
    );
    // The options' own members, a CONNECT-free scope, tests that exclude CONNECT.
    assert_eq!(codes("object.command.size() > 0", &[Connect]), []);
    assert_eq!(codes("object.metadata.name == 'x'", &[Create, Update]), []);
    assert_eq!(
        codes(
            "request.operation != 'CONNECT' && object.metadata.name == 'x'",
            ops
        ),
        []
    );
    assert_eq!(
        codes("has(object.metadata) && object.metadata.name == 'x'", ops),
        []
    );
}

#[test]
fn cross_condition_guards() {
    // Another condition of the webhook that is false on DELETE guards every read.
    let scope = Scope::of_operations(ALL);
    let guard = parse("request.operation != 'DELETE'", &ParserOptions::default()).unwrap();
    let known = Facts::worlds(scope.all()).and(&facts_when_true(&guard.expr, &scope));
    let read = parse("object.metadata.name == 'x'", &ParserOptions::default()).unwrap();
    assert_eq!(analyze(&read.expr, &scope, &known), []);
    // A condition that is itself a read does not guard.
    let other = parse("has(object.metadata.labels)", &ParserOptions::default()).unwrap();
    let known = Facts::worlds(scope.all()).and(&facts_when_true(&other.expr, &scope));
    assert_eq!(analyze(&read.expr, &scope, &known).len(), 1);
}

#[test]
fn namespace_object_is_null() {
    let r = raws(
        "namespaceObject.metadata.name == 'x' && namespaceObject.metadata.labels['a'] == 'b'",
        ALL,
    );
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].code, Code::NamespaceObjectNull);
    assert_eq!(r[0].offset, 0);
    assert_eq!(codes("namespaceObject == null", ALL), []);
    assert_eq!(codes("has(namespaceObject.metadata)", ALL), []);
    assert_eq!(
        codes("namespaceObject.?metadata.?name.orValue('') == ''", ALL),
        []
    );
    assert_eq!(
        codes("[1].all(namespaceObject, namespaceObject == 1)", ALL),
        []
    );
}

#[test]
fn omitted_request_members() {
    let mut s = Scope::of_operations(&[Create, Update]);
    for w in &mut s.worlds {
        w.cluster_scoped = true;
    }
    let find = |text: &str, scope: &Scope| -> Vec<(Code, String)> {
        let parsed = parse(text, &ParserOptions::default()).unwrap();
        analyze(&parsed.expr, scope, &Facts::worlds(scope.all()))
            .into_iter()
            .map(|r| (r.code, text[r.offset..r.end].to_owned()))
            .collect()
    };
    assert_eq!(
        find("request.namespace != 'kube-system'", &s),
        [(Code::OmittedRequestField, "namespace".to_owned())]
    );
    assert_eq!(
        find(
            "has(request.namespace) && request.namespace != 'kube-system'",
            &s
        ),
        []
    );
    assert_eq!(
        find("request.?namespace.orValue('') != 'kube-system'", &s),
        []
    );
    // Namespaced resources always have a namespace.
    let namespaced = Scope::of_operations(&[Create, Update]);
    assert_eq!(find("request.namespace != 'kube-system'", &namespaced), []);
    // request.name on CREATE of main resources.
    assert_eq!(
        find("request.name.startsWith('x')", &namespaced),
        [(Code::OmittedRequestField, "name".to_owned())]
    );
    assert_eq!(
        find(
            "request.operation != 'CREATE' && request.name.startsWith('x')",
            &namespaced
        ),
        []
    );
    assert_eq!(
        find(
            "request.name.startsWith('x')",
            &Scope::of_operations(&[Update, Delete])
        ),
        []
    );
    // Subresources.
    let r = raws("request.subResource != 'status'", &[Update]);
    assert_eq!(r.len(), 1);
    assert_eq!(
        r[0].message,
        "request.subResource is absent when no subresource is requested, which the rules allow; reading it then fails with \"no such key\""
    );
    assert_eq!(
        codes(
            "has(request.subResource) && request.subResource == 'status'",
            &[Update]
        ),
        []
    );
    assert_eq!(
        codes("request.requestSubResource == ''", &[Update]),
        [Code::OmittedRequestField]
    );
    // Users without uid or extra.
    assert_eq!(
        codes("request.userInfo.uid != ''", &[Update]),
        [Code::OmittedRequestField]
    );
    assert_eq!(
        codes("'scopes' in request.userInfo.extra", &[Update]),
        [Code::OmittedRequestField]
    );
    assert_eq!(
        codes(
            "has(request.userInfo.extra) && 'scopes' in request.userInfo.extra",
            &[Update]
        ),
        []
    );
    // Groups are never empty; username and operation are always present.
    assert_eq!(
        codes("!('system:nodes' in request.userInfo.groups)", ALL),
        []
    );
    assert_eq!(
        codes(
            "request.userInfo.username == 'a' && request.operation == 'CREATE'",
            ALL
        ),
        []
    );
}

#[test]
fn maps_that_may_be_absent() {
    let ops = &[Create];
    let r = raws("'app' in object.metadata.labels", ops);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].code, Code::AbsentMap);
    assert_eq!(
        r[0].message,
        "object.metadata.labels is absent on objects without labels, where 'app' in object.metadata.labels fails with \"no such key\""
    );
    assert_eq!(
        r[0].help.as_deref(),
        Some("test has(object.metadata.labels) first, or read it optionally: object.metadata.?labels.orValue({})")
    );
    let r = raws("object.metadata.labels['app'] == 'web'", ops);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].code, Code::AbsentMap);
    assert_eq!(
        r[0].help.as_deref(),
        Some("test has(object.metadata.labels) first, or read it optionally: object.metadata.?labels[?'app'].orValue('')")
    );
    for text in [
        "has(object.metadata.labels) && 'app' in object.metadata.labels",
        "'labels' in object.metadata && 'app' in object.metadata.labels",
        "'app' in object.metadata.?labels.orValue({})",
        "has(object.data) && object.data.all(k, k != '')",
    ] {
        assert_eq!(codes(text, ops), [], "{text}");
    }
    // A ConfigMap's data (a member of the object itself).
    assert_eq!(
        codes("'config.yaml' in object.data", ops),
        [Code::AbsentMap]
    );
    assert_eq!(
        codes("object.data['config.yaml'].size() > 0", ops),
        [Code::AbsentMap]
    );
    assert_eq!(
        codes("has(object.data) && 'config.yaml' in object.data", ops),
        []
    );
    // Maps of other things are not flagged as absent.
    assert_eq!(
        codes("'a' in object.spec.template.metadata.labels", ops),
        [Code::AbsentMap]
    );
    assert_eq!(codes("'a' in {'a': 1}", ops), []);
    assert_eq!(codes("[{'a': 1}].all(m, 'a' in m)", ops), []);
}

#[test]
fn map_keys() {
    let ops = &[Create];
    let guarded_map = "has(object.metadata.labels) && ";
    assert_eq!(
        traps(
            &format!("{guarded_map}object.metadata.labels.app == 'web'"),
            ops
        )[0]
        .0,
        Code::MapKeyWithoutTest
    );
    assert_eq!(
        traps("request.userInfo.extra['scopes'].size() > 0", ops),
        [
            (Code::OmittedRequestField, "extra['scope".to_owned()),
            (Code::MapKeyWithoutTest, "['scopes'].s".to_owned())
        ]
    );
    assert_eq!(
        codes(
            "has(object.metadata.labels) && 'a' in object.metadata.labels && object.metadata.labels['a'] == object.spec.x['b']",
            ops
        ),
        [Code::MapKeyWithoutTest]
    );
    // A test of the map is not a test of its keys.
    assert_eq!(
        codes(
            "has(object.metadata.labels) && object.metadata.labels['app'] == 'x'",
            ops
        ),
        [Code::MapKeyWithoutTest]
    );
    for text in [
        "'app' in labels && labels['app'] == 'x'",
        "has(object.metadata.labels.app) && object.metadata.labels['app'] == 'x'",
        "has(object.metadata.labels) && 'app' in object.metadata.labels && object.metadata.labels.app == 'x'",
        "has(object.metadata.labels) && (!('app' in object.metadata.labels) || object.metadata.labels['app'] == 'x')",
        "has(object.metadata.labels) && ('app' in object.metadata.labels ? object.metadata.labels['app'] : '') == 'x'",
        "object.metadata.labels[?'app'].orValue('') == 'x'",
        "object.metadata.?labels['app'].orValue('') == 'x'",
        "object.metadata.?labels.?app.orValue('') == 'x'",
        "{'a': 1}['a'] == 1",
        "request['namespace'] == 'x'",
        "object.spec.containers[0].image == 'x'",
        "object.spec.containers.all(c, 'name' in c && c['name'] != '')",
    ] {
        assert_eq!(traps(text, ops), [], "{text}");
    }
    assert_eq!(
        traps("'b' in labels && labels['a'] == 'x'", ops),
        [(Code::MapKeyWithoutTest, "['a'] == 'x'".to_owned())]
    );
}

#[test]
fn messages() {
    let r = raws(
        "request.name != '' &&\n  object.metadata.labels['app'] == 'web'",
        &[Update, Delete],
    );
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].code, Code::ObjectOnDelete);
    assert_eq!(
        r[0].message,
        "object is null for DELETE requests, where object.metadata fails with \"no such key\""
    );
    assert_eq!(
        r[0].help.as_deref(),
        Some("guard the read: request.operation != 'DELETE' (in this condition or in another one: a false condition skips the webhook) or object != null; or read it optionally (object.?metadata)")
    );
    assert_eq!(r[1].code, Code::AbsentMap);
    let r = raws(
        "has(oldObject.metadata.annotations) && oldObject.metadata.annotations['example.com/x'] == 'é'",
        &[Update],
    );
    assert_eq!(
        r[0].message,
        "oldObject.metadata.annotations['example.com/x'] fails with \"no such key\" when the key is absent"
    );
    assert_eq!(
        r[0].help.as_deref(),
        Some("test 'example.com/x' in oldObject.metadata.annotations first, or read it optionally (oldObject.metadata.annotations[?'example.com/x'])")
    );
    let r = raws("x()['k'] == 1", &[Update]);
    assert_eq!(
        r[0].message,
        "the map key 'k' is read without a presence test and fails when the key is absent"
    );
}

#[test]
fn params() {
    let p = |t: &str| params_use(&parse(t, &ParserOptions::default()).unwrap().expr);
    assert_eq!(p("params.x == 1"), Some(0));
    assert_eq!(p("object.x == params.y"), Some(12));
    assert_eq!(p("[1].all(params, params == 1)"), None);
    assert_eq!(p("object.params == 1"), None);
}

/// Codes of reads in worlds where `object` is never null (UPDATE only).
fn on_update(text: &str) -> Vec<(Code, String)> {
    traps(text, &[Update])
}

#[test]
fn absent_maps_and_lists_through_macros_methods_and_size() {
    for (text, at) in [
        (
            "object.metadata.annotations.exists(k, k.startsWith('example.com/'))",
            ".annotations",
        ),
        ("object.metadata.labels.all(k, k != 'x')", ".labels.all("),
        ("size(object.metadata.labels) > 2", ".labels) > 2"),
        ("object.metadata.annotations.size() == 0", ".annotations"),
        ("'x' in object.metadata.finalizers", "in object.me"),
        (
            "object.metadata.ownerReferences.exists(r, r.kind == 'Job')",
            ".ownerRefere",
        ),
        (
            "object.spec.tolerations.map(t, t.key).size() > 0",
            ".tolerations",
        ),
    ] {
        let found = on_update(text);
        assert_eq!(found.len(), 1, "{text}: {found:?}");
        assert_eq!(found[0].0, Code::AbsentMap, "{text}");
        assert!(found[0].1.starts_with(at), "{text}: {found:?}");
    }
    // Guards in any order, optional reads, ternaries.
    for text in [
        "has(object.metadata.annotations) && object.metadata.annotations.exists(k, k.startsWith('example.com/'))",
        "object.metadata.annotations.exists(k, k.startsWith('example.com/')) && has(object.metadata.annotations)",
        "!has(object.metadata.annotations) || object.metadata.annotations.exists(k, k == 'a')",
        "has(object.metadata.annotations) ? object.metadata.annotations.exists(k, k == 'a') : false",
        "object.metadata.?annotations.orValue({}).exists(k, k == 'a')",
        "'labels' in object.metadata && size(object.metadata.labels) > 1",
        "has(object.metadata.finalizers) && 'x' in object.metadata.finalizers",
        "object.metadata.?labels.orValue({}).size() > 0",
        "[1, 2].exists(x, x == 1) && size([1]) == 1",
        "object.spec.containers.exists(c, size(c.args) > 0)",
    ] {
        assert_eq!(on_update(text), [], "{text}");
    }
    // A sibling condition's guard.
    let scope = Scope::of_operations(&[Update]);
    let guard = parse(
        "has(object.metadata.annotations)",
        &ParserOptions::default(),
    )
    .unwrap();
    let known = Facts::worlds(scope.all()).and(&facts_when_true(&guard.expr, &scope));
    let read = parse(
        "object.metadata.annotations.exists(k, k == 'a')",
        &ParserOptions::default(),
    )
    .unwrap();
    assert_eq!(analyze(&read.expr, &scope, &known), []);
    assert_eq!(
        analyze(&read.expr, &scope, &Facts::worlds(scope.all())).len(),
        1
    );
}

#[test]
fn constant_indexes_into_short_or_absent_lists() {
    let r = raws(
        "request.userInfo.username.split(':')[2] == 'kube-system'",
        &[Update],
    );
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].code, Code::ListIndex);
    assert_eq!(
        r[0].message,
        "request.userInfo.username.split(':')[2] fails with \"index out of bounds: 2\" when the text has fewer than 2 ':' separator(s) (for request.userInfo.username: every user but service accounts)"
    );
    assert_eq!(
        on_update("object.metadata.ownerReferences[0].kind == 'ReplicaSet'"),
        [(Code::ListIndex, "[0].kind == ".to_owned())]
    );
    assert_eq!(
        codes("has(object.metadata.ownerReferences) && object.metadata.ownerReferences[1].kind == 'X'", &[Update]),
        [Code::ListIndex]
    );
    for text in [
        "request.userInfo.username.startsWith('system:serviceaccount:') && request.userInfo.username.split(':')[2] == 'kube-system'",
        "request.userInfo.username.split(':')[2] == 'kube-system' && request.userInfo.username.startsWith('system:serviceaccount:')",
        "size(request.userInfo.username.split(':')) > 2 && request.userInfo.username.split(':')[2] == 'a'",
        "request.userInfo.username.split(':').size() >= 3 ? request.userInfo.username.split(':')[2] == 'a' : false",
        "request.userInfo.username.split(':')[0] == 'system'",
        "request.userInfo.username.split(':')[?2].orValue('') == 'a'",
        "has(object.metadata.ownerReferences) && object.metadata.ownerReferences[0].kind == 'ReplicaSet'",
        "object.metadata.ownerReferences[0].kind == 'ReplicaSet' && has(object.metadata.ownerReferences)",
        "has(object.metadata.ownerReferences) && size(object.metadata.ownerReferences) > 1 && object.metadata.ownerReferences[1].kind == 'X'",
        "object.metadata.?ownerReferences[?0].?kind.orValue('') == 'ReplicaSet'",
        "object.spec.containers[0].image != ''",
    ] {
        assert_eq!(on_update(text), [], "{text}");
    }
    // Too short a prefix does not guard.
    assert_eq!(
        codes(
            "request.userInfo.username.startsWith('system:') && request.userInfo.username.split(':')[2] == 'a'",
            &[Update]
        ),
        [Code::ListIndex]
    );
}

#[test]
fn namespaces_have_labels() {
    let mut s = Scope::of_operations(&[Create, Update]);
    let text = "'team' in object.metadata.labels";
    let parsed = parse(text, &ParserOptions::default()).unwrap();
    let find = |s: &Scope| analyze(&parsed.expr, s, &Facts::worlds(s.all())).len();
    assert_eq!(find(&s), 1);
    for w in &mut s.worlds {
        w.labelled = true;
    }
    assert_eq!(find(&s), 0);
    // A world without the label (a mutating webhook's CREATE) keeps the warning.
    s.worlds[0].labelled = false;
    assert_eq!(find(&s), 1);
}

/// The members `omittedRequestField` reports are the request schema's omitted ones: every
/// member the schema omits when empty is reported where it may be empty, except the user's
/// name and groups, which every user the apiserver serves has; no other member is.
#[test]
fn omitted_request_fields_are_the_schemas() {
    use matchcond_runtime::request_schema::{declared_type, request_members, WhenEmpty, USER_INFO};
    const ALWAYS_SET: &[&str] = &["userInfo.username", "userInfo.groups"];
    let mut scope = Scope::of_operations(&[Create]);
    for w in &mut scope.worlds {
        w.cluster_scoped = true;
    }
    let mut members: Vec<(String, WhenEmpty)> = request_members()
        .iter()
        .map(|m| (m.name.to_owned(), m.when_empty))
        .collect();
    let user = declared_type(USER_INFO).unwrap().members.iter();
    members.extend(user.map(|m| (format!("userInfo.{}", m.name), m.when_empty)));
    let mut reported = Vec::new();
    for (path, when_empty) in &members {
        let text = format!("request.{path} == request.{path}");
        let parsed = parse(&text, &ParserOptions::default()).unwrap();
        let found = analyze(&parsed.expr, &scope, &Facts::worlds(scope.all()))
            .iter()
            .any(|r| r.code == Code::OmittedRequestField);
        let expected = *when_empty == WhenEmpty::Omitted && !ALWAYS_SET.contains(&path.as_str());
        assert_eq!(found, expected, "{path}");
        if found {
            reported.push(path.as_str());
        }
    }
    assert_eq!(
        reported,
        [
            "subResource",
            "requestSubResource",
            "name",
            "namespace",
            "userInfo.uid",
            "userInfo.extra"
        ]
    );
    assert!(is_omitted_request_member(&["request", "userInfo", "uid"]));
    assert!(!is_omitted_request_member(&["object", "name"]));
    assert!(!is_omitted_request_member(&["request", "operation"]));
}
