//! URLs parsed as Go's `net/url` parses them (`ParseRequestURI` to validate, then `Parse`),
//! with Go's error texts, and the parts and text forms `url.URL` gives: the Kubernetes URL
//! library's values (`kubernetes.urls`) and the webhook `clientConfig.url` checks rest on it.

use crate::netip::{parse_addr_bytes, Addr};
use crate::strconv::{quote, quote_bytes};

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Which part of a URL is being escaped or unescaped (Go's `encoding`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// RFC 3986 sub-delimiters: `!$&'()*+,;=`.
fn is_sub_delim(c: u8) -> bool {
    matches!(
        c,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

/// Go's `shouldEscape`.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone)
        && (is_sub_delim(c) || matches!(c, b':' | b'[' | b']' | b'<' | b'>' | b'"'))
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

fn unhex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

/// Go's `unescape`.
fn unescape(s: &[u8], mode: Mode) -> Result<Vec<u8>, String> {
    let escape_error = |e: &[u8]| format!("invalid URL escape {}", quote_bytes(e));
    let mut i = 0;
    let mut n = 0;
    let mut has_plus = false;
    while let Some(&c) = s.get(i) {
        match c {
            b'%' => {
                n += 1;
                let (h1, h2) = (s.get(i + 1).copied(), s.get(i + 2).copied());
                let ok = matches!((h1, h2), (Some(a), Some(b)) if a.is_ascii_hexdigit() && b.is_ascii_hexdigit());
                if !ok {
                    let end = (i + 3).min(s.len());
                    return Err(escape_error(s.get(i..end).unwrap_or_default()));
                }
                let (h1, h2) = (h1.unwrap_or(0), h2.unwrap_or(0));
                let triple = s.get(i..i + 3).unwrap_or_default();
                if mode == Mode::Host && unhex(h1) < 8 && triple != b"%25" {
                    return Err(escape_error(triple));
                }
                if mode == Mode::Zone {
                    let v = (unhex(h1) << 4) | unhex(h2);
                    if triple != b"%25" && v != b' ' && should_escape(v, Mode::Host) {
                        return Err(escape_error(triple));
                    }
                }
                i += 3;
            }
            b'+' => {
                has_plus = mode == Mode::QueryComponent;
                i += 1;
            }
            _ => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!(
                        "invalid character {} in host name",
                        quote_bytes(&[c])
                    ));
                }
                i += 1;
            }
        }
    }
    if n == 0 && !has_plus {
        return Ok(s.to_vec());
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        match c {
            b'%' => {
                let h1 = s.get(i + 1).copied().unwrap_or(b'0');
                let h2 = s.get(i + 2).copied().unwrap_or(b'0');
                out.push((unhex(h1) << 4) | unhex(h2));
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Go's `escape`.
fn escape(s: &[u8], mode: Mode) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if c == b' ' && mode == Mode::QueryComponent {
            out.push(b'+');
        } else if should_escape(c, mode) {
            out.push(b'%');
            out.push(HEX.get(usize::from(c >> 4)).copied().unwrap_or(b'0'));
            out.push(HEX.get(usize::from(c & 15)).copied().unwrap_or(b'0'));
        } else {
            out.push(c);
        }
    }
    out
}

/// Go's `validEncoded`.
fn valid_encoded(s: &[u8], mode: Mode) -> bool {
    s.iter().all(|&c| {
        (is_sub_delim(c) || matches!(c, b':' | b'@' | b'[' | b']' | b'%'))
            || !should_escape(c, mode)
    })
}

/// Go's `validOptionalPort`.
fn valid_optional_port(port: &[u8]) -> bool {
    match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn cut(s: &[u8], sep: u8) -> (&[u8], Option<&[u8]>) {
    match s.iter().position(|&b| b == sep) {
        Some(i) => (
            s.get(..i).unwrap_or_default(),
            Some(s.get(i + 1..).unwrap_or_default()),
        ),
        None => (s, None),
    }
}

/// A parsed URL (Go's `url.URL`), fields as raw bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Url {
    scheme: Vec<u8>,
    opaque: Vec<u8>,
    user: Option<(Vec<u8>, Option<Vec<u8>>)>,
    host: Vec<u8>,
    path: Vec<u8>,
    raw_path: Vec<u8>,
    omit_host: bool,
    force_query: bool,
    raw_query: Vec<u8>,
    fragment: Vec<u8>,
    raw_fragment: Vec<u8>,
}

/// Go's `getScheme`.
fn get_scheme(raw: &[u8]) -> Result<(&[u8], &[u8]), String> {
    for (i, &c) in raw.iter().enumerate() {
        if c.is_ascii_alphabetic() {
            continue;
        }
        if c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.') {
            if i == 0 {
                return Ok((b"", raw));
            }
            continue;
        }
        if c == b':' {
            if i == 0 {
                return Err("missing protocol scheme".to_owned());
            }
            return Ok((
                raw.get(..i).unwrap_or_default(),
                raw.get(i + 1..).unwrap_or_default(),
            ));
        }
        return Ok((b"", raw));
    }
    Ok((b"", raw))
}

/// Go's `validUserinfo` (by code points: anything outside ASCII is invalid).
fn valid_userinfo(s: &[u8]) -> bool {
    s.iter().all(|&c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'.'
                    | b'_'
                    | b':'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b'%'
                    | b'@'
            )
    })
}

/// Go's `parseHost` (with strict colons for `http` and `https`, Go 1.26's default).
fn parse_host(scheme: &[u8], host: &[u8]) -> Result<Vec<u8>, String> {
    let invalid_port = |p: &[u8]| format!("invalid port {} after host", quote_bytes(p));
    let open = host.iter().rposition(|&b| b == b'[');
    match open {
        Some(o) if o > 0 => return Err("invalid IP-literal".to_owned()),
        Some(_) => {
            let Some(close) = host.iter().rposition(|&b| b == b']') else {
                return Err("missing ']' in host".to_owned());
            };
            let colon_port = host.get(close + 1..).unwrap_or_default();
            if !valid_optional_port(colon_port) {
                return Err(invalid_port(colon_port));
            }
            let colon_port = unescape(colon_port, Mode::Host)?;
            let hostname = host.get(1..close).unwrap_or_default();
            let unescaped = match find(hostname, b"%25") {
                Some(z) => {
                    let mut h = unescape(hostname.get(..z).unwrap_or_default(), Mode::Host)?;
                    h.extend(unescape(hostname.get(z..).unwrap_or_default(), Mode::Zone)?);
                    h
                }
                None => unescape(hostname, Mode::Host)?,
            };
            match parse_addr_bytes(&unescaped) {
                Err(e) => return Err(format!("invalid host: {e}")),
                Ok((Addr::V4(_), _)) => return Err("invalid IP-literal".to_owned()),
                Ok((Addr::V6(_), _)) => {}
            }
            let mut out = Vec::with_capacity(unescaped.len() + colon_port.len() + 2);
            out.push(b'[');
            out.extend(unescaped);
            out.push(b']');
            out.extend(colon_port);
            return Ok(out);
        }
        None => {
            if let Some(first) = host.iter().position(|&b| b == b':') {
                let last = host.iter().rposition(|&b| b == b':').unwrap_or(first);
                let strict = scheme == b"http" || scheme == b"https";
                let i = if last != first && !strict {
                    last
                } else {
                    first
                };
                let colon_port = host.get(i..).unwrap_or_default();
                if !valid_optional_port(colon_port) {
                    return Err(invalid_port(colon_port));
                }
            }
        }
    }
    unescape(host, Mode::Host)
}

/// The unescaped text, and the text as written where escaping the unescaped text does not
/// give it back (empty otherwise), as Go's `setPath` and `setFragment` keep them.
fn unescape_keeping_raw(text: &[u8], mode: Mode) -> Result<(Vec<u8>, Vec<u8>), String> {
    let plain = unescape(text, mode)?;
    let raw = if escape(&plain, mode) == text {
        Vec::new()
    } else {
        text.to_vec()
    };
    Ok((plain, raw))
}

impl Url {
    /// Go's `setPath`.
    fn set_path(&mut self, p: &[u8]) -> Result<(), String> {
        (self.path, self.raw_path) = unescape_keeping_raw(p, Mode::Path)?;
        Ok(())
    }

    /// Go's `setFragment`.
    fn set_fragment(&mut self, f: &[u8]) -> Result<(), String> {
        (self.fragment, self.raw_fragment) = unescape_keeping_raw(f, Mode::Fragment)?;
        Ok(())
    }

    /// Go's `parse`.
    fn parse_inner(raw: &[u8], via_request: bool) -> Result<Url, String> {
        if raw.iter().any(|&b| b < b' ' || b == 0x7f) {
            return Err("net/url: invalid control character in URL".to_owned());
        }
        if raw.is_empty() && via_request {
            return Err("empty url".to_owned());
        }
        let mut url = Url::default();
        if raw == b"*" {
            url.path = b"*".to_vec();
            return Ok(url);
        }
        let (scheme, mut rest) = get_scheme(raw)?;
        url.scheme = scheme.to_ascii_lowercase();
        if rest.ends_with(b"?") && rest.iter().filter(|&&b| b == b'?').count() == 1 {
            url.force_query = true;
            rest = rest.get(..rest.len() - 1).unwrap_or_default();
        } else {
            let (r, q) = cut(rest, b'?');
            rest = r;
            url.raw_query = q.unwrap_or_default().to_vec();
        }
        if !rest.starts_with(b"/") {
            if !url.scheme.is_empty() {
                url.opaque = rest.to_vec();
                return Ok(url);
            }
            if via_request {
                return Err("invalid URI for request".to_owned());
            }
            let (segment, _) = cut(rest, b'/');
            if segment.contains(&b':') {
                return Err("first path segment in URL cannot contain colon".to_owned());
            }
        }
        if (!url.scheme.is_empty() || !via_request && !rest.starts_with(b"///"))
            && rest.starts_with(b"//")
        {
            let mut authority = rest.get(2..).unwrap_or_default();
            rest = b"";
            if let Some(i) = authority.iter().position(|&b| b == b'/') {
                rest = authority.get(i..).unwrap_or_default();
                authority = authority.get(..i).unwrap_or_default();
            }
            let at = authority.iter().rposition(|&b| b == b'@');
            let host_part = match at {
                Some(i) => authority.get(i + 1..).unwrap_or_default(),
                None => authority,
            };
            url.host = parse_host(&url.scheme, host_part)?;
            if let Some(i) = at {
                let userinfo = authority.get(..i).unwrap_or_default();
                if !valid_userinfo(userinfo) {
                    return Err("net/url: invalid userinfo".to_owned());
                }
                url.user = Some(match cut(userinfo, b':') {
                    (name, None) => (unescape(name, Mode::UserPassword)?, None),
                    (name, Some(password)) => (
                        unescape(name, Mode::UserPassword)?,
                        Some(unescape(password, Mode::UserPassword)?),
                    ),
                });
            }
        } else if !url.scheme.is_empty() && rest.starts_with(b"/") {
            url.omit_host = true;
        }
        url.set_path(rest)?;
        Ok(url)
    }

    /// Go's `url.ParseRequestURI`, with its error text.
    pub fn parse_request_uri(raw: &str) -> Result<Url, String> {
        Url::parse_inner(raw.as_bytes(), true).map_err(|e| format!("parse {}: {e}", quote(raw)))
    }

    /// Go's `url.Parse`, with its error text.
    pub fn parse(raw: &str) -> Result<Url, String> {
        let bytes = raw.as_bytes();
        let (u, frag) = match bytes.iter().position(|&b| b == b'#') {
            Some(i) => (
                bytes.get(..i).unwrap_or_default(),
                bytes.get(i + 1..).unwrap_or_default(),
            ),
            None => (bytes, &b""[..]),
        };
        let mut url =
            Url::parse_inner(u, false).map_err(|e| format!("parse {}: {e}", quote_bytes(u)))?;
        if !frag.is_empty() {
            url.set_fragment(frag)
                .map_err(|e| format!("parse {}: {e}", quote(raw)))?;
        }
        Ok(url)
    }

    /// The scheme, lower-cased.
    pub fn scheme(&self) -> &[u8] {
        &self.scheme
    }

    /// Opaque data (`scheme:opaque`).
    pub fn opaque(&self) -> &[u8] {
        &self.opaque
    }

    /// `host` or `host:port`, unescaped.
    pub fn host(&self) -> &[u8] {
        &self.host
    }

    /// The user information as Go's `Userinfo.String` renders it, when present.
    pub fn user_text(&self) -> Option<String> {
        self.user.as_ref().map(|(name, password)| {
            let mut out = escape(name, Mode::UserPassword);
            if let Some(p) = password {
                out.push(b':');
                out.extend(escape(p, Mode::UserPassword));
            }
            lossy(&out)
        })
    }

    /// The unescaped path.
    pub fn path(&self) -> &[u8] {
        &self.path
    }

    /// The raw query, without `?`.
    pub fn raw_query(&self) -> &[u8] {
        &self.raw_query
    }

    /// The unescaped fragment, without `#`.
    pub fn fragment(&self) -> &[u8] {
        &self.fragment
    }

    /// Go's `EscapedPath`.
    pub fn escaped_path(&self) -> Vec<u8> {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path, Mode::Path)
            && unescape(&self.raw_path, Mode::Path).as_deref() == Ok(self.path.as_slice())
        {
            return self.raw_path.clone();
        }
        if self.path == b"*" {
            return b"*".to_vec();
        }
        escape(&self.path, Mode::Path)
    }

    fn escaped_fragment(&self) -> Vec<u8> {
        if !self.raw_fragment.is_empty()
            && valid_encoded(&self.raw_fragment, Mode::Fragment)
            && unescape(&self.raw_fragment, Mode::Fragment).as_deref()
                == Ok(self.fragment.as_slice())
        {
            return self.raw_fragment.clone();
        }
        escape(&self.fragment, Mode::Fragment)
    }

    /// Go's `splitHostPort` on the host.
    pub fn split_host_port(&self) -> (&[u8], &[u8]) {
        let mut host: &[u8] = &self.host;
        let mut port: &[u8] = b"";
        if let Some(colon) = host.iter().rposition(|&b| b == b':') {
            if valid_optional_port(host.get(colon..).unwrap_or_default()) {
                port = host.get(colon + 1..).unwrap_or_default();
                host = host.get(..colon).unwrap_or_default();
            }
        }
        if host.len() >= 2 && host.starts_with(b"[") && host.ends_with(b"]") {
            host = host.get(1..host.len() - 1).unwrap_or_default();
        }
        (host, port)
    }

    /// Go's `URL.String`.
    pub fn to_text(&self) -> String {
        let mut buf: Vec<u8> = Vec::new();
        if !self.scheme.is_empty() {
            buf.extend(&self.scheme);
            buf.push(b':');
        }
        if !self.opaque.is_empty() {
            buf.extend(&self.opaque);
        } else {
            let has_authority =
                !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some();
            let host_omitted = self.omit_host && self.host.is_empty() && self.user.is_none();
            if has_authority && !host_omitted {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    buf.extend(b"//");
                }
                if let Some((name, password)) = &self.user {
                    buf.extend(escape(name, Mode::UserPassword));
                    if let Some(p) = password {
                        buf.push(b':');
                        buf.extend(escape(p, Mode::UserPassword));
                    }
                    buf.push(b'@');
                }
                if !self.host.is_empty() {
                    buf.extend(escape(&self.host, Mode::Host));
                }
            }
            let path = self.escaped_path();
            if !path.is_empty() && path.first() != Some(&b'/') && !self.host.is_empty() {
                buf.push(b'/');
            }
            if buf.is_empty() {
                let (segment, _) = cut(&path, b'/');
                if segment.contains(&b':') {
                    buf.extend(b"./");
                }
            }
            buf.extend(path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            buf.push(b'?');
            buf.extend(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            buf.push(b'#');
            buf.extend(self.escaped_fragment());
        }
        lossy(&buf)
    }

    /// Go's `URL.Query()`: the valid `key=value` pairs of the raw query, in order of first
    /// appearance of each key (an empty result past 10,000 parameters, Go's limit).
    pub fn query(&self) -> Vec<(Vec<u8>, Vec<Vec<u8>>)> {
        let mut out: Vec<(Vec<u8>, Vec<Vec<u8>>)> = Vec::new();
        let q = &self.raw_query;
        if q.iter().filter(|&&b| b == b'&').count() + 1 > 10_000 {
            return out;
        }
        for pair in q.split(|&b| b == b'&') {
            if pair.is_empty() || pair.contains(&b';') {
                continue;
            }
            let (k, v) = cut(pair, b'=');
            let (Ok(k), Ok(v)) = (
                unescape(k, Mode::QueryComponent),
                unescape(v.unwrap_or_default(), Mode::QueryComponent),
            ) else {
                continue;
            };
            match out.iter_mut().find(|(key, _)| *key == k) {
                Some((_, values)) => values.push(v),
                None => out.push((k, vec![v])),
            }
        }
        out
    }
}
