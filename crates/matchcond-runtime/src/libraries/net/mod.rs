//! The Kubernetes IP and CIDR libraries (`kubernetes.net.ip`, `kubernetes.net.cidr`,
//! kubernetes/apiserver `pkg/cel/library/ip.go` and `cidr.go`, Kubernetes 1.30+) and their
//! opaque types `net.IP` and `net.CIDR`.
//!
//! Parsing follows Go's `net/netip` (see [`matchcond_gocompat::netip`]) with the Kubernetes restrictions: an
//! address with a zone or an IPv4-mapped IPv6 address is rejected; a prefix keeps its host
//! bits (`cidr('10.0.0.1/8').ip()` is `10.0.0.1`). Error messages are the library's own,
//! including the doubled prefix of `cidr()` errors.

#[cfg(test)]
mod tests;

use std::any::Any;
use std::sync::Arc;

use matchcond_front::Type;

use super::definition::{fixed_member, function, global, member, Definition, Library};
use super::support::unary;
use crate::cost::{Cost, Estimate};
use crate::error::{ErrorKind, EvalError};
use crate::value::{Opaque, Value};

use matchcond_gocompat::netip::{self, Addr, Prefix};
use matchcond_gocompat::strconv::quote;

/// The type name of IP address values.
pub const IP_TYPE: &str = "net.IP";
/// The type name of CIDR values.
pub const CIDR_TYPE: &str = "net.CIDR";

/// A `net.IP` value: an IPv4 or IPv6 address, never zoned nor IPv4-mapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ip(pub Addr);

/// A `net.CIDR` value: an address (with its host bits) and a prefix length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr(pub Prefix);

impl Opaque for Ip {
    fn type_name(&self) -> &'static str {
        IP_TYPE
    }

    /// Same family and same address.
    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<Ip>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    /// The address length in bytes: 4 or 16.
    fn cost_size(&self) -> Option<u64> {
        Some(u64::from(self.0.bit_len()).div_ceil(8))
    }

    /// The canonical text (`string(ip)`).
    fn text(&self) -> String {
        self.0.to_string()
    }
}

impl Opaque for Cidr {
    fn type_name(&self) -> &'static str {
        CIDR_TYPE
    }

    /// Same address (host bits included) and same prefix length.
    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<Cidr>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    /// The prefix length in bytes, rounded up (`/0` is 0, `/24` is 3).
    fn cost_size(&self) -> Option<u64> {
        Some(u64::from(self.0.bits()).div_ceil(8))
    }

    /// The text `<address>/<length>` (`string(cidr)`).
    fn text(&self) -> String {
        self.0.to_string()
    }
}

fn ip() -> Type {
    Type::named(IP_TYPE)
}

fn cidr() -> Type {
    Type::named(CIDR_TYPE)
}

/// The IP library, from Kubernetes 1.30: `ip(string)`, `isIP(string)`,
/// `ip.isCanonical(string)`, the members `family`, `isUnspecified`, `isLoopback`,
/// `isLinkLocalMulticast`, `isLinkLocalUnicast`, `isGlobalUnicast`, and `string(net.IP)`.
pub(crate) fn ip_library() -> Definition {
    Definition::new(Library::K8sIp)
        .types([(IP_TYPE, ip())])
        .functions([
            function(
                "ip",
                [global("string_to_ip", [Type::String], ip(), string_to_ip)],
            )
            .estimate_by(Estimate::StringTraversal),
            fixed_member("family", "ip_family", [ip()], Type::Int, ip_family),
            function(
                "ip.isCanonical",
                [global(
                    "ip_is_canonical",
                    [Type::String],
                    Type::Bool,
                    ip_is_canonical,
                )],
            )
            .estimate_by(Estimate::StringTraversalTwice),
            fixed_member(
                "isUnspecified",
                "ip_is_unspecified",
                [ip()],
                Type::Bool,
                ip_is_unspecified,
            ),
            fixed_member(
                "isLoopback",
                "ip_is_loopback",
                [ip()],
                Type::Bool,
                ip_is_loopback,
            ),
            fixed_member(
                "isLinkLocalMulticast",
                "ip_is_link_local_multicast",
                [ip()],
                Type::Bool,
                ip_is_link_local_multicast,
            ),
            fixed_member(
                "isLinkLocalUnicast",
                "ip_is_link_local_unicast",
                [ip()],
                Type::Bool,
                ip_is_link_local_unicast,
            ),
            fixed_member(
                "isGlobalUnicast",
                "ip_is_global_unicast",
                [ip()],
                Type::Bool,
                ip_is_global_unicast,
            ),
            function("isIP", [global("is_ip", [Type::String], Type::Bool, is_ip)])
                .estimate_by(Estimate::StringTraversal),
            function(
                "string",
                [global("ip_to_string", [ip()], Type::String, ip_to_string)],
            ),
        ])
}

