//! IP addresses and prefixes with the behaviour of Go's `net/netip`, which the Kubernetes IP
//! and CIDR libraries are built on: what `ParseAddr` and `ParsePrefix` accept and the errors
//! they report (word for word, including which problem is reported first), the text forms
//! `Addr.String` and `Prefix.String` produce (RFC 5952 for IPv6, `::ffff:a.b.c.d` for
//! IPv4-mapped addresses), and the classification, masking and containment predicates.

use std::fmt::{self, Write as _};

/// An IP address: IPv4 (4 bytes) or IPv6 (16 bytes, possibly an IPv4-mapped one). Zones are
/// reported by [`parse_addr`] apart from the address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Addr {
    /// An IPv4 address.
    V4([u8; 4]),
    /// An IPv6 address.
    V6([u8; 16]),
}

/// An IP prefix: an address (host bits kept as written) and a prefix length that fits the
/// address family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prefix {
    addr: Addr,
    bits: u8,
}

/// Why `ParseAddr` rejected a string; displays as Go's `parseAddrError`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddrError {
    input: Vec<u8>,
    msg: &'static str,
    at: Vec<u8>,
}

/// Why `ParsePrefix` rejected a string; displays as Go's `parsePrefixError`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrefixError {
    input: String,
    msg: String,
}

impl AddrError {
    fn new(input: &[u8], msg: &'static str, at: impl AsRef<[u8]>) -> Self {
        AddrError {
            input: input.to_vec(),
            msg,
            at: at.as_ref().to_vec(),
        }
    }
}

impl fmt::Display for AddrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ParseAddr({}): {}", quote_bytes(&self.input), self.msg)?;
        if !self.at.is_empty() {
            write!(f, " (at {})", quote_bytes(&self.at))?;
        }
        Ok(())
    }
}

impl std::error::Error for AddrError {}

impl PrefixError {
    fn new(input: &str, msg: impl Into<String>) -> Self {
        PrefixError {
            input: input.to_string(),
            msg: msg.into(),
        }
    }
}

impl fmt::Display for PrefixError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "netip.ParsePrefix({}): {}", quote(&self.input), self.msg)
    }
}

impl std::error::Error for PrefixError {}

/// Parses an address as `netip.ParseAddr` does: dotted-decimal IPv4 (exactly four fields,
/// no leading zeros), or IPv6 with an optional embedded IPv4 tail and an optional `%zone`.
/// The form is chosen by the first `.`, `:` or `%` in the text. Returns the address and its
/// zone (IPv6 only, never empty).
pub fn parse_addr(s: &str) -> Result<(Addr, Option<&str>), AddrError> {
    let (addr, zone) = parse_addr_bytes(s.as_bytes())?;
    // The zone is what follows the first `%`, so it is a suffix of the text.
    let zone = zone.and_then(|z| s.get(s.len() - z.len()..));
    Ok((addr, zone))
}

/// [`parse_addr`] of bytes that need not be UTF-8 (as Go's strings need not be).
pub fn parse_addr_bytes(s: &[u8]) -> Result<(Addr, Option<&[u8]>), AddrError> {
    match s.iter().find(|b| matches!(b, b'.' | b':' | b'%')) {
        Some(b'.') => ipv4_fields(s, s).map(|a| (Addr::V4(a), None)),
        Some(b':') => parse_ipv6(s),
        Some(_) => Err(AddrError::new(s, "missing IPv6 address", b"")),
        None => Err(AddrError::new(s, "unable to parse IP", b"")),
    }
}

/// Reads the four dotted-decimal fields of `part`, a suffix of `input` (errors name `input`).
fn ipv4_fields(input: &[u8], part: &[u8]) -> Result<[u8; 4], AddrError> {
    let bytes = part;
    let rest_at = |i: usize| part.get(i..).unwrap_or_default();
    let mut fields = [0u8; 4];
    let mut done = 0usize;
    let mut value: u32 = 0;
    let mut digits = 0usize;
    let mut previous: Option<u8> = None;
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                if digits == 1 && value == 0 {
                    return Err(AddrError::new(
                        input,
                        "IPv4 field has octet with leading zero",
                        "",
                    ));
                }
                value = value * 10 + u32::from(c - b'0');
                digits += 1;
                if value > 255 {
                    return Err(AddrError::new(input, "IPv4 field has value >255", ""));
                }
            }
            b'.' => {
                if previous.is_none() || previous == Some(b'.') || i + 1 == bytes.len() {
                    return Err(AddrError::new(
                        input,
                        "IPv4 field must have at least one digit",
                        rest_at(i),
                    ));
                }
                match fields.get_mut(done) {
                    Some(slot) if done < 3 => *slot = u8::try_from(value).unwrap_or(u8::MAX),
                    _ => return Err(AddrError::new(input, "IPv4 address too long", "")),
                }
                done += 1;
                value = 0;
                digits = 0;
            }
            _ => {
                return Err(AddrError::new(input, "unexpected character", rest_at(i)));
            }
        }
        previous = Some(c);
    }
    if done < 3 {
        return Err(AddrError::new(input, "IPv4 address too short", ""));
    }
    if let Some(last) = fields.last_mut() {
        *last = u8::try_from(value).unwrap_or(u8::MAX);
    }
    Ok(fields)
}

