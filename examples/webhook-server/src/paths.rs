//! Request paths as the apiserver sends them.
//!
//! The apiserver's REST client calls a webhook at the path of its `clientConfig` — the
//! `service.path` or the path of the `url` (percent-escapes decoded, as Go's URL parser
//! decodes them) — joined to `/` the way Go's `path.Join` does: repeated slashes collapse,
//! `.` and `..` segments resolve, a trailing slash is dropped and an empty path becomes
//! `/`. It adds a `timeout` query parameter, which routing ignores.

/// The path the apiserver requests for a configured `service.path` or `url` path.
pub fn request_path(configured: &str) -> String {
    clean(&decode(configured))
}

/// The path of an `https://` URL of a `clientConfig.url`, as the apiserver requests it.
pub fn url_request_path(url: &str) -> String {
    let rest = match url.find("://") {
        Some(at) => url.get(at + 3..).unwrap_or(""),
        None => url,
    };
    // The authority ends at the first '/', '?' or '#'; the path at the first '?' or '#'.
    let path_start = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let path = rest.get(path_start..).unwrap_or("");
    let path_end = path.find(['?', '#']).unwrap_or(path.len());
    request_path(path.get(..path_end).unwrap_or(""))
}

/// The path of a request's URI (without its query), percent-escapes decoded, for lookup
/// among the served paths.
pub fn decoded(uri_path: &str) -> String {
    decode(uri_path)
}

/// Decodes `%XX` escapes; anything that is not a valid escape is kept as it is, and bytes
/// that do not form UTF-8 are replaced (such a path matches no configured one).
fn decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = |at: usize| bytes.get(at).and_then(|c| (*c as char).to_digit(16));
            if let (Some(h), Some(l)) = (hex(i + 1), hex(i + 2)) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Go's `path.Join("/", p)`: a rooted path without empty, `.` or `..` segments.
fn clean(path: &str) -> String {
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            s => segments.push(s),
        }
    }
    let mut out = String::with_capacity(path.len() + 1);
    for s in &segments {
        out.push('/');
        out.push_str(s);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_paths_are_joined_to_the_root_as_go_joins_them() {
        assert_eq!(request_path("/validate-pods"), "/validate-pods");
        assert_eq!(request_path("/validate/pods/"), "/validate/pods");
        assert_eq!(request_path(""), "/");
        assert_eq!(request_path("/"), "/");
        assert_eq!(request_path("/a/./b/../c"), "/a/c");
        assert_eq!(request_path("/../a"), "/a");
        assert_eq!(request_path("//a//b"), "/a/b");
    }

    #[test]
    fn url_paths() {
        assert_eq!(
            url_request_path("https://policy.example.com/validate-deployments"),
            "/validate-deployments"
        );
        assert_eq!(url_request_path("https://policy.example.com"), "/");
        assert_eq!(url_request_path("https://policy.example.com:8443/"), "/");
        assert_eq!(url_request_path("https://[::1]:8443/v/a/"), "/v/a");
        assert_eq!(url_request_path("https://h/a%2Fb"), "/a/b");
        assert_eq!(url_request_path("https://h/a%20b"), "/a b");
        assert_eq!(url_request_path("https://h/p?x=1#f"), "/p");
        assert_eq!(url_request_path("https://h?x=1"), "/");
    }

    #[test]
    fn request_uris_are_decoded_but_not_cleaned() {
        assert_eq!(decoded("/validate-pods"), "/validate-pods");
        assert_eq!(decoded("/a%20b"), "/a b");
        assert_eq!(decoded("/a%2"), "/a%2");
        assert_eq!(decoded("/a%zz/"), "/a%zz/");
        assert_eq!(decoded("/%ff"), "/\u{fffd}");
    }
}
