//! An event's request URI as Go's HTTP server hands it to the apiserver: the decoded path
//! and the decoded query (`URL.Query()`), parsed once for everything read from them.

use matchcond_gocompat::url::Url;

/// A request URI, parsed (`url.ParseRequestURI`); a URI that does not parse (and the
/// default) has no path and no query.
#[derive(Default)]
pub(crate) struct RequestUri {
    url: Option<Url>,
    query: Vec<(Vec<u8>, Vec<Vec<u8>>)>,
}

impl RequestUri {
    /// Parses a URI as the event records it (`requestURI`).
    pub(crate) fn parse(uri: &str) -> RequestUri {
        let url = Url::parse_request_uri(uri).ok();
        let query = url.as_ref().map(Url::query).unwrap_or_default();
        RequestUri { url, query }
    }

    /// Whether the URI's query gives the parameter `key` at least once, without parsing
    /// the URI when its query cannot hold it (no query, or neither the key nor an escape
    /// in it): what saves a parse on most events.
    pub(crate) fn gives(uri: &str, key: &str) -> bool {
        may_have(uri, key) && !RequestUri::parse(uri).values(key).is_empty()
    }

    /// The values of a query parameter (a pair with a malformed escape or a `;` dropped,
    /// as Go drops it).
    pub(crate) fn values(&self, key: &str) -> &[Vec<u8>] {
        self.query
            .iter()
            .find(|(k, _)| k.as_slice() == key.as_bytes())
            .map_or(&[], |(_, v)| v.as_slice())
    }

    /// The first value of a query parameter, as text.
    pub(crate) fn first(&self, key: &str) -> Option<String> {
        self.values(key)
            .first()
            .map(|v| String::from_utf8_lossy(v).into_owned())
    }

    /// The decoded path.
    pub(crate) fn path(&self) -> Option<&[u8]> {
        self.url.as_ref().map(Url::path)
    }
}

/// False when the URI's query cannot hold the parameter `key`.
fn may_have(uri: &str, key: &str) -> bool {
    uri.split_once('?')
        .is_some_and(|(_, query)| query.contains(key) || query.contains('%') || query.contains('+'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut never hides a parameter the parse would find, escaped keys included.
    #[test]
    fn the_shortcut_agrees_with_the_parse() {
        for uri in [
            "/api/v1/namespaces/a/pods",
            "/api/v1/namespaces/a/pods?fieldManager=kubectl",
            "/api/v1/namespaces/a/pods?dryRun=All",
            "/api/v1/namespaces/a/pods?dry%52un=All",
            "/api/v1/namespaces/a/pods?x=1&dryRun",
        ] {
            let found = !RequestUri::parse(uri).values("dryRun").is_empty();
            assert!(may_have(uri, "dryRun") || !found, "{uri}");
            assert_eq!(found, uri.contains("dry"), "{uri}");
            assert_eq!(RequestUri::gives(uri, "dryRun"), found, "{uri}");
        }
    }
}