/// Parses an IPv6 address with an optional zone.
fn parse_ipv6(input: &[u8]) -> Result<(Addr, Option<&[u8]>), AddrError> {
    let (text, zone) = match input.iter().position(|&b| b == b'%') {
        Some(i) => match (input.get(..i), input.get(i + 1..)) {
            (Some(text), Some(zone)) if !zone.is_empty() => (text, Some(zone)),
            _ => {
                return Err(AddrError::new(
                    input,
                    "zone must be a non-empty string",
                    b"",
                ))
            }
        },
        None => (input, None),
    };
    let mut bytes = [0u8; 16];
    // Where the `::` stands, as a byte offset into the address.
    let mut ellipsis: Option<usize> = None;
    let mut rest = text;
    if let Some(after) = rest.strip_prefix(b"::") {
        ellipsis = Some(0);
        rest = after;
        if rest.is_empty() {
            return Ok((Addr::V6(bytes), zone));
        }
    }
    let mut filled = 0usize;
    while filled < 16 {
        let digits = rest.iter().take_while(|b| b.is_ascii_hexdigit()).count();
        if digits > 4 {
            return Err(AddrError::new(
                input,
                "each group must have 4 or less digits",
                rest,
            ));
        }
        if digits == 0 {
            return Err(AddrError::new(
                input,
                "each colon-separated field must have at least one digit",
                rest,
            ));
        }
        let (group, after) = rest.split_at_checked(digits).unwrap_or((rest, b""));
        if after.starts_with(b".") {
            if ellipsis.is_none() && filled != 12 {
                return Err(AddrError::new(
                    input,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    rest,
                ));
            }
            if filled + 4 > 16 {
                return Err(AddrError::new(
                    input,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    rest,
                ));
            }
            let v4 = ipv4_fields(input, rest)?;
            if let Some(slot) = bytes.get_mut(filled..filled + 4) {
                slot.copy_from_slice(&v4);
            }
            filled += 4;
            rest = b"";
            break;
        }
        let value = group.iter().fold(0u16, |acc, &d| {
            let digit = char::from(d).to_digit(16).unwrap_or_default();
            (acc << 4) | u16::try_from(digit).unwrap_or_default()
        });
        if let Some(slot) = bytes.get_mut(filled..filled + 2) {
            slot.copy_from_slice(&value.to_be_bytes());
        }
        filled += 2;
        rest = after;
        if rest.is_empty() {
            break;
        }
        rest = match rest.strip_prefix(b":") {
            None => {
                return Err(AddrError::new(
                    input,
                    "unexpected character, want colon",
                    rest,
                ))
            }
            Some([]) => {
                return Err(AddrError::new(
                    input,
                    "colon must be followed by more characters",
                    rest,
                ))
            }
            Some(after_colon) => after_colon,
        };
        if let Some(after_ellipsis) = rest.strip_prefix(b":") {
            if ellipsis.is_some() {
                return Err(AddrError::new(input, "multiple :: in address", rest));
            }
            ellipsis = Some(filled);
            rest = after_ellipsis;
            if rest.is_empty() {
                break;
            }
        }
    }
    if !rest.is_empty() {
        return Err(AddrError::new(
            input,
            "trailing garbage after address",
            rest,
        ));
    }
    if filled < 16 {
        let Some(at) = ellipsis else {
            return Err(AddrError::new(input, "address string too short", ""));
        };
        // Move the groups written after the `::` to the end; zeros fill the gap.
        let gap = 16 - filled;
        let mut expanded = [0u8; 16];
        for (k, b) in bytes.iter().enumerate().take(filled) {
            let to = if k < at { k } else { k + gap };
            if let Some(slot) = expanded.get_mut(to) {
                *slot = *b;
            }
        }
        bytes = expanded;
    } else if ellipsis.is_some() {
        return Err(AddrError::new(
            input,
            "the :: must expand to at least one field of zeros",
            "",
        ));
    }
    Ok((Addr::V6(bytes), zone))
}

