//! The `object` of a CONNECT request, rebuilt from the request URI an audit event records.
//!
//! The apiserver's connect handler (`ConnectResource`) admits the connecter's options,
//! decoded from the URL (`getRequestOptions`): the query parameters through the
//! `url.Values` conversions of `core/v1` (`stdin`, `stdout`, `stderr`, `tty`, `container`
//! and `command` of exec and attach; `ports` of a port forward), and for a proxy the rest of
//! the path after the subresource as `path`. A webhook then sees the options converted to
//! `v1` with their `apiVersion` and `kind`, fields omitted where `omitempty` drops them
//! (`command` is not `omitempty`: `null` when the query gives none).
//!
//! What the URL cannot settle is left unknown: options the handler would refuse (a port
//! that is not a 16-bit number ends the request with 400 before admission) and a URI that
//! does not parse.

use serde_json::{Map, Value as Json};

use super::uri::RequestUri;

use crate::request::catalog::api_version;
use crate::types::Gvk;

/// The options object admission sees for a CONNECT whose request kind is `kind` (the
/// connect subresource's kind), from the request URI; `None` when the URI does not tell.
pub(crate) fn connect_object(uri: &RequestUri, kind: &Gvk) -> Option<Json> {
    let path = uri.path()?;
    options(kind, uri, || proxy_subpath(path))
}

/// The options object of a CONNECT that gives no options (no query, no path after the
/// subresource): what admission sees for `kind` when the request names nothing more.
pub(crate) fn zero_options(kind: &Gvk) -> Option<Json> {
    options(kind, &RequestUri::default(), || Some(String::new()))
}

/// The options of `kind` from the URI's query and, for a proxy, its path.
fn options(kind: &Gvk, uri: &RequestUri, path: impl FnOnce() -> Option<String>) -> Option<Json> {
    if !kind.group.is_empty() || kind.version != "v1" {
        return None;
    }
    // `url.Values[key]`, when given at least once.
    let values = |key: &str| Some(uri.values(key)).filter(|v| !v.is_empty());
    let text = |b: &Vec<u8>| Json::String(String::from_utf8_lossy(b).into_owned());
    let mut m = Map::new();
    m.insert("kind".into(), Json::String(kind.kind.clone()));
    m.insert(
        "apiVersion".into(),
        Json::String(api_version(&kind.group, &kind.version)),
    );
    match kind.kind.as_str() {
        "PodExecOptions" | "PodAttachOptions" => {
            for key in ["stdin", "stdout", "stderr", "tty"] {
                if values(key)
                    .and_then(<[_]>::first)
                    .is_some_and(|v| query_true(v))
                {
                    m.insert(key.into(), Json::Bool(true));
                }
            }
            if let Some(c) = values("container").and_then(<[_]>::first) {
                if !c.is_empty() {
                    m.insert("container".into(), text(c));
                }
            }
            if kind.kind == "PodExecOptions" {
                let command = values("command")
                    .map_or(Json::Null, |v| Json::Array(v.iter().map(text).collect()));
                m.insert("command".into(), command);
            }
        }
        "PodPortForwardOptions" => {
            if let Some(given) = values("ports") {
                let mut ports = Vec::new();
                for value in given {
                    for port in value.split(|&b| b == b',') {
                        ports.push(Json::from(port_number(port)?));
                    }
                }
                if !ports.is_empty() {
                    m.insert("ports".into(), Json::Array(ports));
                }
            }
        }
        "PodProxyOptions" | "NodeProxyOptions" | "ServiceProxyOptions" => {
            let path = path()?;
            if !path.is_empty() {
                m.insert("path".into(), Json::String(path));
            }
        }
        _ => return None,
    }
    Some(Json::Object(m))
}

/// apimachinery's `Convert_Slice_string_To_bool` of a first value: false for `0` and for
/// `false` in any case (Go's `strings.EqualFold`, where `ſ` folds to `s`), true otherwise
/// (the empty string included).
pub(crate) fn query_true(v: &[u8]) -> bool {
    if v == b"0" {
        return false;
    }
    let Ok(s) = std::str::from_utf8(v) else {
        return true;
    };
    let mut chars = s.chars();
    let folds_false = "false".chars().all(|want| {
        chars
            .next()
            .is_some_and(|c| c.eq_ignore_ascii_case(&want) || (want == 's' && c == 'ſ'))
    }) && chars.next().is_none();
    !folds_false
}

/// apimachinery's port conversion of one comma-separated item: `strconv.ParseUint(v, 10,
/// 16)`, digits only.
fn port_number(v: &[u8]) -> Option<u16> {
    if v.is_empty() || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(v).ok()?.parse().ok()
}