/// The CIDR library, from Kubernetes 1.30: `cidr(string)`, `isCIDR(string)`, the members
/// `containsIP(string | net.IP)`, `containsCIDR(string | net.CIDR)`, `ip()`, `masked()`,
/// `prefixLength()`, and `string(net.CIDR)`. It registers only its own type.
pub(crate) fn cidr_library() -> Definition {
    let parsing = |parses_string| Estimate::ContainsIp { parses_string };
    let cidr_parsing = |parses_string| Estimate::ContainsCidr { parses_string };
    Definition::new(Library::K8sCidr)
        .types([(CIDR_TYPE, cidr())])
        .functions([
            function(
                "cidr",
                [global(
                    "string_to_cidr",
                    [Type::String],
                    cidr(),
                    string_to_cidr,
                )],
            )
            .estimate_by(Estimate::StringTraversal),
            function(
                "containsIP",
                [
                    member(
                        "cidr_contains_ip_string",
                        [cidr(), Type::String],
                        Type::Bool,
                        cidr_contains_ip_string,
                    )
                    .cost_rule(Cost::ONE.estimated(parsing(true))),
                    member(
                        "cidr_contains_ip_ip",
                        [cidr(), ip()],
                        Type::Bool,
                        cidr_contains_ip_ip,
                    ),
                ],
            )
            .estimate_by(parsing(false)),
            function(
                "containsCIDR",
                [
                    member(
                        "cidr_contains_cidr_string",
                        [cidr(), Type::String],
                        Type::Bool,
                        cidr_contains_cidr_string::<true>,
                    )
                    .by_behaviours(|b| {
                        if b.cidr_contains_by_overlap {
                            cidr_contains_cidr_string::<true>
                        } else {
                            cidr_contains_cidr_string::<false>
                        }
                    })
                    .cost_rule(Cost::ONE.estimated(cidr_parsing(true))),
                    member(
                        "cidr_contains_cidr",
                        [cidr(), cidr()],
                        Type::Bool,
                        cidr_contains_cidr::<true>,
                    )
                    .by_behaviours(|b| {
                        if b.cidr_contains_by_overlap {
                            cidr_contains_cidr::<true>
                        } else {
                            cidr_contains_cidr::<false>
                        }
                    }),
                ],
            )
            .estimate_by(cidr_parsing(false)),
            // The estimator prices `ip` as a parse, but this overload as a field access.
            function(
                "ip",
                [member("cidr_ip", [cidr()], ip(), cidr_ip)
                    .cost_rule(Cost::ONE.estimated(Estimate::Fixed(1)))],
            )
            .estimate_by(Estimate::StringTraversal),
            fixed_member(
                "prefixLength",
                "cidr_prefix_length",
                [cidr()],
                Type::Int,
                cidr_prefix_length,
            ),
            fixed_member("masked", "cidr_masked", [cidr()], cidr(), cidr_masked),
            function(
                "isCIDR",
                [global("is_cidr", [Type::String], Type::Bool, is_cidr)],
            )
            .estimate_by(Estimate::StringTraversal),
            function(
                "string",
                [global(
                    "cidr_to_string",
                    [cidr()],
                    Type::String,
                    cidr_to_string,
                )],
            ),
        ])
}

