//! A generator of realistic audit logs (`audit.k8s.io/v1` events, one JSON object per
//! line) for the replay benchmark and tests: the verb and resource mix of a busy cluster —
//! node leases and leader-election leases renewed every few seconds, events, node status
//! patches from the kubelets, pods created, bound, patched and deleted by controllers,
//! configmaps, deployments, exec sessions — and its reads (gets, lists, watches), a few
//! requests refused by authentication or authorization, at level `Metadata` or
//! `RequestResponse` (objects recorded for the writes).
//!
//! The output is deterministic for a seed (a small xorshift generator, no dependency).

use std::io::{self, Write};

/// The configurations the replay benchmark replays its logs through: a copy of
/// `examples/webhooks.yaml` kept in the workload, so that the published crates build on
/// their own (a test keeps the copy equal to the example).
pub const CONFIGURATIONS: &str = include_str!("../workload/replay-configurations.yaml");

/// The audit level of the events written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// No bodies.
    Metadata,
    /// The request and response bodies of writes.
    RequestResponse,
}

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// The level of every event.
    pub level: Level,
    /// Requests to write.
    pub requests: u64,
    /// The seed.
    pub seed: u64,
    /// Also write the `RequestReceived` stage of one request in ten (the final stage
    /// follows later in the log).
    pub request_received: bool,
    /// Nodes in the cluster.
    pub nodes: u32,
}

impl Spec {
    /// A busy cluster of 50 nodes at `level`.
    pub fn new(level: Level, requests: u64) -> Spec {
        Spec {
            level,
            requests,
            seed: 1,
            request_received: true,
            nodes: 50,
        }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        let i = usize::try_from(self.below(items.len() as u64)).unwrap_or(0);
        items.get(i).copied().unwrap_or("")
    }
}

const NAMESPACES: [&str; 8] = [
    "shop",
    "payments",
    "search",
    "kube-system",
    "monitoring",
    "ingress",
    "batch",
    "default",
];
const APPS: [&str; 6] = ["web", "api", "worker", "db", "cache", "batch"];

/// One request of the mix.
struct Req {
    verb: &'static str,
    group: &'static str,
    version: &'static str,
    resource: &'static str,
    sub: &'static str,
    namespace: String,
    name: String,
    user: String,
    groups: &'static str,
    code: u16,
    decision: &'static str,
    /// The request body at RequestResponse level.
    body: Option<String>,
}

fn pod(ns: &str, name: &str, app: &str, node: u32, rng: &mut Rng) -> String {
    let managed = if rng.below(3) == 0 {
        r#","app.kubernetes.io/managed-by":"Helm""#
    } else {
        ""
    };
    format!(
        concat!(
            r#"{{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"{ns}","#,
            r#""labels":{{"app":"{app}","pod-template-hash":"7d9f8c6b5"{managed}}},"#,
            r#""annotations":{{"kubectl.kubernetes.io/restartedAt":"2024-05-01T10:00:00Z"}},"#,
            r#""ownerReferences":[{{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"{app}-7d9f8c6b5","uid":"0b6f4c3e-1111-4a2b-9c3d-5e6f7a8b9c0d","controller":true,"blockOwnerDeletion":true}}]}},"#,
            r#""spec":{{"nodeName":"node-{node}","serviceAccountName":"{app}","containers":[{{"name":"{app}","image":"registry.example.com/{app}:1.4.{node}","#,
            r#""ports":[{{"containerPort":8080,"protocol":"TCP"}}],"resources":{{"requests":{{"cpu":"250m","memory":"256Mi"}},"limits":{{"memory":"512Mi"}}}},"#,
            r#""env":[{{"name":"LOG_LEVEL","value":"info"}},{{"name":"REGION","value":"eu-west-1"}}],"#,
            r#""volumeMounts":[{{"name":"config","mountPath":"/etc/{app}"}},{{"name":"kube-api-access","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true}}]}}],"#,
            r#""volumes":[{{"name":"config","configMap":{{"name":"{app}-config"}}}}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst"}},"#,
            r#""status":{{}}}}"#
        ),
        name = name,
        ns = ns,
        app = app,
        managed = managed,
        node = node
    )
}

