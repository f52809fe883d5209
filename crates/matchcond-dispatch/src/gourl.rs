//! The parts of Go's `net/url.Parse` (and `net/netip.ParseAddr`, which it uses for bracketed
//! hosts) that webhook URL validation depends on: the same accepted inputs, the same
//! components and the same error texts.

/// The components of a parsed URL that validation looks at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoUrl {
    /// The scheme, lower-cased.
    pub scheme: String,
    /// Opaque data (`scheme:opaque`).
    pub opaque: String,
    /// `host` or `host:port`, unescaped.
    pub host: String,
    /// The user information as `Userinfo.String()` renders it, when present.
    pub user: Option<String>,
    /// The unescaped path.
    pub path: String,
    /// The raw query, without `?`.
    pub raw_query: String,
    /// The unescaped fragment, without `#`.
    pub fragment: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    Fragment,
}

/// Quotes bytes as Go's `strconv.Quote` does, including invalid UTF-8 (`\xNN`).
fn quote_bytes(b: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in b.utf8_chunks() {
        let q = matchcond_runtime::functions::go_strconv::quote(chunk.valid());
        out.push_str(q.trim_start_matches('"').trim_end_matches('"'));
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out.push('"');
    out
}

fn quote(s: &str) -> String {
    matchcond_runtime::functions::go_strconv::quote(s)
}

fn ishex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

fn unhex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone)
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
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