/// The `path` a proxy subresource is given: the request info's parts after the
/// subresource, joined with `/`, with a leading `/` and the request path's trailing `/`
/// (`getRequestOptions`); `None` when the path is not a resource request's.
fn proxy_subpath(path: &[u8]) -> Option<String> {
    let path = String::from_utf8_lossy(path);
    let trimmed = path.trim_matches('/');
    let mut parts: Vec<&str> = if trimmed.is_empty() {
        Vec::new()
    } else {
        trimmed.split('/').collect()
    };
    // The API prefix, then the group (not under `/api`) and the version.
    let skip = match parts.first().copied() {
        Some("api") => 2,
        Some("apis") => 3,
        _ => return None,
    };
    if parts.len() <= skip {
        return None;
    }
    parts.drain(..skip);
    // The legacy `/proxy/...` and `/watch/...` forms are not a subresource's.
    if matches!(parts.first().copied(), Some("proxy" | "watch")) {
        return None;
    }
    if parts.first().copied() == Some("namespaces")
        && parts.len() > 2
        && !matches!(parts.get(2).copied(), Some("status" | "finalize"))
    {
        parts.drain(..2);
    }
    let mut sub = parts.get(3..).unwrap_or_default().join("/");
    if !sub.is_empty() && !sub.starts_with('/') {
        sub.insert(0, '/');
    }
    if path.ends_with('/') && !sub.ends_with('/') {
        sub.push('/');
    }
    Some(sub)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(uri: &str, kind: &str) -> Option<Json> {
        connect_object(&RequestUri::parse(uri), &Gvk::new("", "v1", kind))
    }

    #[test]
    fn exec_and_attach_options_come_from_the_query() {
        assert_eq!(
            object(
                "/api/v1/namespaces/shop/pods/web-0/exec?command=sh&command=-c&command=&container=web&stdin=true&stdout=1&stderr=FALSE&tty=0",
                "PodExecOptions"
            ),
            Some(json!({
                "kind": "PodExecOptions", "apiVersion": "v1",
                "command": ["sh", "-c", ""], "container": "web", "stdin": true, "stdout": true,
            }))
        );
        // Nothing given: every field at its zero, `command` null (not omitempty).
        assert_eq!(
            object("/api/v1/namespaces/shop/pods/web-0/exec", "PodExecOptions"),
            Some(json!({"kind": "PodExecOptions", "apiVersion": "v1", "command": null}))
        );
        // Only `0` and `false` in any case are false; an empty value is true; the first
        // value counts; Go's case folding.
        assert_eq!(
            object(
                "/api/v1/namespaces/a/pods/b/attach?stdin=&stdout=no&stderr=fAlſe&tty=false&tty=true&container=",
                "PodAttachOptions"
            ),
            Some(json!({"kind": "PodAttachOptions", "apiVersion": "v1", "stdin": true, "stdout": true}))
        );
        // Escapes decoded as Go's query parser does; a malformed pair is dropped.
        assert_eq!(
            object(
                "/api/v1/namespaces/a/pods/b/exec?command=echo+a%20b&command=%zz&x;y=1",
                "PodExecOptions"
            ),
            Some(json!({"kind": "PodExecOptions", "apiVersion": "v1", "command": ["echo a b"]}))
        );
    }

    #[test]
    fn port_forward_ports_are_16_bit_numbers() {
        assert_eq!(
            object(
                "/api/v1/namespaces/a/pods/b/portforward?ports=8080,0443&ports=9",
                "PodPortForwardOptions"
            ),
            Some(
                json!({"kind": "PodPortForwardOptions", "apiVersion": "v1", "ports": [8080, 443, 9]})
            )
        );
        assert_eq!(
            object(
                "/api/v1/namespaces/a/pods/b/portforward",
                "PodPortForwardOptions"
            ),
            Some(json!({"kind": "PodPortForwardOptions", "apiVersion": "v1"}))
        );
        // Refused with 400 before admission: nothing to rebuild.
        for bad in ["70000", "-1", "+80", "80,", "a"] {
            assert_eq!(
                object(
                    &format!("/api/v1/namespaces/a/pods/b/portforward?ports={bad}"),
                    "PodPortForwardOptions"
                ),
                None,
                "{bad}"
            );
        }
    }

    #[test]
    fn a_proxy_path_is_the_rest_of_the_url() {
        let path = |uri: &str, kind: &str| object(uri, kind).map(|o| o["path"].clone());
        assert_eq!(
            path(
                "/api/v1/namespaces/a/pods/web:8080/proxy/metrics/x?path=/ignored",
                "PodProxyOptions"
            ),
            Some(json!("/metrics/x"))
        );
        assert_eq!(
            path("/api/v1/nodes/n1/proxy/stats/summary/", "NodeProxyOptions"),
            Some(json!("/stats/summary/"))
        );
        assert_eq!(
            path(
                "/api/v1/namespaces/a/services/https:svc:443/proxy/",
                "ServiceProxyOptions"
            ),
            Some(json!("/"))
        );
        assert_eq!(
            path(
                "/api/v1/namespaces/a/services/svc/proxy//a%2Fb//c",
                "ServiceProxyOptions"
            ),
            Some(json!("/a/b//c"))
        );
        // No path after the subresource: `path` is empty, so omitted.
        assert_eq!(
            object("/api/v1/namespaces/a/pods/p/proxy", "PodProxyOptions"),
            Some(json!({"kind": "PodProxyOptions", "apiVersion": "v1"}))
        );
        assert_eq!(object("/healthz", "PodProxyOptions"), None);
        assert_eq!(object("/api/v1/namespaces/a/pods/p/exec", "Pod"), None);
    }
}