fn request(rng: &mut Rng, spec: &Spec) -> Req {
    let node = u32::try_from(rng.below(u64::from(spec.nodes.max(1)))).unwrap_or(0);
    let ns = rng.pick(&NAMESPACES).to_owned();
    let app = rng.pick(&APPS);
    let pod_name = format!("{app}-7d9f8c6b5-{:05x}", rng.below(0xfffff));
    let controller = |r: &mut Rng| -> String {
        r.pick(&[
            "system:serviceaccount:kube-system:replicaset-controller",
            "system:serviceaccount:kube-system:deployment-controller",
            "system:kube-scheduler",
            "system:serviceaccount:kube-system:endpointslice-controller",
        ])
        .to_owned()
    };
    let base = Req {
        verb: "get",
        group: "",
        version: "v1",
        resource: "pods",
        sub: "",
        namespace: ns.clone(),
        name: pod_name.clone(),
        user: format!("system:node:node-{node}"),
        groups: r#"["system:nodes","system:authenticated"]"#,
        code: 200,
        decision: "allow",
        body: None,
    };
    let r = rng.below(1000);
    match r {
        // Node leases: every kubelet renews its lease every 10 s.
        0..=219 => Req {
            verb: "update",
            group: "coordination.k8s.io",
            resource: "leases",
            namespace: "kube-node-lease".to_owned(),
            name: format!("node-{node}"),
            body: Some(format!(
                r#"{{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{{"name":"node-{node}","namespace":"kube-node-lease","resourceVersion":"{}"}},"spec":{{"holderIdentity":"node-{node}","leaseDurationSeconds":40,"renewTime":"2024-05-01T12:00:00.000000Z"}}}}"#,
                rng.below(1 << 30)
            )),
            ..base
        },
        // Leader election of the control plane.
        220..=259 => Req {
            verb: "update",
            group: "coordination.k8s.io",
            resource: "leases",
            namespace: "kube-system".to_owned(),
            name: rng.pick(&["kube-controller-manager", "kube-scheduler"]).to_owned(),
            user: "system:kube-controller-manager".to_owned(),
            groups: r#"["system:authenticated"]"#,
            body: Some(r#"{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"kube-controller-manager","namespace":"kube-system"},"spec":{"holderIdentity":"cp-1_3f2a","leaseDurationSeconds":15}}"#.to_owned()),
            ..base
        },
        // Node status patches from the kubelets.
        260..=309 => Req {
            verb: "patch",
            resource: "nodes",
            sub: "status",
            namespace: String::new(),
            name: format!("node-{node}"),
            body: Some(r#"{"status":{"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2024-05-01T12:00:00Z"}]}}"#.to_owned()),
            ..base
        },
        // Events.
        310..=389 => Req {
            verb: "create",
            group: "events.k8s.io",
            resource: "events",
            name: format!("{pod_name}.17c{:x}", rng.below(1 << 40)),
            user: controller(rng),
            groups: r#"["system:serviceaccounts","system:serviceaccounts:kube-system","system:authenticated"]"#,
            body: Some(format!(
                r#"{{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{{"name":"{pod_name}.17c","namespace":"{ns}"}},"eventTime":"2024-05-01T12:00:00.000000Z","reason":"Scheduled","note":"Successfully assigned {ns}/{pod_name} to node-{node}","type":"Normal","regarding":{{"kind":"Pod","namespace":"{ns}","name":"{pod_name}"}}}}"#
            )),
            ..base
        },
        // Pods: created by the replicaset controller, bound, status patched, deleted.
        390..=414 => {
            let body = pod(&ns, &pod_name, app, node, rng);
            Req {
                verb: "create",
                user: "system:serviceaccount:kube-system:replicaset-controller".to_owned(),
                groups: r#"["system:serviceaccounts","system:serviceaccounts:kube-system","system:authenticated"]"#,
                code: 201,
                body: Some(body),
                ..base
            }
        }
        415..=429 => Req {
            verb: "create",
            sub: "binding",
            user: "system:kube-scheduler".to_owned(),
            groups: r#"["system:authenticated"]"#,
            code: 201,
            body: Some(format!(
                r#"{{"kind":"Binding","apiVersion":"v1","metadata":{{"name":"{pod_name}","namespace":"{ns}"}},"target":{{"kind":"Node","name":"node-{node}"}}}}"#
            )),
            ..base
        },
        430..=479 => Req {
            verb: "patch",
            sub: "status",
            body: Some(r#"{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}"#.to_owned()),
            ..base
        },
        480..=494 => {
            let body = pod(&ns, &pod_name, app, node, rng);
            Req {
                verb: "update",
                user: format!("user-{}@example.com", rng.below(20)),
                groups: r#"["devs","system:authenticated"]"#,
                body: Some(body),
                ..base
            }
        }
        495..=509 => Req {
            verb: "delete",
            user: "system:serviceaccount:kube-system:replicaset-controller".to_owned(),
            groups: r#"["system:serviceaccounts","system:authenticated"]"#,
            body: Some(r#"{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","propagationPolicy":"Background"}"#.to_owned()),
            ..base
        },
        // Configmaps and deployments.
        510..=524 => Req {
            verb: "update",
            resource: "configmaps",
            name: format!("{app}-config"),
            user: format!("user-{}@example.com", rng.below(20)),
            groups: r#"["devs","system:authenticated"]"#,
            body: Some(format!(
                r#"{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"{app}-config","namespace":"{ns}","labels":{{"app":"{app}"}}}},"data":{{"settings.yaml":"replicas: 3\nlog: info\n","feature-flags":"a,b,c"}}}}"#
            )),
            ..base
        },
        525..=534 => Req {
            verb: "patch",
            group: "apps",
            resource: "deployments",
            name: app.to_owned(),
            user: format!("user-{}@example.com", rng.below(20)),
            groups: r#"["devs","system:authenticated"]"#,
            body: Some(r#"{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2024-05-01T12:00:00Z"}}}}}"#.to_owned()),
            ..base
        },
        535..=539 => Req {
            verb: "create",
            sub: "exec",
            user: format!("user-{}@example.com", rng.below(20)),
            groups: r#"["devs","system:authenticated"]"#,
            ..base
        },
        // Refused before admission.
        540..=544 => Req {
            verb: "create",
            resource: "configmaps",
            user: format!("user-{}@example.com", rng.below(20)),
            groups: r#"["devs","system:authenticated"]"#,
            code: 403,
            decision: "forbid",
            ..base
        },
        545..=546 => Req {
            verb: "list",
            resource: "secrets",
            user: "system:anonymous".to_owned(),
            groups: r#"["system:unauthenticated"]"#,
            code: 401,
            decision: "",
            ..base
        },
        // Reads.
        547..=699 => Req {
            verb: "get",
            resource: rng.pick(&["configmaps", "secrets", "pods", "services", "endpoints"]),
            ..base
        },
        700..=849 => Req {
            verb: "list",
            resource: rng.pick(&["pods", "services", "nodes", "configmaps"]),
            name: String::new(),
            user: controller(rng),
            ..base
        },
        _ => Req {
            verb: "watch",
            group: rng.pick(&["", "apps", "discovery.k8s.io"]),
            resource: "pods",
            name: String::new(),
            user: controller(rng),
            ..base
        },
    }
}

fn uri(r: &Req) -> String {
    let prefix = if r.group.is_empty() {
        format!("/api/{}", r.version)
    } else {
        format!("/apis/{}/{}", r.group, r.version)
    };
    let mut u = prefix;
    if !r.namespace.is_empty() {
        u.push_str("/namespaces/");
        u.push_str(&r.namespace);
    }
    u.push('/');
    u.push_str(r.resource);
    if !r.name.is_empty() && r.verb != "create" || !r.sub.is_empty() {
        u.push('/');
        u.push_str(&r.name);
    }
    if !r.sub.is_empty() {
        u.push('/');
        u.push_str(r.sub);
    }
    if r.verb == "watch" {
        u.push_str("?allowWatchBookmarks=true&resourceVersion=123&timeout=9m&watch=true");
    }
    u
}

fn timestamp(ms: u64) -> String {
    let (s, micros) = (ms / 1000, (ms % 1000) * 1000);
    format!(
        "2024-05-01T{:02}:{:02}:{:02}.{micros:06}Z",
        (s / 3600) % 24,
        (s / 60) % 60,
        s % 60
    )
}

/// Writes one event.
fn event(
    w: &mut impl Write,
    r: &Req,
    id: u64,
    stage: &str,
    level: Level,
    ms: u64,
) -> io::Result<()> {
    let level_name = match level {
        Level::Metadata => "Metadata",
        Level::RequestResponse => "RequestResponse",
    };
    write!(
        w,
        r#"{{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"{level_name}","auditID":"{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}","stage":"{stage}","requestURI":"{}","verb":"{}","user":{{"username":"{}","uid":"{:x}","groups":{}}},"sourceIPs":["10.0.{}.{}"],"userAgent":"kubelet/v1.34.0 (linux/amd64) kubernetes/abc1234","objectRef":{{"resource":"{}","namespace":"{}","name":"{}","apiGroup":"{}","apiVersion":"{}","subresource":"{}"}}"#,
        id >> 32,
        (id >> 16) & 0xffff,
        id & 0xfff,
        (id >> 12) & 0xfff,
        id,
        uri(r),
        r.verb,
        r.user,
        id.wrapping_mul(2_654_435_761) & 0xffff_ffff,
        r.groups,
        (id >> 8) & 0xff,
        id & 0xff,
        r.resource,
        r.namespace,
        r.name,
        r.group,
        r.version,
        r.sub
    )?;
    if stage != "RequestReceived" {
        let reason = match r.code {
            401 => r#","reason":"Unauthorized","status":"Failure""#,
            403 => r#","reason":"Forbidden","status":"Failure""#,
            _ => "",
        };
        write!(
            w,
            r#","responseStatus":{{"metadata":{{}}{reason},"code":{}}}"#,
            r.code
        )?;
    }
    if level == Level::RequestResponse {
        if let Some(b) = &r.body {
            write!(w, r#","requestObject":{b}"#)?;
            if stage != "RequestReceived" && r.code < 400 {
                write!(w, r#","responseObject":{b}"#)?;
            }
        }
    }
    write!(
        w,
        r#","requestReceivedTimestamp":"{}","stageTimestamp":"{}""#,
        timestamp(ms),
        timestamp(ms + 3)
    )?;
    if !r.decision.is_empty() {
        write!(
            w,
            r#","annotations":{{"authorization.k8s.io/decision":"{}","authorization.k8s.io/reason":"RBAC: allowed by ClusterRoleBinding \"system:node\" of ClusterRole \"system:node\" to Group \"system:nodes\""}}"#,
            r.decision
        )?;
    }
    w.write_all(b"}\n")
}

/// Writes the log; returns the number of lines written.
pub fn write(w: &mut impl Write, spec: &Spec) -> io::Result<u64> {
    let mut rng = Rng(spec.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut lines = 0u64;
    // Early stages whose final stage is written a few requests later.
    let mut waiting: Vec<(u64, Req, u64)> = Vec::new();
    for n in 0..spec.requests {
        let ms = n * 5;
        let id = (spec.seed << 40) ^ (n + 1);
        let r = request(&mut rng, spec);
        if spec.request_received && n % 10 == 0 {
            event(w, &r, id, "RequestReceived", spec.level, ms)?;
            lines += 1;
            waiting.push((id, r, ms));
        } else {
            event(w, &r, id, "ResponseComplete", spec.level, ms)?;
            lines += 1;
        }
        if waiting.len() > 8 {
            let (id, r, ms) = waiting.remove(0);
            event(w, &r, id, "ResponseComplete", spec.level, ms)?;
            lines += 1;
        }
    }
    for (id, r, ms) in waiting {
        event(w, &r, id, "ResponseComplete", spec.level, ms)?;
        lines += 1;
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn every_line_is_an_audit_event_of_the_level() {
        for level in [Level::Metadata, Level::RequestResponse] {
            let mut out = Vec::new();
            let lines = write(&mut out, &Spec::new(level, 2000)).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert_eq!(text.lines().count() as u64, lines);
            assert_eq!(lines, 2200);
            for line in text.lines() {
                let e = matchcond::dispatch::audit::Event::from_line(line.as_bytes()).unwrap();
                assert_eq!(
                    e.level.as_str(),
                    if level == Level::Metadata {
                        "Metadata"
                    } else {
                        "RequestResponse"
                    }
                );
            }
        }
    }

    #[test]
    fn the_configurations_are_the_example() {
        let example = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/webhooks.yaml"
        ))
        .unwrap();
        assert_eq!(
            CONFIGURATIONS, example,
            "copy examples/webhooks.yaml to crates/matchcond-bench/workload/replay-configurations.yaml"
        );
    }
}