fn escape(s: &[u8], mode: Mode) -> String {
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if should_escape(c, mode) {
            out.extend_from_slice(format!("%{c:02X}").as_bytes());
        } else {
            out.push(c);
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `unescape`: the error is the Go error text.
fn unescape(s: &[u8], mode: Mode) -> Result<Vec<u8>, String> {
    let mut i = 0;
    while i < s.len() {
        let c = s.get(i).copied().unwrap_or(0);
        if c == b'%' {
            let h1 = s.get(i + 1).copied();
            let h2 = s.get(i + 2).copied();
            let ok = matches!((h1, h2), (Some(a), Some(b)) if ishex(a) && ishex(b));
            if !ok {
                let end = (i + 3).min(s.len());
                let bad = s.get(i..end).unwrap_or(&[]);
                return Err(format!("invalid URL escape {}", quote_bytes(bad)));
            }
            let three = s.get(i..i + 3).unwrap_or(&[]);
            let hi = unhex(h1.unwrap_or(b'0'));
            let v = hi << 4 | unhex(h2.unwrap_or(b'0'));
            if mode == Mode::Host && hi < 8 && three != b"%25" {
                return Err(format!("invalid URL escape {}", quote_bytes(three)));
            }
            if mode == Mode::Zone && three != b"%25" && v != b' ' && should_escape(v, Mode::Host) {
                return Err(format!("invalid URL escape {}", quote_bytes(three)));
            }
            i += 3;
        } else {
            if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                return Err(format!(
                    "invalid character {} in host name",
                    quote_bytes(&[c])
                ));
            }
            i += 1;
        }
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let c = s.get(i).copied().unwrap_or(0);
        if c == b'%' {
            let hi = unhex(s.get(i + 1).copied().unwrap_or(b'0'));
            let lo = unhex(s.get(i + 2).copied().unwrap_or(b'0'));
            out.push(hi << 4 | lo);
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
}

fn lossy(b: Vec<u8>) -> String {
    String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn valid_optional_port(port: &[u8]) -> bool {
    match port.split_first() {
        None => true,
        Some((&b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

fn valid_userinfo(s: &str) -> bool {
    s.chars().all(|r| {
        r.is_ascii_alphanumeric()
            || matches!(
                r,
                '-' | '.'
                    | '_'
                    | ':'
                    | '~'
                    | '!'
                    | '$'
                    | '&'
                    | '\''
                    | '('
                    | ')'
                    | '*'
                    | '+'
                    | ','
                    | ';'
                    | '='
                    | '%'
                    | '@'
            )
    })
}

fn get_scheme(raw: &str) -> Result<(String, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                if i == 0 {
                    return Ok((String::new(), raw));
                }
            }
            b':' => {
                if i == 0 {
                    return Err("missing protocol scheme".to_owned());
                }
                let scheme = raw.get(..i).unwrap_or("");
                let rest = raw.get(i + 1..).unwrap_or("");
                return Ok((scheme.to_owned(), rest));
            }
            _ => return Ok((String::new(), raw)),
        }
    }
    Ok((String::new(), raw))
}

fn parse_host(scheme: &str, host: &str) -> Result<String, String> {
    let hb = host.as_bytes();
    match host.rfind('[') {
        Some(open) if open > 0 => return Err("invalid IP-literal".to_owned()),
        Some(_) => {
            let Some(close) = host.rfind(']') else {
                return Err("missing ']' in host".to_owned());
            };
            let colon_port = hb.get(close + 1..).unwrap_or(&[]);
            if !valid_optional_port(colon_port) {
                return Err(format!(
                    "invalid port {} after host",
                    quote_bytes(colon_port)
                ));
            }
            let unescaped_port = unescape(colon_port, Mode::Host)?;
            let hostname = hb.get(1..close).unwrap_or(&[]);
            let unescaped = match find(hostname, b"%25") {
                Some(z) => {
                    let mut h = unescape(hostname.get(..z).unwrap_or(&[]), Mode::Host)?;
                    h.extend(unescape(hostname.get(z..).unwrap_or(&[]), Mode::Zone)?);
                    h
                }
                None => unescape(hostname, Mode::Host)?,
            };
            let text = lossy(unescaped);
            match parse_addr(&text) {
                Err(e) => return Err(format!("invalid host: {e}")),
                Ok(Addr::V4) => return Err("invalid IP-literal".to_owned()),
                Ok(Addr::V6) => {}
            }
            return Ok(format!("[{text}]{}", lossy(unescaped_port)));
        }
        None => {
            if let Some(first) = host.find(':') {
                let last = host.rfind(':').unwrap_or(first);
                let i = if last != first && scheme != "http" && scheme != "https" {
                    last
                } else {
                    first
                };
                let colon_port = hb.get(i..).unwrap_or(&[]);
                if !valid_optional_port(colon_port) {
                    return Err(format!(
                        "invalid port {} after host",
                        quote_bytes(colon_port)
                    ));
                }
            }
        }
    }
    unescape(hb, Mode::Host).map(lossy)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

type Authority = (Option<String>, String);

fn parse_authority(scheme: &str, authority: &str) -> Result<Authority, String> {
    let at = authority.rfind('@');
    let host = match at {
        None => parse_host(scheme, authority)?,
        Some(i) => parse_host(scheme, authority.get(i + 1..).unwrap_or(""))?,
    };
    let Some(i) = at else {
        return Ok((None, host));
    };
    let userinfo = authority.get(..i).unwrap_or("");
    if !valid_userinfo(userinfo) {
        return Err("net/url: invalid userinfo".to_owned());
    }
    let user = match userinfo.split_once(':') {
        None => escape(
            &unescape(userinfo.as_bytes(), Mode::UserPassword)?,
            Mode::UserPassword,
        ),
        Some((name, pass)) => {
            let name = unescape(name.as_bytes(), Mode::UserPassword)?;
            let pass = unescape(pass.as_bytes(), Mode::UserPassword)?;
            format!(
                "{}:{}",
                escape(&name, Mode::UserPassword),
                escape(&pass, Mode::UserPassword)
            )
        }
    };
    Ok((Some(user), host))
}

fn parse_inner(raw: &str) -> Result<GoUrl, String> {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_owned());
    }
    let mut url = GoUrl::default();
    if raw == "*" {
        url.path = "*".to_owned();
        return Ok(url);
    }
    let (scheme, rest) = get_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let mut rest = rest.to_owned();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest.pop();
    } else if let Some((before, query)) = rest.split_once('?') {
        url.raw_query = query.to_owned();
        rest = before.to_owned();
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest;
            return Ok(url);
        }
        let segment = rest.split('/').next().unwrap_or("");
        if segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".to_owned());
        }
    }
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let after = rest.get(2..).unwrap_or("").to_owned();
        let (authority, path) = match after.find('/') {
            Some(i) => (
                after.get(..i).unwrap_or("").to_owned(),
                after.get(i..).unwrap_or("").to_owned(),
            ),
            None => (after, String::new()),
        };
        let (user, host) = parse_authority(&url.scheme, &authority)?;
        url.user = user;
        url.host = host;
        rest = path;
    }
    url.path = lossy(unescape(rest.as_bytes(), Mode::Path)?);
    Ok(url)
}