/// Parses an IP address as the library does: `netip.ParseAddr`, then no zone and no
/// IPv4-mapped IPv6 address. The error is the library's message.
pub fn parse_ip(raw: &str) -> Result<Addr, String> {
    let (addr, zone) = netip::parse_addr(raw).map_err(|e| {
        format!(
            "IP Address {} parse error during conversion from string: {e}",
            quote(raw)
        )
    })?;
    if zone.is_some() {
        return Err(format!(
            "IP address {} with zone value is not allowed",
            quote(raw)
        ));
    }
    if addr.is_4in6() {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            quote(raw)
        ));
    }
    Ok(addr)
}

/// Parses a CIDR as the library's helper does: `netip.ParsePrefix`, then no IPv4-mapped IPv6
/// address; host bits are allowed. The error is the helper's message, which `cidr()` prefixes
/// once more.
pub fn parse_cidr(raw: &str) -> Result<Prefix, String> {
    let prefix = netip::parse_prefix(raw)
        .map_err(|e| format!("network address parse error during conversion from string: {e}"))?;
    if prefix.addr().is_4in6() {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            quote(raw)
        ));
    }
    Ok(prefix)
}

fn ip_value<'a>(addr: Addr) -> Value<'a> {
    Value::Opaque(Arc::new(Ip(addr)))
}

fn cidr_value<'a>(prefix: Prefix) -> Value<'a> {
    Value::Opaque(Arc::new(Cidr(prefix)))
}

fn as_ip(v: &Value<'_>) -> Option<Addr> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<Ip>().map(|ip| ip.0),
        _ => None,
    }
}

fn as_cidr(v: &Value<'_>) -> Option<Prefix> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<Cidr>().map(|c| c.0),
        _ => None,
    }
}

/// A failed conversion, with the library's message.
fn parse_error(message: String) -> EvalError {
    EvalError::new(ErrorKind::InvalidArgument, message)
}

/// The error of `cidr()` (and of `containsCIDR` given a string): the helper's message with
/// the conversion prefix once more.
fn cidr_error(message: String) -> EvalError {
    parse_error(format!(
        "network address parse error during conversion from string: {message}"
    ))
}

/// The error of `containsIP` given a string that is not an IP address: the library discards
/// the parse error and answers a bare "no such overload" (an error of its own, not a type
/// mismatch: no other overload is tried).
fn discarded_parse_error() -> EvalError {
    EvalError::new(ErrorKind::Other, "no such overload")
}

fn string_to_ip<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s)] => parse_ip(s).map(ip_value).map_err(parse_error),
        _ => Err(EvalError::no_such_overload("ip", args)),
    }
}

fn is_ip<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s)] => Ok(Value::Bool(parse_ip(s).is_ok())),
        _ => Err(EvalError::no_such_overload("isIP", args)),
    }
}

fn ip_is_canonical<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s)] => {
            let addr = parse_ip(s).map_err(parse_error)?;
            Ok(Value::Bool(addr.to_string() == s.as_str()))
        }
        _ => Err(EvalError::no_such_overload("ip.isCanonical", args)),
    }
}

/// Applies an address predicate to the single `net.IP` argument.
fn ip_predicate<'a>(
    function: &str,
    args: &[Value<'a>],
    test: fn(&Addr) -> bool,
) -> Result<Value<'a>, EvalError> {
    unary(function, args, |v| {
        as_ip(v).map(|addr| Value::Bool(test(&addr)))
    })
}

fn ip_family<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    unary("family", args, |v| {
        as_ip(v).map(|addr| match addr {
            Addr::V4(_) => Value::Int(4),
            Addr::V6(_) => Value::Int(6),
        })
    })
}

fn ip_is_unspecified<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    ip_predicate("isUnspecified", args, Addr::is_unspecified)
}

fn ip_is_loopback<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    ip_predicate("isLoopback", args, Addr::is_loopback)
}

fn ip_is_link_local_multicast<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    ip_predicate("isLinkLocalMulticast", args, Addr::is_link_local_multicast)
}