/// Parses a prefix as `netip.ParsePrefix` does: an address (no zone), `/`, and a decimal
/// prefix length without sign or leading zeros that fits the family. Host bits are kept.
pub fn parse_prefix(s: &str) -> Result<Prefix, PrefixError> {
    let Some((addr_text, bits_text)) = s.rsplit_once('/') else {
        return Err(PrefixError::new(s, "no '/'"));
    };
    let (addr, zone) = parse_addr(addr_text).map_err(|e| PrefixError::new(s, e.to_string()))?;
    if matches!(addr, Addr::V6(_)) && zone.is_some() {
        return Err(PrefixError::new(
            s,
            "IPv6 zones cannot be present in a prefix",
        ));
    }
    let bad_bits = || PrefixError::new(s, format!("bad bits after slash: {}", quote(bits_text)));
    let digits = bits_text.as_bytes();
    let well_formed = match digits {
        [] => false,
        [only] => only.is_ascii_digit(),
        [first, more @ ..] => (b'1'..=b'9').contains(first) && more.iter().all(u8::is_ascii_digit),
    };
    if !well_formed {
        return Err(bad_bits());
    }
    // Lengths beyond a 64-bit integer fail to convert; other large lengths are out of range.
    let bits: i64 = bits_text.parse().map_err(|_| bad_bits())?;
    match u8::try_from(bits) {
        Ok(b) if u32::from(b) <= addr.bit_len() => Ok(Prefix { addr, bits: b }),
        _ => Err(PrefixError::new(s, "prefix length out of range")),
    }
}

impl Addr {
    /// The number of bits of the address: 32 or 128 (also for IPv4-mapped IPv6 addresses).
    pub fn bit_len(&self) -> u32 {
        match self {
            Addr::V4(_) => 32,
            Addr::V6(_) => 128,
        }
    }

    /// True for an IPv4 address.
    pub fn is_4(&self) -> bool {
        matches!(self, Addr::V4(_))
    }

    /// True for an IPv6 address (including IPv4-mapped ones).
    pub fn is_6(&self) -> bool {
        matches!(self, Addr::V6(_))
    }

    /// True for an IPv4-mapped IPv6 address (in `::ffff:0:0/96`).
    pub fn is_4in6(&self) -> bool {
        self.mapped_v4().is_some()
    }

    /// The IPv4 address an IPv4-mapped IPv6 address wraps.
    fn mapped_v4(&self) -> Option<[u8; 4]> {
        match self {
            Addr::V6([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d]) => {
                Some([*a, *b, *c, *d])
            }
            _ => None,
        }
    }

    /// The address with an IPv4-mapped IPv6 address turned into its IPv4 address.
    pub fn unmap(self) -> Addr {
        match self.mapped_v4() {
            Some(v4) => Addr::V4(v4),
            None => self,
        }
    }

    /// The address as an integer, most significant byte first.
    fn to_u128(self) -> u128 {
        match self {
            Addr::V4(b) => u128::from(u32::from_be_bytes(b)),
            Addr::V6(b) => u128::from_be_bytes(b),
        }
    }

    /// The address of this family with the given integer value.
    fn with_u128(self, value: u128) -> Addr {
        match self {
            Addr::V4(_) => Addr::V4(u32::try_from(value).unwrap_or(u32::MAX).to_be_bytes()),
            Addr::V6(_) => Addr::V6(value.to_be_bytes()),
        }
    }

    /// The address with all but the first `bits` bits cleared.
    fn mask(self, bits: u8) -> Addr {
        let width = self.bit_len();
        let keep = u32::from(bits).min(width);
        let ones = if width == 32 {
            u128::from(u32::MAX)
        } else {
            u128::MAX
        };
        let host = ones.checked_shr(keep).unwrap_or(0) & ones;
        self.with_u128(self.to_u128() & !host & ones)
    }

    /// `0.0.0.0` or `::` (an IPv4-mapped `::ffff:0.0.0.0` is not).
    pub fn is_unspecified(&self) -> bool {
        *self == Addr::V4([0; 4]) || *self == Addr::V6([0; 16])
    }

    /// `127.0.0.0/8` or `::1`.
    pub fn is_loopback(&self) -> bool {
        match self.unmap() {
            Addr::V4([a, ..]) => a == 127,
            Addr::V6(b) => u128::from_be_bytes(b) == 1,
        }
    }