/// Go's `url.Parse`. The error is the text of Go's `*url.Error`
/// (`parse "<url>": <reason>`).
pub fn parse(raw: &str) -> Result<GoUrl, String> {
    let (u, frag) = match raw.split_once('#') {
        Some((u, f)) => (u, f),
        None => (raw, ""),
    };
    let mut url = parse_inner(u).map_err(|e| format!("parse {}: {e}", quote(u)))?;
    if frag.is_empty() {
        return Ok(url);
    }
    url.fragment = unescape(frag.as_bytes(), Mode::Fragment)
        .map(lossy)
        .map_err(|e| format!("parse {}: {e}", quote(raw)))?;
    Ok(url)
}

/// The family of a parsed address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addr {
    /// IPv4.
    V4,
    /// IPv6 (including IPv4-mapped).
    V6,
}

fn addr_error(input: &str, msg: &str, at: Option<&str>) -> String {
    match at {
        Some(at) if !at.is_empty() => {
            format!("ParseAddr({}): {msg} (at {})", quote(input), quote(at))
        }
        _ => format!("ParseAddr({}): {msg}", quote(input)),
    }
}

/// Go's `netip.ParseAddr`: the address family, or the Go error text.
pub fn parse_addr(s: &str) -> Result<Addr, String> {
    for c in s.bytes() {
        match c {
            b'.' => return parse_ipv4(s).map(|_| Addr::V4),
            b':' => return parse_ipv6(s).map(|()| Addr::V6),
            b'%' => return Err(addr_error(s, "missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(addr_error(s, "unable to parse IP", None))
}

fn parse_ipv4(s: &str) -> Result<[u8; 4], String> {
    let b = s.as_bytes();
    let mut fields = [0u8; 4];
    let mut val: u32 = 0;
    let mut pos = 0usize;
    let mut dig_len = 0;
    for (i, &c) in b.iter().enumerate() {
        if c.is_ascii_digit() {
            if dig_len == 1 && val == 0 {
                return Err(addr_error(
                    s,
                    "IPv4 field has octet with leading zero",
                    None,
                ));
            }
            val = val * 10 + u32::from(c - b'0');
            dig_len += 1;
            if val > 255 {
                return Err(addr_error(s, "IPv4 field has value >255", None));
            }
        } else if c == b'.' {
            let prev_dot = i > 0 && b.get(i - 1) == Some(&b'.');
            if i == 0 || i == b.len() - 1 || prev_dot {
                return Err(addr_error(
                    s,
                    "IPv4 field must have at least one digit",
                    s.get(i..),
                ));
            }
            if pos == 3 {
                return Err(addr_error(s, "IPv4 address too long", None));
            }
            if let Some(f) = fields.get_mut(pos) {
                *f = u8::try_from(val).unwrap_or(0);
            }
            pos += 1;
            val = 0;
            dig_len = 0;
        } else {
            return Err(addr_error(s, "unexpected character", s.get(i..)));
        }
    }
    if pos < 3 {
        return Err(addr_error(s, "IPv4 address too short", None));
    }
    if let Some(f) = fields.get_mut(3) {
        *f = u8::try_from(val).unwrap_or(0);
    }
    Ok(fields)
}

fn parse_ipv6(input: &str) -> Result<(), String> {
    let mut s = input;
    if let Some(i) = s.find('%') {
        let zone = s.get(i + 1..).unwrap_or("");
        if zone.is_empty() {
            return Err(addr_error(input, "zone must be a non-empty string", None));
        }
        s = s.get(..i).unwrap_or("");
    }
    let mut ellipsis: Option<usize> = None;
    if s.starts_with("::") {
        ellipsis = Some(0);
        s = s.get(2..).unwrap_or("");
        if s.is_empty() {
            return Ok(());
        }
    }
    let mut i = 0usize;
    while i < 16 {
        let b = s.as_bytes();
        let mut off = 0usize;
        let mut acc: u32 = 0;
        while let Some(&c) = b.get(off) {
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            acc = (acc << 4) + u32::from(d);
            if acc > 0xffff {
                return Err(addr_error(input, "IPv6 field has value >=2^16", Some(s)));
            }
            off += 1;
        }
        if off == 0 {
            return Err(addr_error(
                input,
                "each colon-separated field must have at least one digit",
                Some(s),
            ));
        }
        if b.get(off) == Some(&b'.') {
            if ellipsis.is_none() && i != 12 {
                return Err(addr_error(
                    input,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    Some(s),
                ));
            }
            if i + 4 > 16 {
                return Err(addr_error(
                    input,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    Some(s),
                ));
            }
            if let Err(e) = parse_ipv4(s) {
                return Err(addr_error(input, &e, Some(s)));
            }
            s = "";
            i += 4;
            break;
        }
        i += 2;
        s = s.get(off..).unwrap_or("");
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return Err(addr_error(
                input,
                "unexpected character, want colon",
                Some(s),
            ));
        } else if s.len() == 1 {
            return Err(addr_error(
                input,
                "colon must be followed by more characters",
                Some(s),
            ));
        }
        s = s.get(1..).unwrap_or("");
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return Err(addr_error(input, "multiple :: in address", Some(s)));
            }
            ellipsis = Some(i);
            s = s.get(1..).unwrap_or("");
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(addr_error(input, "trailing garbage after address", Some(s)));
    }
    if i < 16 {
        if ellipsis.is_none() {
            return Err(addr_error(input, "address string too short", None));
        }
    } else if ellipsis.is_some() {
        return Err(addr_error(
            input,
            "the :: must expand to at least one field of zeros",
            None,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components() {
        let u = parse("https://harry.potter@example.com:8443/a%2Fb?x=1#frag%20x").unwrap();
        assert_eq!(u.scheme, "https");
        assert_eq!(u.user.as_deref(), Some("harry.potter"));
        assert_eq!(u.host, "example.com:8443");
        assert_eq!(u.path, "/a/b");
        assert_eq!(u.raw_query, "x=1");
        assert_eq!(u.fragment, "frag x");
        let u = parse("HTTPS://u:p%40ss@h/").unwrap();
        assert_eq!(u.scheme, "https");
        assert_eq!(u.user.as_deref(), Some("u:p%40ss"));
        let u = parse("").unwrap();
        assert_eq!(u, GoUrl::default());
        let u = parse("https:///fancy/webhook").unwrap();
        assert_eq!(u.host, "");
        assert_eq!(u.path, "/fancy/webhook");
        let u = parse("arg#backwards=thisis?html.index/port:host//:https").unwrap();
        assert_eq!(u.scheme, "");
        assert_eq!(u.path, "arg");
        assert_eq!(u.fragment, "backwards=thisis?html.index/port:host//:https");
        let u = parse("example.com/k8s/webhook").unwrap();
        assert_eq!(u.host, "");
        let u = parse("https:example.com").unwrap();
        assert_eq!(u.opaque, "example.com");
        assert_eq!(u.host, "");
        let u = parse("https://[::1]:443/x").unwrap();
        assert_eq!(u.host, "[::1]:443");
        let u = parse("https://example.com?").unwrap();
        assert_eq!(u.raw_query, "");
    }

    #[test]
    fn errors() {
        let cases = [
            ("://x", "parse \"://x\": missing protocol scheme"),
            ("1a:b/x", "parse \"1a:b/x\": first path segment in URL cannot contain colon"),
            ("https://example.com:abc/x", "parse \"https://example.com:abc/x\": invalid port \":abc\" after host"),
            ("https://a:1:2/", "parse \"https://a:1:2/\": invalid port \":1:2\" after host"),
            ("https://a{b}/", "parse \"https://a{b}/\": invalid character \"{\" in host name"),
            ("https://ex ample.com/", "parse \"https://ex ample.com/\": invalid character \" \" in host name"),
            ("https://example.com/%zz", "parse \"https://example.com/%zz\": invalid URL escape \"%zz\""),
            ("https://example.com/%z\u{e9}", "parse \"https://example.com/%z\u{e9}\": invalid URL escape \"%z\\xc3\""),
            ("https://[1.2.3.4]/", "parse \"https://[1.2.3.4]/\": invalid IP-literal"),
            ("https://a[::1]/", "parse \"https://a[::1]/\": invalid IP-literal"),
            ("https://[::1/", "parse \"https://[::1/\": missing ']' in host"),
            ("https://[v1.x]/", "parse \"https://[v1.x]/\": invalid host: ParseAddr(\"v1.x\"): unexpected character (at \"v1.x\")"),
            ("https://\u{fc}@example.com/", "parse \"https://\u{fc}@example.com/\": net/url: invalid userinfo"),
            ("https://exa\tmple.com/", "parse \"https://exa\\tmple.com/\": net/url: invalid control character in URL"),
            ("https://x/#%zz", "parse \"https://x/#%zz\": invalid URL escape \"%zz\""),
            ("https://%41/", "parse \"https://%41/\": invalid URL escape \"%41\""),
        ];
        for (input, want) in cases {
            assert_eq!(parse(input).unwrap_err(), want, "{input}");
        }
    }

    #[test]
    fn addresses() {
        assert_eq!(parse_addr("::1"), Ok(Addr::V6));
        assert_eq!(parse_addr("fe80::1%en0"), Ok(Addr::V6));
        assert_eq!(parse_addr("::ffff:1.2.3.4"), Ok(Addr::V6));
        assert_eq!(parse_addr("1.2.3.4"), Ok(Addr::V4));
        assert_eq!(
            parse_addr("1.2.3"),
            Err("ParseAddr(\"1.2.3\"): IPv4 address too short".into())
        );
        assert_eq!(
            parse_addr("01.2.3.4"),
            Err("ParseAddr(\"01.2.3.4\"): IPv4 field has octet with leading zero".into())
        );
        assert_eq!(
            parse_addr("1::2::3"),
            Err("ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")".into())
        );
        assert_eq!(
            parse_addr("1:2"),
            Err("ParseAddr(\"1:2\"): address string too short".into())
        );
        assert_eq!(
            parse_addr("1:2:3:4:5:6:7:8::"),
            Err("ParseAddr(\"1:2:3:4:5:6:7:8::\"): the :: must expand to at least one field of zeros".into())
        );
        assert_eq!(
            parse_addr("fe80::1%"),
            Err("ParseAddr(\"fe80::1%\"): zone must be a non-empty string".into())
        );
        assert_eq!(
            parse_addr("abc"),
            Err("ParseAddr(\"abc\"): unable to parse IP".into())
        );
        assert_eq!(
            parse_addr("::1.2.3.400"),
            Err("ParseAddr(\"::1.2.3.400\"): ParseAddr(\"1.2.3.400\"): IPv4 field has value >255 (at \"1.2.3.400\")".into())
        );
    }
}