fn ip_is_link_local_unicast<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    ip_predicate("isLinkLocalUnicast", args, Addr::is_link_local_unicast)
}

fn ip_is_global_unicast<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    ip_predicate("isGlobalUnicast", args, Addr::is_global_unicast)
}

fn ip_to_string<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    unary("string", args, |v| {
        as_ip(v).map(|addr| Value::string(addr.to_string()))
    })
}

fn string_to_cidr<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s)] => parse_cidr(s).map(cidr_value).map_err(cidr_error),
        _ => Err(EvalError::no_such_overload("cidr", args)),
    }
}

fn is_cidr<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [Value::String(s)] => Ok(Value::Bool(parse_cidr(s).is_ok())),
        _ => Err(EvalError::no_such_overload("isCIDR", args)),
    }
}

fn cidr_contains_ip_string<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [c, Value::String(s)] => match as_cidr(c) {
            Some(prefix) => match parse_ip(s) {
                Ok(addr) => Ok(Value::Bool(prefix.contains(addr))),
                Err(_) => Err(discarded_parse_error()),
            },
            None => Err(EvalError::no_such_overload("containsIP", args)),
        },
        _ => Err(EvalError::no_such_overload("containsIP", args)),
    }
}

fn cidr_contains_ip_ip<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    match args {
        [c, ip] => match (as_cidr(c), as_ip(ip)) {
            (Some(prefix), Some(addr)) => Ok(Value::Bool(prefix.contains(addr))),
            _ => Err(EvalError::no_such_overload("containsIP", args)),
        },
        _ => Err(EvalError::no_such_overload("containsIP", args)),
    }
}

/// True when `outer` contains the whole of `inner`. Before Kubernetes 1.32 (`!OVERLAPS`) the
/// library compared `outer.Masked()` with `PrefixFrom(inner.Addr(), outer.Bits())`, which
/// only an inner address equal to the outer network address passes
/// (`cidr('::/0').containsCIDR('fe80::/10')` and `/64` of a host address in itself are false).
fn contains_cidr<const OVERLAPS: bool>(outer: &Prefix, inner: &Prefix) -> bool {
    if OVERLAPS {
        outer.overlaps(inner) && outer.bits() <= inner.bits()
    } else {
        outer.masked().addr() == inner.addr() && outer.bits() <= inner.bits()
    }
}

fn cidr_contains_cidr_string<'a, const OVERLAPS: bool>(
    args: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    match args {
        [c, Value::String(s)] => match as_cidr(c) {
            Some(outer) => {
                let inner = parse_cidr(s).map_err(cidr_error)?;
                Ok(Value::Bool(contains_cidr::<OVERLAPS>(&outer, &inner)))
            }
            None => Err(EvalError::no_such_overload("containsCIDR", args)),
        },
        _ => Err(EvalError::no_such_overload("containsCIDR", args)),
    }
}

fn cidr_contains_cidr<'a, const OVERLAPS: bool>(
    args: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    match args {
        [c, other] => match (as_cidr(c), as_cidr(other)) {
            (Some(outer), Some(inner)) => {
                Ok(Value::Bool(contains_cidr::<OVERLAPS>(&outer, &inner)))
            }
            _ => Err(EvalError::no_such_overload("containsCIDR", args)),
        },
        _ => Err(EvalError::no_such_overload("containsCIDR", args)),
    }
}

/// Applies a function to the single `net.CIDR` argument.
fn cidr_accessor<'a>(
    function: &str,
    args: &[Value<'a>],
    get: fn(Prefix) -> Value<'a>,
) -> Result<Value<'a>, EvalError> {
    unary(function, args, |v| as_cidr(v).map(get))
}

fn cidr_ip<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    cidr_accessor("ip", args, |p| ip_value(p.addr()))
}

fn cidr_prefix_length<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    cidr_accessor("prefixLength", args, |p| Value::Int(i64::from(p.bits())))
}

fn cidr_masked<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    cidr_accessor("masked", args, |p| cidr_value(p.masked()))
}

fn cidr_to_string<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    cidr_accessor("string", args, |p| Value::string(p.to_string()))
}