    /// `224.0.0.0/4` or `ff00::/8`.
    pub fn is_multicast(&self) -> bool {
        match self.unmap() {
            Addr::V4([a, ..]) => a & 0xf0 == 0xe0,
            Addr::V6([a, ..]) => a == 0xff,
        }
    }

    /// `224.0.0.0/24`, or an IPv6 multicast address of link-local scope (`ff02::/16`, with
    /// any flags: `ffX2::/16`).
    pub fn is_link_local_multicast(&self) -> bool {
        match self.unmap() {
            Addr::V4([a, b, c, _]) => a == 224 && b == 0 && c == 0,
            Addr::V6([a, b, ..]) => a == 0xff && b & 0x0f == 0x02,
        }
    }

    /// `169.254.0.0/16` or `fe80::/10`.
    pub fn is_link_local_unicast(&self) -> bool {
        match self.unmap() {
            Addr::V4([a, b, ..]) => a == 169 && b == 254,
            Addr::V6([a, b, ..]) => a == 0xfe && b & 0xc0 == 0x80,
        }
    }

    /// Neither unspecified, the IPv4 broadcast address, loopback, multicast nor link-local
    /// unicast (private and unique-local addresses count as global unicast).
    pub fn is_global_unicast(&self) -> bool {
        let ip = self.unmap();
        if ip == Addr::V4([0; 4]) || ip == Addr::V4([255; 4]) {
            return false;
        }
        ip != Addr::V6([0; 16])
            && !ip.is_loopback()
            && !ip.is_multicast()
            && !ip.is_link_local_unicast()
    }
}

impl fmt::Display for Addr {
    /// Dotted decimal for IPv4, `::ffff:a.b.c.d` for IPv4-mapped IPv6, otherwise RFC 5952:
    /// lowercase hex without leading zeros, the first longest run of two or more zero groups
    /// written as `::`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some([a, b, c, d]) = self.mapped_v4() {
            return write!(f, "::ffff:{a}.{b}.{c}.{d}");
        }
        let bytes = match self {
            Addr::V4([a, b, c, d]) => return write!(f, "{a}.{b}.{c}.{d}"),
            Addr::V6(bytes) => bytes,
        };
        let groups: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|p| match p {
                [hi, lo] => u16::from_be_bytes([*hi, *lo]),
                _ => 0,
            })
            .collect();
        // The longest run of zero groups (the first of equal ones), if two or more long.
        let mut best: Option<(usize, usize)> = None;
        let mut start = 0;
        while start < groups.len() {
            let len = groups.iter().skip(start).take_while(|g| **g == 0).count();
            if len >= 2 && best.is_none_or(|(_, l)| len > l) {
                best = Some((start, len));
            }
            start += len.max(1);
        }
        let mut out = String::with_capacity(39);
        let mut i = 0;
        while i < groups.len() {
            match best {
                Some((s, len)) if s == i => {
                    out.push_str("::");
                    i += len;
                    continue;
                }
                _ => {}
            }
            if i > 0 && !out.ends_with(':') {
                out.push(':');
            }
            let _ = write!(out, "{:x}", groups.get(i).copied().unwrap_or_default());
            i += 1;
        }
        f.write_str(&out)
    }
}

impl Prefix {
    /// The address as written (host bits included).
    pub fn addr(&self) -> Addr {
        self.addr
    }

    /// The prefix length.
    pub fn bits(&self) -> u8 {
        self.bits
    }

    /// The prefix with the host bits of its address cleared.
    pub fn masked(&self) -> Prefix {
        Prefix {
            addr: self.addr.mask(self.bits),
            bits: self.bits,
        }
    }

    /// True when `ip` is of the same family and in the network. An IPv4 address is never in
    /// an IPv6 prefix, nor an IPv4-mapped IPv6 address in an IPv4 prefix.
    pub fn contains(&self, ip: Addr) -> bool {
        self.addr.bit_len() == ip.bit_len() && ip.mask(self.bits) == self.addr.mask(self.bits)
    }

    /// True when the two prefixes (of the same family) have addresses in common.
    pub fn overlaps(&self, other: &Prefix) -> bool {
        if self == other {
            return true;
        }
        if self.addr.is_4() != other.addr.is_4() {
            return false;
        }
        let bits = self.bits.min(other.bits);
        self.addr.mask(bits) == other.addr.mask(bits)
    }
}

impl fmt::Display for Prefix {
    /// `<address>/<length>`, the address as [`Addr`] displays it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.bits)
    }
}

use crate::strconv::{quote, quote_bytes};
