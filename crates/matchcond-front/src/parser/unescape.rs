//! Decoding of string and bytes literals.

/// [`unescape_with`] without replacement.
#[cfg(test)]
pub(super) fn unescape(text: &str, is_bytes: bool) -> Result<Vec<u8>, &'static str> {
    unescape_with(text, is_bytes, false)
}

/// Decodes a quoted literal (with its quotes and optional raw prefix, without a bytes
/// prefix). For strings, `\x` and octal escapes denote code points; for bytes they denote
/// raw byte values and `\u` / `\U` are not allowed. Code points that are no character
/// read as U+FFFD when `replace`, else they are an error.
pub(super) fn unescape_with(
    text: &str,
    is_bytes: bool,
    replace: bool,
) -> Result<Vec<u8>, &'static str> {
    const GENERIC: &str = "unable to unescape string";
    let normalized = if text.contains('\r') {
        std::borrow::Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    let mut value: &str = &normalized;
    if value.len() < 2 {
        return Err(GENERIC);
    }
    let mut raw = false;
    if let Some(rest) = value.strip_prefix(['r', 'R']) {
        value = rest;
        raw = true;
    }
    let bytes = value.as_bytes();
    let (first, last) = match (bytes.first(), bytes.last()) {
        (Some(f), Some(l)) => (*f, *l),
        _ => return Err(GENERIC),
    };
    if first != last || (first != b'"' && first != b'\'') {
        return Err(GENERIC);
    }
    let n = value.len();
    let inner: &str = if n >= 6 && (value.starts_with("'''") || value.starts_with("\"\"\"")) {
        let q = value.get(..3).unwrap_or_default();
        if !value.ends_with(q) {
            return Err(GENERIC);
        }
        value.get(3..n - 3).unwrap_or_default()
    } else {
        value.get(1..n - 1).unwrap_or_default()
    };
    if raw || !inner.contains('\\') {
        return Ok(inner.as_bytes().to_vec());
    }
    let mut out = Vec::with_capacity(inner.len());
    let mut s = inner.as_bytes();
    while let Some(&c) = s.first() {
        if c >= 0x80 {
            // A multi-byte character: copied whole.
            let len = utf8_len(c);
            out.extend_from_slice(s.get(..len).unwrap_or(s));
            s = s.get(len..).unwrap_or_default();
            continue;
        }
        if c != b'\\' {
            out.push(c);
            s = s.get(1..).unwrap_or_default();
            continue;
        }
        let Some(&e) = s.get(1) else {
            return Err("unable to unescape string, found '\\' as last character");
        };
        s = s.get(2..).unwrap_or_default();
        let simple = match e {
            b'a' => Some(7),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            b'v' => Some(11),
            b'\\' | b'\'' | b'"' | b'`' | b'?' => Some(e),
            _ => None,
        };
        if let Some(v) = simple {
            out.push(v);
            continue;
        }
        match e {
            b'x' | b'X' | b'u' | b'U' => {
                let digits = match e {
                    b'x' | b'X' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                if is_bytes && (e == b'u' || e == b'U') {
                    return Err(GENERIC);
                }
                let hex = s.get(..digits).ok_or(GENERIC)?;
                let mut v: u32 = 0;
                for &h in hex {
                    let d = char::from(h).to_digit(16).ok_or(GENERIC)?;
                    v = v.wrapping_shl(4) | d;
                }
                s = s.get(digits..).unwrap_or_default();
                // In bytes only \x reaches here: a raw byte.
                push_code(&mut out, v, is_bytes, replace)?;
            }
            b'0'..=b'3' => {
                let oct = "unable to unescape octal sequence in string";
                let ds = s.get(..2).ok_or(oct)?;
                let mut v = u32::from(e - b'0');
                for &d in ds {
                    if !(b'0'..=b'7').contains(&d) {
                        return Err(oct);
                    }
                    v = v * 8 + u32::from(d - b'0');
                }
                s = s.get(2..).unwrap_or_default();
                push_code(&mut out, v, is_bytes, replace)?;
            }
            _ => return Err(GENERIC),
        }
    }
    Ok(out)
}

/// Appends the value of a numeric escape: a raw byte in bytes, else the code point's UTF-8.
fn push_code(out: &mut Vec<u8>, v: u32, is_bytes: bool, replace: bool) -> Result<(), &'static str> {
    if is_bytes {
        out.push(u8::try_from(v).unwrap_or(0));
    } else {
        let ch = match char::from_u32(v) {
            Some(c) => c,
            None if replace => char::REPLACEMENT_CHARACTER,
            None => return Err("invalid unicode code point"),
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
    }
    Ok(())
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::unescape;

    fn s(t: &str) -> Result<String, &'static str> {
        unescape(t, false).map(|v| String::from_utf8(v).unwrap())
    }

    #[test]
    fn strings() {
        assert_eq!(s(r#""\xC3\XBF""#).unwrap(), "\u{c3}\u{bf}");
        assert_eq!(s(r#""\303\277""#).unwrap(), "\u{c3}\u{bf}");
        assert_eq!(s(r#""\U000003A8\?""#).unwrap(), "Ψ?");
        assert_eq!(s(r#"r"\n""#).unwrap(), "\\n");
        assert_eq!(s("'''a\r\nb'''").unwrap(), "a\nb");
        assert_eq!(s(r"'\udead'"), Err("invalid unicode code point"));
        // cel-go before v0.23 (Kubernetes 1.32 and older) reads it as U+FFFD.
        assert_eq!(
            super::unescape_with(r"'\ud800'", false, true).map(|v| String::from_utf8(v).unwrap()),
            Ok("\u{FFFD}".to_string())
        );
        assert_eq!(s(r"'\400'"), Err("unable to unescape string"));
    }

    #[test]
    fn bytes() {
        assert_eq!(
            unescape(r#""\xFF\377é""#, true).unwrap(),
            vec![0xFF, 0xFF, 0xC3, 0xA9]
        );
        assert_eq!(
            unescape(r#""\u00FF""#, true),
            Err("unable to unescape string")
        );
    }
}
