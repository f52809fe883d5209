//! Go's `encoding/base64` standard encoding (`base64.StdEncoding`), as `encoding/json`
//! decodes a `[]byte` field such as a webhook's `clientConfig.caBundle`.
//!
//! What it accepts and where it stops follow Go's decoder:
//!
//! - the alphabet `A–Z a–z 0–9 + /`, padded with `=` to a multiple of four digits;
//! - `\r` and `\n` anywhere are skipped (they still count in an error's offset);
//! - the encoding is not strict: the unused bits of the last digit before the padding may be
//!   set (`YR==` decodes as `a`, like `YQ==`);
//! - an error is Go's `CorruptInputError`, the offset of the input byte it blames, with Go's
//!   text (`illegal base64 data at input byte 4`); the offset is the one Go reports, which
//!   for a missing second `=` is the length of the input and for a wrong one the byte
//!   before it.

/// Go's `base64.CorruptInputError`: the input is not base64, blamed on the byte at this
/// offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal base64 data at input byte {0}")]
pub struct CorruptInputError(pub usize);

/// The value of a digit of the standard alphabet.
fn digit(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

fn is_newline(c: u8) -> bool {
    c == b'\n' || c == b'\r'
}

/// Decodes `src` as `base64.StdEncoding.Decode` does: the bytes, or the error Go returns
/// first.
pub fn decode_std(src: &[u8]) -> Result<Vec<u8>, CorruptInputError> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut at = 0;
    while at < src.len() {
        at = group(src, at, &mut out)?;
    }
    Ok(out)
}

/// Decodes the group of four digits (newlines skipped) that starts at `at`, appending its
/// bytes to `out`: where the next group starts, or the error.
fn group(src: &[u8], mut at: usize, out: &mut Vec<u8>) -> Result<usize, CorruptInputError> {
    let mut digits = [0u8; 4];
    let mut count = 0;
    while count < 4 {
        let Some(&c) = src.get(at) else {
            // The input ends inside a group: Go blames the position `count` bytes back
            // (newlines included in what it steps over).
            return if count == 0 {
                Ok(at)
            } else {
                Err(CorruptInputError(at - count))
            };
        };
        at += 1;
        if let Some(d) = digit(c) {
            if let Some(slot) = digits.get_mut(count) {
                *slot = d;
            }
            count += 1;
            continue;
        }
        if is_newline(c) {
            continue;
        }
        if c != b'=' || count < 2 {
            return Err(CorruptInputError(at - 1));
        }
        // Padding: after two digits a second `=` must follow (newlines between).
        if count == 2 {
            while src.get(at).copied().is_some_and(is_newline) {
                at += 1;
            }
            match src.get(at) {
                None => return Err(CorruptInputError(src.len())),
                Some(b'=') => at += 1,
                Some(_) => return Err(CorruptInputError(at - 1)),
            }
        }
        while src.get(at).copied().is_some_and(is_newline) {
            at += 1;
        }
        if at < src.len() {
            // Something after the padding.
            return Err(CorruptInputError(at));
        }
        push(&digits, count - 1, out);
        return Ok(at);
    }
    push(&digits, 3, out);
    Ok(at)
}

/// Appends the first `bytes` bytes the digits encode (the rest of their bits ignored).
fn push(digits: &[u8; 4], bytes: usize, out: &mut Vec<u8>) {
    let [a, b, c, d] = digits.map(u32::from);
    let v = a << 18 | b << 12 | c << 6 | d;
    let all = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
    out.extend(all.iter().take(bytes));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Result<Vec<u8>, usize> {
        decode_std(s.as_bytes()).map_err(|e| e.0)
    }

    /// Go's own test table (`encoding/base64` `TestDecodeCorrupt`, the standard encoding):
    /// the offset of each corrupt input, or success.
    #[test]
    fn corrupt_inputs_are_blamed_where_go_blames_them() {
        let cases: &[(&str, Option<usize>)] = &[
            ("", None),
            ("\n", None),
            ("AAA=\n", None),
            ("AAAA\n", None),
            ("!!!!", Some(0)),
            ("====", Some(0)),
            ("x===", Some(1)),
            ("=AAA", Some(0)),
            ("A=AA", Some(1)),
            ("AA=A", Some(2)),
            ("AA==A", Some(4)),
            ("AAA=AAAA", Some(4)),
            ("AAAAA", Some(4)),
            ("AAAAAA", Some(4)),
            ("A=", Some(1)),
            ("A==", Some(1)),
            ("AA=", Some(3)),
            ("AA==", None),
            ("AAA=", None),
            ("AAAA", None),
            ("AAAAAA=", Some(7)),
            ("YWJjZA=====", Some(8)),
            ("A!\n", Some(1)),
            ("A=\n", Some(1)),
        ];
        for (input, want) in cases {
            assert_eq!(dec(input).err(), *want, "{input:?}");
        }
    }

    /// Decoded bytes, newlines skipped, and the unused bits of the last digit ignored (Go's
    /// standard encoding is not strict).
    #[test]
    fn decodes_what_go_decodes() {
        assert_eq!(dec("YWJj").unwrap(), b"abc");
        assert_eq!(dec("YWJjZA==").unwrap(), b"abcd");
        assert_eq!(dec("YWJjZGU=").unwrap(), b"abcde");
        assert_eq!(dec("YW\r\nJj\nZA=\n=\n").unwrap(), b"abcd");
        assert_eq!(dec("YR==").unwrap(), b"a");
        assert_eq!(dec("YWJ=").unwrap(), b"ab");
        assert_eq!(dec("Cg==").unwrap(), b"\n");
        assert_eq!(dec("+/+/").unwrap(), [0xfb, 0xff, 0xbf]);
        // URL-safe digits are not in the standard alphabet.
        assert_eq!(dec("-_-_"), Err(0));
        assert_eq!(dec("YWJj\nZA"), Err(5));
        assert_eq!(
            CorruptInputError(4).to_string(),
            "illegal base64 data at input byte 4"
        );
    }
}
